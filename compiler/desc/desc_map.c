/* desc_map.c — converting a checked descriptor into an equivalent mapping expression. */
#include "desc.h"

#include <assert.h>
#include <stdlib.h>

#define U(x) ((unsigned long long)(x))

/* A conversion in progress: nodes go to p's arena, the first error to diags at loc. */
typedef struct Build {
    Prog *p;
    Diags *diags;
    Loc loc;
    bool failed;
} Build;

static void fail(Build *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(Build *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    diag_verror(b->diags, b->loc, fmt, ap);
    va_end(ap);
    b->failed = true;
}

/* One node with its size and depth computed and checked (the parser's static rules hold by
 * construction; only a size over 64 bits or a nesting over MAPC_MAX_DEPTH can fail). */
static const Map *mk(Build *b, MapKind kind, const Map *l, const Map *r, uint64_t n)
{
    if (b->failed || (kind != MAP_BCAST && kind != MAP_SYM && !l) || (kind == MAP_PAIR && !r))
        return NULL;
    uint64_t size = n;
    switch (kind) {
    case MAP_PAIR:
        if (!u64_mul(l->size, r->size, &size)) {
            fail(b, "the layout's size %llu x %llu overflows 64 bits", U(l->size), U(r->size));
            return NULL;
        }
        break;
    case MAP_STRIDE:
        assert(n >= 1 && l->size % n == 0);
        size = l->size / n;
        break;
    case MAP_MOD:
        assert(n >= 1 && l->size % n == 0);
        break;
    case MAP_RESIZE:
        assert(n >= 1 && n <= l->size);
        break;
    case MAP_PAD:
        assert(n >= l->size);
        break;
    case MAP_BCAST:
    case MAP_SYM:
        break;
    }
    uint32_t depth = 1;
    if (l && l->depth + 1 > depth)
        depth = l->depth + 1;
    if (r && r->depth + 1 > depth)
        depth = r->depth + 1;
    if (depth > MAPC_MAX_DEPTH) {
        fail(b, "the layout's mapping would nest deeper than %d levels", MAPC_MAX_DEPTH);
        return NULL;
    }
    Map *m = arena_alloc(&b->p->arena, sizeof *m);
    m->kind = kind;
    m->pad = PAD_TOP;
    m->l = l;
    m->r = r;
    m->n = kind == MAP_PAIR ? 0 : n;
    m->size = size;
    m->depth = depth;
    m->loc = b->loc;
    return m;
}

static const Map *sym(Build *b, int axis)
{
    Map *m = (Map *)mk(b, MAP_SYM, NULL, NULL, b->p->axes[axis].size);
    if (m)
        m->axis = axis;
    return m;
}

static const Map *one(Build *b) { return mk(b, MAP_BCAST, NULL, NULL, 1); }

static bool is_one(const Map *m) { return m->kind == MAP_BCAST && m->n == 1; }

/* L, R without identity broadcasts. */
static const Map *pair(Build *b, const Map *l, const Map *r)
{
    if (!l || !r)
        return NULL;
    if (is_one(l))
        return r;
    if (is_one(r))
        return l;
    return mk(b, MAP_PAIR, l, r, 0);
}

/* The digit X / stride % count, written naturally: NULL (nothing) for count 1, no "/ 1",
 * and no "% count" when it is the whole rest of X. */
static const Map *digit(Build *b, const Map *x, uint64_t stride, uint64_t count)
{
    if (!x || count == 1)
        return NULL;
    if (stride > 1)
        x = mk(b, MAP_STRIDE, x, NULL, stride);
    if (x && x->size != count)
        x = mk(b, MAP_MOD, x, NULL, count);
    return x;
}

/* The pair list of the non-NULL maps, v[0] most major (v[n-1] with reversed), followed by
 * tail (may be NULL); 1 if there is nothing. One flat list reads naturally: m![M / 2, N / 4, M % 2, N % 4]. */
static const Map *seq(Build *b, const Map *const *v, int n, bool reversed, const Map *tail)
{
    const Map *acc = tail;
    for (int k = 0; k < n; k++) {
        const Map *m = v[reversed ? k : n - 1 - k];
        if (m)
            acc = acc ? pair(b, m, acc) : m;
    }
    return acc ? acc : one(b);
}

/* Strided placement: digit v[i] (extent n[i]) at offset stride s[i]. Dimensions of extent 1
 * are dropped; the rest, by increasing stride, are each placed past the span (footprint) of
 * the faster ones, the span resized or padded up to the stride. Zero strides and a dimension
 * starting inside the span of the faster ones (overlapping or interleaved offsets) cannot be
 * a mapping expression: an error says why. The result's size is the exact footprint. */
static const Map *place(Build *b, const Map *const *v, const uint64_t *n, const uint64_t *s, int rank,
                        const int *axes, const char *what)
{
    int *ord = mem_alloc((size_t)(rank + 1) * sizeof *ord);
    int k = 0;
    for (int i = 0; i < rank; i++) {
        if (n[i] <= 1)
            continue;
        int j = k++;
        while (j > 0 && s[ord[j - 1]] > s[i]) {
            ord[j] = ord[j - 1];
            j--;
        }
        ord[j] = i;
    }
    const Map *acc = NULL;
    uint64_t foot = 1;
    for (int j = 0; j < k && !b->failed; j++) {
        int i = ord[j];
        const char *ax = b->p->axes[axes[i]].name;
        if (s[i] == 0) {
            fail(b, "%s stride 0 for axis %s (extent %llu) puts %llu elements at one offset; a mapping expression "
                 "gives each position at most one index", what, ax, U(n[i]), U(n[i]));
            break;
        }
        if (s[i] < foot) {
            fail(b, "%s stride %llu for axis %s starts inside the span 0..%llu of the axes with smaller strides, so "
                 "their offsets overlap or interleave; a mapping expression needs every axis to start past the span "
                 "of the faster ones", what, U(s[i]), ax, U(foot - 1));
            break;
        }
        uint64_t size = acc ? acc->size : 1;
        if (s[i] < size)
            acc = mk(b, MAP_RESIZE, acc, NULL, s[i]);
        else if (s[i] > size)
            acc = mk(b, MAP_PAD, acc ? acc : one(b), NULL, s[i]);
        acc = acc ? pair(b, v[i], acc) : v[i];
        uint64_t span;
        if (!u64_mul(n[i] - 1, s[i], &span) || __builtin_add_overflow(foot, span, &foot))
            fail(b, "%s strides reach past 64-bit offsets", what);
    }
    free(ord);
    if (b->failed)
        return NULL;
    if (acc && foot < acc->size)
        acc = mk(b, MAP_RESIZE, acc, NULL, foot);
    return acc ? acc : one(b);
}

/* The digits of every axis for a tiled descriptor: per level k, dig[k][i] is the tile digit T_k
 * of axis i (count g[k][i]); edig[i] is the last level's element digit (count tl[i]). */
typedef struct Digits {
    int nlev;
    const DescLevel *lev[DESC_MAX_DEPTH];
    const Map **dig[DESC_MAX_DEPTH];
    uint64_t *g[DESC_MAX_DEPTH];
    const Map **edig;
    uint64_t *tl;
} Digits;

/* Digits of an axis of extent 1: its only coordinate is 0, so a position is live only where
 * every digit is 0, and each digit is the padding 1 # count on its own. (A composite base
 * would do as well, but two such bases of two extent-1 axes can be equivalent, hence one base
 * under docs/language.md §3, and their digits would add up.) */
static void unit_axis_digits(Build *b, int i, Digits *D)
{
    uint64_t cur = 1;
    for (int k = 0; k < D->nlev; k++) {
        uint64_t t = D->lev[k]->tile[i];
        D->g[k][i] = cur / t + (cur % t != 0);
        D->dig[k][i] = D->g[k][i] > 1 ? mk(b, MAP_PAD, one(b), NULL, D->g[k][i]) : NULL;
        cur = t;
    }
    D->tl[i] = cur;
    D->edig[i] = cur > 1 ? mk(b, MAP_PAD, one(b), NULL, cur) : NULL;
}

/* Builds axis i's base and digits. The base C has the mixed radix (g_0, ..., g_{L-1}, t_{L-1}):
 * level 0 pads the axis to whole tiles (A # g_0 t_0); a level whose tile does not divide the
 * enclosing one re-pads the enclosing tile's element digit inside one composite base,
 * C' = [C / t_{k-1}, (C % t_{k-1}) # g_k t_k], so that every digit of the axis stays a digit of
 * one base and a padded element decodes to padding, never to an overflowing coordinate. */
static void axis_digits(Build *b, const Desc *d, int i, Digits *D)
{
    if (d->extent[i] == 1) {
        unit_axis_digits(b, i, D);
        return;
    }
    const Map *c = sym(b, d->axes[i]);
    uint64_t cur = d->extent[i];
    for (int k = 0; k < D->nlev && c; k++) {
        uint64_t t = D->lev[k]->tile[i];
        uint64_t g = cur / t + (cur % t != 0), padded;
        if (!u64_mul(g, t, &padded)) {
            fail(b, "the padded extent of axis %s overflows 64 bits", b->p->axes[d->axes[i]].name);
            return;
        }
        if (padded != cur) {
            if (c->size == cur)
                c = mk(b, MAP_PAD, c, NULL, padded);
            else {
                const Map *hi = digit(b, c, cur, c->size / cur), *lo = digit(b, c, 1, cur);
                c = pair(b, hi, mk(b, MAP_PAD, lo ? lo : one(b), NULL, padded));
            }
        }
        D->g[k][i] = g;
        cur = t;
    }
    if (!c)
        return;
    D->tl[i] = cur;
    uint64_t stride = cur;
    for (int k = D->nlev - 1; k >= 0; k--) {
        D->dig[k][i] = digit(b, c, stride, D->g[k][i]);
        stride *= D->g[k][i]; /* divides |C|: no overflow */
    }
    D->edig[i] = digit(b, c, 1, cur);
}

/* Arranges digits in an order: row-major, column-major or strided. */
static const Map *arrange(Build *b, const Desc *d, DescOrder o, const Map **v, const uint64_t *n,
                          const uint64_t *strides, const char *what)
{
    if (o == DESC_STRIDED)
        return place(b, v, n, strides, d->rank, d->axes, what);
    return seq(b, v, d->rank, o == DESC_COL_MAJOR, NULL);
}

static const Map *inner_map(Build *b, const Desc *d, const Digits *D, const DescLevel *L);

/* The mapping of level k: [outer, inner]. */
static const Map *level_map(Build *b, const Desc *d, const Digits *D, int k)
{
    const DescLevel *L = D->lev[k];
    const Map *in = L->inner == DESC_NESTED ? level_map(b, d, D, k + 1) : inner_map(b, d, D, L);
    if (!in)
        return NULL;
    if (L->outer != DESC_STRIDED)
        return seq(b, D->dig[k], d->rank, L->outer == DESC_COL_MAJOR, in);
    return pair(b, arrange(b, d, L->outer, D->dig[k], D->g[k], L->outer_strides, "outer"), in);
}

/* The last level's element order, padded to a whole tile. */
static const Map *inner_map(Build *b, const Desc *d, const Digits *D, const DescLevel *L)
{
    const Map *in = arrange(b, d, L->inner, D->edig, D->tl, L->inner_strides, "inner");
    if (!in)
        return NULL;
    uint64_t tile_elems = 1;
    for (int i = 0; i < d->rank; i++)
        if (!u64_mul(tile_elems, D->tl[i], &tile_elems)) {
            fail(b, "the number of elements in a tile overflows 64 bits");
            return NULL;
        }
    if (in->size > tile_elems) {
        fail(b, "inner strides reach offset %llu, past the %llu elements of a tile: consecutive tiles would overlap",
             U(in->size - 1), U(tile_elems));
        return NULL;
    }
    if (in->size < tile_elems)
        in = mk(b, MAP_PAD, in, NULL, tile_elems);
    return in;
}

const Map *desc_to_map(Prog *p, const Desc *d, Diags *diags)
{
    Build b = {p, diags, d->loc, false};
    Arena *a = &p->arena;
    if (d->kind == DESC_KIND_STRIDED) {
        const Map **v = arena_alloc(a, (size_t)d->rank * sizeof *v);
        for (int i = 0; i < d->rank; i++)
            v[i] = d->extent[i] > 1 ? sym(&b, d->axes[i]) : NULL;
        return place(&b, v, d->extent, d->strides, d->rank, d->axes, "element");
    }
    Digits D = {0};
    for (const DescLevel *L = d->tiled; L; L = L->inner == DESC_NESTED ? L->nested : NULL) {
        assert(D.nlev < DESC_MAX_DEPTH);
        D.lev[D.nlev] = L;
        D.dig[D.nlev] = arena_alloc(a, (size_t)d->rank * sizeof *D.dig[0]);
        D.g[D.nlev] = arena_alloc(a, (size_t)d->rank * sizeof *D.g[0]);
        D.nlev++;
    }
    D.edig = arena_alloc(a, (size_t)d->rank * sizeof *D.edig);
    D.tl = arena_alloc(a, (size_t)d->rank * sizeof *D.tl);
    for (int i = 0; i < d->rank && !b.failed; i++)
        axis_digits(&b, d, i, &D);
    if (b.failed)
        return NULL;
    const Map *m = level_map(&b, d, &D, 0);
    return b.failed ? NULL : m;
}
