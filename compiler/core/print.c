/* print.c — printing a mapping back as valid m![...] source. */
#include "ast.h"

#include <stdio.h>

/* Prints e; brackets a pair that stands where a comma would regroup it. */
static void print(const Prog *p, const Map *e, bool bracket_pair, Text *o)
{
    switch (e->kind) {
    case MAP_SYM:
        text_printf(o, "%s", p->axes[e->axis].name);
        return;
    case MAP_BCAST:
        text_printf(o, "%llu", (unsigned long long)e->n);
        return;
    case MAP_PAIR:
        if (bracket_pair)
            text_printf(o, "[");
        print(p, e->l, true, o);
        text_printf(o, ", ");
        print(p, e->r, false, o);
        if (bracket_pair)
            text_printf(o, "]");
        return;
    case MAP_STRIDE:
    case MAP_MOD:
    case MAP_RESIZE:
    case MAP_PAD: {
        print(p, e->l, true, o);
        static const char *const pad_op[] = {"", "#", "#{0}", "#{!}"};
        const char *op = e->kind == MAP_STRIDE ? "/" : e->kind == MAP_MOD ? "%" : e->kind == MAP_RESIZE ? "=" : pad_op[e->pad];
        text_printf(o, " %s %llu", op, (unsigned long long)e->n);
        return;
    }
    }
}

size_t map_format(const Prog *p, const Map *m, char *buf, size_t size)
{
    Text o = {buf, size, 0};
    if (size)
        buf[0] = 0;
    text_printf(&o, "m![");
    print(p, m, false, &o);
    text_printf(&o, "]");
    return o.n;
}
