/* alg_conversion.c — the relayout plan between two layouts (source position to destination position) and its vector width. */
#include "alg_impl.h"

#include <stdlib.h>

const Map *alg_conversion(AlgCtx *c, const Map *src, const Map *dst, int q)
{
    c->code = NULL;
    if (!alg_check_axis(c, q, dst->size, "the destination"))
        return NULL;
    AlgVal *K;
    if (!alg_plan(c, src, dst, &K))
        return NULL;
    const Map *r = alg_fit(c, K, src->size, q, "the conversion");
    free(K);
    return r;
}

bool alg_vector(AlgCtx *c, const Map *src, const Map *dst, uint64_t *n)
{
    c->code = NULL;
    if (!dst) {
        bool used[257] = {false};
        map_mark_axes(src, used);
        MapWhy why;
        for (int a = c->prog->naxes - 1; a >= 0; a--)
            if (used[a]) {
                const Map *s = map_make_sym(&c->prog->arena, a, c->prog->axes[a].size, (Loc){0}, why);
                dst = dst ? map_make_pair(&c->prog->arena, s, dst, (Loc){0}, why) : s;
                if (!dst) {
                    alg_fail(c, ALG_ERR_TOO_LARGE, "the identity layout of the source's axes: %s", why);
                    return false;
                }
            }
        if (!dst)
            dst = map_make_bcast(&c->prog->arena, 1, (Loc){0}, why);
    }
    AlgVal *K;
    if (!alg_plan(c, src, dst, &K))
        return false;
    uint64_t g = src->size, b = dst->size;
    while (b) {
        uint64_t t = g % b;
        g = b;
        b = t;
    }
    for (uint64_t w = g; w >= 1; w--) {
        if (g % w)
            continue;
        bool ok = true;
        for (uint64_t s = 0; s < src->size && ok; s += w) {
            const AlgVal *k = K + s;
            if (k[0] < 0) {
                for (uint64_t i = 1; i < w && ok; i++)
                    ok = k[i] == k[0];
            } else {
                ok = (uint64_t)k[0] % w == 0;
                for (uint64_t i = 1; i < w && ok; i++)
                    ok = k[i] == k[0] + (AlgVal)i;
            }
        }
        if (ok) {
            *n = w;
            break;
        }
    }
    free(K);
    return true;
}
