/* triton.c — Triton linear layouts: `register = [[0, 1], [0, 2]], lane = [...], warp = [...]` (or the
 * `#ttg.linear<{...}>` attribute) read as mappings from hardware index to logical coordinate, and mappings
 * written back as that attribute. mapc takes the layouts whose every basis is one bit of one dimension (or 0). */
#include "algebra/algebra.h"
#include "interop_impl.h"

#include <stdlib.h>
#include <string.h>

#define MAX_BITS 62

/* The bases of a layout: bit b (in-dimensions in the order written, the first one minor) maps to vec[b]. */
typedef struct Bases {
    int nbits, rank;
    uint64_t vec[MAX_BITS][IOP_MAX_DIGITS / 2];
    const char *at[MAX_BITS];
    const char *dim[MAX_BITS];     /* the in-dimension's name, for errors */
    int dimlen[MAX_BITS], index[MAX_BITS];
} Bases;

static bool is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* One basis vector [c0, c1, ...] into B as bit B->nbits. */
static bool vector(IopScan *s, Bases *B, const char *name, size_t len, int index)
{
    const char *at = iop_skip(s);
    if (!iop_expect(s, "[", "to open a basis vector"))
        return false;
    if (B->nbits == MAX_BITS)
        return iop_fail(s, at, "more than %d bases: positions are 64-bit", MAX_BITS);
    int k = 0;
    do {
        uint64_t v;
        if (!iop_number(s, &v, NULL))
            return s->failed ? false : iop_fail(s, s->cur, "expected a number in a basis vector, found %s",
                                                iop_near(s));
        if (k == IOP_MAX_DIGITS / 2)
            return iop_fail(s, at, "a basis vector has more than %d entries", IOP_MAX_DIGITS / 2);
        B->vec[B->nbits][k++] = v;
    } while (iop_accept(s, ","));
    if (!iop_expect(s, "]", "to close a basis vector"))
        return false;
    if (B->rank >= 0 && k != B->rank)
        return iop_fail(s, at, "basis vector of %d entr%s where the first has %d: every basis has one entry per "
                        "output dimension", k, k == 1 ? "y" : "ies", B->rank);
    B->rank = k;
    B->at[B->nbits] = at;
    B->dim[B->nbits] = name;
    B->dimlen[B->nbits] = (int)len;
    B->index[B->nbits++] = index;
    return true;
}

/* NAME = [vec, ...], ... optionally inside #ttg.linear<{...}>. */
static bool bases(IopScan *s, Bases *B)
{
    B->rank = -1;
    bool attr = iop_accept(s, "#ttg.linear") || iop_accept(s, "#triton_gpu.linear");
    if (attr && !(iop_expect(s, "<", "after #ttg.linear") && iop_expect(s, "{", "to open the bases")))
        return false;
    while (!iop_peek(s, "}") && iop_skip(s) < s->end) {
        const char *name;
        size_t len;
        if (!iop_ident(s, &name, &len))
            return iop_fail(s, s->cur, "expected a hardware dimension (register, lane, warp, block) and its bases, "
                            "found %s", iop_near(s));
        if (!iop_expect(s, "=", "after the dimension's name") || !iop_expect(s, "[", "to open the list of bases"))
            return false;
        int index = 0;
        while (!iop_peek(s, "]")) {
            if (!vector(s, B, name, len, index++))
                return false;
            if (!iop_accept(s, ","))
                break;
        }
        if (!iop_expect(s, "]", "to close the list of bases"))
            return false;
        if (!iop_accept(s, ","))
            break;
    }
    if (attr && !(iop_expect(s, "}", "to close the bases") && iop_expect(s, ">", "to close #ttg.linear<")))
        return false;
    return iop_end(s, "the bases");
}

/* The mapping of B over the axes: bit b (most major first) is the digit of the one dimension its basis
 * names (the basis value is the digit's stride; count 2), or a broadcast 2 for a zero basis. */
static const Map *layout(IopScan *s, const Bases *B, const int *axes)
{
    Prog *p = s->p;
    for (int i = 0; i < B->rank; i++)
        if (!is_pow2(p->axes[axes[i]].size))
            return IOP_REFUSE(s, s->t.s, "axis %s has size %llu, not a power of two: the dimensions of a Triton "
                              "linear layout have power-of-two sizes", p->axes[axes[i]].name,
                              U(p->axes[axes[i]].size));
    for (int b = 0; b < B->nbits; b++) {
        int nz = -1;
        for (int i = 0; i < B->rank; i++) {
            uint64_t v = B->vec[b][i];
            if (!v)
                continue;
            if (v >= p->axes[axes[i]].size)
                return IOP_REFUSE(s, B->at[b], "basis %d of %.*s has %llu for axis %s of size %llu", B->index[b],
                                  B->dimlen[b], B->dim[b], U(v), p->axes[axes[i]].name, U(p->axes[axes[i]].size));
            if (!is_pow2(v) || nz >= 0)
                return IOP_REFUSE(s, B->at[b], "basis %d of %.*s sets several bits (%s): mapc expresses the layouts "
                                  "whose every basis is one bit of one dimension, not XOR-mixed bits (swizzles)",
                                  B->index[b], B->dimlen[b], B->dim[b], nz >= 0 ? "in two dimensions" :
                                  arena_printf(&p->arena, "%llu for axis %s", U(v), p->axes[axes[i]].name));
            nz = i;
        }
        for (int c = 0; c < b && nz >= 0; c++)
            if (B->vec[c][nz] == B->vec[b][nz])
                return IOP_REFUSE(s, B->at[b], "basis %d of %.*s and basis %d of %.*s are the same bit (%llu of axis "
                                  "%s): their XOR cancels at hardware index %llu, which no mapping expresses",
                                  B->index[b], B->dimlen[b], B->dim[b], B->index[c], B->dimlen[c], B->dim[c],
                                  U(B->vec[b][nz]), p->axes[axes[nz]].name,
                                  U((UINT64_C(1) << b) | (UINT64_C(1) << c)));
    }
    MapWhy why = "";
    const Map *acc = NULL;
    for (int b = 0; b < B->nbits; b++) {
        const Map *g = NULL;
        for (int i = 0; i < B->rank && !g; i++)
            if (B->vec[b][i])
                g = iop_axis_digit(p, axes[i], p->axes[axes[i]].size, B->vec[b][i], 2, s->t.loc, why);
        if (!g && !*why)
            g = map_make_bcast(&p->arena, 2, s->t.loc, why);
        acc = g ? iop_pair(p, g, acc, s->t.loc, why) : NULL;
        if (!acc)
            return IOP_REFUSE(s, B->at[b], "the Triton layout has no mapping: %s", why);
    }
    return acc ? acc : map_make_bcast(&p->arena, 1, s->t.loc, why);
}

