/* eqv_build.c — the cell function of a mapping as piecewise quasi-affine functions of the
 * position, built with isl from docs/language.md §3 (structural evaluation, then finalization as case splits). */
#include "eqv_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The encoding follows docs/language.md §3 literally, as a function of the position p:
 *  - structural evaluation walks the tree once with a quasi-affine position expression x(p)
 *    (pairs split x into floor(x/|R|) and x mod |R|) and a presence set (the positions where
 *    the sub-tree is reached: paddings split it by x < |L|). It yields a static list of items,
 *    each with its value (an isl_aff) and its presence set; nothing is enumerated.
 *  - finalization is a sequence of case splits on those sets: same-base classes are static
 *    (composite bases are compared recursively by this procedure, so they are identified up to
 *    equivalence), a composite base's coordinate c(p) is decoded by pulling back the relation
 *    of the base, the most major padding wins, then overshoots and axis overflow, else live.
 * Two mappings are equivalent iff their sizes and cell functions are equal (equiv.c); the
 * smallest differing position is the integer minimum of the set where the functions differ.
 */

/* ---- small isl helpers (all take their isl arguments, like isl itself) ---- */

isl_val *eqv_val(isl_ctx *ctx, uint64_t v) { return isl_val_int_from_ui(ctx, (unsigned long)v); }

/* The space [p] of positions. */
isl_space *eqv_pos_space(Eqv *q) { return isl_space_set_alloc(q->ctx, 0, 1); }

/* The constant v as an affine function of p. */
isl_aff *eqv_aff_const(Eqv *q, uint64_t v)
{
    return isl_aff_val_on_domain(isl_local_space_from_space(eqv_pos_space(q)), eqv_val(q->ctx, v));
}

/* { [p] : 0 <= p < n } */
isl_set *eqv_range_set(Eqv *q, uint64_t n)
{
    isl_set *s = isl_set_universe(eqv_pos_space(q));
    s = isl_set_lower_bound_val(s, isl_dim_set, 0, isl_val_zero(q->ctx));
    return isl_set_upper_bound_val(s, isl_dim_set, 0, eqv_val(q->ctx, n - 1));
}

/* v on pres, 0 on dom \ pres: a total function on dom. Takes v and pres. */
static isl_pw_aff *ext0(isl_aff *v, isl_set *pres, isl_set *dom)
{
    isl_pw_aff *a = isl_pw_aff_intersect_domain(isl_pw_aff_from_aff(v), isl_set_copy(pres));
    isl_set *rest = isl_set_subtract(isl_set_copy(dom), pres);
    isl_pw_aff *z = isl_pw_aff_zero_on_domain(isl_local_space_from_space(isl_set_get_space(dom)));
    return isl_pw_aff_union_add(a, isl_pw_aff_intersect_domain(z, rest));
}

/* The pw_aff v restricted to s, 0 on dom \ s. Takes v and s. */
static isl_pw_aff *ext0_pw(isl_pw_aff *v, isl_set *s, isl_set *dom)
{
    isl_pw_aff *a = isl_pw_aff_intersect_domain(v, isl_set_copy(s));
    isl_set *rest = isl_set_subtract(isl_set_copy(dom), s);
    isl_pw_aff *z = isl_pw_aff_zero_on_domain(isl_local_space_from_space(isl_set_get_space(dom)));
    return isl_pw_aff_union_add(a, isl_pw_aff_intersect_domain(z, rest));
}

/* The constant k on s. Takes s. */
static isl_pw_aff *pw_const(Eqv *q, isl_set *s, uint64_t k)
{
    return isl_pw_aff_intersect_domain(isl_pw_aff_from_aff(eqv_aff_const(q, k)), s);
}

/* ---- structural evaluation ---- */

static void push(Items *it, Item x, int max_items)
{
    if (it->n >= max_items) {
        it->over = true;
        isl_aff_free(x.value);
        isl_set_free(x.pres);
        return;
    }
    if (it->n == it->cap) {
        it->cap = it->cap ? 2 * it->cap : 16;
        it->v = mem_realloc(it->v, (size_t)it->cap * sizeof *it->v);
    }
    it->v[it->n++] = x;
}

