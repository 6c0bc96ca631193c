/* place.c — the buffer view of a layout given as axis digits at position weights (CuTe modes, affine and index-map
 * results): the digits split each axis, each starts past the lighter ones' footprint, and the mapping places
 * them; otherwise the error names two coordinates at one position, or the digits no mapping can place. */
#include "interop_impl.h"

#include <stdlib.h>
#include <string.h>

const Map *iop_axis_digit(Prog *p, int a, uint64_t padded, uint64_t stride, uint64_t count, Loc loc, MapWhy why)
{
    const Map *x = map_make_sym(&p->arena, a, p->axes[a].size, loc, why);
    if (x && padded > x->size)
        x = map_make_op(&p->arena, MAP_PAD, PAD_TOP, x, padded, loc, why);
    if (x && stride > 1)
        x = map_make_op(&p->arena, MAP_STRIDE, PAD_TOP, x, stride, loc, why);
    if (x && x->size != count)
        x = map_make_op(&p->arena, MAP_MOD, PAD_TOP, x, count, loc, why);
    return x;
}

const Map *iop_pair(Prog *p, const Map *l, const Map *r, Loc loc, MapWhy why)
{
    if (!l || !r)
        return l ? l : r;
    return map_make_pair(&p->arena, l, r, loc, why);
}

/* The coordinates of an index of the domain as "(2, 0)" (arena text). */
static const char *coords_text(Prog *p, const uint64_t *x, int n)
{
    IopBuf b;
    iop_buf_init(&b, &p->arena);
    iop_buf_printf(&b, "(");
    for (int i = 0; i < n; i++)
        iop_buf_printf(&b, "%s%llu", i ? ", " : "", U(x[i]));
    iop_buf_printf(&b, ")");
    return b.s;
}

/* The position of the index x: the sum of its digits' values times their weights (saturating). */
static uint64_t position(const IopDigit *d, int n, const uint64_t *x)
{
    uint64_t pos = 0;
    for (int k = 0; k < n; k++)
        pos = u64_sat_add(pos, u64_sat_mul(x[d[k].dim] / d[k].stride % d[k].count, d[k].weight));
    return pos;
}

/* Whether indices x and y have the same value in every digit (then the same position). */
static bool same_digits(const IopDigit *d, int n, const uint64_t *x, const uint64_t *y)
{
    for (int k = 0; k < n; k++)
        if (x[d[k].dim] / d[k].stride % d[k].count != y[d[k].dim] / d[k].stride % d[k].count)
            return false;
    return true;
}

/* Reports that indices x and y (distinct) share a position; at is the digit the rule broke at. */
static void not_injective(IopScan *s, const IopDomain *dom, const IopDigit *d, int n, const uint64_t *x,
                          const uint64_t *y, const char *at)
{
    iop_fail(s, at, "%s is not injective: coordinates %s and %s both have %s %llu; a mapping gives each position one "
             "cell (a layout that repeats elements reads as the tiler view)", dom->layout,
             coords_text(s->p, x, dom->n), coords_text(s->p, y, dom->n), dom->offset, U(position(d, n, x)));
}

/* A position and the index (numbered row-major over the domain) at it. */
typedef struct PosAt {
    uint64_t pos, index;
} PosAt;

static int by_pos(const void *a, const void *b)
{
    const PosAt *x = a, *y = b;
    return x->pos != y->pos ? (x->pos < y->pos ? -1 : 1) : (x->index < y->index ? -1 : x->index > y->index);
}

/* Two distinct indices at one position, found by enumerating the indices of the domain (only dimension `only`
 * when it is >= 0, the others 0), at most 2^22 of them: true with them in x and y, x the smaller. */
static bool find_equal(const Prog *p, const IopDomain *dom, const IopDigit *d, int n, int only, uint64_t *x,
                       uint64_t *y)
{
    uint64_t total = 1;
    for (int i = 0; i < dom->n; i++)
        if (only < 0 || i == only)
            total = u64_sat_mul(total, p->axes[dom->axis[i]].size);
    if (total > (UINT64_C(1) << 22))
        return false;
    PosAt *v = mem_alloc((size_t)total * sizeof *v);
    uint64_t *c = mem_calloc((size_t)dom->n + 1, sizeof *c);
    for (uint64_t k = 0; k < total; k++) {
        uint64_t r = k;
        for (int i = dom->n - 1; i >= 0; i--)
            if (only < 0 || i == only) {
                uint64_t sz = p->axes[dom->axis[i]].size;
                c[i] = r % sz;
                r /= sz;
            }
        v[k] = (PosAt){position(d, n, c), k};
    }
    qsort(v, (size_t)total, sizeof *v, by_pos);
    bool found = false;
    for (uint64_t k = 1; k < total && !found; k++) {
        if (v[k].pos != v[k - 1].pos)
            continue;
        uint64_t a = v[k - 1].index, b = v[k].index;
        memset(x, 0, (size_t)dom->n * sizeof *x);
        memset(y, 0, (size_t)dom->n * sizeof *y);
        for (int i = dom->n - 1; i >= 0; i--)
            if (only < 0 || i == only) {
                uint64_t sz = p->axes[dom->axis[i]].size;
                x[i] = a % sz;
                y[i] = b % sz;
                a /= sz;
                b /= sz;
            }
        found = true;
    }
    free(v);
    free(c);
    return found;
}

