/* desc_recog.c — the reverse direction: recognizing a mapping as a strided or (recursively) tiled
 * layout by synthesizing candidate descriptors and verifying each by equivalence. */
#include "algebra/algebra.h"
#include "desc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

/* Compares a and b: 1 equivalent, 0 not (with *pos, c1, c2 filled when the cells differ),
 * -1 undecided. The decision procedure (algebra.h) first, the exhaustive check if it gives up. */
static int compare(const Prog *p, const Map *a, const Map *b, EqvResult *r)
{
    Eqv *q = eqv_new(p);
    r->verdict = EQV_UNKNOWN;
    if (q)
        eqv_decide(q, a, b, r);
    eqv_free(q);
    if (r->verdict == EQV_UNKNOWN) {
        Evaluator *ev = eqv_evaluator_new(p);
        if (!ev || eqv_exhaustive(ev, a, b, MAPC_EXHAUSTIVE_BUDGET, r) != EVAL_OK)
            r->verdict = EQV_UNKNOWN;
        eqv_evaluator_free(ev);
    }
    return r->verdict == EQV_EQUIVALENT ? 1 : r->verdict == EQV_UNKNOWN ? -1 : 0;
}

/* The recognizer's state: the mapping, its axes (in declaration order) and what the scan found. */
typedef struct Rec {
    Prog *p;
    const Map *m;
    int rank;
    int axes[DESC_MAX_RANK];
    uint64_t extent[DESC_MAX_RANK];
    const char *mismatch;   /* why the last verified candidate differed */
    uint64_t unit[DESC_MAX_RANK];      /* position of each unit index (axis i = 1, others 0) */
} Rec;

static const char *cellstr(Prog *p, const Cell *c)
{
    size_t n = cell_format(p, c, NULL, 0);
    char *s = arena_alloc(&p->arena, n + 1);
    cell_format(p, c, s, n + 1);
    return s;
}

/* Marks the axes a mapping mentions (shared sub-mappings are visited once per path; the
 * nesting limit bounds the work on trees, and the visited list on DAGs). */
static void axes_used(const Map *m, bool *used, const Map ***seen, int *nseen, int *cap)
{
    if (!m)
        return;
    for (int i = 0; i < *nseen; i++)
        if ((*seen)[i] == m)
            return;
    if (*nseen == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        *seen = mem_realloc(*seen, (size_t)*cap * sizeof **seen);
    }
    (*seen)[(*nseen)++] = m;
    if (m->kind == MAP_SYM)
        used[m->axis] = true;
    axes_used(m->l, used, seen, nseen, cap);
    axes_used(m->r, used, seen, nseen, cap);
}

/* Converts a candidate and verifies it; on a difference, records why in r->mismatch. */
static bool verify(Rec *r, const Desc *d)
{
    Diags scratch;
    diags_init(&scratch, &r->p->arena);
    const Map *cm = desc_to_map(r->p, d, &scratch);
    if (!cm) {
        r->mismatch = scratch.head ? scratch.head->msg : "it has no mapping expression";
        return false;
    }
    EqvResult e = {.c1.coord = mem_calloc((size_t)r->p->naxes + 1, sizeof(uint64_t)),
                   .c2.coord = mem_calloc((size_t)r->p->naxes + 1, sizeof(uint64_t))};
    int v = compare(r->p, r->m, cm, &e);
    if (v < 0)
        r->mismatch = "equivalence could not be decided";
    else if (v == 0 && e.verdict == EQV_SIZES_DIFFER)
        r->mismatch = arena_printf(&r->p->arena, "sizes %llu vs %llu", U(r->m->size), U(cm->size));
    else if (v == 0)
        r->mismatch = arena_printf(&r->p->arena, "position %llu: %s vs %s", U(e.pos), cellstr(r->p, &e.c1),
                                   cellstr(r->p, &e.c2));
    free(e.c1.coord);
    free(e.c2.coord);
    return v == 1;
}

/* Scans every position: each must be live or pad(top), each index of the axes stored exactly
 * once, element 0 at position 0. Fills the position of each unit index (unit[i]). NULL if all
 * holds, else the reason. */