/* ev(E, x) of docs/language.md §3 for every p of pres at once: appends the items met, each with its value
 * and presence. Takes x and pres. Empty presences are pruned. */
static void walk(Eqv *q, const Map *e, isl_aff *x, isl_set *pres, int id, Items *it)
{
    switch (e->kind) {
    case MAP_SYM:
        push(it, (Item){.base = e, .stride = 1, .count = e->size, .value = x, .pres = pres, .pres_id = id}, q->max_items);
        return;
    case MAP_BCAST:
        isl_aff_free(x);
        isl_set_free(pres);
        return;
    case MAP_STRIDE:
    case MAP_MOD: {
        uint64_t s;
        const Map *root = map_digit_root(e, &s);
        push(it, (Item){.base = root, .stride = s, .count = e->size, .value = x, .pres = pres, .pres_id = id},
             q->max_items);
        return;
    }
    case MAP_RESIZE:
        walk(q, e->l, x, pres, id, it);
        return;
    case MAP_PAD: {
        uint64_t n = e->l->size;
        isl_set *out = isl_set_intersect(isl_set_copy(pres), isl_aff_ge_set(isl_aff_copy(x), eqv_aff_const(q, n)));
        if (isl_set_is_empty(out) == isl_bool_true) { /* the padding is never reached here */
            isl_set_free(out);
            walk(q, e->l, x, pres, id, it);
            return;
        }
        isl_set *in = isl_set_intersect(pres, isl_aff_lt_set(isl_aff_copy(x), eqv_aff_const(q, n)));
        if (isl_set_is_empty(in) == isl_bool_false) {
            walk(q, e->l, x, in, ++it->next_id, it);
        } else {
            isl_aff_free(x);
            isl_set_free(in);
        }
        push(it, (Item){.is_pad = true, .pad = e->pad, .pres = out, .pres_id = ++it->next_id}, q->max_items);
        return;
    }
    case MAP_PAIR: {
        uint64_t r = e->r->size;
        if (r == 1) {
            walk(q, e->l, x, isl_set_copy(pres), id, it);
            walk(q, e->r, eqv_aff_const(q, 0), pres, id, it);
            return;
        }
        isl_aff *hi = isl_aff_floor(isl_aff_scale_down_val(isl_aff_copy(x), eqv_val(q->ctx, r)));
        isl_aff *lo = isl_aff_mod_val(x, eqv_val(q->ctx, r));
        walk(q, e->l, hi, isl_set_copy(pres), id, it);
        walk(q, e->r, lo, pres, id, it);
        return;
    }
    }
}

static void items_free(Items *it)
{
    for (int i = 0; i < it->n; i++) {
        isl_aff_free(it->v[i].value);
        isl_set_free(it->v[i].pres);
    }
    free(it->v);
}


/* Same base (docs/language.md §3 step 1): 1, 0, or -1 when unknown. */
static int same_base(Eqv *q, const Map *x, const Map *y)
{
    if (x == y)
        return 1;
    if (x->kind == MAP_SYM && y->kind == MAP_SYM)
        return x->axis == y->axis;
    return eqv_same(q, x, y); /* a symbol and an equivalent composite are one base too */
}


void eqv_fn_free(Eqv *q, Fn f)
{
    if (!f.o)
        return;
    for (int i = 0; i <= q->naxes; i++)
        isl_pw_aff_free(f.o[i]);
    free(f.o);
}

static Fn fn_alloc(Eqv *q)
{
    Fn f = {mem_calloc((size_t)q->naxes + 1, sizeof *f.o)};
    return f;
}

bool eqv_fn_ok(Eqv *q, Fn f)
{
    if (!f.o)
        return false;
    for (int i = 0; i <= q->naxes; i++)
        if (!f.o[i])
            return false;
    return true;
}

