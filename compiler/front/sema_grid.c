/* sema_grid.c — a kernel's spread of work (docs/language.md §6): the grid clause (chip, cluster and slice mappings over
 * the top digits of M and N), the split shorthand, and the rules: units within the hardware, each unit's
 * work a block of C, every operand distributed over chips as the grid projects onto its axes. */
#include "algebra/algebra.h"
#include "front_impl.h"

#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

static const char *const dim_words[3] = {"chip", "cluster", "slice"};
static const char *const role_words[3] = {"rows", "columns", "the K range"};

/* The printed mapping, in the arena. */
static const char *text_of(Prog *p, const Map *m)
{
    size_t n = map_format(p, m, NULL, 0);
    char *s = arena_alloc(&p->arena, n + 1);
    map_format(p, m, s, n + 1);
    return s;
}

bool sema_grid_clause(Parser *ps, const KernelDecl *k, Token word, const KItem *items, const Map **grid, Loc *at)
{
    Prog *p = ps->prog;
    bool ok = true;
    for (const KItem *it = items; it; it = it->next) {
        int d = 0;
        while (d < 3 && !(strlen(dim_words[d]) == it->name.len && memcmp(dim_words[d], it->name.s, it->name.len) == 0))
            d++;
        if (it->kind != KITEM_MAP || d == 3) {
            diag_error(D(ps), it->name.loc, "grid gives the units of the work as chip = m![...], cluster = m![...] or "
                                            "slice = m![...]");
            ok = false;
            continue;
        }
        if (grid[d]) {
            diag_error(D(ps), it->name.loc, "grid gives %s twice", dim_words[d]);
            ok = false;
            continue;
        }
        if (!it->map) {
            ok = false; /* the mapping said why */
            continue;
        }
        bool *used = arena_alloc(&p->arena, (size_t)p->naxes + 1);
        map_mark_axes(it->map, used);
        for (int a = 0; a < p->naxes; a++)
            if (used[a] && a != k->axis[GEMM_M] && a != k->axis[GEMM_N] && !(d == 0 && a == k->axis[GEMM_K])) {
                diag_error(D(ps), it->value.loc,
                           "grid %s uses axis %s; a grid spreads C's blocks, over the digits of %s and %s only "
                           "(and a chip grid also over %s, whose partial products the chips sum)",
                           dim_words[d], p->axes[a].name, p->axes[k->axis[GEMM_M]].name, p->axes[k->axis[GEMM_N]].name,
                           p->axes[k->axis[GEMM_K]].name);
                ok = false;
                break;
            }
        grid[d] = it->map;
        at[d] = it->value.loc;
    }
    (void)word;
    return ok;
}

/* A digit of a grid: its axis, the size of its base (the axis, or a padded axis), stride and count. */
typedef struct GridDigit {
    int axis;
    uint64_t base, stride, count;
    const Map *node;
    bool from_c;            /* a digit of C's Chip mapping, the chip grid by default */
} GridDigit;

/* Collects the digits of g; false with *bad the node that is neither a digit of an axis (padded or not), a
 * broadcast, a padding nor a pair of those. */
static bool grid_digits(const Map *g, GridDigit *d, int *n, int cap, const Map **bad)
{
    switch (g->kind) {
    case MAP_BCAST:
        return true;
    case MAP_SYM:
    case MAP_STRIDE:
    case MAP_MOD: {
        uint64_t s;
        const Map *x = map_digit_root(g, &s);
        uint64_t base = x->size;
        while (x->kind == MAP_PAD)
            x = x->l;
        if (x->kind != MAP_SYM || *n == cap) {
            *bad = g;
            return false;
        }
        d[(*n)++] = (GridDigit){x->axis, base, s, g->size, g, false};
        return true;
    }
    case MAP_PAD:
        return grid_digits(g->l, d, n, cap, bad);
    case MAP_PAIR:
        return grid_digits(g->l, d, n, cap, bad) && grid_digits(g->r, d, n, cap, bad);
    case MAP_RESIZE:
        *bad = g;
        return false;
    }
    *bad = g;
    return false;
}

/* Checks that the digits of axis r in the grids are its top digits, one below the other, and sets
 * k->block[r] to the lowest one's stride (the rows, columns or K values a unit computes). false after a
 * diagnostic. */
