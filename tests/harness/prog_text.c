/* prog_text.c — mappings, cells and diagnostics as text for test failures (see prog_text.h). */
#include "prog_text.h"
#include "harness.h"

#include <stdlib.h>

/* A two-pass formatter of x (a Map or a Cell of p): writes at most size bytes of text into buf and
 * returns the whole length. */
typedef size_t (*Formatter)(const Prog *p, const void *x, char *buf, size_t size);

static size_t format_map(const Prog *p, const void *x, char *buf, size_t size) { return map_format(p, x, buf, size); }

static size_t format_cell(const Prog *p, const void *x, char *buf, size_t size) { return cell_format(p, x, buf, size); }

/* The text f writes for x, malloc'ed (aborts when out of memory). */
static char *formatted(Formatter f, const Prog *p, const void *x)
{
    size_t n = f(p, x, NULL, 0);
    char *s = malloc(n + 1);
    if (!s)
        abort();
    f(p, x, s, n + 1);
    return s;
}

char *harness_map_text(const Prog *p, const Map *m) { return formatted(format_map, p, m); }

char *harness_cell_text(const Prog *p, const Cell *c) { return formatted(format_cell, p, c); }

void harness_detail_diags(const Prog *p)
{
    for (const Diag *d = p->diags.head; d; d = d->next) {
        size_t n = diag_format(d, NULL, 0);
        char *s = malloc(n + 1);
        if (!s)
            abort();
        diag_format(d, s, n + 1);
        harness_detail("%s", s);
        free(s);
    }
}
