/* driver.c — helpers shared by the mapc commands: file loading, NAME resolution, printing (diagnostics
 * coloured on terminals). */
#include "driver.h"
#include "codegen/codegen.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

int drv_usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "mapc: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'mapc --help'.\n");
    return DRV_EXIT_USAGE;
}

int drv_unknown_option(const char *cmd, const char *arg, const char *const *known)
{
    size_t n = strcspn(arg, "="); /* "--colr=never" is compared as "--colr" */
    Suggest s;
    suggest_init(&s, arg, n);
    for (const char *const *k = known; *k; k++) {
        if (arg[n] == '=' && strlen(*k) == n && memcmp(*k, arg, n) == 0) { /* a known option, a value it lacks */
            fprintf(stderr, "mapc: unknown value '%s' for %.*s of %s\nTry 'mapc %s --help'.\n", arg + n + 1, (int)n, arg,
                    cmd, cmd);
            return DRV_EXIT_USAGE;
        }
        suggest_offer(&s, *k);
    }
    const char *near = s.best;
    fprintf(stderr, "mapc: unknown option '%s' for %s", arg, cmd);
    if (near)
        fprintf(stderr, "; did you mean '%s'?", near);
    fprintf(stderr, "\nTry 'mapc %s --help'.\n", cmd);
    return DRV_EXIT_USAGE;
}

void drv_no_such(const Prog *p, const char *file, const char *what, const char *name, NameKind kind)
{
    fprintf(stderr, "mapc: %s declares no %s '%s'", file, what, name);
    const char *near = prog_suggest(p, name, strlen(name), NAME_BIT(kind));
    if (near) {
        fprintf(stderr, "; did you mean '%s'?\n", near);
        return;
    }
    int n = 0;
    for (const Name *m = p->names; m; m = m->next) /* newest first: listed in declaration order below */
        n += m->kind == kind;
    const char **list = mem_calloc((size_t)n + 1, sizeof *list);
    int i = n;
    for (const Name *m = p->names; m; m = m->next)
        if (m->kind == kind)
            list[--i] = m->name;
    if (n) {
        fprintf(stderr, " (%ss: %s", what, list[0]);
        for (i = 1; i < n; i++)
            fprintf(stderr, ", %s", list[i]);
        fputc(')', stderr);
    }
    fputc('\n', stderr);
    free(list);
}

int drv_no_options(const char *cmd, int argc, char **argv, int from)
{
    static const char *const known[] = {"--help", "--color", NULL};
    for (int i = from; i < argc; i++)
        if (drv_is_option(argv[i]))
            return drv_unknown_option(cmd, argv[i], known);
    return DRV_EXIT_OK;
}

bool drv_is_option(const char *arg) { return arg[0] == '-' && arg[1] && !(arg[1] >= '0' && arg[1] <= '9'); }

/* Reads all of f into a malloc'ed buffer (*len bytes); NULL with errno set when it cannot. */
static char *read_stream(FILE *f, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        errno = ENOMEM;
        return NULL;
    }
    for (;;) {
        if (n == cap) {
            cap *= 2;
            char *b = realloc(buf, cap);
            if (!b) {
                free(buf);
                errno = ENOMEM;
                return NULL;
            }
            buf = b;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        errno = e == EISDIR ? EISDIR : EIO;
        return NULL;
    }
    *len = n;
    return buf;
}

/* Standard input, read once for the whole run (several FILE arguments, or a command loading twice, may be "-"). */
static char *stdin_text;
static size_t stdin_len;

/* The bytes of path ("-": standard input), malloc'ed; NULL with errno set (EISDIR for a directory). */
static char *read_file(const char *path, size_t *len)
{
    if (strcmp(path, "-") == 0) {
        if (!stdin_text && !(stdin_text = read_stream(stdin, &stdin_len)))
            return NULL;
        char *copy = malloc(stdin_len + 1);
        if (!copy) {
            errno = ENOMEM;
            return NULL;
        }
        memcpy(copy, stdin_text, stdin_len);
        *len = stdin_len;
        return copy;
    }
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        errno = EISDIR;
        return NULL;
    }
    char *text = read_stream(f, len);
    int e = errno;
    fclose(f);
    errno = e;
    return text;
}

/* ---- diagnostics, coloured on terminals: the severity word and the caret ---- */

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
    fprintf(f, "%.*s%.*s\033[1;32m^" SGR_RESET, (int)(line - rest), rest, (int)(caret - line), line);
    fputs(caret + 1, f);
}

void drv_print_diags(const Prog *p, const Diag *from)
{
    for (const Diag *d = from ? from : p->diags.head; d; d = d->next) {
        size_t n = diag_format(d, NULL, 0);
        char *s = mem_alloc(n + 1);
        diag_format(d, s, n + 1);
        drv_put_diag(s, stderr);
        free(s);
    }
}

TargetIsa drv_isa = TARGET_ISA_HOST;
TargetCaches drv_caches;
double drv_check_budget;

bool drv_parse_seconds(const char *s, double *seconds)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v > 0 && v <= 1e9) || !isdigit((unsigned char)*s))
        return false;
    *seconds = v;
    return true;
}