static bool top_digits(Parser *ps, KernelDecl *k, int r, const GridDigit *d, int n)
{
    Prog *p = ps->prog;
    int axis = k->axis[r];
    GridDigit v[64];
    int m = 0;
    for (int i = 0; i < n && m < 64; i++)
        if (d[i].axis == axis)
            v[m++] = d[i];
    for (int i = 1; i < m; i++) /* by stride, largest first */
        for (int j = i; j > 0 && v[j].stride > v[j - 1].stride; j--) {
            GridDigit t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    uint64_t top = m ? v[0].base : p->axes[axis].size;
    for (int i = 0; i < m; i++) {
        if ((v[i].base != v[0].base || v[i].stride * v[i].count != top) && v[i].from_c) {
            diag_error(D(ps), k->loc,
                       "kernel %s: the work follows C's Chip mapping %s, whose digit %s does not select a block of %s; "
                       "give the kernel a grid chip = m![...] clause over the top digits of %s",
                       k->name, text_of(p, k->c->maps[0]), text_of(p, v[i].node), role_words[r],
                       p->axes[axis].name);
            return false;
        }
        if (v[i].base != v[0].base || v[i].stride * v[i].count != top) {
            diag_error(D(ps), v[i].node->loc,
                       "grid digit %s does not select a block of %s: a grid's digits of %s must be its top digits, "
                       "each just below the one before, so this one must end at %llu",
                       text_of(p, v[i].node), role_words[r], p->axes[axis].name, U(top));
            return false;
        }
        top = v[i].stride;
    }
    k->block[r] = m ? top : p->axes[axis].size;
    if (k->block[r] > p->axes[axis].size)
        k->block[r] = p->axes[axis].size;
    return true;
}

/* The slice grid `split r` stands for: one unit per tile of r (groups of tiles when there are more than a
 * cluster's slices), over a padded r when the units do not divide it; NULL (one unit) when one tile holds r. */
static const Map *split_grid(Prog *p, const KernelDecl *k, int r, uint64_t max_units, Loc at)
{
    uint64_t size = p->axes[k->axis[r]].size, t = k->tile[r];
    uint64_t tiles = (size + t - 1) / t, group = (tiles + max_units - 1) / max_units, d = t * group;
    uint64_t padded = (size + d - 1) / d * d;
    if (d >= size)
        return NULL;
    MapWhy why;
    const Map *base = map_make_sym(&p->arena, k->axis[r], size, at, why);
    if (base && padded != size)
        base = map_make_op(&p->arena, MAP_PAD, PAD_TOP, base, padded, at, why);
    return base ? map_make_op(&p->arena, MAP_STRIDE, PAD_TOP, base, d, at, why) : NULL;
}

/* The chip grid projected onto an operand's axes: the digits of the kernel axis it lacks replaced by
 * broadcasts (they replicate it). */
static const Map *project(Prog *p, const Map *g, int lacks)
{
    MapWhy why;
    switch (g->kind) {
    case MAP_SYM:
    case MAP_STRIDE:
    case MAP_MOD: {
        uint64_t s;
        const Map *x = map_digit_root(g, &s);
        while (x->kind == MAP_PAD)
            x = x->l;
        return x->kind == MAP_SYM && x->axis == lacks ? map_make_bcast(&p->arena, g->size, g->loc, why) : g;
    }
    case MAP_PAD:
    case MAP_RESIZE: {
        const Map *l = project(p, g->l, lacks);
        return l == g->l ? g : map_make_op(&p->arena, g->kind, g->pad, l, g->n, g->loc, why);
    }
    case MAP_PAIR: {
        const Map *l = project(p, g->l, lacks), *r = project(p, g->r, lacks);
        return l == g->l && r == g->r ? g : map_make_pair(&p->arena, l, r, g->loc, why);
    }
    case MAP_BCAST:
        return g;
    }
    return g;
}

void sema_grid_blocks(const Prog *p, const KernelDecl *k, const Map *const *given, uint64_t block[3])
{
    for (int r = GEMM_M; r <= GEMM_K; r++)
        block[r] = p->axes[k->axis[r]].size;
    for (int g = 0; g < 3; g++) {
        const Map *m = given[g] ? given[g] : g == 0 ? k->c->maps[0] : NULL, *bad = NULL;
        GridDigit d[64];
        int n = 0;
        if (!m || !grid_digits(m, d, &n, 64, &bad))
            continue;
        for (int i = 0; i < n; i++)
            for (int r = GEMM_M; r <= GEMM_K; r++)
                if (d[i].axis == k->axis[r] && d[i].stride >= 1 && d[i].stride < block[r])
                    block[r] = d[i].stride;
    }
}

bool sema_grid_finish(Parser *ps, KernelDecl *k, const Map *const *given, const Loc *given_at, bool grid_clause,
                      bool split_clause, Loc at)
{
    Prog *p = ps->prog;
    TensorLimits lim = tensor_default_limits();
    const Map *one = NULL;
    MapWhy why;
    if (!(one = map_make_bcast(&p->arena, 1, at, why)))
        return false;
    Loc where[3] = {at, at, at};
    for (int d = 0; d < 3; d++) {
        k->grid[d] = given[d] ? given[d] : one;
        if (given[d])
            where[d] = given_at[d];
    }
    if (!given[0]) /* the work follows C: each chip computes the part of C it holds */
        k->grid[0] = k->c->maps[0];
    if (grid_clause && split_clause) {
        diag_error(D(ps), at, "kernel %s has both a grid and a split clause; split is shorthand for a slice grid",
                   k->name);
        return false;
    }
    /* the digits of every grid */
    GridDigit d[64];
    int n = 0;
    for (int g = 0; g < 3; g++) {
        const Map *bad = NULL;
        int first = n;
        bool ok = grid_digits(k->grid[g], d, &n, 64, &bad);
        for (int i = first; i < n; i++)
            d[i].from_c = g == 0 && !given[0];
        if (!ok) {
            if (g == 0 && !given[0])
                diag_error(D(ps), at, "kernel %s: the work follows C's Chip mapping %s, whose part %s is not a digit "
                                      "of %s or %s; give a grid clause",
                           k->name, text_of(p, k->grid[0]), text_of(p, bad), p->axes[k->axis[GEMM_M]].name,
                           p->axes[k->axis[GEMM_N]].name);
            else
                diag_error(D(ps), where[g], "grid %s: %s is not a digit of an axis, a broadcast or a padding",
                           dim_words[g], text_of(p, bad));
            return false;
        }
    }
    for (int r = GEMM_M; r <= GEMM_K; r++)
        if (!top_digits(ps, k, r, d, n))
            return false;
    /* split (or the default): a slice grid over the tiles of the axis, unless chips already split it */
    if (!grid_clause) {
        bool chips_split = false;
        for (int i = 0; i < n; i++)
            chips_split |= d[i].axis == k->axis[k->split];
        const Map *s = chips_split ? NULL : split_grid(p, k, k->split, lim.max_slices, at);
        if (s) {
            k->grid[2] = s;
            uint64_t st;
            map_digit_root(s, &st);
            k->block[k->split] = st;
        }
    }
    if (k->grid[1]->size > lim.max_clusters) {
        diag_error(D(ps), where[1], "grid cluster has %llu units, more than the %llu clusters of a chip",
                   U(k->grid[1]->size), U(lim.max_clusters));
        return false;
    }
    if (k->grid[2]->size > lim.max_slices) {
        diag_error(D(ps), where[2], "grid slice has %llu units, more than the %llu slices of a cluster",
                   U(k->grid[2]->size), U(lim.max_slices));
        return false;
    }
    /* every operand on the chips the grid computes on: the chip grid, projected onto its axes */
    static const int lacks[3] = {GEMM_N, GEMM_M, GEMM_K}; /* A[M, K], B[K, N], C[M, N] */
    const TensorDecl *ops[3] = {k->a, k->b, k->c};
    static const char *const names[3] = {"A", "B", "C"};
    Eqv *q = eqv_new(p);
    bool ok = true;
    for (int i = 0; i < 3; i++) {
        const Map *want = project(p, k->grid[0], k->axis[lacks[i]]);
        const Map *have = ops[i]->maps[0];
        int same = want && q ? eqv_same(q, have, want) : -1;
        if (same != 1) {
            diag_error(D(ps), at,
                       "kernel %s: operand %s (%s) is on the chips %s, but the work is spread over the chips %s: "
                       "its Chip mapping must be %s",
                       k->name, names[i], ops[i]->name, text_of(p, have), text_of(p, k->grid[0]),
                       want ? text_of(p, want) : "?");
            ok = false;
        }
    }
    eqv_free(q);
    return ok;
}
