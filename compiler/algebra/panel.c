/* panel.c — the panel layouts of packed GEMM tiles: building them and recognizing a pack mapping as one. */
#include "algebra.h"

/* n rounded up to a multiple of m (m >= 1); false if that overflows. */
static bool round_up(uint64_t n, uint64_t m, uint64_t *out)
{
    return u64_mul(n / m + (n % m != 0), m, out);
}

bool panel_size(uint64_t rows, uint64_t depth, int w, int g, uint64_t *size)
{
    uint64_t r, k;
    return round_up(rows, (uint64_t)w, &r) && round_up(depth, (uint64_t)g, &k) && u64_mul(r, k, size);
}

/* Axis a as a base whose size is a multiple of m: the symbol, padded where m does not divide it. */
static const Map *padded(Prog *p, int a, int m, Loc loc, MapWhy why)
{
    uint64_t size = p->axes[a].size, up;
    if (!round_up(size, (uint64_t)m, &up))
        return NULL;
    const Map *s = map_make_sym(&p->arena, a, size, loc, why);
    return !s || up == size ? s : map_make_op(&p->arena, MAP_PAD, PAD_TOP, s, up, loc, why);
}

const Map *panel_map(Prog *p, int r_axis, int k_axis, int w, int g, Loc loc)
{
    MapWhy why;
    Arena *a = &p->arena;
    const Map *r = padded(p, r_axis, w, loc, why), *k = padded(p, k_axis, g, loc, why);
    if (!r || !k)
        return NULL;
    /* R / w, K / g, R % w, K % g: both digits of a padded axis share its one base node; / and % cannot
     * fail on a base padded to a multiple of their argument */
    const Map *d[4] = {map_make_op(a, MAP_STRIDE, PAD_TOP, r, (uint64_t)w, loc, why),
                       g == 1 ? k : map_make_op(a, MAP_STRIDE, PAD_TOP, k, (uint64_t)g, loc, why),
                       map_make_op(a, MAP_MOD, PAD_TOP, r, (uint64_t)w, loc, why),
                       g == 1 ? NULL : map_make_op(a, MAP_MOD, PAD_TOP, k, (uint64_t)g, loc, why)};
    const Map *acc = d[g == 1 ? 2 : 3];
    for (int i = g == 1 ? 1 : 2; i >= 0 && acc; i--)
        acc = map_make_pair(a, d[i], acc, loc, why); /* fails only if the size overflows */
    return acc;
}

/* Whether m is equivalent to the panel layout of geometry (w, g); *q is the decision context, made on
 * first need (NULL if out of memory). */
static bool is_panel_in(Prog *p, Eqv **q, const Map *m, int r_axis, int k_axis, int w, int g)
{
    uint64_t size;
    if (!panel_size(p->axes[r_axis].size, p->axes[k_axis].size, w, g, &size) || size != m->size)
        return false;
    const Map *c = panel_map(p, r_axis, k_axis, w, g, m->loc);
    if (c && !*q)
        *q = eqv_new(p);
    return c && *q && eqv_same(*q, m, c) == 1;
}

bool panel_is(Prog *p, const Map *m, int r_axis, int k_axis, int w, int g)
{
    Eqv *q = NULL;
    bool is = is_panel_in(p, &q, m, r_axis, k_axis, w, g);
    eqv_free(q);
    return is;
}

bool panel_recognize(Prog *p, const Map *m, int r_axis, int k_axis, int *w, int *g)
{
    static const int groups[3] = {1, 2, 4};
    int order[3], n = 0; /* the preferred group first */
    for (int i = 0; i < 3; i++)
        if (groups[i] == *g)
            order[n++] = groups[i];
    for (int i = 0; i < 3; i++)
        if (groups[i] != *g)
            order[n++] = groups[i];
    bool pref_w = *w >= 1 && *w <= PANEL_MAX_WIDTH;
    Eqv *q = NULL;
    bool found = false;
    for (int i = 0; i < 3 && !found; i++) {
        found = pref_w && is_panel_in(p, &q, m, r_axis, k_axis, *w, order[i]); /* the preferred width first */
        for (int width = 1; width <= PANEL_MAX_WIDTH && !found; width++)
            if (width != *w && is_panel_in(p, &q, m, r_axis, k_axis, width, order[i])) {
                *w = width;
                found = true;
            }
        if (found)
            *g = order[i];
    }
    eqv_free(q);
    return found;
}