static int by_stride(const void *a, const void *b)
{
    const IopDigit *x = *(const IopDigit *const *)a, *y = *(const IopDigit *const *)b;
    return x->stride < y->stride ? -1 : x->stride > y->stride;
}

/* Checks that the digits of dimension i split its coordinate exactly and gives the size its base is padded to
 * (the product of their counts); false after the error. */
static bool split_axis(IopScan *s, const IopDomain *dom, IopDigit *d, int n, int i, uint64_t *padded)
{
    Prog *p = s->p;
    uint64_t size = p->axes[dom->axis[i]].size;
    const IopDigit *mine[IOP_MAX_DIGITS];
    int k = 0;
    for (int j = 0; j < n; j++)
        if (d[j].dim == i)
            mine[k++] = &d[j];
    qsort(mine, (size_t)k, sizeof *mine, by_stride);
    uint64_t reach = 1;
    const char *at = NULL;
    for (int j = 0; j < k && reach < size; j++) {
        if (mine[j]->stride > reach) {
            at = mine[j]->at;
            break;
        }
        uint64_t top = u64_sat_mul(mine[j]->stride, mine[j]->count);
        if (top > reach)
            reach = top;
    }
    uint64_t *x = mem_calloc((size_t)dom->n + 1, sizeof *x), *y = mem_calloc((size_t)dom->n + 1, sizeof *y);
    bool ok = true;
    if (reach < size) { /* a value no digit reads: reach and 0 (or two others) share a position */
        y[i] = reach;
        if (same_digits(d, n, x, y) || find_equal(p, dom, d, n, i, x, y))
            not_injective(s, dom, d, n, x, y, at ? at : s->t.s);
        else
            iop_fail(s, at ? at : s->t.s, "%s has no digit that reads %s from %llu on, and others that overlap; a "
                     "mapping splits an axis into disjoint digits", dom->layout, p->axes[dom->axis[i]].name, U(reach));
        ok = false;
    }
    for (int j = 1; j < k && ok; j++) {
        uint64_t below = u64_sat_mul(mine[j - 1]->stride, mine[j - 1]->count);
        if (mine[j]->stride == below)
            continue;
        if (find_equal(p, dom, d, n, i, x, y))
            not_injective(s, dom, d, n, x, y, mine[j]->at);
        else
            iop_fail(s, mine[j]->at, "%s reads part of %s twice: its digit of stride %llu (count %llu) overlaps the "
                     "one of stride %llu (count %llu); a mapping splits an axis into disjoint digits", dom->layout,
                     p->axes[dom->axis[i]].name, U(mine[j]->stride), U(mine[j]->count), U(mine[j - 1]->stride),
                     U(mine[j - 1]->count));
        ok = false;
    }
    free(x);
    free(y);
    *padded = k ? u64_sat_mul(mine[k - 1]->stride, mine[k - 1]->count) : 1;
    return ok;
}

static int by_weight(const void *a, const void *b)
{
    const IopDigit *x = *(const IopDigit *const *)a, *y = *(const IopDigit *const *)b;
    return x->weight < y->weight ? -1 : x->weight > y->weight;
}

uint64_t iop_gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Two indices at one position when digit j starts inside the footprint of the lighter digits ord[0..j): a pair
 * of digits whose multiples meet, else (for at most 2^22 indices) any two found by enumeration (find_equal). */
