/* cute.c — CuTe layouts: `(4,(2,3)):(2,(1,8))` or pycute's `Layout(shape, stride)` read as the buffer view
 * (positions are offsets, cells coordinates, holes padding) or the tiler view (positions are colexicographic
 * coordinates, cells {O: L(i)}), and mappings written back as CuTe layouts. */
#include "interop_impl.h"

#include <stdlib.h>
#include <string.h>

/* A shape or stride tree, flattened: its leaves in order (colexicographic: the first is the most minor), each
 * with the top-level mode it belongs to; a leaf at the root is mode 0 of a rank-1 layout. */
typedef struct Tree {
    int n, rank;
    uint64_t v[IOP_MAX_DIGITS];
    int mode[IOP_MAX_DIGITS];
    const char *at[IOP_MAX_DIGITS];
    int shape[IOP_MAX_DIGITS * 2];  /* the profile: the nesting, for the congruence check (see profile) */
    int nshape;
} Tree;

/* Reads a tree at depth (0: the root) into t; what names it in errors ("shape", "stride"). */
static bool tree(IopScan *s, Tree *t, int depth, int mode, const char *what)
{
    if (depth > 32)
        return iop_fail(s, s->cur, "the %s nests deeper than 32 levels", what);
    if (t->nshape + 2 > (int)(sizeof t->shape / sizeof *t->shape))
        return iop_fail(s, s->cur, "the %s has more than %d entries", what, IOP_MAX_DIGITS);
    if (iop_accept(s, "(")) {
        t->shape[t->nshape++] = '(';
        int k = 0;
        do {
            if (iop_peek(s, ")") && k > 0) /* (4,) is a tuple of one */
                break;
            if (!tree(s, t, depth + 1, depth == 0 ? k : mode, what))
                return false;
            k++;
        } while (iop_accept(s, ","));
        t->shape[t->nshape++] = ')';
        if (depth == 0)
            t->rank = k;
        return iop_expect(s, ")", what[1] == 'h' ? "to close the shape's tuple" : "to close the stride's tuple");
    }
    const char *at = iop_skip(s);
    bool neg = iop_accept(s, "-");
    uint64_t v;
    if (!iop_number(s, &v, NULL))
        return s->failed ? false : iop_fail(s, s->cur, "expected a number or a tuple in the %s, found %s", what,
                                            iop_near(s));
    if (neg && v)
        return iop_fail(s, at, "negative %s -%llu: mapc reads offsets from 0 up", what, U(v));
    if (t->n == IOP_MAX_DIGITS)
        return iop_fail(s, at, "the %s has more than %d entries", what, IOP_MAX_DIGITS);
    t->shape[t->nshape++] = 'n';
    t->mode[t->n] = depth == 0 ? 0 : mode;
    t->at[t->n] = at;
    t->v[t->n++] = v;
    if (depth == 0)
        t->rank = 1;
    return true;
}

/* A CuTe layout: shape and stride (compact column-major when no stride is written). */
typedef struct Layout {
    Tree shape, stride;
} Layout;

static bool layout(IopScan *s, Layout *L)
{
    bool call = iop_accept(s, "Layout");
    if (call && !iop_expect(s, "(", "after Layout"))
        return false;
    if (!tree(s, &L->shape, 0, 0, "shape"))
        return false;
    bool have = call ? iop_accept(s, ",") && !iop_peek(s, ")") : iop_accept(s, ":");
    if (have) {
        const char *sat = iop_skip(s);
        if (!tree(s, &L->stride, 0, 0, "stride"))
            return false;
        if (L->stride.nshape != L->shape.nshape || memcmp(L->stride.shape, L->shape.shape,
                                                          (size_t)L->shape.nshape * sizeof *L->shape.shape))
            return iop_fail(s, sat, "the stride is not congruent with the shape: every shape entry needs one stride "
                            "in the same tuple structure");
    } else {
        L->stride = L->shape;
        uint64_t w = 1;
        for (int k = 0; k < L->shape.n; k++) {
            L->stride.v[k] = w;
            w = u64_sat_mul(w, L->shape.v[k]);
        }
    }
    if (call) {
        iop_accept(s, ",");
        if (!iop_expect(s, ")", "to close Layout("))
            return false;
    }
    if (!iop_end(s, "the layout"))
        return false;
    for (int k = 0; k < L->shape.n; k++)
        if (L->shape.v[k] == 0)
            return iop_fail(s, L->shape.at[k], "shape entry 0: a CuTe mode has at least one coordinate");
    return true;
}

