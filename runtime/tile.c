/* tile.c — tile views (docs/language.md §5): LEN consecutive values of a digit of a view's mapping, as a new view. */
#include "algebra/algebra.h"
#include "rt_impl.h"

#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

/* The digit a mapping denotes: base X, stride s and count m (an axis, or a chain of / and %). */
typedef struct Digit {
    const Map *base;
    uint64_t stride, count;
} Digit;

static bool as_digit(const Map *e, Digit *d)
{
    d->count = e->size;
    d->base = map_digit_root(e, &d->stride);
    return e->kind == MAP_SYM || e->kind == MAP_STRIDE || e->kind == MAP_MOD;
}

typedef struct Tiling {
    RtContext *rt;
    Digit want;             /* the tile's index digit */
    uint64_t len;
    PadKind kind;
    bool found;
    uint64_t bufstride;     /* buffer positions per step of the digit */
    const char *error;      /* set when the walk fails */
} Tiling;

/* X / stride % count as a checked mapping (omitting the operators that would be identities). */
static const Map *digit_map(Tiling *t, const Map *x, uint64_t stride, uint64_t count)
{
    MapWhy why;
    Arena *a = &t->rt->prog->arena;
    const Map *m = x;
    if (stride > 1)
        m = map_make_op(a, MAP_STRIDE, PAD_TOP, m, stride, x->loc, why);
    if (m && m->size != count)
        m = map_make_op(a, MAP_MOD, PAD_TOP, m, count, x->loc, why);
    if (!m)
        t->error = arena_printf(a, "%s", why);
    return m;
}

/* If the digit node e contains the wanted digit, returns e split as [high, I = LEN # |I|, low]. */
static const Map *split(Tiling *t, const Map *e, uint64_t scale)
{
    Digit d;
    as_digit(e, &d);
    int same = eval_same_base(t->rt->ev, d.base, t->want.base);
    if (same < 0) {
        t->error = arena_printf(&t->rt->prog->arena, "%s", eval_error(t->rt->ev));
        return NULL;
    }
    if (!same || t->want.stride % d.stride)
        return e;
    uint64_t k = t->want.stride / d.stride, m = t->want.count;
    if (d.count % k || (d.count / k) % m)
        return e;
    uint64_t high = d.count / k / m;
    Arena *a = &t->rt->prog->arena;
    MapWhy why;
    const Map *mid;
    if (t->len == 1 && m > 1 && d.base->kind == MAP_SYM) {
        /* one value of a symbol's digit contributes nothing: 1 # m, with no truncating resize */
        mid = map_make_bcast(a, 1, e->loc, why);
        mid = mid ? map_make_op(a, MAP_PAD, t->kind, mid, m, e->loc, why) : NULL;
    } else {
        mid = digit_map(t, d.base, d.stride * k, m);
        if (mid && t->len < m)
            mid = map_make_op(a, MAP_RESIZE, PAD_TOP, mid, t->len, e->loc, why);
        if (mid && t->len < m)
            mid = map_make_op(a, MAP_PAD, t->kind, mid, m, e->loc, why);
    }
    const Map *out = mid;
    if (out && k > 1) {
        const Map *low = digit_map(t, d.base, d.stride, k);
        out = low ? map_make_pair(a, out, low, e->loc, why) : NULL;
    }
    if (out && high > 1) {
        const Map *hi = digit_map(t, d.base, d.stride * k * m, high);
        out = hi ? map_make_pair(a, hi, out, e->loc, why) : NULL;
    }
    if (!out && !t->error)
        t->error = arena_printf(a, "%s", why);
    t->found = true;
    t->bufstride = scale * k;
    return out;
}

