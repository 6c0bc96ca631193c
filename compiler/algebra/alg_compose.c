/* alg_compose.c — composition: a mapping with other mappings substituted for its axes, as composite bases. */
#include "alg_ops.h"

#include <stdlib.h>

#define U(x) ((unsigned long long)(x))

typedef struct Subst {
    Arena *a;
    int n;
    const int *xs;
    const Map *const *fs;
    const Map **from, **to;  /* rebuilt nodes, so that shared sub-mappings stay shared */
    size_t nmemo, cap;
    bool failed;
    MapWhy why;
} Subst;

/* e with every symbol of an axis xs[i] replaced by fs[i]; the sizes are unchanged, since |fs[i]| = |xs[i]|. */
static const Map *subst(Subst *s, const Map *e)
{
    if (!e || s->failed)
        return NULL;
    for (size_t i = 0; i < s->nmemo; i++)
        if (s->from[i] == e)
            return s->to[i];
    const Map *r = e;
    switch (e->kind) {
    case MAP_SYM:
        for (int i = 0; i < s->n; i++)
            if (s->xs[i] == e->axis)
                r = s->fs[i];
        break;
    case MAP_BCAST:
        break;
    case MAP_PAIR: {
        const Map *l = subst(s, e->l), *rr = subst(s, e->r);
        if (l && rr && (l != e->l || rr != e->r))
            r = map_make_pair(s->a, l, rr, e->loc, s->why);
        break;
    }
    default: {
        const Map *l = subst(s, e->l);
        if (l && l != e->l)
            r = map_make_op(s->a, e->kind, e->pad, l, e->n, e->loc, s->why);
        break;
    }
    }
    if (!r) {
        s->failed = true;
        return NULL;
    }
    if (s->nmemo == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        const Map **f = realloc(s->from, cap * sizeof *f), **t = f ? realloc(s->to, cap * sizeof *t) : NULL;
        if (f)
            s->from = f;
        if (!f || !t) {
            s->failed = true;
            return NULL;
        }
        s->to = t;
        s->cap = cap;
    }
    s->from[s->nmemo] = e;
    s->to[s->nmemo++] = r;
    return r;
}

const Map *alg_compose(AlgCtx *c, const Map *e, int n, const int *xs, const Map *const *fs)
{
    const Prog *p = c->prog;
    c->code = NULL;
    for (int i = 0; i < n; i++) {
        if (xs[i] < 0 || xs[i] >= p->naxes)
            return alg_fail(c, ALG_ERR_UNDECLARED, "substitution %d names no declared axis", i + 1);
        for (int j = 0; j < i; j++)
            if (xs[j] == xs[i])
                return alg_fail(c, ALG_ERR_SIZE, "axis %s is substituted twice", p->axes[xs[i]].name);
        if (fs[i]->size != p->axes[xs[i]].size)
            return alg_fail(c, ALG_ERR_SIZE,
                            "|F| = %llu but |%s| = %llu (write {F} # %llu or {F} = %llu to fit it)", U(fs[i]->size),
                            p->axes[xs[i]].name, U(p->axes[xs[i]].size), U(p->axes[xs[i]].size),
                            U(p->axes[xs[i]].size));
    }
    Subst s = {.a = &c->prog->arena, .n = n, .xs = xs, .fs = fs};
    const Map *t = subst(&s, e);
    free(s.from);
    free(s.to);
    if (!t)
        return alg_fail(c, ALG_ERR_UNEXPRESSIBLE, "the substituted mapping cannot be built: %s", s.why);
    const Map *r = norm_map(&c->prog->arena, t);
    int same = eqv_same(c->eqv, r, t);
    if (same != 1) {
        char et[160], tt[160];
        map_format(p, e, et, sizeof et);
        map_format(p, t, tt, sizeof tt);
        return alg_fail(c, ALG_ERR_INTERNAL, "composing %s: the normal form is %s the substituted text %s", et,
                        same < 0 ? "not proved equivalent to" : "not equivalent to", tt);
    }
    return r;
}