/* Adds the piece "cell kind k, coordinates coords (NULL: all 0)" on s to f. Takes s and coords[*]. */
static void fn_add_piece(Eqv *q, Fn f, isl_set *s, int k, isl_pw_aff **coords)
{
    f.o[0] = isl_pw_aff_union_add(f.o[0], pw_const(q, isl_set_copy(s), (uint64_t)k));
    for (int a = 0; a < q->naxes; a++) {
        isl_pw_aff *v = coords ? isl_pw_aff_intersect_domain(coords[a], isl_set_copy(s)) : pw_const(q, isl_set_copy(s), 0);
        f.o[1 + a] = isl_pw_aff_union_add(f.o[1 + a], v);
    }
    isl_set_free(s);
}


/* Whether e contains a padding (its bases included); without one, no cell of e is padding. */
static bool has_pad(const Map *e)
{
    return e && (e->kind == MAP_PAD || has_pad(e->l) || has_pad(e->r));
}
static isl_set *cmp_const(Eqv *q, isl_pw_aff *f, uint64_t k, bool eq);

/* Where term t is met with a non-zero value: where it places its composite base's padding. */
static isl_set *active(Eqv *q, const Item *t)
{
    isl_pw_aff *v = isl_pw_aff_intersect_domain(isl_pw_aff_from_aff(isl_aff_copy(t->value)), isl_set_copy(t->pres));
    return isl_set_subtract(isl_set_copy(t->pres), cmp_const(q, v, 0, true));
}

/* Σ value·(stride if scaled) over the terms idx[0..k), each extended by 0 outside its presence;
 * values met under the same presence are added as affine functions first (fewer pieces). */
static isl_pw_aff *sum_terms(Eqv *q, const Items *it, const int *idx, int k, bool scaled, isl_set *dom)
{
    isl_pw_aff *sum = pw_const(q, isl_set_copy(dom), 0);
    bool *done = mem_calloc((size_t)k + 1, sizeof *done);
    for (int i = 0; i < k; i++) {
        if (done[i])
            continue;
        const Item *t = &it->v[idx[i]];
        isl_aff *v = isl_aff_zero_on_domain(isl_local_space_from_space(eqv_pos_space(q)));
        for (int j = i; j < k; j++) {
            const Item *u = &it->v[idx[j]];
            if (done[j] || u->pres_id != t->pres_id)
                continue;
            done[j] = true;
            isl_aff *w = isl_aff_copy(u->value);
            if (scaled)
                w = isl_aff_scale_val(w, eqv_val(q->ctx, u->stride));
            v = isl_aff_add(v, w);
        }
        if (t->pres_id == 0)
            sum = isl_pw_aff_add(sum, isl_pw_aff_intersect_domain(isl_pw_aff_from_aff(v), isl_set_copy(dom)));
        else
            sum = isl_pw_aff_add(sum, ext0(v, isl_set_copy(t->pres), dom));
    }
    free(done);
    return isl_pw_aff_coalesce(sum);
}

/* The cell function of e (docs/language.md §3 finalization as case splits), or a Fn with NULL parts on
 * budget or isl failure (q->error says which). */
