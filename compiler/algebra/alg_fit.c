/* alg_fit.c — finding an m![...] over one axis whose cells are a given sequence of values and paddings. */
#include "alg_ops.h"

#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))
#define MAX_MODES 64
#define MAX_LEAVES 256
#define MAX_STEPS 65536

/* One position digit of the fitted mapping: c values, stride s of the axis; only the first r are live, the
 * others padding of kind k (r == c: no padding). */
typedef struct Mode {
    uint64_t c, s, r;
    AlgPad k;
} Mode;

typedef struct Fit {
    AlgCtx *ctx;
    int x;
    const Map *over;        /* not NULL: the values are positions of this mapping, its digits the fitted ones */
    const AlgVal *top;      /* the whole sequence, for the check */
    uint64_t topn;
    Mode modes[MAX_MODES];  /* minor first */
    int nmodes;
    int leaves;             /* candidate mappings checked so far */
    int steps;              /* blocks tried so far */
    uint64_t work, work_cap; /* values examined so far, and at most (a bound on the time an unfittable sequence takes) */
    const Map *found;
} Fit;

/* lcm(a, b) into *out; false past 2^62. */
static bool lcm(uint64_t a, uint64_t b, uint64_t *out)
{
    uint64_t g = u64_gcd(a, b), q = a / g;
    if (q && b > (UINT64_C(1) << 62) / q)
        return false;
    *out = q * b;
    return true;
}

/* The digit `B / s % n` of base b, without the identity operators. */
static const Map *digit(Arena *a, const Map *b, uint64_t s, uint64_t n, MapWhy why)
{
    const Map *m = b;
    if (s > 1 && m)
        m = map_make_op(a, MAP_STRIDE, PAD_TOP, m, s, (Loc){0}, why);
    if (m && m->size != n)
        m = map_make_op(a, m->size % n ? MAP_RESIZE : MAP_MOD, PAD_TOP, m, n, (Loc){0}, why);
    return m;
}

/* Builds the mapping of f's modes over a base padded with kind bk, normalizes it and checks it against the
 * whole sequence; sets f->found when it matches. With resize, a digit whose count does not divide what its
 * stride leaves of the base is written `B / s = c` (the base then only needs to be a multiple of the strides);
 * otherwise every digit is `B / s % c`. */
static void try_leaf(Fit *f, AlgPad bk, bool resize)
{
    if (f->leaves++ >= MAX_LEAVES)
        return;
    AlgCtx *c = f->ctx;
    Arena *a = &c->prog->arena;
    MapWhy why;
    uint64_t xs = f->over ? f->over->size : c->prog->axes[f->x].size, L = 1, maxval = 0;
    for (int i = 0; i < f->nmodes; i++) {
        const Mode *m = &f->modes[i];
        uint64_t cnt = m->r;
        if (m->s == 0 || cnt == 1)
            continue;
        if (m->s > (UINT64_C(1) << 62) / cnt || !lcm(L, resize ? m->s : m->s * cnt, &L))
            return;
        maxval += (cnt - 1) * m->s;
    }
    uint64_t need = maxval + 1 > xs ? maxval + 1 : xs;
    uint64_t M = (need + L - 1) / L * L;
    const Map *base = f->over ? f->over : map_make_sym(a, f->x, xs, (Loc){0}, why);
    if (M != xs)
        base = map_make_op(a, MAP_PAD, bk, base, M, (Loc){0}, why);
    const Map *r = NULL;
    for (int i = 0; i < f->nmodes && base; i++) { /* minor first: each new mode goes on the major side */
        const Mode *m = &f->modes[i];
        const Map *d = m->s == 0 || m->r == 1 ? map_make_bcast(a, m->r, (Loc){0}, why) : digit(a, base, m->s, m->r, why);
        if (d && m->r < m->c)
            d = map_make_op(a, MAP_PAD, m->k, d, m->c, (Loc){0}, why);
        if (!d)
            return;
        r = r ? map_make_pair(a, d, r, (Loc){0}, why) : d;
        if (!r)
            return;
    }
    if (!base)
        return;
    if (!r)
        r = map_make_bcast(a, 1, (Loc){0}, why);
    const Map *n = norm_map(a, r);
    uint64_t at;
    if (n && (f->over ? alg_matches_over(c, n, f->over, f->top, f->topn, &at)
                      : alg_matches(c, n, f->top, f->topn, f->x, &at)))
        f->found = n;
    else if (n)
        f->work += 8 * (at + 1); /* a candidate checked this far: interpreting a cell costs more than a scan */
}