Prog *drv_new_prog(TargetIsa isa)
{
    Prog *p = prog_new();
    if (p) {
        prog_set_target(p, isa != TARGET_ISA_HOST ? isa : drv_isa);
        if (drv_caches.l1d)
            prog_set_caches(p, &drv_caches);
        if (drv_check_budget > 0)
            prog_set_check_budget(p, drv_check_budget);
    }
    return p;
}

bool drv_setup_cache(void) { return jit_cache_use_environment(false); }

void drv_cache_warning(void)
{
    char warn[1200];
    if (jit_cache_warning(warn, sizeof warn, true))
        fprintf(stderr, "mapc: warning: %s\n", warn);
}

/* Loads a program from a file (or, with is_source, from text); returns NULL after printing why. */

Prog *drv_load(const char *arg, bool is_source)
{
    return drv_load_into(drv_new_prog(TARGET_ISA_HOST), arg, is_source);
}

Prog *drv_load_into(Prog *p, const char *arg, bool is_source)
{
    if (!p) {
        fprintf(stderr, "mapc: out of memory\n");
        return NULL;
    }
    if (is_source) {
        prog_parse(p, "<command-line>", arg, strlen(arg));
    } else {
        size_t len;
        char *text = read_file(arg, &len);
        if (!text) {
            fprintf(stderr, "mapc: cannot read %s: %s\n", arg, strerror(errno));
            prog_free(p);
            return NULL;
        }
        prog_parse(p, strcmp(arg, "-") == 0 ? "<stdin>" : arg, text, len);
        free(text);
    }
    if (p->diags.count) {
        drv_print_diags(p, NULL);
        prog_free(p);
        return NULL;
    }
    return p;
}

/* Resolves a NAME argument (type name or inline m![...]); prints diagnostics on failure. */
const Map *drv_resolve(Prog *p, const char *name)
{
    int before = p->diags.count;
    const Map *m = prog_parse_map(p, "<command-line>", name);
    if (!m) {
        const Diag *d = p->diags.head;
        for (int i = 0; i < before && d; i++)
            d = d->next;
        if (d)
            drv_print_diags(p, d);
    }
    return m;
}

bool drv_parse_pos(const char *s, uint64_t *out) { return u64_parse(s, strlen(s), out); }

char *drv_fmt_cell(const Prog *p, const Cell *c)
{
    size_t n = cell_format(p, c, NULL, 0);
    char *s = mem_alloc(n + 1);
    cell_format(p, c, s, n + 1);
    return s;
}

int drv_load_named(const char *arg, bool is_source, const char *name, Prog **p, const Map **m)
{
    *p = drv_load(arg, is_source);
    if (!*p)
        return DRV_EXIT_INPUT;
    *m = drv_resolve(*p, name);
    if (!*m) {
        prog_free(*p);
        *p = NULL;
        return DRV_EXIT_INPUT;
    }
    return DRV_EXIT_OK;
}

char *drv_fmt_map(const Prog *p, const Map *m)
{
    size_t n = map_format(p, m, NULL, 0);
    char *s = mem_alloc(n + 1);
    map_format(p, m, s, n + 1);
    return s;
}

DrvColorMode drv_color_mode = DRV_COLOR_AUTO;

bool drv_set_color(const char *mode)
{
    static const char *const names[] = {"auto", "always", "never"};
    for (int i = 0; i < 3; i++)
        if (strcmp(mode, names[i]) == 0) {
            drv_color_mode = (DrvColorMode)i;
            return true;
        }
    return false;
}

bool drv_use_color(FILE *f)
{
    if (drv_color_mode != DRV_COLOR_AUTO)
        return drv_color_mode == DRV_COLOR_ALWAYS;
    const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
    if ((no && *no) || (term && strcmp(term, "dumb") == 0))
        return false;
    return isatty(fileno(f));
}

void drv_truncate(uint64_t n, uint64_t limit, uint64_t *head, uint64_t *tail)
{
    if (!limit || n <= limit) {
        *head = n;
        *tail = 0;
        return;
    }
    *tail = limit / 8 ? limit / 8 : 1;
    *head = limit - *tail;
}

bool drv_mistyped_tensor(const Prog *p, const char *file, const char *name)
{
    size_t len = strlen(name);
    if (prog_lookup(p, name) || !prog_suggest(p, name, len, NAME_BIT(NAME_TENSOR)) ||
        prog_suggest(p, name, len, NAME_BIT(NAME_TYPE)))
        return false;
    drv_no_such(p, file, "type or tensor", name, NAME_TENSOR);
    return true;
}

bool drv_draw_format(const char *path, DrawFormat *f)
{
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/'))
        return false;
    if (strcasecmp(dot, ".svg") == 0)
        *f = DRAW_SVG;
    else if (strcasecmp(dot, ".png") == 0)
        *f = DRAW_PNG;
    else if (strcasecmp(dot, ".html") == 0 || strcasecmp(dot, ".htm") == 0)
        *f = DRAW_HTML;
    else
        return false;
    return true;
}