Fn eqv_build(Eqv *q, const Map *e)
{
    int n = q->naxes;
    Fn res = fn_alloc(q);
    isl_set *dom = eqv_range_set(q, e->size);
    Items it = {0};
    walk(q, e, isl_aff_var_on_domain(isl_local_space_from_space(eqv_pos_space(q)), isl_dim_set, 0),
         isl_set_copy(dom), 0, &it);
    if (it.over) {
        snprintf(q->error, sizeof q->error, "a mapping meets more than %d items (the structural budget)",
                 q->max_items);
        items_free(&it);
        isl_set_free(dom);
        return res;
    }
    for (int i = 0; i <= n; i++)
        res.o[i] = isl_pw_aff_intersect_domain(isl_pw_aff_zero_on_domain(isl_local_space_from_space(eqv_pos_space(q))),
                                               isl_set_empty(eqv_pos_space(q)));

    /* step 1: same-base classes (static) */
    for (int i = 0; i < it.n; i++) {
        Item *t = &it.v[i];
        if (t->is_pad)
            continue;
        t->cls = i;
        for (int j = 0; j < i; j++) {
            if (it.v[j].is_pad || it.v[j].cls != j)
                continue;
            int s = same_base(q, it.v[j].base, t->base);
            if (s < 0) {
                items_free(&it);
                isl_set_free(dom);
                eqv_fn_free(q, res);
                return (Fn){0};
            }
            if (s) {
                t->cls = j;
                break;
            }
        }
    }

    isl_set *over = isl_set_empty(eqv_pos_space(q));     /* overshoots and decoded overflows */
    isl_pw_aff **sum = mem_calloc((size_t)n + 1, sizeof *sum);
    Fn *dec = mem_calloc((size_t)it.n + 1, sizeof *dec);  /* per composite class: decoded cells */
    int *idx = mem_calloc((size_t)it.n + 1, sizeof *idx);
    int *terms_on = mem_calloc((size_t)n + 1, sizeof *terms_on);   /* how many terms reach each axis */
    bool *used = mem_calloc((size_t)n + 1, sizeof *used);
    for (int a = 0; a < n; a++)
        sum[a] = pw_const(q, isl_set_copy(dom), 0);
    bool failed = false;

    for (int j = 0; j < it.n; j++) {
        const Item *h = &it.v[j];
        if (h->is_pad || h->cls != j)
            continue;
        /* overshoot of each (stride, count) group with two terms or more */
        for (int i = j; i < it.n; i++) {
            const Item *t = &it.v[i];
            if (t->is_pad || t->cls != j)
                continue;
            bool first = true;
            int count = 0;
            for (int k = j; k < it.n; k++) {
                const Item *u = &it.v[k];
                if (u->is_pad || u->cls != j || u->stride != t->stride || u->count != t->count)
                    continue;
                if (k < i)
                    first = false;
                count++;
            }
            if (!first || count < 2)
                continue;
            int ng = 0;
            for (int k = i; k < it.n; k++) {
                const Item *u = &it.v[k];
                if (!u->is_pad && u->cls == j && u->stride == t->stride && u->count == t->count)
                    idx[ng++] = k;
            }
            isl_pw_aff *gs = sum_terms(q, &it, idx, ng, false, dom);
            over = isl_set_union(over, cmp_const(q, gs, t->count, false));
        }
        /* the base's coordinate */
        isl_set *present = isl_set_empty(eqv_pos_space(q));
        int nterms = 0;
        bool everywhere = false;
        for (int i = j; i < it.n; i++) {
            const Item *t = &it.v[i];
            if (t->is_pad || t->cls != j)
                continue;
            idx[nterms++] = i;
            everywhere |= t->pres_id == 0;
            if (!everywhere)
                present = isl_set_union(present, isl_set_copy(t->pres));
        }
        if (everywhere) {
            isl_set_free(present);
            present = isl_set_copy(dom);
        }
        present = isl_set_coalesce(present);
        isl_pw_aff *c = sum_terms(q, &it, idx, nterms, true, dom);
        if (h->base->kind == MAP_SYM) {
            int a = h->base->axis;
            terms_on[a] += nterms;
            sum[a] = isl_pw_aff_add(sum[a], c);
            isl_set_free(present);
            continue;
        }
        /* a composite: overshoot past |X| (impossible for a lone digit), else decode */
        const Map *x = h->base;
        c = isl_pw_aff_intersect_domain(c, present);
        if (nterms > 1)
            over = isl_set_union(over, cmp_const(q, isl_pw_aff_copy(c), x->size, false));
        Fn fx = eqv_fn_of(q, x);
        if (!eqv_fn_ok(q, fx)) {
            eqv_fn_free(q, fx);
            isl_pw_aff_free(c);
            failed = true;
            continue;
        }
        /* decode: the kind, and the coordinates of the axes x mentions (the others stay 0) */
        memset(used, 0, (size_t)n * sizeof *used);
        map_mark_axes(x, used);
        isl_pw_multi_aff *cm = isl_pw_multi_aff_from_pw_aff(c);
        dec[j] = fn_alloc(q);
        for (int i = 0; i <= n; i++)
            if (i == 0 || used[i - 1])
                dec[j].o[i] = isl_pw_aff_pullback_pw_multi_aff(isl_pw_aff_copy(fx.o[i]), isl_pw_multi_aff_copy(cm));
        isl_pw_multi_aff_free(cm);
        eqv_fn_free(q, fx);
        over = isl_set_union(over, cmp_const(q, isl_pw_aff_copy(dec[j].o[0]), CELL_OVERFLOW, true));
        for (int a = 0; a < n; a++) {
            if (!used[a])
                continue;
            terms_on[a] += 2; /* a decoded coordinate: check the axis */
            sum[a] = isl_pw_aff_add(sum[a], ext0_pw(isl_pw_aff_copy(dec[j].o[1 + a]),
                                                    isl_pw_aff_domain(isl_pw_aff_copy(dec[j].o[1 + a])), dom));
        }
    }

    /* step 3: the most major padding wins (a padding item at its place, a composite at the
     * first term of its class that is present with a non-zero value, as the interpreter places
     * it: see eval.c) */
    isl_set *rest = isl_set_copy(dom);
    for (int i = 0; i < it.n && !failed; i++) {
        const Item *t = &it.v[i];
        if (t->is_pad) {
            isl_set *s = isl_set_intersect(isl_set_copy(rest), isl_set_copy(t->pres));
            rest = isl_set_subtract(rest, isl_set_copy(s));
            fn_add_piece(q, res, s, (int)t->pad, NULL);
            continue;
        }
        if (it.v[t->cls].base->kind == MAP_SYM) /* the class's base is its first term's */
            continue;
        if (!has_pad(it.v[t->cls].base)) /* its cells are never padding */
            continue;
        isl_set *here = isl_set_intersect(isl_set_copy(rest), active(q, t));
        for (int k = t->cls; k < i; k++)
            if (!it.v[k].is_pad && it.v[k].cls == t->cls)
                here = isl_set_subtract(here, active(q, &it.v[k]));
        for (int kind = CELL_PAD_TOP; kind <= CELL_PAD_BOTTOM; kind++) {
            isl_set *pk = cmp_const(q, isl_pw_aff_copy(dec[t->cls].o[0]), (uint64_t)kind, true);
            isl_set *s = isl_set_intersect(isl_set_copy(here), pk);
            rest = isl_set_subtract(rest, isl_set_copy(s));
            fn_add_piece(q, res, s, kind, NULL);
        }
        isl_set_free(here);
    }

    /* step 4: overflow (overshoots, decoded overflows, axis coordinates past their size), else live */
    for (int a = 0; a < n; a++) /* one lone digit stays below its axis size: value·s < m·s <= |A| */
        if (terms_on[a] > 1)
            over = isl_set_union(over, cmp_const(q, isl_pw_aff_copy(sum[a]), q->prog->axes[a].size, false));
    isl_set *ovf = isl_set_coalesce(isl_set_intersect(isl_set_copy(rest), over));
    isl_set *live = isl_set_coalesce(isl_set_subtract(rest, isl_set_copy(ovf)));
    fn_add_piece(q, res, ovf, CELL_OVERFLOW, NULL);
    fn_add_piece(q, res, live, CELL_LIVE, sum);
    for (int i = 0; i <= n; i++)
        res.o[i] = isl_pw_aff_coalesce(res.o[i]);

    for (int j = 0; j < it.n; j++)
        eqv_fn_free(q, dec[j]);
    free(sum);
    free(dec);
    free(idx);
    free(terms_on);
    free(used);
    items_free(&it);
    isl_set_free(dom);
    if (failed) {
        eqv_fn_free(q, res);
        return (Fn){0};
    }
    return res;
}

