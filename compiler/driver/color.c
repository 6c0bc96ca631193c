/* color.c — diagnostics coloured on terminals: the severity word and the caret (drv_use_color decides). */
#include "driver.h"

#include <string.h>

#define SGR_RESET "\033[0m"

/* The escape sequence of a severity word ("error", "warning", "note") of len bytes; NULL for another word. */
static const char *severity_sgr(const char *w, size_t len)
{
    static const struct {
        const char *word, *sgr;
    } sev[] = {{"error", "\033[1;31m"}, {"warning", "\033[1;35m"}, {"note", "\033[1;36m"}};
    for (size_t i = 0; i < sizeof sev / sizeof *sev; i++)
        if (strlen(sev[i].word) == len && memcmp(sev[i].word, w, len) == 0)
            return sev[i].sgr;
    return NULL;
}

void drv_put_diag(const char *text, FILE *f)
{
    if (!drv_use_color(f)) {
        fputs(text, f);
        return;
    }
    /* line 1 "WHERE: SEVERITY: MESSAGE": the first word that is a severity and ends in ':' is coloured */
    const char *end = strchr(text, '\n');
    size_t first = end ? (size_t)(end - text) + 1 : strlen(text);
    const char *sev = NULL, *sgr = NULL;
    for (const char *p = text; p < text + first && !sev; p++) {
        size_t wl = strcspn(p, ": \n");
        if ((p == text || p[-1] == ' ') && p[wl] == ':' && (sgr = severity_sgr(p, wl)))
            sev = p;
    }
    if (sev) {
        size_t wl = strcspn(sev, ":") + 1;
        fprintf(f, "%.*s%s%.*s" SGR_RESET "%.*s", (int)(sev - text), text, sgr, (int)wl, sev,
                (int)(first - (size_t)(sev - text) - wl), sev + wl);
    } else {
        fwrite(text, 1, first, f);
    }
    /* then the source line, as it is, and the caret line, in green */
    const char *rest = text + first, *caret = strrchr(rest, '^');
    if (!caret) {
        fputs(rest, f);
        return;
    }
    const char *line = caret;
    while (line > rest && line[-1] != '\n')
        line--;
    fprintf(f, "%.*s%.*s\033[1;32m%s" SGR_RESET, (int)(line - rest), rest, (int)(caret - line), line, "^");
    fputs(caret + 1, f);
}
