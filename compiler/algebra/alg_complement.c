/* alg_complement.c — the complement of a tiler (the origins of its copies that tile the axis) and the cover. */
#include "alg_ops.h"

#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

/* The tiler's values and the greedy origins: *tv its cells (|t| entries), *o the origins (*no of them);
 * false with the error (undeclared-axis, overflow, foreign-axis, no-complement, too-large). */
static bool origins(AlgCtx *c, const Map *t, int x, AlgVal **tv, uint64_t **o, uint64_t *no)
{
    const Prog *p = c->prog;
    *tv = NULL;
    *o = NULL;
    if (x < 0 || x >= p->naxes) {
        alg_fail(c, ALG_ERR_UNDECLARED, "the tiler's axis is not declared");
        return false;
    }
    uint64_t xs = p->axes[x].size;
    if (xs > c->enum_limit) {
        alg_fail(c, ALG_ERR_TOO_LARGE, "axis %s has %llu coordinates, more than the %llu this operation enumerates",
                 p->axes[x].name, U(xs), U(c->enum_limit));
        return false;
    }
    AlgVal *v = alg_values(c, t, x, "the tiler");
    if (!v)
        return false;
    /* The distinct values, increasing. */
    char *in = calloc((size_t)xs, 1);
    uint64_t *owner = malloc((size_t)xs * sizeof *owner), *vals = malloc((size_t)t->size * sizeof *vals + 1),
             *org = malloc((size_t)xs * sizeof *org + 1);
    bool ok = in && owner && vals && org;
    uint64_t nv = 0, n = 0;
    if (!ok)
        alg_fail(c, ALG_ERR_NOMEM, "out of memory");
    for (uint64_t i = 0; ok && i < t->size; i++)
        if (v[i] >= 0)
            in[v[i]] = 1;
    for (uint64_t i = 0; ok && i < xs; i++)
        if (in[i])
            vals[nv++] = i;
    if (ok)
        memset(in, 0, (size_t)xs);
    for (uint64_t y = 0; ok && y < xs; y++) {
        if (in[y])
            continue;
        org[n++] = y;
        for (uint64_t j = 0; j < nv && ok; j++) {
            uint64_t z = y + vals[j];
            if (z >= xs)
                break;
            if (in[z]) {
                alg_fail(c, ALG_ERR_NO_COMPLEMENT,
                         "%s = %llu is reached from origins %llu and %llu (%llu + %llu and %llu + %llu, the "
                         "tiler's values %llu and %llu)",
                         p->axes[x].name, U(z), U(owner[z]), U(y), U(owner[z]), U(z - owner[z]), U(y), U(vals[j]),
                         U(z - owner[z]), U(vals[j]));
                ok = false;
            }
            in[z] = 1;
            owner[z] = y;
        }
    }
    free(in);
    free(owner);
    free(vals);
    if (!ok) {
        free(org);
        free(v);
        return false;
    }
    *tv = v;
    *o = org;
    *no = n;
    return true;
}

/* Re-checks the property on the fitted complement m: strictly increasing origins, and origins × values
 * covering [0, |x|) exactly once. */
static bool check_complement(AlgCtx *c, const Map *m, const AlgVal *tv, uint64_t tn, int x)
{
    uint64_t xs = c->prog->axes[x].size;
    AlgVal *o = alg_values(c, m, x, "the complement");
    char *hit = calloc((size_t)xs, 1);
    bool ok = o && hit;
    for (uint64_t r = 0; ok && r < m->size; r++)
        ok = o[r] >= 0 && (r == 0 || o[r] > o[r - 1]);
    /* Each coordinate once: count every (origin, distinct value) sum below |x|. */
    char *val = ok ? calloc((size_t)xs, 1) : NULL;
    uint64_t *vals = ok ? malloc((size_t)xs * sizeof *vals) : NULL, nv = 0;
    ok = ok && val && vals;
    for (uint64_t i = 0; ok && i < tn; i++)
        if (tv[i] >= 0)
            val[tv[i]] = 1;
    for (uint64_t s = 0; ok && s < xs; s++)
        if (val[s])
            vals[nv++] = s;
    for (uint64_t r = 0; ok && r < m->size; r++)
        for (uint64_t j = 0; ok && j < nv && (uint64_t)o[r] + vals[j] < xs; j++)
            ok = !hit[o[r] + vals[j]]++;
    free(val);
    free(vals);
    for (uint64_t y = 0; ok && y < xs; y++)
        ok = hit[y] == 1;
    free(hit);
    free(o);
    return ok;
}

