/* alg_divide.c — CuTe's logical divide in the tiler view: a mapping read in tile order through covers of its modes. */
#include "alg_ops.h"

#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))
#define MAX_MODES 16

/* The one axis a's live cells hold (fallback when they hold none), or -1 when they hold several. */
static int held_axis(AlgCtx *c, const Map *a, int fallback)
{
    bool used[257] = {false};
    if (c->prog->naxes > 256)
        return -1;
    map_mark_axes(a, used);
    int x = -1;
    for (int i = 0; i < c->prog->naxes; i++)
        if (used[i]) {
            if (x >= 0)
                return -1;
            x = i;
        }
    return x >= 0 ? x : fallback;
}

const Map *alg_divide(AlgCtx *c, const Map *a, int modes, const int *xs, const Map *const *ts, bool zipped)
{
    c->code = NULL;
    const Prog *p = c->prog;
    if (modes < 1 || modes > MAX_MODES)
        return alg_fail(c, ALG_ERR_SIZE, "a divide takes 1 to %d modes, not %d", MAX_MODES, modes);
    uint64_t prod = 1;
    for (int k = 0; k < modes; k++) {
        if (xs[k] < 0 || xs[k] >= p->naxes)
            return alg_fail(c, ALG_ERR_UNDECLARED, "mode %d names no declared axis", k);
        if (!u64_mul(prod, p->axes[xs[k]].size, &prod))
            return alg_fail(c, ALG_ERR_SIZE, "the modes' sizes multiply past 2^64");
    }
    if (prod != a->size)
        return alg_fail(c, ALG_ERR_SIZE, "the modes' sizes multiply to %llu but the mapping has %llu positions", U(prod),
                        U(a->size));
    int ax = held_axis(c, a, xs[0]); /* -1: a holds several axes, and the result is fitted over its positions */
    AlgVal *pv[MAX_MODES] = {0}, *av = NULL, *v = NULL;
    uint64_t rn[MAX_MODES], tn[MAX_MODES], size = 1, place[MAX_MODES];
    const Map *r = NULL;
    for (int k = 0; k < modes; k++) {
        uint64_t n, no;
        if (!(pv[k] = alg_cover_values(c, ts[k], xs[k], PAD_TOP, &n, &no)))
            goto out;
        rn[k] = no;
        tn[k] = ts[k]->size;
        place[k] = k ? place[k - 1] * p->axes[xs[k - 1]].size : 1;
        if (!u64_mul(size, n, &size) || size > c->enum_limit) {
            alg_fail(c, ALG_ERR_TOO_LARGE, "the divide has more than the %llu positions this operation enumerates",
                     U(c->enum_limit));
            goto out;
        }
    }
    /* a's cells as values of its axis (overflow is an error); with several axes, a's positions */
    if ((ax >= 0 && !(av = alg_values(c, a, ax, "the mapping"))) || !(v = malloc((size_t)size * sizeof *v + 1))) {
        if (!c->code)
            alg_fail(c, ALG_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (uint64_t q = 0; q < size; q++) {
        /* the digits of q, minor first: divide [[r_K, i_K], ..., [r_0, i_0]]; zipped [r_K..r_0, i_K..i_0] */
        uint64_t rk[MAX_MODES], ik[MAX_MODES], rest = q;
        if (zipped) {
            for (int k = 0; k < modes; k++) {
                ik[k] = rest % tn[k];
                rest /= tn[k];
            }
            for (int k = 0; k < modes; k++) {
                rk[k] = rest % rn[k];
                rest /= rn[k];
            }
        } else {
            for (int k = 0; k < modes; k++) {
                ik[k] = rest % tn[k];
                rest /= tn[k];
                rk[k] = rest % rn[k];
                rest /= rn[k];
            }
        }
        AlgVal cell = 0;
        uint64_t pos = 0;
        for (int k = modes - 1; k >= 0 && cell >= 0; k--) { /* the most major mode's padding first */
            AlgVal x = pv[k][rk[k] * tn[k] + ik[k]];
            if (x < 0)
                cell = x;
            else
                pos += (uint64_t)x * place[k];
        }
        v[q] = cell < 0 ? cell : av ? av[pos] : (AlgVal)pos;
    }
    if (av) {
        r = alg_fit(c, v, size, ax, zipped ? "the zipped divide" : "the divide");
    } else {
        for (uint64_t q = 0; q < a->size && ax < 0; q++) { /* an overflowing cell of a is an error, as above */
            uint64_t *coord = calloc((size_t)p->naxes + 1, sizeof *coord);
            Cell cell = {.coord = coord};
            bool over = coord && eval_cell(c->ev, a, q, &cell) == EVAL_OK && cell.kind == CELL_OVERFLOW;
            free(coord);
            if (over) {
                alg_fail(c, ALG_ERR_OVERFLOW, "the mapping overflows at position %llu", U(q));
                goto out;
            }
        }
        if ((r = alg_fit_over(c, v, size, a, zipped ? "the zipped divide" : "the divide")))
            r = norm_map(&c->prog->arena, r);
    }
out:
    for (int k = 0; k < modes; k++)
        free(pv[k]);
    free(av);
    free(v);
    return r;
}
