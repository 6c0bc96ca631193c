/* build.c — constructing mapping nodes under the static rules of docs/language.md §2, in one place for the parser's
 * actions and for code that builds mappings itself (tile views, layout descriptors). */
#include "ast.h"

#include <stdio.h>

#define U(x) ((unsigned long long)(x))

/* Allocates a node over checked operands, enforcing the nesting limit. */
static Map *node(Arena *a, MapKind kind, const Map *l, const Map *r, Loc loc, MapWhy why)
{
    uint32_t depth = 1;
    if (l && l->depth + 1 > depth)
        depth = l->depth + 1;
    if (r && r->depth + 1 > depth)
        depth = r->depth + 1;
    if (depth > MAPC_MAX_DEPTH) {
        snprintf(why, MAP_WHY_SIZE, "mapping nested deeper than %d levels", MAPC_MAX_DEPTH);
        return NULL;
    }
    Map *m = arena_alloc(a, sizeof *m);
    m->kind = kind;
    m->l = l;
    m->r = r;
    m->loc = loc;
    m->depth = depth;
    return m;
}

const Map *map_make_sym(Arena *a, int axis, uint64_t axis_size, Loc loc, MapWhy why)
{
    Map *m = node(a, MAP_SYM, NULL, NULL, loc, why);
    if (m) {
        m->axis = axis;
        m->size = axis_size;
    }
    return m;
}

const Map *map_make_bcast(Arena *a, uint64_t n, Loc loc, MapWhy why)
{
    if (n == 0) {
        snprintf(why, MAP_WHY_SIZE, "broadcast 0 is below 1");
        return NULL;
    }
    Map *m = node(a, MAP_BCAST, NULL, NULL, loc, why);
    if (m)
        m->size = m->n = n;
    return m;
}

const Map *map_make_pair(Arena *a, const Map *l, const Map *r, Loc loc, MapWhy why)
{
    uint64_t size;
    if (!u64_mul(l->size, r->size, &size)) {
        snprintf(why, MAP_WHY_SIZE, "size %llu × %llu overflows 64 bits", U(l->size), U(r->size));
        return NULL;
    }
    Map *m = node(a, MAP_PAIR, l, r, loc, why);
    if (m)
        m->size = size;
    return m;
}

const Map *map_make_op(Arena *a, MapKind kind, PadKind pad, const Map *l, uint64_t n, Loc loc, MapWhy why)
{
    uint64_t size = 0;
    switch (kind) {
    case MAP_STRIDE:
        if (n == 0 || l->size % n) {
            snprintf(why, MAP_WHY_SIZE, "stride %llu does not divide size %llu", U(n), U(l->size));
            return NULL;
        }
        size = l->size / n;
        break;
    case MAP_MOD:
        if (n == 0 || l->size % n) {
            snprintf(why, MAP_WHY_SIZE, "modulo %llu does not divide size %llu", U(n), U(l->size));
            return NULL;
        }
        size = n;
        break;
    case MAP_RESIZE:
        if (n == 0) {
            snprintf(why, MAP_WHY_SIZE, "resize 0 is below 1");
            return NULL;
        }
        if (n > l->size) {
            snprintf(why, MAP_WHY_SIZE, "resize %llu exceeds size %llu", U(n), U(l->size));
            return NULL;
        }
        size = n;
        break;
    case MAP_PAD:
        if (n < l->size) {
            snprintf(why, MAP_WHY_SIZE, "padding %llu is below size %llu", U(n), U(l->size));
            return NULL;
        }
        size = n;
        break;
    default:
        snprintf(why, MAP_WHY_SIZE, "not a postfix operator");
        return NULL;
    }
    Map *m = node(a, kind, l, NULL, loc, why);
    if (m) {
        m->n = n;
        m->size = size;
        m->pad = pad;
    }
    return m;
}

const Map *map_digit_root(const Map *e, uint64_t *stride)
{
    uint64_t s = 1;
    while (e->kind == MAP_STRIDE || e->kind == MAP_MOD) {
        if (e->kind == MAP_STRIDE)
            s *= e->n; /* cannot overflow: s·n divides |base| */
        e = e->l;
    }
    *stride = s;
    return e;
}

void map_mark_axes(const Map *m, bool *used)
{
    if (!m)
        return;
    if (m->kind == MAP_SYM)
        used[m->axis] = true;
    map_mark_axes(m->l, used);
    map_mark_axes(m->r, used);
}