/* Rewrites e (whose positions step the buffer by scale) with the first matching digit split out. */
static const Map *rewrite(Tiling *t, const Map *e, uint64_t scale)
{
    MapWhy why;
    Arena *a = &t->rt->prog->arena;
    switch (e->kind) {
    case MAP_SYM:
    case MAP_STRIDE:
    case MAP_MOD:
        return split(t, e, scale);
    case MAP_BCAST:
        return e;
    case MAP_PAIR: {
        const Map *l = rewrite(t, e->l, u64_sat_mul(scale, e->r->size));
        if (!l)
            return NULL;
        if (t->found)
            return l == e->l ? e : map_make_pair(a, l, e->r, e->loc, why);
        const Map *r = rewrite(t, e->r, scale);
        if (!r)
            return NULL;
        return r == e->r ? e : map_make_pair(a, e->l, r, e->loc, why);
    }
    case MAP_RESIZE:
    case MAP_PAD: {
        const Map *l = rewrite(t, e->l, scale);
        if (!l)
            return NULL;
        return l == e->l ? e : map_make_op(a, e->kind, e->pad, l, e->n, e->loc, why);
    }
    }
    return e;
}

static char *show(RtContext *rt, const Map *m)
{
    size_t n = map_format(rt->prog, m, NULL, 0);
    char *s = arena_alloc(&rt->prog->arena, n + 1);
    map_format(rt->prog, m, s, n + 1);
    return s;
}

const Map *rt_tile_map(RtContext *rt, const Map *m, const Map *index, uint64_t len, PadKind kind, uint64_t *bufstride)
{
    Tiling t = {.rt = rt, .len = len, .kind = kind};
    if (!as_digit(index, &t.want)) {
        rt_fail(rt, "the tile index %s is not a digit (an axis, or / and %% applied to one base)", show(rt, index));
        return NULL;
    }
    if (t.want.base->kind != MAP_SYM) {
        rt_fail(rt, "the tile index %s is a digit of a composite base, whose values are not a range of one axis",
                show(rt, index));
        return NULL;
    }
    if (len == 0 || len > t.want.count) {
        rt_fail(rt, "a tile of %llu values of %s does not fit in its %llu values", U(len), show(rt, index),
                U(t.want.count));
        return NULL;
    }
    const Map *e2 = rewrite(&t, m, 1);
    if (t.error || !e2) {
        rt_fail(rt, "cannot tile %s along %s: %s", show(rt, m), show(rt, index),
                t.error ? t.error : "the tile mapping is invalid");
        return NULL;
    }
    if (!t.found) {
        rt_fail(rt, "%s is not a digit of the view's mapping %s", show(rt, index), show(rt, m));
        return NULL;
    }
    *bufstride = t.bufstride;
    return e2;
}

/* Whether index is a digit of m (nothing is reported). */
static bool has_digit(RtContext *rt, const Map *m, const Map *index, uint64_t len, PadKind kind)
{
    Tiling t = {.rt = rt, .len = len, .kind = kind};
    if (!as_digit(index, &t.want) || t.want.base->kind != MAP_SYM || len == 0 || len > t.want.count)
        return false;
    const Map *e2 = rewrite(&t, m, 1);
    return e2 && !t.error && t.found;
}

