/* desc_print.c — printing a descriptor back in the language's syntax (tiled![...] / strided![...]). */
#include "desc.h"

#include <stdio.h>

typedef struct Out {
    char *buf;
    size_t size, n;
} Out;

static void emit(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(Out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(o->n < o->size ? o->buf + o->n : NULL, o->n < o->size ? o->size - o->n : 0, fmt, ap);
    va_end(ap);
    o->n += (size_t)w;
}

static void numbers(Out *o, const uint64_t *v, int n)
{
    emit(o, "[");
    for (int i = 0; i < n; i++)
        emit(o, "%s%llu", i ? ", " : "", (unsigned long long)v[i]);
    emit(o, "]");
}

static void order(Out *o, DescOrder ord, const uint64_t *strides, int rank)
{
    if (ord == DESC_ROW_MAJOR) {
        emit(o, "row_major");
    } else if (ord == DESC_COL_MAJOR) {
        emit(o, "col_major");
    } else {
        emit(o, "strided");
        numbers(o, strides, rank);
    }
}

/* "tile: [...], outer: ..., inner: ..." of one level and its nested levels. */
static void level(Out *o, const DescLevel *L, int rank)
{
    emit(o, "tile: ");
    numbers(o, L->tile, rank);
    emit(o, ", outer: ");
    order(o, L->outer, L->outer_strides, rank);
    emit(o, ", inner: ");
    if (L->inner == DESC_NESTED) {
        emit(o, "tiled![");
        level(o, L->nested, rank);
        emit(o, "]");
    } else {
        order(o, L->inner, L->inner_strides, rank);
    }
}

size_t desc_format(const Prog *p, const Desc *d, char *buf, size_t size)
{
    Out o = {buf, size, 0};
    if (size)
        buf[0] = 0;
    emit(&o, "%s![shape: [", d->kind == DESC_KIND_TILED ? "tiled" : "strided");
    for (int i = 0; i < d->rank; i++)
        emit(&o, "%s%s", i ? ", " : "", p->axes[d->axes[i]].name);
    emit(&o, "], ");
    if (d->kind == DESC_KIND_STRIDED) {
        emit(&o, "strides: ");
        numbers(&o, d->strides, d->rank);
    } else {
        level(&o, d->tiled, d->rank);
    }
    emit(&o, "]");
    return o.n;
}