Fn eqv_fn_copy(Eqv *q, Fn f)
{
    Fn c = fn_alloc(q);
    for (int i = 0; i <= q->naxes; i++)
        c.o[i] = isl_pw_aff_copy(f.o[i]);
    return c;
}

typedef struct Pieces {
    isl_set **set;
    isl_aff **aff;
    int n, cap;
} Pieces;

static isl_stat collect_piece(isl_set *set, isl_aff *aff, void *user)
{
    Pieces *p = user;
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 8;
        p->set = mem_realloc(p->set, (size_t)p->cap * sizeof *p->set);
        p->aff = mem_realloc(p->aff, (size_t)p->cap * sizeof *p->aff);
    }
    p->set[p->n] = set;
    p->aff[p->n++] = aff;
    return isl_stat_ok;
}

static void pieces_free(Pieces *p)
{
    for (int i = 0; i < p->n; i++) {
        isl_set_free(p->set[i]);
        isl_aff_free(p->aff[i]);
    }
    free(p->set);
    free(p->aff);
}

/* The positions where f and g (kept) differ, piece by piece: the union over pairs of pieces of
 * (S1 ∩ S2 ∩ a1 < a2) and (S1 ∩ S2 ∩ a1 > a2). Cheaper than isl_pw_aff_ne_set, which simplifies
 * every difference against its domain first. */
