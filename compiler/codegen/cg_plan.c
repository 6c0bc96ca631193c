/* cg_plan.c — the compile-time plan of a mapping: its terms, paddings, base classes and digit facts.
 * This is the one place code generation reads the AST; the normal form plugs in here. */
#include "cg_impl.h"

#include <stdlib.h>
#include <string.h>

/* Unfolding a DAG of shared types can repeat subtrees: beyond this many terms and paddings a
 * mapping is diagnosed instead of generating huge code. */
enum { CG_MAX_ITEMS = 4096 };

struct CgMemo *cg_memo(Cg *cg, const Map *m)
{
    for (int i = 0; i < cg->nmemo; i++)
        if (cg->memo[i].map == m)
            return &cg->memo[i];
    if (cg->nmemo == cg->memo_cap) {
        cg->memo_cap = cg->memo_cap ? 2 * cg->memo_cap : 16;
        cg->memo = mem_realloc(cg->memo, (size_t)cg->memo_cap * sizeof *cg->memo);
    }
    cg->memo[cg->nmemo] = (struct CgMemo){.map = m};
    return &cg->memo[cg->nmemo++];
}

typedef struct Builder {
    Cg *cg;
    CgPlan *pl;
    int cap_t, cap_p, slot;
    bool too_big;
} Builder;

/* Pre-order walk in the order of ev() (docs/language.md §3): a padding's slot precedes its operand's terms. */
static void collect(Builder *b, const Map *m, uint64_t w, int pad)
{
    if (b->too_big)
        return;
    if (b->pl->nterms + b->pl->npads >= CG_MAX_ITEMS) {
        b->too_big = true;
        return;
    }
    CgPlan *pl = b->pl;
    switch (m->kind) {
    case MAP_BCAST:
        return;
    case MAP_SYM:
    case MAP_STRIDE:
    case MAP_MOD: {
        uint64_t s;
        const Map *x = map_digit_root(m, &s);
        if (pl->nterms == b->cap_t) {
            b->cap_t = b->cap_t ? 2 * b->cap_t : 8;
            CgTerm *t = arena_alloc(&b->cg->arena, (size_t)b->cap_t * sizeof *t);
            if (pl->nterms)
                memcpy(t, pl->terms, (size_t)pl->nterms * sizeof *t);
            pl->terms = t;
        }
        pl->terms[pl->nterms++] =
            (CgTerm){.node = m, .base = x, .stride = s, .count = m->size, .weight = w, .slot = b->slot++, .pad = pad};
        return;
    }
    case MAP_RESIZE:
        collect(b, m->l, w, pad);
        return;
    case MAP_PAD: {
        if (pl->npads == b->cap_p) {
            b->cap_p = b->cap_p ? 2 * b->cap_p : 4;
            CgPad *p = arena_alloc(&b->cg->arena, (size_t)b->cap_p * sizeof *p);
            if (pl->npads)
                memcpy(p, pl->pads, (size_t)pl->npads * sizeof *p);
            pl->pads = p;
        }
        int me = pl->npads++;
        pl->pads[me] = (CgPad){.node = m, .weight = w, .slot = b->slot++, .parent = pad};
        collect(b, m->l, w, me);
        return;
    }
    case MAP_PAIR:
        collect(b, m->l, w * m->r->size, pad); /* <= |E|: cannot overflow */
        collect(b, m->r, w, pad);
        return;
    }
}

static bool has_truncation(const Map *m)
{
    if (!m)
        return false;
    if (m->kind == MAP_STRIDE || m->kind == MAP_MOD)
        return false; /* a digit's base is not walked */
    if (m->kind == MAP_RESIZE && m->n < m->l->size)
        return true;
    return has_truncation(m->l) || has_truncation(m->r);
}

static int cmp_stride(const void *a, const void *b)
{
    const CgTerm *x = *(const CgTerm *const *)a, *y = *(const CgTerm *const *)b;
    return x->stride < y->stride ? -1 : x->stride > y->stride;
}

/* The digit facts: exact (disjoint digits per symbol axis) and tiled (the digits cover each axis). */
static void digit_facts(Cg *cg, CgPlan *pl)
{
    pl->exact = true;
    for (int k = 0; k < pl->ncls; k++)
        if (pl->cls[k].axis < 0)
            pl->exact = false;
    if (!pl->exact)
        return;
    const CgTerm **v = mem_alloc(((size_t)pl->nterms + 1) * sizeof *v);
    pl->truncated = has_truncation(pl->map);
    pl->tiled = !pl->truncated;
    for (int a = 0; a < cg->prog->naxes; a++) {
        int n = 0;
        for (int t = 0; t < pl->nterms; t++)
            if (pl->cls[pl->terms[t].cls].axis == a && pl->terms[t].count > 1)
                v[n++] = &pl->terms[t];
        qsort(v, (size_t)n, sizeof *v, cmp_stride);
        uint64_t next = 1;
        bool tiles = true;
        for (int i = 0; i < n; i++) {
            if (i + 1 < n && v[i]->stride * v[i]->count > v[i + 1]->stride) /* product <= |A| */
                pl->exact = false;
            if (v[i]->stride != next)
                tiles = false;
            next = v[i]->stride * v[i]->count;
        }
        if (next != cg->prog->axes[a].size)
            tiles = false;
        if (!tiles && cg->prog->axes[a].size > 1)
            pl->tiled = false;
    }
    free(v);
    pl->tiled = pl->tiled && pl->exact;
}