/* rt_tile on dimension dim of v (-1: the first dimension holding the digit). */
static int tile_dim(RtContext *rt, const RtView *v, int dim, const Map *index, uint64_t len, uint64_t start,
                    const Map *expect, RtView *out)
{
    if (!v || !v->tensor || !v->map || !index || !out)
        return rt_fail(rt, "a view, the tile index or the result is missing");
    const RtTensor *tn = v->tensor;
    int nd = tn->nmaps;
    Digit want;
    if (as_digit(index, &want) && (len == 0 || len > want.count || start > want.count - len))
        return rt_fail(rt, "a tile of %llu values of %s from %llu does not fit in its %llu values", U(len),
                       show(rt, index), U(start), U(want.count));
    PadKind kind = v->writable ? PAD_BOTTOM : PAD_TOP;
    if (dim < 0) { /* the dimension holding the digit: no two hold one digit (the tensor's layout has no overlap) */
        for (int i = 0; i < nd && dim < 0; i++)
            if (has_digit(rt, v->dims[i], index, len, kind))
                dim = i;
        if (dim < 0)
            dim = nd - 1; /* rt_tile_map says why */
    } else if (dim >= nd - 1) {
        return rt_fail(rt, "a %s has no %s mapping to tile", mem_kind_tensor(tn->mem),
                       dim < 3 ? (const char *[]){"Chip", "Cluster", "Slice"}[dim] : "unit");
    }
    uint64_t bufstride;
    const Map *m = v->dims[dim];
    const Map *e2 = rt_tile_map(rt, m, index, len, kind, &bufstride);
    if (!e2)
        return -1;
    /* the tile must start and stay on live cells of the dimension's mapping */
    Cell c = {.coord = calloc((size_t)rt->prog->naxes + 1, sizeof(uint64_t))};
    if (!c.coord)
        return rt_fail_memory(rt, "out of memory");
    uint64_t step = len <= 4096 ? 1 : len - 1;
    for (uint64_t j = 0; j < len; j += step) {
        uint64_t pos = (start + j) * bufstride;
        if (eval_cell(rt->ev, m, pos, &c) != EVAL_OK || c.kind != CELL_LIVE) {
            char buf[64];
            cell_format(rt->prog, &c, buf, sizeof buf);
            free(c.coord);
            return rt_fail(rt, "a tile of %s from %llu lands on %s at position %llu of %s", show(rt, index), U(start),
                           buf, U(pos), show(rt, m));
        }
    }
    free(c.coord);
    if (expect) {
        Eqv *q = eqv_new(rt->prog);
        int same = q ? eqv_same(q, expect, e2) : -1;
        eqv_free(q);
        if (same < 0)
            return rt_fail(rt, "cannot compare the tile mapping %s with the expected %s", show(rt, expect), show(rt, e2));
        if (!same)
            return rt_fail(rt, "the tile mapping %s does not match the expected %s", show(rt, expect), show(rt, e2));
        e2 = expect;
    }
    /* positions of dimension dim step the layout by the sizes of the dimensions after it */
    uint64_t weight = 1;
    for (int i = dim + 1; i < nd; i++)
        weight *= v->dims[i]->size;
    RtView r = *v;
    r.dims[dim] = e2;
    MapWhy why;
    r.map = tensor_layout(&rt->prog->arena, tn->mem, r.dims, why);
    if (!r.map)
        return rt_fail(rt, "the tile's layout: %s", why);
    uint64_t *off = arena_alloc(&rt->prog->arena, ((size_t)rt->prog->naxes + 1) * sizeof *off);
    memcpy(off, v->index_offset, (size_t)rt->prog->naxes * sizeof *off);
    off[want.base->axis] += start * want.stride;
    r.index_offset = off;
    r.pos_offset = v->pos_offset + start * bufstride * weight;
    *out = r;
    return 0;
}

int rt_tile(RtContext *rt, const RtView *v, const Map *index, uint64_t len, uint64_t start, const Map *expect,
            RtView *out)
{
    return tile_dim(rt, v, -1, index, len, start, expect, out);
}

int rt_unit_tile(RtContext *rt, const RtView *v, int dim, const Map *index, uint64_t len, uint64_t start,
                 const Map *expect, RtView *out)
{
    if (dim < 0 || dim > 2)
        return rt_fail(rt, "unit tiles are of the Chip (0), Cluster (1) or Slice (2) mapping, not dimension %d", dim);
    if (v && v->tensor && v->tensor->mem == MEM_HBM && dim > 0)
        return rt_fail(rt, "an HbmTensor has no %s mapping to tile", dim == 1 ? "Cluster" : "Slice");
    return tile_dim(rt, v, v && v->tensor && v->tensor->mem == MEM_HBM ? 0 : dim, index, len, start, expect, out);
}