/* The buffer view: mode i's sub-modes (t_k : d_k) are the digits of axis i of strides prod_{j<k} t_j at
 * position weights d_k. */
static const Map *buffer_view(IopScan *s, const Layout *L, const IopAxes *ax)
{
    Prog *p = s->p;
    int axes[IOP_MAX_DIGITS];
    if (!iop_axes(s, ax, L->shape.rank, "the CuTe layout", s->t.s, axes))
        return NULL;
    IopDigit d[IOP_MAX_DIGITS];
    uint64_t size[IOP_MAX_DIGITS];
    const char *first[IOP_MAX_DIGITS];
    for (int i = 0; i < L->shape.rank; i++)
        size[i] = 1, first[i] = NULL;
    for (int k = 0; k < L->shape.n; k++) {
        int i = L->shape.mode[k];
        if (!first[i])
            first[i] = L->shape.at[k];
        d[k] = (IopDigit){.dim = i, .stride = size[i], .count = L->shape.v[k], .weight = L->stride.v[k],
                          .at = L->stride.at[k]};
        if (!u64_mul(size[i], L->shape.v[k], &size[i]))
            return IOP_REFUSE(s, L->shape.at[k], "mode %d's size overflows 64 bits", i);
    }
    for (int i = 0; i < L->shape.rank; i++)
        if (size[i] != p->axes[axes[i]].size)
            return IOP_REFUSE(s, first[i], "mode %d of the CuTe layout has size %llu but axis %s "
                                                   "has size %llu", i, U(size[i]), p->axes[axes[i]].name,
                                                   U(p->axes[axes[i]].size));
    IopDomain dom = {L->shape.rank, axes, "the CuTe layout", "offset"};
    return iop_place(s, &dom, d, L->shape.n, 0);
}

/* The tiler view over the offset axis O: position i (colexicographic) holds {O: L(i)}; leaf k is the digit
 * [O # P] / d_k % t_k (a broadcast t_k when d_k is 0), P the least multiple of every d_k * t_k that is >= |O|
 * (O itself when that is |O|). A second leaf with the same stride and count takes a base of its own ([O # 2P],
 * ...), so that the two add as CuTe adds them instead of overshooting as one digit. */
static const Map *tiler_view(IopScan *s, const Layout *L, const IopAxes *ax)
{
    Prog *p = s->p;
    int o;
    if (!iop_axes(s, ax, 1, "the tiler view (one offset axis)", s->t.s, &o))
        return NULL;
    uint64_t osize = p->axes[o].size, cosize = 1, lcm = 1;
    for (int k = 0; k < L->shape.n; k++) {
        uint64_t span = u64_sat_mul(L->shape.v[k] - 1, L->stride.v[k]);
        cosize = u64_sat_add(cosize, span);
        if (L->stride.v[k] && L->shape.v[k] > 1) {
            uint64_t dt = u64_sat_mul(L->stride.v[k], L->shape.v[k]);
            lcm = u64_sat_mul(lcm / iop_gcd(lcm, dt), dt);
        }
    }
    if (cosize == UINT64_MAX || lcm == UINT64_MAX)
        return IOP_REFUSE(s, s->t.s, "the CuTe layout's offsets overflow 64 bits");
    if (cosize > osize)
        return IOP_REFUSE(s, s->t.s, "the CuTe layout reaches offset %llu but the offset axis "
                                               "%s has size %llu", U(cosize - 1), p->axes[o].name, U(osize));
    uint64_t base = u64_sat_mul(lcm, osize / lcm + (osize % lcm != 0));
    MapWhy why = "";
    const Map *acc = NULL;
    bool bad = false;
    for (int k = 0; k < L->shape.n && !bad; k++) {
        uint64_t t = L->shape.v[k], dk = L->stride.v[k];
        if (t == 1)
            continue;
        const Map *g;
        if (dk == 0) {
            g = map_make_bcast(&p->arena, t, s->t.loc, why);
        } else {
            uint64_t copies = 1;
            for (int j = 0; j < k; j++)
                copies += L->shape.v[j] == t && L->stride.v[j] == dk;
            uint64_t padded = copies == 1 ? base : u64_sat_mul(base, copies);
            g = padded == UINT64_MAX ? NULL : iop_axis_digit(p, o, padded, dk, t, s->t.loc, why);
        }
        acc = g ? iop_pair(p, g, acc, s->t.loc, why) : NULL;
        bad = !acc;
    }
    if (bad)
        return IOP_REFUSE(s, s->t.s, "the CuTe layout has no mapping: %s",
                                               *why ? why : "its size overflows 64 bits");
    return acc ? acc : map_make_bcast(&p->arena, 1, s->t.loc, why);
}

