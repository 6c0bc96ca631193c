/* digits.c — what the writers read off a mapping: the digits of its normal form with their position weights and
 * the axes it holds; and the check of every written candidate: read back, it must be equivalent to the mapping. */
#include "algebra/algebra.h"
#include "interop_impl.h"

#include <stdlib.h>
#include <string.h>

/* Appends the parts of m (at position weight w) to v; false with *why. */
static bool walk(Prog *p, const Map *m, uint64_t w, IopLeaf *v, int *n, int cap, bool *gaps, const char **why)
{
    switch (m->kind) {
    case MAP_PAIR:
        return walk(p, m->l, u64_sat_mul(w, m->r->size), v, n, cap, gaps, why) && walk(p, m->r, w, v, n, cap, gaps, why);
    case MAP_RESIZE:
        *gaps = true;
        return walk(p, m->l, w, v, n, cap, gaps, why);
    case MAP_PAD:
        if (m->pad != PAD_TOP) {
            *why = arena_printf(&p->arena, "it has %s padding; the other systems' layouts leave holes unknown "
                                "(pad(top))", m->pad == PAD_ZERO ? "pad(zero)" : "pad(bottom)");
            return false;
        }
        *gaps = true;
        if (!walk(p, m->l, w, v, n, cap, gaps, why))
            return false;
        if (m->l->kind == MAP_SYM && m->l->size > 1)
            v[*n - 1].slot = m->n;
        return true;
    case MAP_BCAST:
    case MAP_SYM:
    case MAP_STRIDE:
    case MAP_MOD:
        break;
    }
    if (m->kind == MAP_BCAST && m->n == 1)
        return true;
    if (*n == cap) {
        *why = "it has too many digits";
        return false;
    }
    IopLeaf *l = &v[(*n)++];
    *l = (IopLeaf){.axis = -1, .stride = 1, .count = m->size, .weight = w};
    if (m->kind == MAP_BCAST)
        return true;
    const Map *x = map_digit_root(m, &l->stride);
    if (x->kind == MAP_PAD && x->pad == PAD_TOP && x->l->kind == MAP_SYM) {
        l->axis = x->l->axis;
        l->padded = x->size;
        return true;
    }
    if (x->kind == MAP_SYM) {
        l->axis = x->axis;
        l->padded = x->size;
        return true;
    }
    char text[160];
    map_format(p, m, text, sizeof text);
    *why = arena_printf(&p->arena, "its part %s is a digit of a composite base, not of one axis", text);
    return false;
}

int iop_leaves(Prog *p, const Map *m, IopLeaf *v, int cap, bool *gaps, const char **why)
{
    int n = 0;
    *gaps = false;
    return walk(p, norm_map(&p->arena, m), 1, v, &n, cap, gaps, why) ? n : -1;
}

const char *iop_whole(Prog *p, const IopLeaf *v, int n, const int *axes, int rank, const char *layout)
{
    for (int i = 0; i < rank; i++) {
        const Axis *a = &p->axes[axes[i]];
        uint64_t at = 1;
        while (at < a->size) {
            int k = 0;
            while (k < n && !(v[k].axis == axes[i] && v[k].stride == at && v[k].count > 1))
                k++;
            if (k == n)
                return arena_printf(&p->arena, "it holds only part of axis %s: coordinate %llu is never held (no "
                                    "digit of %s has stride %llu); %s stores every index of its axes once", a->name,
                                    U(at), a->name, U(at), layout);
            at = u64_sat_mul(at, v[k].count);
        }
    }
    return NULL;
}

int iop_used_axes(const Prog *p, const Map *m, int *out)
{
    bool *used = mem_calloc((size_t)p->naxes + 1, sizeof *used);
    map_mark_axes(m, used);
    int n = 0;
    for (int a = 0; a < p->naxes; a++)
        if (used[a])
            out[n++] = a;
    free(used);
    return n;
}

int iop_layout_axes(Prog *p, const Map *m, const char *layout, int *out, const char **why)
{
    int rank = iop_used_axes(p, m, out);
    if (rank == 0 || rank > IOP_MAX_DIGITS / 2) {
        *why = rank ? "it holds too many axes"
                    : arena_printf(&p->arena, "its cells hold no axis: %s's dimensions are axes", layout);
        return -1;
    }
    return rank;
}

/* The printed form of a cell (arena text). */
static const char *cell_text(Prog *p, const Cell *c)
{
    size_t n = cell_format(p, c, NULL, 0);
    char *s = arena_alloc(&p->arena, n + 1);
    cell_format(p, c, s, n + 1);
    return s;
}

const char *iop_verify_map(Prog *p, const Map *m, const Map *c, const char *text)
{
    EqvResult r = {.c1.coord = mem_calloc((size_t)p->naxes + 1, sizeof(uint64_t)),
                   .c2.coord = mem_calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    Eqv *q = eqv_new(p);
    eqv_decide(q, m, c, &r);
    eqv_free(q);
    if (r.verdict == EQV_UNKNOWN) {
        Evaluator *ev = eqv_evaluator_new(p);
        if (eqv_exhaustive(ev, m, c, MAPC_EXHAUSTIVE_BUDGET, &r) != EVAL_OK)
            r.verdict = EQV_UNKNOWN;
        eqv_evaluator_free(ev);
    }
    const char *why = NULL;
    if (r.verdict == EQV_SIZES_DIFFER)
        why = arena_printf(&p->arena, "the closest candidate, %s, has %llu positions where it has %llu", text,
                           U(c->size), U(m->size));
    else if (r.verdict == EQV_CELLS_DIFFER)
        why = arena_printf(&p->arena, "the closest candidate, %s, differs at position %llu: %s where it has %s", text,
                           U(r.pos), cell_text(p, &r.c2), cell_text(p, &r.c1));
    else if (r.verdict == EQV_UNKNOWN)
        why = arena_printf(&p->arena, "the equivalence of the candidate %s could not be decided", text);
    free(r.c1.coord);
    free(r.c2.coord);
    return why;
}

const char *iop_verify(Prog *p, const Map *m, IopFormat f, const char *text, const int *axes, int n)
{
    Source *src = arena_alloc(&p->arena, sizeof *src);
    *src = (Source){.name = "<export>", .text = text, .len = strlen(text)};
    Diags scratch;
    diags_init(&scratch, &p->arena);
    IopAxes ax = {axes, n, {src, 1, 1}};
    const Map *c = iop_import(p, f, (IopText){text, src->len, {src, 1, 1}}, &ax, &scratch);
    if (!c)
        return arena_printf(&p->arena, "the closest candidate, %s, does not read back: %s", text,
                            scratch.head ? scratch.head->msg : "no reason given");
    return iop_verify_map(p, m, c, text);
}
