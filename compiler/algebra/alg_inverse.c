/* alg_inverse.c — the inverse and left inverse: each index to the first position holding it. */
#include "alg_impl.h"

#include <stdlib.h>

#define U(x) ((unsigned long long)(x))

const Map *alg_inverse(AlgCtx *c, const Map *e, int p, int k, const int *order, AlgPad kind, bool left)
{
    c->code = NULL;
    const Prog *pr = c->prog;
    if (!alg_check_axis(c, p, e->size, "the mapping"))
        return NULL;
    AlgKeys keys;
    if (!alg_keys_init(c, &keys, e, NULL))
        return NULL;
    /* The result's positions: the listed axes, order[0] major. */
    bool listed[257] = {false};
    uint64_t n = 1;
    for (int i = 0; i < k; i++) {
        if (order[i] < 0 || order[i] >= pr->naxes)
            return alg_fail(c, ALG_ERR_UNDECLARED, "axis %d of the list is not declared", i + 1);
        if (listed[order[i]])
            return alg_fail(c, ALG_ERR_SIZE, "axis %s is listed twice", pr->axes[order[i]].name);
        listed[order[i]] = true;
        if (!u64_mul(n, pr->axes[order[i]].size, &n) || n > c->enum_limit)
            return alg_fail(c, ALG_ERR_TOO_LARGE, "the inverse has more than the %llu positions this operation "
                            "enumerates", U(c->enum_limit));
    }
    uint8_t *kd;
    uint64_t *ky;
    if (!alg_cells_of(c, &keys, e, "the mapping", true, &kd, &ky))
        return NULL;
    AlgVal *v = malloc((size_t)n * sizeof *v);
    uint64_t *coord = calloc((size_t)pr->naxes + 1, sizeof *coord);
    const Map *r = NULL;
    if (!v || !coord) {
        alg_fail(c, ALG_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (uint64_t i = 0; i < n; i++)
        v[i] = -(AlgVal)kind;
    Cell cell = {.coord = coord};
    for (uint64_t q = 0; q < e->size; q++) {
        if (kd[q] != CELL_LIVE)
            continue;
        eval_cell(c->ev, e, q, &cell);
        uint64_t idx = 0;
        for (int a = 0; a < pr->naxes; a++)
            if (coord[a] && !listed[a]) {
                alg_fail(c, ALG_ERR_FOREIGN, "the mapping holds axis %s at position %llu (coordinate %llu), which is "
                         "not in the list", pr->axes[a].name, U(q), U(coord[a]));
                goto out;
            }
        for (int i = 0; i < k; i++)
            idx = idx * pr->axes[order[i]].size + coord[order[i]];
        if (v[idx] >= 0) {
            if (left) {
                char buf[256];
                cell_format(pr, &cell, buf, sizeof buf);
                alg_fail(c, ALG_ERR_NOT_INJECTIVE, "positions %llu and %llu both hold %s", U(v[idx]), U(q), buf);
                goto out;
            }
            continue;
        }
        v[idx] = (AlgVal)q;
    }
    r = alg_fit(c, v, n, p, left ? "the left inverse" : "the inverse");
out:
    free(v);
    free(coord);
    free(kd);
    free(ky);
    return r;
}
