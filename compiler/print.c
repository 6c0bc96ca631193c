/* print.c — printing a mapping back as valid m![...] source. */
#include "ast.h"

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

/* Prints e; brackets a pair that stands where a comma would regroup it. */
static void print(const Prog *p, const Map *e, bool bracket_pair, Out *o)
{
    switch (e->kind) {
    case MAP_SYM:
        emit(o, "%s", p->axes[e->axis].name);
        return;
    case MAP_BCAST:
        emit(o, "%llu", (unsigned long long)e->n);
        return;
    case MAP_PAIR:
        if (bracket_pair)
            emit(o, "[");
        print(p, e->l, true, o);
        emit(o, ", ");
        print(p, e->r, false, o);
        if (bracket_pair)
            emit(o, "]");
        return;
    case MAP_STRIDE:
    case MAP_MOD:
    case MAP_RESIZE:
    case MAP_PAD: {
        print(p, e->l, true, o);
        static const char *const pad_op[] = {"", "#", "#{0}", "#{!}"};
        const char *op = e->kind == MAP_STRIDE ? "/" : e->kind == MAP_MOD ? "%" : e->kind == MAP_RESIZE ? "=" : pad_op[e->pad];
        emit(o, " %s %llu", op, (unsigned long long)e->n);
        return;
    }
    }
}

size_t map_format(const Prog *p, const Map *m, char *buf, size_t size)
{
    Out o = {buf, size, 0};
    if (size)
        buf[0] = 0;
    emit(&o, "m![");
    print(p, m, false, &o);
    emit(&o, "]");
    return o.n;
}