const Map *iop_cute_import(IopScan *s, bool tiler, const IopAxes *ax)
{
    Layout *L = mem_calloc(1, sizeof *L);
    const Map *m = NULL;
    if (layout(s, L))
        m = tiler ? tiler_view(s, L, ax) : buffer_view(s, L, ax);
    free(L);
    return s->failed ? NULL : m;
}

/* ---- Writing a mapping as a CuTe layout ---- */

/* Appends mode entries v[0..n) as one entry or a tuple. */
static void mode_text(IopBuf *b, const uint64_t *v, int n)
{
    if (n == 1) {
        iop_buf_printf(b, "%llu", U(v[0]));
        return;
    }
    iop_buf_printf(b, "(");
    for (int k = 0; k < n; k++)
        iop_buf_printf(b, "%s%llu", k ? "," : "", U(v[k]));
    iop_buf_printf(b, ")");
}

/* The layout text of modes (shape[i][0..n[i]), stride[i][..]) for i < rank: "s:d", "((s0,s1)):((d0,d1))" (one
 * hierarchical mode), or "(s0,(s1,s2)):(d0,(d1,d2))"; flat (the tiler view, whose modes do not matter):
 * "(s0,s1):(d0,d1)" for one mode. */
static const char *layout_text(Prog *p, uint64_t (*shape)[IOP_MAX_DIGITS], uint64_t (*stride)[IOP_MAX_DIGITS],
                               const int *n, int rank, bool flat)
{
    bool wrap = rank != 1 || (n[0] > 1 && !flat);
    IopBuf b;
    iop_buf_init(&b, &p->arena);
    for (int half = 0; half < 2; half++) {
        uint64_t (*v)[IOP_MAX_DIGITS] = half ? stride : shape;
        if (half)
            iop_buf_printf(&b, ":");
        if (wrap)
            iop_buf_printf(&b, "(");
        for (int i = 0; i < rank; i++) {
            if (i)
                iop_buf_printf(&b, ",");
            mode_text(&b, v[i], n[i]);
        }
        if (wrap)
            iop_buf_printf(&b, ")");
    }
    return b.s;
}

