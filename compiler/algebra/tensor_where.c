/* tensor_where.c — which layout positions (units and elements) of a declared tensor hold an index. */
#include "algebra.h"

#include <stdio.h>
#include <string.h>

bool *tensor_axis_flags(Prog *p, const TensorDecl *t, const Map *layout)
{
    bool *axes = arena_alloc(&p->arena, (size_t)p->naxes + 1);
    if (t->axes)
        memcpy(axes, t->axes, (size_t)t->axes_n);
    else
        map_mark_axes(layout, axes);
    return axes;
}

int64_t tensor_where(Prog *p, const TensorDecl *t, const uint64_t *idx, uint64_t *out, size_t cap, char *why,
                     size_t size)
{
    MapWhy mwhy;
    const Map *layout = tensor_layout(&p->arena, t->mem, t->maps, mwhy);
    if (!layout) {
        snprintf(why, size, "%s", mwhy);
        return -1;
    }
    bool *axes = tensor_axis_flags(p, t, layout);
    for (int a = 0; a < p->naxes; a++)
        if (!axes[a] && idx[a]) {
            snprintf(why, size, "%s is not an axis of tensor %s, so its coordinate must be 0", p->axes[a].name,
                     t->name);
            return -1;
        }
    Eqv *q = eqv_new(p);
    int64_t n = layout_positions(q, layout, axes, idx, out, cap);
    if (n < 0)
        snprintf(why, size, "cannot decide where tensor %s holds the index: %s", t->name, eqv_error(q));
    eqv_free(q);
    return n < 0 ? -2 : n;
}