static bool collision(const Prog *p, const IopDomain *dom, const IopDigit *d, int n, IopDigit *const *ord, int j,
                      uint64_t *x, uint64_t *y)
{
    memset(x, 0, (size_t)dom->n * sizeof *x);
    memset(y, 0, (size_t)dom->n * sizeof *y);
    const IopDigit *b = ord[j];
    for (int i = 0; i < j; i++) {
        const IopDigit *a = ord[i];
        uint64_t g = iop_gcd(a->weight, b->weight), va = b->weight / g, vb = a->weight / g;
        uint64_t ca = u64_sat_mul(va, a->stride), cb = u64_sat_mul(vb, b->stride);
        if (va >= a->count || vb >= b->count || ca >= p->axes[dom->axis[a->dim]].size ||
            cb >= p->axes[dom->axis[b->dim]].size)
            continue;
        x[a->dim] = ca;
        y[b->dim] = cb;
        if (a->dim != b->dim || ca != cb)
            return true;
        x[a->dim] = y[b->dim] = 0;
    }
    return find_equal(p, dom, d, n, -1, x, y);
}

const Map *iop_place(IopScan *s, const IopDomain *dom, IopDigit *d, int n, uint64_t size)
{
    Prog *p = s->p;
    /* drop the digits of one value; clamp the counts to the values the axis has */
    int m = 0;
    for (int j = 0; j < n; j++) {
        uint64_t ax = p->axes[dom->axis[d[j].dim]].size;
        uint64_t vals = d[j].stride >= ax ? 1 : ax / d[j].stride + (ax % d[j].stride != 0);
        if (d[j].count > vals)
            d[j].count = vals;
        if (d[j].count > 1)
            d[m++] = d[j];
    }
    n = m;
    uint64_t padded[IOP_MAX_DIGITS];
    for (int i = 0; i < dom->n; i++)
        if (!split_axis(s, dom, d, n, i, &padded[i]))
            return NULL;
    IopDigit *ord[IOP_MAX_DIGITS];
    for (int j = 0; j < n; j++)
        ord[j] = &d[j];
    qsort(ord, (size_t)n, sizeof *ord, by_weight);
    uint64_t *x = mem_calloc((size_t)dom->n + 1, sizeof *x), *y = mem_calloc((size_t)dom->n + 1, sizeof *y);
    uint64_t foot = 1;
    bool ok = true;
    for (int j = 0; j < n && ok; j++) {
        const IopDigit *g = ord[j];
        if (g->weight == 0) {
            y[g->dim] = g->stride;
            not_injective(s, dom, d, n, x, y, g->at);
            ok = false;
        } else if (g->weight < foot) {
            if (collision(p, dom, d, n, ord, j, x, y))
                not_injective(s, dom, d, n, x, y, g->at);
            else
                iop_fail(s, g->at, "%s is injective but interleaved: a digit of %s (count %llu) has %s stride %llu, "
                         "inside the span 0..%llu of the digits with smaller strides; a mapping places every digit "
                         "past the span of the faster ones", dom->layout, p->axes[dom->axis[g->dim]].name,
                         U(g->count), dom->offset, U(g->weight), U(foot - 1));
            ok = false;
        } else {
            uint64_t span;
            if (!u64_mul(g->count - 1, g->weight, &span) || __builtin_add_overflow(foot, span, &foot))
                ok = iop_fail(s, g->at, "%s reaches past 64-bit %ss", dom->layout, dom->offset);
        }
    }
    free(x);
    free(y);
    if (!ok)
        return NULL;
    if (!size)
        size = foot;
    MapWhy why = "";
    Loc loc = s->t.loc;
    const Map *acc = NULL;
    bool bad = false;
    for (int j = 0; j < n && !bad; j++) {
        const IopDigit *g = ord[j];
        uint64_t have = acc ? acc->size : 1;
        if (g->weight > have)
            acc = map_make_op(&p->arena, MAP_PAD, PAD_TOP, acc ? acc : map_make_bcast(&p->arena, 1, loc, why),
                              g->weight, loc, why);
        else if (g->weight < have)
            acc = map_make_op(&p->arena, MAP_RESIZE, PAD_TOP, acc, g->weight, loc, why);
        bad = have != g->weight && !acc;
        const Map *dg = bad ? NULL : iop_axis_digit(p, dom->axis[g->dim], padded[g->dim], g->stride, g->count, loc, why);
        acc = dg ? iop_pair(p, dg, acc, loc, why) : NULL;
        bad = !acc;
    }
    if (!acc && !bad)
        acc = map_make_bcast(&p->arena, 1, loc, why);
    if (acc && acc->size > size) /* past the size only holes: digits of padded bases beyond their axes */
        acc = map_make_op(&p->arena, MAP_RESIZE, PAD_TOP, acc, size, loc, why);
    if (acc && size > acc->size)
        acc = map_make_op(&p->arena, MAP_PAD, PAD_TOP, acc, size, loc, why);
    if (!acc) {
        iop_fail(s, s->t.s, "%s has no mapping: %s", dom->layout, why);
        return NULL;
    }
    return acc;
}