/* Fits v[0..n) (v[0] live, the base of the blocks found so far) from the minor side, depth first. */
static void fit_rec(Fit *f, const AlgVal *v, uint64_t n)
{
    if (f->found || f->leaves >= MAX_LEAVES || f->steps++ >= MAX_STEPS || f->work > f->work_cap)
        return;
    if (n == 1) {
        if (v[0] != 0)
            return;
        bool kinds[4] = {false};
        for (uint64_t i = 0; i < f->topn; i++)
            if (f->top[i] < 0)
                kinds[-f->top[i]] = true;
        for (int resize = 1; resize >= 0 && !f->found; resize--) {
            try_leaf(f, PAD_TOP, resize);
            for (int k = PAD_ZERO; k <= PAD_BOTTOM && !f->found; k++)
                if (kinds[k])
                    try_leaf(f, (AlgPad)k, resize);
        }
        return;
    }
    if (f->nmodes >= MAX_MODES || v[0] < 0)
        return;
    AlgVal *b = malloc((size_t)n * sizeof *b);
    if (!b)
        return;
    for (uint64_t c = n; c >= 2 && !f->found && f->leaves < MAX_LEAVES && f->work <= f->work_cap; c--) {
        if (n % c)
            continue;
        uint64_t q = n / c;
        /* Variant A: every block affine with stride s; paddings must come from decoding past the axis. */
        uint64_t i1 = 1;
        while (i1 < c && v[i1] < 0)
            i1++;
        if (i1 < c && v[i1] % (AlgVal)i1 == 0) {
            AlgVal s = v[i1] / (AlgVal)i1;
            bool ok = true;
            for (uint64_t j = 0; j < q && ok; j++) {
                AlgVal base = v[j * c];
                bool have = false;
                f->work += c;
                for (uint64_t i = 0; i < c && ok; i++) {
                    AlgVal w = v[j * c + i];
                    if (w < 0)
                        continue;
                    AlgVal bb = w - (AlgVal)i * s;
                    if (bb < 0 || (have && bb != base))
                        ok = false;
                    base = bb;
                    have = true;
                }
                b[j] = have ? base : v[j * c];
            }
            if (ok) {
                f->modes[f->nmodes++] = (Mode){c, (uint64_t)s, c, PAD_TOP};
                fit_rec(f, b, q);
                f->nmodes--;
            }
        }
        if (f->found)
            break;
        /* Variant B: the first r values of every block live, the rest padding of one kind. */
        uint64_t r = 1;
        while (r < c && v[r] >= 0)
            r++;
        if (r < c) {
            AlgVal k = v[r], s = r >= 2 ? v[1] : 0;
            bool ok = true;
            for (uint64_t j = 0; j < q && ok; j++) {
                const AlgVal *w = v + j * c;
                f->work += c;
                b[j] = w[0];
                if (w[0] < 0) /* a padded block: its own padding, or a major one */
                    continue;
                /* the live part may decode past the axis (checked with the whole mapping) */
                for (uint64_t i = 0; i < c && ok; i++)
                    ok = i < r ? w[i] < 0 || w[i] == w[0] + (AlgVal)i * s : w[i] == k;
            }
            if (ok && s >= 0) {
                f->modes[f->nmodes++] = (Mode){c, (uint64_t)s, r, (AlgPad)-k};
                fit_rec(f, b, q);
                f->nmodes--;
            }
        }
    }
    free(b);
}

const Map *alg_fit(AlgCtx *c, const AlgVal *v, uint64_t n, int x, const char *what)
{
    Fit f = {.ctx = c, .x = x, .top = v, .topn = n, .work_cap = 64 * n + 4096};
    fit_rec(&f, v, n);
    if (!f.found && n > 1 && v[n - 1] < 0) {
        /* Trailing padding of one kind: fit the live prefix, then pad it. */
        uint64_t l = n;
        while (l > 0 && v[l - 1] == v[n - 1])
            l--;
        if (l > 0) {
            Fit g = {.ctx = c, .x = x, .top = v, .topn = l, .work_cap = 64 * l + 4096};
            fit_rec(&g, v, l);
            if (g.found) {
                MapWhy why;
                const Map *m = map_make_op(&c->prog->arena, MAP_PAD, (AlgPad)-v[n - 1], g.found, n, (Loc){0}, why);
                uint64_t at;
                if (m && (m = norm_map(&c->prog->arena, m)) && alg_matches(c, m, v, n, x, &at))
                    f.found = m;
            }
        }
    }
    if (!f.found)
        return alg_fail(c, ALG_ERR_UNEXPRESSIBLE, "no m![...] over %s has the %llu cells of %s",
                        c->prog->axes[x].name, U(n), what);
    return f.found;
}

const Map *alg_fit_over(AlgCtx *c, const AlgVal *v, uint64_t n, const Map *over, const char *what)
{
    Fit f = {.ctx = c, .x = -1, .over = over, .top = v, .topn = n, .work_cap = 64 * n + 4096};
    fit_rec(&f, v, n);
    if (!f.found)
        return alg_fail(c, ALG_ERR_UNEXPRESSIBLE, "no m![...] made of digits of the mapping has the %llu cells of %s",
                        U(n), what);
    return f.found;
}

bool alg_matches_over(AlgCtx *c, const Map *m, const Map *over, const AlgVal *v, uint64_t n, uint64_t *at)
{
    *at = 0;
    if (m->size != n)
        return false;
    int na = c->prog->naxes;
    uint64_t *c1 = calloc((size_t)na + 1, sizeof *c1), *c2 = calloc((size_t)na + 1, sizeof *c2);
    bool ok = c1 && c2;
    Cell x = {.coord = c1}, y = {.coord = c2};
    for (uint64_t p = 0; p < n && ok; p++) {
        *at = p;
        ok = eval_cell(c->ev, m, p, &x) == EVAL_OK;
        if (ok && v[p] < 0)
            ok = x.kind == (CellKind)-v[p];
        else if (ok)
            ok = eval_cell(c->ev, over, (uint64_t)v[p], &y) == EVAL_OK && cell_equal(&x, &y, na);
    }
    free(c1);
    free(c2);
    return ok;
}
