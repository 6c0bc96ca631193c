/* desc_print.c — printing a descriptor back in the language's syntax (tiled![...] / strided![...]). */
#include "desc.h"

#include <stdio.h>

static void numbers(Text *o, const uint64_t *v, int n)
{
    text_printf(o, "[");
    for (int i = 0; i < n; i++)
        text_printf(o, "%s%llu", i ? ", " : "", (unsigned long long)v[i]);
    text_printf(o, "]");
}

static void order(Text *o, DescOrder ord, const uint64_t *strides, int rank)
{
    if (ord == DESC_ROW_MAJOR) {
        text_printf(o, "row_major");
    } else if (ord == DESC_COL_MAJOR) {
        text_printf(o, "col_major");
    } else {
        text_printf(o, "strided");
        numbers(o, strides, rank);
    }
}

/* "tile: [...], outer: ..., inner: ..." of one level and its nested levels. */
static void level(Text *o, const DescLevel *L, int rank)
{
    text_printf(o, "tile: ");
    numbers(o, L->tile, rank);
    text_printf(o, ", outer: ");
    order(o, L->outer, L->outer_strides, rank);
    text_printf(o, ", inner: ");
    if (L->inner == DESC_NESTED) {
        text_printf(o, "tiled![");
        level(o, L->nested, rank);
        text_printf(o, "]");
    } else {
        order(o, L->inner, L->inner_strides, rank);
    }
}

size_t desc_format(const Prog *p, const Desc *d, char *buf, size_t size)
{
    Text o = {buf, size, 0};
    if (size)
        buf[0] = 0;
    text_printf(&o, "%s![shape: [", d->kind == DESC_KIND_TILED ? "tiled" : "strided");
    for (int i = 0; i < d->rank; i++)
        text_printf(&o, "%s%s", i ? ", " : "", p->axes[d->axes[i]].name);
    text_printf(&o, "], ");
    if (d->kind == DESC_KIND_STRIDED) {
        text_printf(&o, "strides: ");
        numbers(&o, d->strides, d->rank);
    } else {
        level(&o, d->tiled, d->rank);
    }
    text_printf(&o, "]");
    return o.n;
}
