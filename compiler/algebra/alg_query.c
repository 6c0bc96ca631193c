/* alg_query.c — questions about one mapping: injectivity, the nullspace (positions holding the origin's cell), coalesce. */
#include "alg_impl.h"

#include <stdlib.h>

const Map *alg_nullspace(AlgCtx *c, const Map *e, int p)
{
    c->code = NULL;
    if (!alg_check_axis(c, p, e->size, "the mapping"))
        return NULL;
    AlgKeys keys;
    if (!alg_keys_init(c, &keys, e, NULL))
        return NULL;
    uint8_t *kd;
    uint64_t *ky;
    if (!alg_cells_of(c, &keys, e, "the mapping", false, &kd, &ky))
        return NULL;
    AlgVal *v = malloc((size_t)e->size * sizeof *v);
    uint64_t n = 0;
    for (uint64_t i = 0; v && i < e->size; i++)
        if (kd[i] == CELL_LIVE && ky[i] == ky[0])
            v[n++] = (AlgVal)i;
    const Map *r = v ? alg_fit(c, v, n, p, "the nullspace") : alg_fail(c, ALG_ERR_NOMEM, "out of memory");
    free(v);
    free(kd);
    free(ky);
    return r;
}

bool alg_injective(AlgCtx *c, const Map *e, bool *yes, uint64_t *p1, uint64_t *p2)
{
    c->code = NULL;
    AlgKeys keys;
    if (!alg_keys_init(c, &keys, e, NULL))
        return false;
    uint8_t *kd;
    uint64_t *ky;
    if (!alg_cells_of(c, &keys, e, "the mapping", false, &kd, &ky))
        return false;
    AlgTable t;
    bool ok = alg_table_init(&t, e->size);
    *yes = true;
    for (uint64_t p = 0; ok && p < e->size && *yes; p++) {
        if (kd[p] != CELL_LIVE)
            continue;
        uint64_t h = alg_table_slot(&t, ky[p]);
        if (t.key[h] != UINT64_MAX) {
            *yes = false;
            *p1 = t.pos[h];
            *p2 = p;
        }
        t.key[h] = ky[p];
        if (*yes)
            t.pos[h] = p;
    }
    if (!ok)
        alg_fail(c, ALG_ERR_NOMEM, "out of memory");
    alg_table_free(&t);
    free(kd);
    free(ky);
    return ok;
}

const Map *alg_coalesce(AlgCtx *c, const Map *e)
{
    c->code = NULL;
    const Map *r = norm_map(&c->prog->arena, e);
    int same = eqv_same(c->eqv, r, e);
    if (same != 1) {
        char et[160];
        map_format(c->prog, e, et, sizeof et);
        return alg_fail(c, ALG_ERR_INTERNAL, "the normal form is %s the mapping %s",
                        same < 0 ? "not proved equivalent to" : "not equivalent to", et);
    }
    return r;
}