const Map *iop_triton_import(IopScan *s, const IopAxes *ax)
{
    Bases *B = mem_calloc(1, sizeof *B);
    const Map *m = NULL;
    int axes[IOP_MAX_DIGITS];
    if (bases(s, B)) {
        if (B->rank < 0) /* no basis: the rank is the axes named, or none */
            B->rank = ax && ax->n >= 0 ? ax->n : 0;
        if (iop_axes(s, ax, B->rank, "the Triton layout", s->t.s, axes))
            m = layout(s, B, axes);
    }
    free(B);
    return s->failed ? NULL : m;
}

/* Appends "name = [[..], ..]" for bits [lo, hi) of the cells' bases. */
static void dim_text(IopBuf *b, const char *name, uint64_t (*vec)[IOP_MAX_DIGITS / 2], int lo, int hi, int rank)
{
    iop_buf_printf(b, "%s = [", name);
    for (int k = lo; k < hi; k++) {
        iop_buf_printf(b, "%s[", k > lo ? ", " : "");
        for (int i = 0; i < rank; i++)
            iop_buf_printf(b, "%s%llu", i ? ", " : "", U(vec[k][i]));
        iop_buf_printf(b, "]");
    }
    iop_buf_printf(b, "]");
}

/* log2 of a hardware dimension's size given as an option (0 for none); -1 if it is not a power of two. */
static int option_bits(uint64_t v)
{
    if (v <= 1)
        return 0;
    return is_pow2(v) ? __builtin_ctzll(v) : -1;
}

const char *iop_triton_export(Prog *p, const Map *m, const IopOptions *o, const char **why)
{
    int axes[IOP_MAX_DIGITS];
    int rank = iop_layout_axes(p, m, "a Triton layout", axes, why);
    if (rank < 0)
        return NULL;
    if (!is_pow2(m->size)) {
        *why = arena_printf(&p->arena, "its size %llu is not a power of two: a Triton layout's hardware index has "
                            "power-of-two dimensions", U(m->size));
        return NULL;
    }
    for (int i = 0; i < rank; i++)
        if (!is_pow2(p->axes[axes[i]].size)) {
            *why = arena_printf(&p->arena, "axis %s has size %llu, not a power of two: a Triton layout's logical "
                                "dimensions have power-of-two sizes", p->axes[axes[i]].name, U(p->axes[axes[i]].size));
            return NULL;
        }
    int nbits = __builtin_ctzll(m->size), lb = option_bits(o->lanes), wb = option_bits(o->warps),
        bb = option_bits(o->blocks);
    if (lb < 0 || wb < 0 || bb < 0) {
        *why = "the lanes, warps and blocks are powers of two";
        return NULL;
    }
    if (lb + wb + bb > nbits) {
        *why = arena_printf(&p->arena, "its %llu positions are fewer than the lanes x warps x blocks asked for",
                            U(m->size));
        return NULL;
    }
    uint64_t(*vec)[IOP_MAX_DIGITS / 2] = arena_alloc(&p->arena, (size_t)(nbits + 1) * sizeof *vec);
    Evaluator *ev = eqv_evaluator_new(p);
    Cell c = {.coord = mem_calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    for (int b = 0; b < nbits && !*why; b++) {
        uint64_t pos = UINT64_C(1) << b;
        if (eval_cell(ev, m, pos, &c) != EVAL_OK)
            *why = arena_printf(&p->arena, "position %llu cannot be evaluated: %s", U(pos), eval_error(ev));
        else if (c.kind != CELL_LIVE)
            *why = arena_printf(&p->arena, "position %llu is %s: every hardware index of a Triton layout holds a "
                                "logical coordinate", U(pos), cell_kind_name(c.kind));
        for (int i = 0; i < rank && !*why; i++)
            vec[b][i] = c.coord[axes[i]];
    }
    free(c.coord);
    eqv_evaluator_free(ev);
    if (*why)
        return NULL;
    int rb = nbits - lb - wb - bb;
    IopBuf t;
    iop_buf_init(&t, &p->arena);
    iop_buf_printf(&t, "#ttg.linear<{");
    dim_text(&t, "register", vec, 0, rb, rank);
    iop_buf_printf(&t, ", ");
    dim_text(&t, "lane", vec, rb, rb + lb, rank);
    iop_buf_printf(&t, ", ");
    dim_text(&t, "warp", vec, rb + lb, rb + lb + wb, rank);
    iop_buf_printf(&t, ", ");
    dim_text(&t, "block", vec, rb + lb + wb, nbits, rank);
    iop_buf_printf(&t, "}>");
    *why = iop_verify(p, m, IOP_TRITON, t.s, axes, rank);
    return *why ? NULL : t.s;
}
