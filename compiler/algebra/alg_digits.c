/* alg_digits.c — complements and covers of tilers made of digits of one axis, from the digits alone (any size). */
#include "alg_ops.h"

#include <stdlib.h>

#define MAX_DIGITS 64

typedef struct Digit {
    uint64_t s, c;  /* stride, count */
} Digit;

/* Collects the digits of t's pair list into d (broadcasts skipped); false when an item is not a digit of the plain
 * axis x (a resize, a padding, another axis, a composite base). */
static bool collect(const Map *t, int x, Digit *d, int *n)
{
    if (t->kind == MAP_PAIR)
        return collect(t->l, x, d, n) && collect(t->r, x, d, n);
    if (t->kind == MAP_BCAST)
        return true;
    uint64_t s;
    const Map *root = map_digit_root(t, &s);
    if (root->kind != MAP_SYM || root->axis != x || *n == MAX_DIGITS)
        return false;
    if (t->kind != MAP_SYM && t->kind != MAP_STRIDE && t->kind != MAP_MOD)
        return false;
    d[(*n)++] = (Digit){s, t->size};
    return true;
}

static int by_stride(const void *a, const void *b)
{
    const Digit *x = a, *y = b;
    return x->s < y->s ? -1 : x->s > y->s;
}

/* `X / s % c` without the identity operators. */
static const Map *digit_of(AlgCtx *c, int x, Digit d, MapWhy why)
{
    Arena *a = &c->prog->arena;
    const Map *m = map_make_sym(a, x, c->prog->axes[x].size, (Loc){0}, why);
    if (m && d.s > 1)
        m = map_make_op(a, MAP_STRIDE, PAD_TOP, m, d.s, (Loc){0}, why);
    if (m && m->size != d.c)
        m = map_make_op(a, MAP_MOD, PAD_TOP, m, d.c, (Loc){0}, why);
    return m;
}

/* The pair of digits d[n-1], ..., d[0] (the largest stride major), or m![1]. */
static const Map *digits_map(AlgCtx *c, int x, const Digit *d, int n, MapWhy why)
{
    const Map *m = NULL;
    for (int i = 0; i < n; i++) {
        const Map *g = digit_of(c, x, d[i], why);
        m = g && m ? map_make_pair(&c->prog->arena, g, m, (Loc){0}, why) : g;
        if (!m)
            return NULL;
    }
    return m ? m : map_make_bcast(&c->prog->arena, 1, (Loc){0}, why);
}

const Map *alg_complement_digits(AlgCtx *c, const Map *t, int x, bool cover, bool *applies)
{
    *applies = false;
    Digit d[MAX_DIGITS], g[MAX_DIGITS + 1], all[2 * MAX_DIGITS + 1];
    int n = 0, ng = 0;
    const Map *tn = norm_map(&c->prog->arena, t);
    if (!collect(tn, x, d, &n))
        return NULL;
    qsort(d, (size_t)n, sizeof *d, by_stride);
    uint64_t reach = 1; /* the values below reach are covered by the digits so far and the gaps */
    for (int i = 0; i < n; i++) {
        if (d[i].c == 1)
            continue;
        if (d[i].s % reach) /* overlapping or misaligned digits: not for this route */
            return NULL;
        if (d[i].s / reach > 1)
            g[ng++] = (Digit){reach, d[i].s / reach};
        reach = d[i].s * d[i].c;
    }
    uint64_t xs = c->prog->axes[x].size;
    if (xs % reach)
        return NULL;
    if (xs / reach > 1)
        g[ng++] = (Digit){reach, xs / reach};
    *applies = true;
    MapWhy why;
    const Map *cm = digits_map(c, x, g, ng, why);
    if (!cm)
        return alg_fail(c, ALG_ERR_UNEXPRESSIBLE, "the complement cannot be built: %s", why);
    /* The check: the complement's digits and the tiler's, by stride, are the whole axis exactly once. */
    int na = 0;
    for (int i = 0; i < ng; i++)
        all[na++] = g[i];
    for (int i = 0; i < n; i++)
        if (d[i].c > 1)
            all[na++] = d[i];
    qsort(all, (size_t)na, sizeof *all, by_stride);
    const Map *whole = digits_map(c, x, all, na, why), *axis = map_make_sym(&c->prog->arena, x, xs, (Loc){0}, why);
    if (!whole || !axis || eqv_same(c->eqv, whole, axis) != 1)
        return alg_fail(c, ALG_ERR_INTERNAL, "the complement's digits and the tiler's do not tile %s once",
                        c->prog->axes[x].name);
    const Map *r = cm;
    if (cover && !(r = map_make_pair(&c->prog->arena, cm, tn, (Loc){0}, why)))
        return alg_fail(c, ALG_ERR_TOO_LARGE, "the cover: %s", why);
    const Map *out = norm_map(&c->prog->arena, r);
    if (eqv_same(c->eqv, out, r) != 1)
        return alg_fail(c, ALG_ERR_INTERNAL, "the normal form of the %s is not equivalent to it",
                        cover ? "cover" : "complement");
    return out;
}