/* Whether the enumeration is out of reach, so that the digit route is tried first. */
static bool large(AlgCtx *c, const Map *t, int x)
{
    return x >= 0 && x < c->prog->naxes && (c->prog->axes[x].size > c->enum_limit || t->size > c->enum_limit);
}

const Map *alg_complement(AlgCtx *c, const Map *t, int x)
{
    c->code = NULL;
    if (large(c, t, x)) {
        bool applies;
        const Map *r = alg_complement_digits(c, t, x, false, &applies);
        if (applies)
            return r;
    }
    AlgVal *tv;
    uint64_t *o, n;
    if (!origins(c, t, x, &tv, &o, &n))
        return NULL;
    AlgVal *v = malloc((size_t)n * sizeof *v);
    const Map *m = NULL;
    if (v) {
        for (uint64_t r = 0; r < n; r++)
            v[r] = (AlgVal)o[r];
        m = alg_fit(c, v, n, x, "the complement");
        if (m && !check_complement(c, m, tv, t->size, x))
        {
            char tt[160];
            map_format(c->prog, t, tt, sizeof tt);
            m = alg_fail(c, ALG_ERR_INTERNAL, "the complement found does not tile %s with the tiler %s",
                         c->prog->axes[x].name, tt);
        }
    }
    if (!v)
        m = alg_fail(c, ALG_ERR_NOMEM, "out of memory");
    free(v);
    free(o);
    free(tv);
    return m;
}

AlgVal *alg_cover_values(AlgCtx *c, const Map *t, int x, AlgPad kind, uint64_t *size, uint64_t *norigins)
{
    AlgVal *tv;
    uint64_t *o, n;
    if (!origins(c, t, x, &tv, &o, &n))
        return NULL;
    AlgVal *v = NULL;
    uint64_t xs = c->prog->axes[x].size;
    if (!u64_mul(n, t->size, size) || *size > c->enum_limit) {
        alg_fail(c, ALG_ERR_TOO_LARGE, "the cover has %llu × %llu positions, more than the %llu this operation "
                 "enumerates", U(n), U(t->size), U(c->enum_limit));
    } else if ((v = malloc((size_t)*size * sizeof *v + 1))) {
        for (uint64_t r = 0; r < n; r++)
            for (uint64_t i = 0; i < t->size; i++) {
                AlgVal w = tv[i];
                v[r * t->size + i] = w < 0 ? w : o[r] + (uint64_t)w < xs ? (AlgVal)(o[r] + (uint64_t)w) : -(AlgVal)kind;
            }
        *norigins = n;
    } else {
        alg_fail(c, ALG_ERR_NOMEM, "out of memory");
    }
    free(o);
    free(tv);
    return v;
}

const Map *alg_cover(AlgCtx *c, const Map *t, int x, AlgPad kind)
{
    c->code = NULL;
    if (large(c, t, x)) {
        bool applies;
        const Map *r = alg_complement_digits(c, t, x, true, &applies);
        if (applies)
            return r;
    }
    uint64_t size, n;
    AlgVal *v = alg_cover_values(c, t, x, kind, &size, &n);
    if (!v)
        return NULL;
    const Map *m = alg_fit(c, v, size, x, "the cover");
    free(v);
    return m;
}