/* Whether the positions of m (as walked by ev) include a broadcast of more than one value. */
static bool has_bcast(const Map *m)
{
    switch (m->kind) {
    case MAP_BCAST: return m->n > 1;
    case MAP_SYM: case MAP_STRIDE: case MAP_MOD: return false;
    case MAP_RESIZE: case MAP_PAD: return has_bcast(m->l);
    case MAP_PAIR: return has_bcast(m->l) || has_bcast(m->r);
    }
    return false;
}

/* The invertibility facts (see CgPlan.invertible). A composite base must be injective: with
 * several positions per cell, the one a base's inverse picks may not be the one whose digits
 * give the smallest position of the whole mapping. */
static void invert_facts(Cg *cg, CgPlan *pl)
{
    int na = cg->prog->naxes;
    pl->cls_axes = arena_alloc(&cg->arena, ((size_t)pl->ncls + 1) * sizeof *pl->cls_axes);
    pl->invertible = true;
    for (int k = 0; k < pl->ncls; k++) {
        pl->cls_axes[k] = arena_alloc(&cg->arena, (size_t)na + 1);
        map_mark_axes(pl->cls[k].base, pl->cls_axes[k]);
        for (int j = 0; j < k; j++)
            for (int a = 0; a < na; a++)
                if (pl->cls_axes[k][a] && pl->cls_axes[j][a])
                    pl->invertible = false;
        if (pl->cls[k].axis < 0) {
            const CgPlan *x = cg_plan(cg, pl->cls[k].base);
            if (!x || !x->injective)
                pl->invertible = false;
        }
        /* disjoint digits within the class */
        for (int t = 0; t < pl->nterms; t++)
            for (int u = 0; u < pl->nterms; u++) {
                const CgTerm *a = &pl->terms[t], *b = &pl->terms[u];
                if (t == u || a->cls != k || b->cls != k || a->count == 1 || b->count == 1)
                    continue;
                if (a->stride <= b->stride && a->stride * a->count > b->stride) /* products <= the base size */
                    pl->invertible = false;
            }
    }
}

const CgPlan *cg_plan(Cg *cg, const Map *m)
{
    struct CgMemo *me = cg_memo(cg, m);
    if (me->plan)
        return me->plan;
    CgPlan *pl = arena_alloc(&cg->arena, sizeof *pl);
    pl->map = m;
    Builder b = {.cg = cg, .pl = pl};
    collect(&b, m, 1, -1);
    if (b.too_big) {
        diag_error(cg->diags, m->loc, "mapping unfolds to more than %d terms; too large to generate code for",
                   CG_MAX_ITEMS);
        return NULL;
    }
    /* Base classes: which terms share a base does not depend on the position, so it is
     * decided here, once, with the interpreter's comparison (cg_module installs the
     * equivalence decision procedure of algebra.h, so bases of any size are decided). */
    pl->cls = arena_alloc(&cg->arena, ((size_t)pl->nterms + 1) * sizeof *pl->cls);
    for (int t = 0; t < pl->nterms; t++) {
        CgTerm *tm = &pl->terms[t];
        tm->cls = -1;
        for (int k = 0; k < pl->ncls && tm->cls < 0; k++) {
            int same = eval_same_base(cg->ev, pl->cls[k].base, tm->base);
            if (same < 0) {
                diag_error(cg->diags, tm->node->loc, "cannot decide whether two bases are the same: %s",
                           eval_error(cg->ev));
                return NULL;
            }
            if (same)
                tm->cls = k;
        }
        if (tm->cls < 0) {
            tm->cls = pl->ncls;
            pl->cls[pl->ncls++] =
                (CgClass){.base = tm->base, .first = t, .axis = tm->base->kind == MAP_SYM ? tm->base->axis : -1};
        }
    }
    digit_facts(cg, pl);
    me = cg_memo(cg, m); /* the memo may have moved */
    me->plan = pl;
    invert_facts(cg, pl); /* after memoizing: it plans the (smaller) composite bases */
    pl->injective = pl->invertible && !has_bcast(m);
    return pl;
}