/* The buffer view's candidate: per axis the digits by stride, each a sub-mode whose stride is its weight. */
static const char *buffer_candidate(Prog *p, const Map *m, const int *axes, int rank, const char **why)
{
    IopLeaf v[IOP_MAX_DIGITS];
    bool gaps;
    int n = iop_leaves(p, m, v, IOP_MAX_DIGITS, &gaps, why);
    if (n < 0)
        return NULL;
    uint64_t (*shape)[IOP_MAX_DIGITS] = arena_alloc(&p->arena, (size_t)rank * sizeof *shape);
    uint64_t (*stride)[IOP_MAX_DIGITS] = arena_alloc(&p->arena, (size_t)rank * sizeof *stride);
    int *cnt = arena_alloc(&p->arena, (size_t)rank * sizeof *cnt);
    for (int k = 0; k < n; k++)
        if (v[k].axis < 0) {
            *why = arena_printf(&p->arena, "it repeats every cell %llu times (a broadcast of %llu at position "
                                "stride %llu): a CuTe layout maps each coordinate to one offset; its tiler view "
                                "(--to cute-tiler) reads positions as coordinates", U(v[k].count), U(v[k].count),
                                U(v[k].weight));
            return NULL;
        } else if (v[k].padded > p->axes[v[k].axis].size) {
            *why = arena_printf(&p->arena, "axis %s (size %llu) is padded to %llu by its digits: a CuTe shape holds "
                                "exactly the axis's coordinates", p->axes[v[k].axis].name,
                                U(p->axes[v[k].axis].size), U(v[k].padded));
            return NULL;
        }
    if ((*why = iop_whole(p, v, n, axes, rank, "a CuTe layout's buffer view")) != NULL)
        return NULL;
    for (int i = 0; i < rank; i++) {
        /* the digits of axis i by increasing stride are its sub-modes, colexicographic */
        uint64_t at = 1;
        cnt[i] = 0;
        while (at < p->axes[axes[i]].size) {
            int best = -1;
            for (int k = 0; k < n; k++)
                if (v[k].axis == axes[i] && v[k].stride == at)
                    best = k;
            if (best < 0) {
                *why = arena_printf(&p->arena, "its digits of axis %s do not split it into sub-modes (none of stride "
                                    "%llu)", p->axes[axes[i]].name, U(at));
                return NULL;
            }
            shape[i][cnt[i]] = v[best].count;
            stride[i][cnt[i]++] = v[best].weight;
            at = u64_sat_mul(at, v[best].count);
        }
        if (cnt[i] == 0) {
            shape[i][0] = 1;
            stride[i][cnt[i]++] = 0;
        }
    }
    uint64_t cosize = 1;
    for (int i = 0; i < rank; i++)
        for (int k = 0; k < cnt[i]; k++)
            cosize = u64_sat_add(cosize, u64_sat_mul(shape[i][k] - 1, stride[i][k]));
    if (m->size > cosize) {
        *why = arena_printf(&p->arena, "its last %llu positions are padding after the last element (offset %llu): a "
                            "CuTe layout's buffer ends at its last offset", U(m->size - cosize), U(cosize - 1));
        return NULL;
    }
    return layout_text(p, shape, stride, cnt, rank, false);
}

/* The tiler view's candidate: the parts of m minor first, a digit (stride d, count t) of its one axis the mode
 * t:d, a broadcast t the mode t:0. */
static const char *tiler_candidate(Prog *p, const Map *m, int rank, const char **why)
{
    if (rank != 1) {
        *why = arena_printf(&p->arena, "its cells hold %d axes: a CuTe tiler's cells are offsets, of one axis", rank);
        return NULL;
    }
    IopLeaf v[IOP_MAX_DIGITS];
    bool gaps;
    int n = iop_leaves(p, m, v, IOP_MAX_DIGITS, &gaps, why);
    if (n < 0)
        return NULL;
    if (gaps) {
        *why = "it has padding: a CuTe layout maps every coordinate to an offset";
        return NULL;
    }
    uint64_t(*shape)[IOP_MAX_DIGITS] = arena_alloc(&p->arena, sizeof *shape);
    uint64_t(*stride)[IOP_MAX_DIGITS] = arena_alloc(&p->arena, sizeof *stride);
    int cnt = 0;
    for (int k = n - 1; k >= 0; k--) {
        shape[0][cnt] = v[k].count;
        stride[0][cnt++] = v[k].axis < 0 ? 0 : v[k].stride;
    }
    if (!cnt) {
        shape[0][0] = 1;
        stride[0][cnt++] = 0;
    }
    return layout_text(p, shape, stride, &cnt, 1, true);
}

const char *iop_cute_export(Prog *p, const Map *m, bool tiler, const char **why)
{
    int axes[IOP_MAX_DIGITS];
    int rank = iop_layout_axes(p, m, tiler ? "a CuTe tiler (offsets of an axis)" : "a CuTe buffer view", axes, why);
    if (rank < 0)
        return NULL;
    const char *text = tiler ? tiler_candidate(p, m, rank, why) : buffer_candidate(p, m, axes, rank, why);
    if (!text)
        return NULL;
    *why = iop_verify(p, m, tiler ? IOP_CUTE_TILER : IOP_CUTE, text, axes, rank);
    return *why ? NULL : text;
}
