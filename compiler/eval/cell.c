/* cell.c — comparing and printing cells (docs/language.md §1). */
#include "eval.h"

#include <stdio.h>
#include <string.h>

const char *cell_kind_name(CellKind k)
{
    switch (k) {
    case CELL_LIVE: return "live";
    case CELL_PAD_TOP: return "pad(top)";
    case CELL_PAD_ZERO: return "pad(zero)";
    case CELL_PAD_BOTTOM: return "pad(bottom)";
    case CELL_OOB: return "oob";
    case CELL_OVERFLOW: return "overflow";
    }
    return "?";
}

bool cell_equal(const Cell *a, const Cell *b, int naxes)
{
    if (a->kind != b->kind)
        return false;
    if (a->kind != CELL_LIVE)
        return true;
    return memcmp(a->coord, b->coord, (size_t)naxes * sizeof *a->coord) == 0;
}

size_t cell_format(const Prog *p, const Cell *c, char *buf, size_t size)
{
    if (c->kind != CELL_LIVE)
        return (size_t)snprintf(buf, size, "%s", cell_kind_name(c->kind));
    size_t n = 0;
    int w = snprintf(buf, size, "{");
    n += (size_t)w;
    bool first = true;
    for (int a = 0; a < p->naxes; a++) {
        if (!c->coord[a])
            continue;
        w = snprintf(n < size ? buf + n : NULL, n < size ? size - n : 0, "%s%s:%llu", first ? "" : ", ",
                     p->axes[a].name, (unsigned long long)c->coord[a]);
        n += (size_t)w;
        first = false;
    }
    w = snprintf(n < size ? buf + n : NULL, n < size ? size - n : 0, "}");
    return n + (size_t)w;
}
