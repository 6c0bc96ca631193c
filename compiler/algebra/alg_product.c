/* alg_product.c — products: CuTe's logical product in the tiler view, and blocked and raked products as substitutions. */
#include "alg_ops.h"

#include <stdlib.h>

#define U(x) ((unsigned long long)(x))
#define MAX_PAIRS 16

const Map *alg_product(AlgCtx *c, const Map *a, int x, const Map *b, int y)
{
    c->code = NULL;
    const Prog *p = c->prog;
    if (y < 0 || y >= p->naxes || x < 0 || x >= p->naxes)
        return alg_fail(c, ALG_ERR_UNDECLARED, "an axis of the product is not declared");
    uint64_t n, no;
    AlgVal *pv = alg_cover_values(c, a, x, PAD_TOP, &n, &no), *bv = NULL, *v = NULL;
    const Map *r = NULL;
    if (!pv)
        return NULL;
    if (p->axes[y].size != no) {
        alg_fail(c, ALG_ERR_SIZE, "|%s| = %llu but the tile has %llu copies in %s", p->axes[y].name,
                 U(p->axes[y].size), U(no), p->axes[x].name);
        goto out;
    }
    uint64_t size;
    if (!u64_mul(b->size, a->size, &size) || size > c->enum_limit) {
        alg_fail(c, ALG_ERR_TOO_LARGE, "the product has %llu × %llu positions, more than the %llu this operation "
                 "enumerates", U(b->size), U(a->size), U(c->enum_limit));
        goto out;
    }
    if (!(bv = alg_values(c, b, y, "the layout of the copies")))
        goto out;
    if (!(v = malloc((size_t)size * sizeof *v + 1))) {
        alg_fail(c, ALG_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (uint64_t j = 0; j < b->size; j++)
        for (uint64_t i = 0; i < a->size; i++)
            v[j * a->size + i] = bv[j] < 0 ? bv[j] : pv[(uint64_t)bv[j] * a->size + i];
    r = alg_fit(c, v, size, x, "the product");
out:
    free(pv);
    free(bv);
    free(v);
    return r;
}

/* `[x # n] / s` or `[x # n] % s` (the base plain x when n = |x|). */
static const Map *fused_digit(AlgCtx *c, int x, uint64_t n, MapKind k, uint64_t s, MapWhy why)
{
    Arena *a = &c->prog->arena;
    uint64_t xs = c->prog->axes[x].size;
    const Map *b = map_make_sym(a, x, xs, (Loc){0}, why);
    if (b && n != xs)
        b = map_make_op(a, MAP_PAD, PAD_TOP, b, n, (Loc){0}, why);
    return b ? map_make_op(a, k, PAD_TOP, b, s, (Loc){0}, why) : NULL;
}

const Map *alg_blocked_product(AlgCtx *c, const Map *g, const Map *t, int n, const int *x, const int *xo,
                               const int *xi, bool raked)
{
    c->code = NULL;
    const Prog *p = c->prog;
    if (n < 1 || n > MAX_PAIRS)
        return alg_fail(c, ALG_ERR_SIZE, "a product fuses 1 to %d axes, not %d", MAX_PAIRS, n);
    int sx[2 * MAX_PAIRS];
    const Map *fs[2 * MAX_PAIRS];
    MapWhy why;
    for (int k = 0; k < n; k++) {
        if (x[k] < 0 || xo[k] < 0 || xi[k] < 0 || x[k] >= p->naxes || xo[k] >= p->naxes || xi[k] >= p->naxes)
            return alg_fail(c, ALG_ERR_UNDECLARED, "an axis of fusion %d is not declared", k + 1);
        uint64_t so = p->axes[xo[k]].size, si = p->axes[xi[k]].size, sn;
        if (!u64_mul(so, si, &sn) || sn < p->axes[x[k]].size)
            return alg_fail(c, ALG_ERR_SIZE, "|%s| · |%s| = %llu · %llu is below |%s| = %llu", p->axes[xo[k]].name,
                            p->axes[xi[k]].name, U(so), U(si), p->axes[x[k]].name, U(p->axes[x[k]].size));
        sx[2 * k] = xo[k];
        sx[2 * k + 1] = xi[k];
        fs[2 * k] = raked ? fused_digit(c, x[k], sn, MAP_MOD, so, why) : fused_digit(c, x[k], sn, MAP_STRIDE, si, why);
        fs[2 * k + 1] = raked ? fused_digit(c, x[k], sn, MAP_STRIDE, so, why) : fused_digit(c, x[k], sn, MAP_MOD, si, why);
        if (!fs[2 * k] || !fs[2 * k + 1])
            return alg_fail(c, ALG_ERR_UNEXPRESSIBLE, "the fused axis %s: %s", p->axes[x[k]].name, why);
    }
    const Map *pair = map_make_pair(&c->prog->arena, g, t, (Loc){0}, why);
    if (!pair)
        return alg_fail(c, ALG_ERR_SIZE, "the grid and the tile: %s", why);
    return alg_compose(c, pair, 2 * n, sx, fs);
}