isl_set *eqv_diff_set(Eqv *q, isl_pw_aff *f, isl_pw_aff *g)
{
    Pieces a = {0}, b = {0};
    isl_set *d = isl_set_empty(eqv_pos_space(q));
    if (isl_pw_aff_foreach_piece(f, collect_piece, &a) < 0 || isl_pw_aff_foreach_piece(g, collect_piece, &b) < 0) {
        isl_set_free(d);
        d = NULL;
    }
    for (int i = 0; i < a.n && d; i++)
        for (int j = 0; j < b.n && d; j++) {
            if (isl_aff_plain_is_equal(a.aff[i], b.aff[j]) == isl_bool_true)
                continue;
            isl_set *both = isl_set_intersect(isl_set_copy(a.set[i]), isl_set_copy(b.set[j]));
            isl_bool e = isl_set_plain_is_empty(both);
            if (e == isl_bool_true) {
                isl_set_free(both);
                continue;
            }
            isl_set *lt = isl_set_intersect(isl_set_copy(both), isl_aff_lt_set(isl_aff_copy(a.aff[i]), isl_aff_copy(b.aff[j])));
            isl_set *gt = isl_set_intersect(both, isl_aff_gt_set(isl_aff_copy(a.aff[i]), isl_aff_copy(b.aff[j])));
            d = isl_set_union(d, isl_set_union(lt, gt));
        }
    pieces_free(&a);
    pieces_free(&b);
    return d;
}

/* Where f (taken) is >= k (eq: == k), piece by piece (no simplification of f against its
 * domain, which isl_pw_aff_ge_set would do). */
static isl_set *cmp_const(Eqv *q, isl_pw_aff *f, uint64_t k, bool eq)
{
    Pieces a = {0};
    isl_set *d = isl_set_empty(eqv_pos_space(q));
    if (isl_pw_aff_foreach_piece(f, collect_piece, &a) < 0) {
        isl_set_free(d);
        d = NULL;
    }
    for (int i = 0; i < a.n && d; i++) {
        isl_aff *c = eqv_aff_const(q, k);
        isl_set *s = eq ? isl_aff_eq_set(isl_aff_copy(a.aff[i]), c) : isl_aff_ge_set(isl_aff_copy(a.aff[i]), c);
        d = isl_set_union(d, isl_set_intersect(isl_set_copy(a.set[i]), s));
    }
    pieces_free(&a);
    isl_pw_aff_free(f);
    return d;
}