static const char *scan(Rec *r, uint64_t *unit)
{
    Prog *p = r->p;
    uint64_t nidx = 1;
    for (int i = 0; i < r->rank; i++)
        nidx = u64_sat_mul(nidx, r->extent[i]);
    if (r->m->size > MAPC_EXHAUSTIVE_BUDGET || nidx > MAPC_EXHAUSTIVE_BUDGET)
        return arena_printf(&p->arena, "it has %llu positions, more than the %llu this check examines", U(r->m->size),
                            U(MAPC_EXHAUSTIVE_BUDGET));
    if (nidx > r->m->size)
        return arena_printf(&p->arena, "its %llu positions cannot store the %llu indices of its axes", U(r->m->size),
                            U(nidx));
    uint64_t *first = mem_alloc((size_t)nidx * sizeof *first);
    Cell c = {.coord = mem_calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    Evaluator *ev = eqv_evaluator_new(p);
    for (uint64_t k = 0; k < nidx; k++)
        first[k] = UINT64_MAX;
    const char *why = NULL;
    for (uint64_t q = 0; q < r->m->size && !why; q++) {
        if (eval_cell(ev, r->m, q, &c) != EVAL_OK) {
            why = arena_printf(&p->arena, "position %llu cannot be evaluated: %s", U(q), eval_error(ev));
        } else if (c.kind == CELL_OVERFLOW) {
            why = arena_printf(&p->arena, "position %llu is overflow; every position of a layout holds an element "
                               "or padding", U(q));
        } else if (c.kind == CELL_PAD_ZERO || c.kind == CELL_PAD_BOTTOM) {
            why = arena_printf(&p->arena, "position %llu is %s; a descriptor's padding is pad(top)", U(q),
                               cellstr(p, &c));
        } else if (c.kind == CELL_LIVE) {
            uint64_t k = 0;
            for (int i = 0; i < r->rank; i++)
                k = k * r->extent[i] + c.coord[r->axes[i]];
            if (first[k] != UINT64_MAX)
                why = arena_printf(&p->arena, "index %s is stored at both positions %llu and %llu; a layout stores "
                                   "each element once", cellstr(p, &c), U(first[k]), U(q));
            else
                first[k] = q;
        }
    }
    for (uint64_t k = 0; k < nidx && !why; k++) {
        if (first[k] != UINT64_MAX)
            continue;
        memset(c.coord, 0, (size_t)p->naxes * sizeof *c.coord);
        c.kind = CELL_LIVE;
        uint64_t rem = k;
        for (int i = r->rank - 1; i >= 0; i--) {
            c.coord[r->axes[i]] = rem % r->extent[i];
            rem /= r->extent[i];
        }
        why = arena_printf(&p->arena, "index %s is never stored; a layout stores every index of its shape",
                           cellstr(p, &c));
    }
    if (!why && first[0] != 0) {
        c.kind = CELL_LIVE;
        memset(c.coord, 0, (size_t)p->naxes * sizeof *c.coord);
        why = arena_printf(&p->arena, "element {} is at position %llu; a descriptor puts it at offset 0", U(first[0]));
    }
    if (!why) {
        uint64_t w = 1;
        for (int i = r->rank - 1; i >= 0; i--) {
            unit[i] = r->extent[i] > 1 ? first[w] : 0;
            w *= r->extent[i];
        }
    }
    free(first);
    free(c.coord);
    eqv_evaluator_free(ev);
    return why;
}

/* ---- Tiled candidates from the digit structure ---- */

typedef struct Leaf {
    int axis;               /* index into Rec.axes */
    uint64_t stride, count;
    int block;              /* -1, or the strided arrangement (resize/padding around digits) it is in */
    uint64_t weight;        /* its position stride in the mapping (a value v of the digit adds v * weight) */
    uint64_t alt;           /* a bare A # n read as A and a gap: n, the count if it pads A to a whole tile */
    int amb;                /* alt != 0: its bit in the readings mask */
} Leaf;

enum { MAX_LEAVES = 256 };

/* The axis of the digit (x, stride sigma, count c) and its stride in that axis's coordinate,
 * for bases built as the conversion builds them: A, A # n (# n ...), and [Y / a, (Y % a) # p],
 * where a nested tile that does not divide its parent's re-pads the parent tile's element digit
 * (a is the parent tile, p the padded one). false for any other base. */
static bool resolve(const Map *x, uint64_t sigma, uint64_t c, int *axis, uint64_t *astride)
{
    while (x->kind == MAP_PAD && x->pad == PAD_TOP && (x->l->kind == MAP_SYM || x->l->kind == MAP_PAD))
        x = x->l;
    if (x->kind == MAP_SYM) {
        *axis = x->axis;
        *astride = sigma;
        return true;
    }
    if (x->kind != MAP_PAIR || x->r->kind != MAP_PAD || x->r->pad != PAD_TOP)
        return false;
    const Map *h = x->l, *lo = x->r->l, *y;
    uint64_t p = x->r->size, a;
    if (lo->kind == MAP_BCAST && lo->n == 1) {
        y = h;
        a = 1;
    } else if (lo->kind == MAP_MOD && h->kind == MAP_STRIDE && h->n == lo->n && norm_equal(h->l, lo->l)) {
        y = lo->l;
        a = lo->n;
    } else {
        return false;
    }
    if (sigma >= p) { /* a digit of the part above: a digit of Y */
        if (sigma % p || u64_sat_mul(sigma / p, c) > x->l->size)
            return false;
        return resolve(y, sigma / p * a, c, axis, astride);
    }
    uint64_t unit; /* a digit inside the re-padded tile: in units of Y's element digit */
    if (u64_sat_mul(sigma, c) > p || !resolve(y, 1, 1, axis, &unit))
        return false;
    *astride = u64_sat_mul(sigma, unit);
    return true;
}

/* The digit m denotes, appended to v; false if m is not a digit of an axis (or of an axis
 * padded up to whole tiles, or of such a base re-padded by a nested tile, see resolve). */
static bool leaf(Rec *r, const Map *m, int block, uint64_t w, Leaf *v, int *n)
{
    uint64_t stride;
    const Map *x = map_digit_root(m, &stride);
    int axis;
    uint64_t astride;
    if (*n == MAX_LEAVES || !resolve(x, stride, m->size, &axis, &astride))
        return false;
    int a = 0;
    while (r->axes[a] != axis)
        a++;
    v[(*n)++] = (Leaf){a, astride, m->size, block, w, 0, 0};
    return true;
}

/* A bare A # n (# g ...) inside a strided arrangement: either A followed by a gap, or A padded
 * to a whole tile of n (then a gap); recorded as A (extent count) with n as the alternative. */
static bool ambiguous_leaf(Rec *r, const Map *m, int block, uint64_t w, Leaf *v, int *n)
{
    if (m->kind != MAP_PAD || m->pad != PAD_TOP)
        return false;
    while (m->l->kind == MAP_PAD && m->l->pad == PAD_TOP) /* A # n # g: the outer paddings are gaps */
        m = m->l;
    if (m->l->kind != MAP_SYM || !leaf(r, m->l, block, w, v, n))
        return false;
    v[*n - 1].alt = m->n;
    return true;
}

static bool is_unit(const Map *m) { return m->kind == MAP_BCAST && m->n == 1; }

/* The digits inside a strided arrangement (pairs, resizes and top paddings around digits, with
 * gaps 1 # n); false if something else is there. A bare A # n has two readings (ambiguous_leaf). */
static bool block_leaves(Rec *r, const Map *m, int block, uint64_t w, Leaf *v, int *n)
{
    if (is_unit(m))
        return true;
    if (m->kind == MAP_PAIR)
        return block_leaves(r, m->l, block, u64_sat_mul(w, m->r->size), v, n) &&
               block_leaves(r, m->r, block, w, v, n);
    if (ambiguous_leaf(r, m, block, w, v, n) || leaf(r, m, block, w, v, n))
        return true;
    return (m->kind == MAP_RESIZE || (m->kind == MAP_PAD && m->pad == PAD_TOP)) &&
           block_leaves(r, m->l, block, w, v, n);
}

#define NOT_DIGITS                                                                                  \
    "its pair list holds a part that is neither a digit of an axis nor a strided arrangement of digits " \
    "(for instance the digit of a composite base other than a re-padded tile, or padding that is not "  \
    "pad(top))"

/* The digits of m's pair list, major to minor; NULL, or why they are not a tiled layout's.
 * In mode 0, a part that is not a digit (a resize or padding around digits) is a strided
 * arrangement whose digits are one group (a block), and a bare A # n is a digit of A padded to
 * whole tiles; in mode 1, resizes and paddings are gaps, transparent (a strided arrangement
 * whose gaps sit below its top). */
static const char *flatten(Rec *r, const Map *m, int mode, uint64_t w, Leaf *v, int *n, int *nblocks)
{
    bool blocks = mode == 0;
    if (m->kind == MAP_PAIR) {
        const char *why = flatten(r, m->l, mode, u64_sat_mul(w, m->r->size), v, n, nblocks);
        return why ? why : flatten(r, m->r, mode, w, v, n, nblocks);
    }
    if (is_unit(m))
        return NULL;
    if (!blocks && ambiguous_leaf(r, m, -1, w, v, n))
        return NULL;
    if (!blocks && (m->kind == MAP_RESIZE || (m->kind == MAP_PAD && m->pad == PAD_TOP)))
        return flatten(r, m->l, mode, w, v, n, nblocks); /* gaps are transparent */
    if (leaf(r, m, -1, w, v, n))
        return NULL;
    if (!blocks)
        return NOT_DIGITS;
    int before = *n;
    if (*n < MAX_LEAVES && block_leaves(r, m, *nblocks, w, v, n) && *n > before) {
        (*nblocks)++;
        return NULL;
    }
    return *n >= MAX_LEAVES ? "it has too many digits" : NOT_DIGITS;
}

/* A candidate tiled descriptor in scratch storage (copied to the arena only when accepted). */
typedef struct Cand {
    Desc d;
    DescLevel lev[DESC_MAX_DEPTH];
    uint64_t tile[DESC_MAX_DEPTH][DESC_MAX_RANK];
    int axes[DESC_MAX_RANK];
    uint64_t extent[DESC_MAX_RANK];
    int order[DESC_MAX_RANK];              /* shape position -> Rec axis */
    uint64_t ostr[DESC_MAX_DEPTH][DESC_MAX_RANK], istr[DESC_MAX_RANK];
} Cand;

/* Fills the strides of the strided groups from the position weights of their digits, innermost
 * level first: an inner stride is the digit's weight; an outer stride of level k is its weight
 * divided by the level's tile_elems. An axis without a digit in a group (extent 1 there) gets
 * stride 0. false if a stride does not come out whole. */
static bool strides_of(const Rec *r, const Leaf *v, const int *gstart, Cand *c, int L)
{
    int rank = r->rank, pos[DESC_MAX_RANK];
    for (int i = 0; i < rank; i++)
        pos[c->order[i]] = i;
    for (int k = L - 1; k >= 0; k--) {
        DescLevel *lv = &c->lev[k];
        if (lv->inner == DESC_STRIDED) {
            lv->inner_strides = c->istr;
            memset(c->istr, 0, sizeof c->istr);
            for (int j = gstart[L]; j < gstart[L + 1]; j++)
                c->istr[pos[v[j].axis]] = v[j].weight;
        }
        if (lv->outer != DESC_STRIDED)
            continue;
        lv->outer_strides = c->ostr[k];
        uint64_t te = 1;
        if (lv->nested) {
            Desc sub = {.kind = DESC_KIND_TILED, .rank = rank, .axes = c->axes, .extent = lv->tile, .tiled = lv->nested};
            if (!desc_size(&sub, &te))
                return false;
        } else {
            for (int i = 0; i < rank; i++)
                te = u64_sat_mul(te, lv->tile[i]);
        }
        memset(c->ostr[k], 0, sizeof c->ostr[k]);
        for (int j = gstart[k]; j < gstart[k + 1]; j++) {
            if (te == 0 || v[j].weight % te)
                return false;
            c->ostr[k][pos[v[j].axis]] = v[j].weight / te;
        }
    }
    return true;
}

/* Builds the candidate of a grouping (groups 0..ng-2 are the levels' tile digits, group ng-1
 * the elements' digits) under a shape order: a group is row-major if it follows the order,
 * column-major if it follows its reverse, strided otherwise (always for a strided arrangement,
 * a block). false if the strides cannot be derived. */
static bool candidate(Rec *r, const Leaf *v, int n, const int *gstart, int ngroups, const int *order,
                      unsigned readings, Cand *c)
{
    int L = ngroups - 1, rank = r->rank;
    memset(&c->d, 0, sizeof c->d);
    memset(c->lev, 0, sizeof c->lev);
    c->d.kind = DESC_KIND_TILED;
    c->d.rank = rank;
    c->d.loc = r->m->loc;
    c->d.axes = c->axes;
    c->d.extent = c->extent;
    int pos[DESC_MAX_RANK]; /* shape position of each Rec axis */
    for (int i = 0; i < rank; i++) {
        c->axes[i] = r->axes[order[i]];
        c->extent[i] = r->extent[order[i]];
        c->order[i] = order[i];
        pos[order[i]] = i;
    }
    for (int k = 0; k < L; k++) {
        c->lev[k].tile = c->tile[k];
        if (k > 0) {
            c->lev[k - 1].inner = DESC_NESTED;
            c->lev[k - 1].nested = &c->lev[k];
        }
    }
    /* each group's order: row-major if it follows the shape order, column-major if reversed */
    for (int g = 0; g < ngroups; g++) {
        bool up = true, down = true;
        for (int j = gstart[g] + 1; j < gstart[g + 1]; j++) {
            up &= pos[v[j - 1].axis] < pos[v[j].axis];
            down &= pos[v[j - 1].axis] > pos[v[j].axis];
        }
        bool block = gstart[g] < gstart[g + 1] && v[gstart[g]].block >= 0;
        DescOrder o = block ? DESC_STRIDED : up ? DESC_ROW_MAJOR : down ? DESC_COL_MAJOR : DESC_STRIDED;
        if (g < L)
            c->lev[g].outer = o;
        else
            c->lev[L - 1].inner = o;
    }
    /* tiles: a level's tile is the stride of the axis's digit in that level's group; without
     * one, the span of the axis's digits below it (the grid is 1 there) */
    for (int i = 0; i < rank; i++) {
        int ax = order[i];
        for (int k = 0; k < L; k++) {
            uint64_t t = 0, span = 1;
            for (int j = gstart[k]; j < n; j++)
                if (v[j].axis == ax) {
                    if (j < gstart[k + 1])
                        t = v[j].stride;
                    else {
                        uint64_t count = v[j].alt && (readings >> v[j].amb & 1) ? v[j].alt : v[j].count;
                        if (u64_sat_mul(v[j].stride, count) > span)
                            span = u64_sat_mul(v[j].stride, count);
                    }
                }
            c->tile[k][i] = t ? t : span;
        }
    }
    c->d.tiled = &c->lev[0];
    return strides_of(r, v, gstart, c, L);
}

/* Cheap necessary conditions before the full check: the size, and the offsets of the unit
 * indices (the positions the scan found). */
static bool plausible(const Rec *r, const Cand *c)
{
    uint64_t size, idx[DESC_MAX_RANK] = {0}, off;
    if (!desc_size(&c->d, &size) || size != r->m->size)
        return false;
    for (int i = 0; i < r->rank; i++) {
        if (r->extent[c->order[i]] == 1)
            continue;
        idx[i] = 1;
        bool ok = desc_offset(&c->d, idx, &off) && off == r->unit[c->order[i]];
        idx[i] = 0;
        if (!ok)
            return false;
    }
    return true;
}

/* The accepted candidate, copied into the arena. */
static const Desc *keep(Rec *r, const Cand *c)
{
    Arena *a = &r->p->arena;
    int rank = c->d.rank;
    Desc *d = arena_alloc(a, sizeof *d);
    *d = c->d;
    d->axes = arena_alloc(a, (size_t)rank * sizeof *d->axes);
    d->extent = arena_alloc(a, (size_t)rank * sizeof *d->extent);
    memcpy(d->axes, c->axes, (size_t)rank * sizeof *d->axes);
    memcpy(d->extent, c->extent, (size_t)rank * sizeof *d->extent);
    DescLevel **link = &d->tiled;
    for (const DescLevel *L = c->d.tiled; L; L = L->nested) {
        DescLevel *x = arena_alloc(a, sizeof *x);
        *x = *L;
        x->nested = NULL;
        x->tile = arena_alloc(a, (size_t)rank * sizeof *x->tile);
        memcpy(x->tile, L->tile, (size_t)rank * sizeof *x->tile);
        uint64_t **str[2] = {&x->outer_strides, &x->inner_strides};
        for (int k = 0; k < 2; k++)
            if (*str[k]) {
                uint64_t *copy = arena_alloc(a, (size_t)rank * sizeof *copy);
                memcpy(copy, *str[k], (size_t)rank * sizeof *copy);
                *str[k] = copy;
            }
        *link = x;
        link = &x->nested;
    }
    return d;
}

/* The search for a grouping: state shared by the recursion. */
typedef struct Search {
    Rec *r;
    const Leaf *v;
    int n;
    int gstart[DESC_MAX_DEPTH + 3];
    long budget;                /* search steps left */
    int namb;                   /* ambiguous leaves whose two readings are both tried (at most 6) */
    Cand cand;
    const Desc *found;
} Search;

/* Tries one complete grouping under each plausible shape order: each group's axis order,
 * major group first, completed in declaration order; then the declaration order itself. */
static void try_grouping(Search *s, int ng)
{
    Rec *r = s->r;
    /* variants: the groups as found, and with an empty first group (every grid 1 there: a
     * single tile padded to whole tiles, as m![M, N # 10]) and/or an empty last group (every
     * element tile 1, as after a strided arrangement of the last level's tiles) */
    for (int variant = 0; variant < 4 && !s->found; variant++) {
        int gs[DESC_MAX_DEPTH + 4], n = 0;
        if (variant & 1)
            gs[n++] = 0;
        for (int g = 0; g < ng; g++)
            gs[n++] = s->gstart[g];
        if (variant & 2)
            gs[n++] = s->n;
        gs[n] = s->n;
        if (n < 2 || n > DESC_MAX_DEPTH + 1)
            continue;
        for (int g = 0; !s->found && g <= n; g++) {
            int order[DESC_MAX_RANK], k = 0;
            bool have[DESC_MAX_RANK] = {0};
            if (g < n)
                for (int j = gs[g]; j < gs[g + 1]; j++)
                    order[k++] = s->v[j].axis, have[s->v[j].axis] = true;
            for (int i = 0; i < r->rank; i++)
                if (!have[i])
                    order[k++] = i;
            for (unsigned rd = 0; rd < 1u << s->namb && !s->found; rd++)
                if (candidate(r, s->v, s->n, gs, n, order, rd, &s->cand) && plausible(r, &s->cand) &&
                    verify(r, &s->cand.d))
                    s->found = keep(r, &s->cand);
        }
    }
}

/* Enumerates the groupings of leaves j.. (ng groups so far): consecutive digits, each group
 * naming an axis at most once, at most DESC_MAX_DEPTH + 1 groups. Extending the current group
 * is tried first, so the first grouping is the greedy one. */
static void search(Search *s, int j, int ng)
{
    if (s->found || --s->budget <= 0)
        return;
    if (j == s->n) {
        try_grouping(s, ng);
        return;
    }
    /* a block is exactly one group: its first digit starts a group, the others continue it,
     * and the digit after it starts the next group */
    int here = s->v[j].block, prev = j ? s->v[j - 1].block : -1;
    bool inside = here >= 0 && here == prev, boundary = !inside && (here >= 0 || prev >= 0);
    bool fresh = ng > 0 && !boundary;
    for (int k = ng ? s->gstart[ng - 1] : j; k < j && fresh; k++)
        fresh = s->v[k].axis != s->v[j].axis;
    if (fresh)
        search(s, j + 1, ng);
    if (ng < DESC_MAX_DEPTH + 1 && !inside) {
        s->gstart[ng] = j;
        search(s, j + 1, ng + 1);
    }
}

/* Tries the tiled candidates of m's digit structure; the descriptor or NULL with *why. */
static const Desc *tiled(Rec *r, const char **why)
{
    Search *s = mem_calloc(1, sizeof *s);
    Leaf *v = mem_alloc(MAX_LEAVES * sizeof *v);
    const Desc *found = NULL;
    const char *flat_why = NULL;
    bool searched = false;
    s->r = r;
    s->v = v;
    s->budget = 200000;
    for (int mode = 0; mode < 2 && !found && s->budget > 0; mode++) {
        int n = 0, nblocks = 0;
        const char *w = flatten(r, r->m, mode, 1, v, &n, &nblocks);
        if (!w && n == 0)
            w = "it has no digits";
        if (w) {
            if (!flat_why)
                flat_why = w;
            continue;
        }
        searched = true;
        s->n = n;
        s->namb = 0;
        for (int j = 0; j < n; j++)
            if (v[j].alt)
                v[j].amb = s->namb < 6 ? s->namb++ : 31; /* beyond 6: the first reading only */
        search(s, 0, 0);
        found = s->found;
    }
    *why = NULL;
    if (!found && !searched)
        *why = flat_why;
    else if (!found && s->budget <= 0)
        *why = "its digits can be grouped into tile levels in too many ways to try them all";
    else if (!found)
        *why = r->mismatch ? arena_printf(&r->p->arena, "no grouping of its digits into tile levels matches (the "
                                          "last candidate checked differs: %s)", r->mismatch)
                           : "no grouping of its digits into tile levels fits its size and the positions of its "
                             "unit indices";
    free(v);
    free(s);
    return found;
}

/* "row-major" or "column-major" when the strided view s is one (axes of extent 1 never matter), else NULL. */
static const char *strided_note(const Desc *s)
{
    bool row = true, col = true;
    uint64_t w = 1;
    for (int i = s->rank - 1; i >= 0; i--) {
        row &= s->extent[i] == 1 || s->strides[i] == w;
        w *= s->extent[i];
    }
    w = 1;
    for (int i = 0; i < s->rank; i++) {
        col &= s->extent[i] == 1 || s->strides[i] == w;
        w *= s->extent[i];
    }
    return row ? "row-major" : col ? "column-major" : NULL;
}

/* The strided view whose strides are the positions of the unit indices, if it is m; *note
 * says whether it is row- or column-major. */
static const Desc *strided(Rec *r, const char **note)
{
    Prog *p = r->p;
    const uint64_t *unit = r->unit;
    Desc *s = arena_alloc(&p->arena, sizeof *s);
    *s = (Desc){.kind = DESC_KIND_STRIDED, .rank = r->rank, .loc = r->m->loc};
    s->axes = arena_alloc(&p->arena, (size_t)r->rank * sizeof *s->axes);
    s->extent = arena_alloc(&p->arena, (size_t)r->rank * sizeof *s->extent);
    s->strides = arena_alloc(&p->arena, (size_t)r->rank * sizeof *s->strides);
    memcpy(s->axes, r->axes, (size_t)r->rank * sizeof *s->axes);
    memcpy(s->extent, r->extent, (size_t)r->rank * sizeof *s->extent);
    memcpy(s->strides, unit, (size_t)r->rank * sizeof *s->strides);
    if (!verify(r, s))
        return NULL;
    *note = strided_note(s);
    return s;
}

const Desc *desc_recognize(Prog *p, const Map *m, const char **note, const char **why)
{
    Rec r = {.p = p, .m = m};
    *note = NULL;
    bool *used = mem_calloc((size_t)p->naxes + 1, sizeof *used);
    const Map **seen = NULL;
    int nseen = 0, cap = 0;
    axes_used(m, used, &seen, &nseen, &cap);
    free(seen);
    int nused = 0;
    for (int a = 0; a < p->naxes; a++)
        if (used[a] && nused++ < DESC_MAX_RANK) {
            r.axes[r.rank] = a;
            r.extent[r.rank++] = p->axes[a].size;
        }
    free(used);
    if (nused > DESC_MAX_RANK) {
        *why = arena_printf(&p->arena, "it uses %d axes; descriptors are recognized over at most %d", nused, DESC_MAX_RANK);
        return NULL;
    }
    if (r.rank == 0) {
        *why = "it stores no tensor axis";
        return NULL;
    }
    const Desc *found = NULL;
    *why = scan(&r, r.unit);
    if (!*why) {
        found = strided(&r, note);
        const char *strided_why = r.mismatch;
        r.mismatch = NULL;
        const char *tiled_why = NULL;
        if (!found)
            found = tiled(&r, &tiled_why);
        if (!found)
            *why = arena_printf(&p->arena, "not strided (the strides of the unit indices give a different layout: "
                                "%s) and not tiled (%s)", strided_why, tiled_why);
    }
    return found;
}

/* The strides (in units of one step of each dimension) of a row- or column-major order over the
 * extents ext[0..rank), into out. */
static void order_strides(DescOrder o, const uint64_t *ext, int rank, uint64_t *out)
{
    uint64_t w = 1;
    for (int k = 0; k < rank; k++) {
        int i = o == DESC_ROW_MAJOR ? rank - 1 - k : k;
        out[i] = w;
        w = u64_sat_mul(w, ext[i]);
    }
}

/* One order of a level under the permutation perm (new dimension i is old dimension perm[i]):
 * row/column-major swap under a reversal, otherwise they become strides over ext (old order). */
static DescOrder permute_order(Arena *a, DescOrder o, const uint64_t *old_strides, const uint64_t *ext,
                               const int *perm, int rank, bool reversed, uint64_t **strides)
{
    *strides = NULL;
    if ((o == DESC_ROW_MAJOR || o == DESC_COL_MAJOR) && reversed)
        return o == DESC_ROW_MAJOR ? DESC_COL_MAJOR : DESC_ROW_MAJOR;
    if (o != DESC_ROW_MAJOR && o != DESC_COL_MAJOR && o != DESC_STRIDED)
        return o;
    uint64_t tmp[DESC_MAX_RANK];
    if (o != DESC_STRIDED)
        order_strides(o, ext, rank, tmp);
    *strides = arena_alloc(a, (size_t)rank * sizeof **strides);
    for (int i = 0; i < rank; i++)
        (*strides)[i] = o == DESC_STRIDED ? old_strides[perm[i]] : tmp[perm[i]];
    return DESC_STRIDED;
}

/* The tiled levels from L down, over the extents ext of its parent (old order), permuted. */
static DescLevel *permute_levels(Arena *a, const DescLevel *L, const uint64_t *ext, const int *perm, int rank,
                                 bool reversed)
{
    if (!L)
        return NULL;
    DescLevel *x = arena_alloc(a, sizeof *x);
    uint64_t grid[DESC_MAX_RANK];
    x->tile = arena_alloc(a, (size_t)rank * sizeof *x->tile);
    for (int i = 0; i < rank; i++) {
        x->tile[i] = L->tile[perm[i]];
        grid[i] = ext[i] / L->tile[i] + (ext[i] % L->tile[i] != 0);
    }
    x->outer = permute_order(a, L->outer, L->outer_strides, grid, perm, rank, reversed, &x->outer_strides);
    x->inner = permute_order(a, L->inner, L->inner_strides, L->tile, perm, rank, reversed, &x->inner_strides);
    x->nested = L->inner == DESC_NESTED ? permute_levels(a, L->nested, L->tile, perm, rank, reversed) : NULL;
    return x;
}

const Desc *desc_reorder(Prog *p, const Map *m, const Desc *d, const int *axes, int n, const char **note)
{
    int perm[DESC_MAX_RANK];
    bool identity = true, reversed = true;
    if (n != d->rank || n > DESC_MAX_RANK)
        return d;
    for (int i = 0; i < n; i++) {
        perm[i] = -1;
        for (int j = 0; j < n; j++)
            if (d->axes[j] == axes[i])
                perm[i] = j;
        if (perm[i] < 0)
            return d;
        identity &= perm[i] == i;
        reversed &= perm[i] == n - 1 - i;
    }
    if (identity)
        return d;
    Arena *a = &p->arena;
    Desc *x = arena_alloc(a, sizeof *x);
    *x = *d;
    x->axes = arena_alloc(a, (size_t)n * sizeof *x->axes);
    x->extent = arena_alloc(a, (size_t)n * sizeof *x->extent);
    x->strides = d->strides ? arena_alloc(a, (size_t)n * sizeof *x->strides) : NULL;
    for (int i = 0; i < n; i++) {
        x->axes[i] = axes[i];
        x->extent[i] = d->extent[perm[i]];
        if (d->strides)
            x->strides[i] = d->strides[perm[i]];
    }
    x->tiled = permute_levels(a, d->tiled, d->extent, perm, n, reversed);
    Rec r = {.p = p, .m = m};
    if (!verify(&r, x))
        return d;
    if (x->kind == DESC_KIND_STRIDED)
        *note = strided_note(x);
    return x;
}
