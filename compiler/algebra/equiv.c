/* equiv.c — the complete equivalence decision: the context, memoized cell functions per normal
 * form, base identification up to equivalence, the symbolic comparison and the fast paths. */
#include "eqv_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The interpreter's composite-base comparison: this decision procedure. */
static int base_hook(Evaluator *ev, const Map *x, const Map *y, void *ctx)
{
    int same = eqv_same((Eqv *)ctx, x, y);
    if (same < 0)
        eval_set_error(ev, eqv_error((Eqv *)ctx));
    return same;
}

Eqv *eqv_new(const Prog *prog)
{
    Eqv *q = mem_calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->prog = prog;
    q->naxes = prog->naxes;
    q->ctx = isl_ctx_alloc();
    if (!q->ctx) { /* isl's own allocation failed: the same answer as an exhausted heap */
        eqv_free(q);
        mem_fail();
    }
    q->ev = eval_new(prog);
    isl_options_set_on_error(q->ctx, ISL_ON_ERROR_CONTINUE);
    eval_set_base_equiv(q->ev, base_hook, q);
    q->max_ops = EQV_DEFAULT_MAX_OPS;
    q->max_items = EQV_DEFAULT_MAX_ITEMS;
    q->use_norm = true;
    q->probe = 64;
    return q;
}

void eqv_free(Eqv *q)
{
    if (!q)
        return;
    for (int i = 0; i < q->nforms; i++)
        eqv_fn_free(q, q->forms[i].fn);
    free(q->forms);
    free(q->slots);
    free(q->diff);
    eval_free(q->ev);
    if (q->ctx)
        isl_ctx_free(q->ctx);
    arena_free(&q->scratch);
    free(q);
}

Evaluator *eqv_evaluator(Eqv *q) { return q->ev; }

Evaluator *eqv_evaluator_new(const Prog *prog)
{
    Eqv *q = eqv_new(prog);
    return q ? q->ev : NULL;
}

void eqv_evaluator_free(Evaluator *ev)
{
    if (ev)
        eqv_free((Eqv *)eval_base_equiv_ctx(ev));
}

void eqv_set_budget(Eqv *q, unsigned long max_ops, int max_items)
{
    q->max_ops = max_ops;
    q->max_items = max_items;
}

void eqv_set_fast_paths(Eqv *q, bool use_norm, int probe_positions)
{
    q->use_norm = use_norm;
    q->probe = probe_positions;
}

const char *eqv_error(const Eqv *q) { return q->error; }

EqvStats eqv_stats(const Eqv *q) { return q->stats; }

/* A structural hash of a mapping (consistent with norm_equal). */
static uint64_t map_hash(const Map *e)
{
    uint64_t h = (uint64_t)e->kind * 0x9E3779B97F4A7C15u ^ e->size * 0xC2B2AE3D27D4EB4Fu ^ e->n;
    if (e->kind == MAP_SYM)
        h ^= (uint64_t)e->axis * 0x165667B19E3779F9u;
    if (e->kind == MAP_PAD)
        h ^= (uint64_t)e->pad << 7;
    if (e->l)
        h = (h ^ map_hash(e->l)) * 0x100000001B3u;
    if (e->r)
        h = (h ^ (map_hash(e->r) >> 3)) * 0x100000001B3u;
    return h;
}

static size_t ptr_hash(const Map *m) { return (size_t)(((uintptr_t)m >> 4) * 0x9E3779B97F4A7C15u); }

static void slots_put(Eqv *q, const Map *m, int form)
{
    if (2 * (q->nslots + 1) > q->capslots) {
        size_t cap = q->capslots ? 2 * q->capslots : 64;
        PtrSlot *v = mem_calloc(cap, sizeof *v);
        for (size_t i = 0; i < q->capslots; i++)
            if (q->slots[i].m) {
                size_t k = ptr_hash(q->slots[i].m) & (cap - 1);
                while (v[k].m)
                    k = (k + 1) & (cap - 1);
                v[k] = q->slots[i];
            }
        free(q->slots);
        q->slots = v;
        q->capslots = cap;
    }
    size_t k = ptr_hash(m) & (q->capslots - 1);
    while (q->slots[k].m)
        k = (k + 1) & (q->capslots - 1);
    q->slots[k] = (PtrSlot){m, form};
    q->nslots++;
}

/* The index of e's normal form in the forms table (added if new). */
static int form_of(Eqv *q, const Map *e)
{
    if (q->capslots) {
        size_t k = ptr_hash(e) & (q->capslots - 1);
        for (; q->slots[k].m; k = (k + 1) & (q->capslots - 1))
            if (q->slots[k].m == e)
                return q->slots[k].form;
    }
    const Map *n = norm_map(&q->scratch, e);
    uint64_t h = map_hash(n);
    int f = -1;
    for (int i = 0; i < q->nforms && f < 0; i++)
        if (q->forms[i].hash == h && norm_equal(q->forms[i].n, n))
            f = i;
    if (f < 0) {
        if (q->nforms == q->capforms) {
            q->capforms = q->capforms ? 2 * q->capforms : 16;
            q->forms = mem_realloc(q->forms, (size_t)q->capforms * sizeof *q->forms);
        }
        f = q->nforms++;
        q->forms[f] = (Form){.n = n, .hash = h, .parent = f};
    }
    slots_put(q, e, f);
    return f;
}

static int form_class(Eqv *q, int f)
{
    while (q->forms[f].parent != f) {
        q->forms[f].parent = q->forms[q->forms[f].parent].parent;
        f = q->forms[f].parent;
    }
    return f;
}

/* The memoized cell function of e (a copy the caller owns; NULL parts on failure). It is built
 * from the normal form of e (equivalent, usually much smaller), once per distinct normal form. */
Fn eqv_fn_of(Eqv *q, const Map *e)
{
    int f = form_of(q, e);
    if (q->forms[f].built)
        return eqv_fn_copy(q, q->forms[f].fn);
    Fn r = eqv_build(q, q->forms[f].n);
    if (!eqv_fn_ok(q, r))
        return r;
    q->forms[f].fn = eqv_fn_copy(q, r);
    q->forms[f].built = true;
    return r;
}

void eqv_quota_error(Eqv *q)
{
    if (q->error[0])
        return;
    if (isl_ctx_last_error(q->ctx) == isl_error_quota)
        snprintf(q->error, sizeof q->error, "the symbolic decision exceeds its budget of %lu isl operations",
                 q->max_ops);
    else
        snprintf(q->error, sizeof q->error, "isl failed: %s",
                 isl_ctx_last_error_msg(q->ctx) ? isl_ctx_last_error_msg(q->ctx) : "unknown error");
}

void eqv_enter(Eqv *q)
{
    if (q->top_depth++ == 0) {
        q->error[0] = 0;
        isl_ctx_reset_error(q->ctx);
        isl_ctx_reset_operations(q->ctx);
        isl_ctx_set_max_operations(q->ctx, q->max_ops);
    }
}

void eqv_leave(Eqv *q) { q->top_depth--; }

/* The coordinate of a point (taken) into *v: 0, or -1 on failure. */
static int point_of(Eqv *q, isl_point *pt, uint64_t *v)
{
    (void)q;
    isl_val *x = isl_point_get_coordinate_val(pt, isl_dim_set, 0);
    isl_point_free(pt);
    int st = 0;
    if (!x || isl_val_is_nan(x) || isl_val_is_neg(x) == isl_bool_true || isl_val_n_abs_num_chunks(x, sizeof *v) > 1)
        st = -1;
    else if (isl_val_is_zero(x) == isl_bool_true)
        *v = 0;
    else if (isl_val_get_abs_num_chunks(x, sizeof *v, v) < 0)
        st = -1;
    isl_val_free(x);
    return st;
}

/* Symbolic comparison of two mappings of equal size: 1 equal, 0 not (with *pos the smallest
 * difference when pos is non-NULL), -1 unknown. */
static int compare(Eqv *q, const Map *x, const Map *y, uint64_t *pos)
{
    Fn fx = eqv_fn_of(q, x);
    Fn fy = eqv_fn_ok(q, fx) ? eqv_fn_of(q, y) : (Fn){0};
    if (!eqv_fn_ok(q, fx) || !eqv_fn_ok(q, fy)) {
        eqv_fn_free(q, fx);
        eqv_fn_free(q, fy);
        eqv_quota_error(q);
        return -1;
    }
    isl_set *d = isl_set_empty(eqv_pos_space(q));
    for (int i = 0; i <= q->naxes; i++)
        if (isl_pw_aff_plain_is_equal(fx.o[i], fy.o[i]) != isl_bool_true)
            d = isl_set_union(d, eqv_diff_set(q, fx.o[i], fy.o[i]));
    eqv_fn_free(q, fx);
    eqv_fn_free(q, fy);
    if (!pos) {
        d = isl_set_coalesce(d);
        isl_bool empty = isl_set_is_empty(d);
        isl_set_free(d);
        if (empty < 0)
            eqv_quota_error(q);
        return empty < 0 ? -1 : empty == isl_bool_true;
    }
    int found = eqv_set_min(q, d, pos);
    return found < 0 ? -1 : !found;
}

int eqv_set_min(Eqv *q, isl_set *d, uint64_t *pos)
{
    d = isl_set_coalesce(d);
    isl_bool empty = isl_set_is_empty(d);
    if (empty < 0 || empty == isl_bool_true) {
        isl_set_free(d);
        if (empty < 0)
            eqv_quota_error(q);
        return empty < 0 ? -1 : 0;
    }
    /* the smallest element: isl's integer minimum (branch and bound), checked; if the check
     * fails, a sample bounds it and bisection on emptiness finds it (isl's parametric lexmin
     * is far slower on large constants) */
    uint64_t hi = 0, lo = 0; /* invariant: the minimum lies in [lo, hi] */
    int st = -1;
    isl_aff *var = isl_aff_var_on_domain(isl_local_space_from_space(eqv_pos_space(q)), isl_dim_set, 0);
    isl_val *mv = isl_set_min_val(d, var); /* keeps both */
    isl_aff_free(var);
    if (mv && isl_val_is_int(mv) == isl_bool_true && isl_val_is_neg(mv) == isl_bool_false &&
        isl_val_n_abs_num_chunks(mv, sizeof hi) <= 1 &&
        (isl_val_is_zero(mv) == isl_bool_true || isl_val_get_abs_num_chunks(mv, sizeof hi, &hi) == 0)) {
        isl_set *at = isl_set_intersect(isl_set_copy(d), isl_set_fix_val(isl_set_universe(eqv_pos_space(q)), isl_dim_set, 0,
                                                                         eqv_val(q->ctx, hi)));
        isl_set *below = hi ? isl_set_intersect(isl_set_copy(d), eqv_range_set(q, hi)) : isl_set_empty(eqv_pos_space(q));
        if (isl_set_is_empty(at) == isl_bool_false && isl_set_is_empty(below) == isl_bool_true)
            st = 1; /* hi is the minimum */
        isl_set_free(at);
        isl_set_free(below);
    }
    isl_val_free(mv);
    if (st != 1) {
        st = point_of(q, isl_set_sample_point(isl_set_copy(d)), &hi);
    } else {
        st = 0;
        lo = hi;
    }
    while (st == 0 && lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        isl_set *part = isl_set_intersect(isl_set_copy(d), eqv_range_set(q, mid + 1));
        isl_bool e = isl_set_is_empty(part);
        isl_set_free(part);
        if (e < 0)
            st = -1;
        else if (e == isl_bool_true)
            lo = mid + 1;
        else
            hi = mid;
    }
    isl_set_free(d);
    if (st < 0) {
        eqv_quota_error(q);
        return -1;
    }
    *pos = hi;
    return 1;
}

/* A concrete witness that x and y (equal sizes) differ: their cells at the first positions and
 * at positions spread over the whole range, through the interpreter (whose nested base
 * comparisons are strictly smaller). 1 a difference found, 0 none, -1 undecided. */
static int witness(Eqv *q, const Map *x, const Map *y)
{
    Cell a = {.coord = mem_calloc((size_t)q->naxes + 1, sizeof(uint64_t))};
    Cell b = {.coord = mem_calloc((size_t)q->naxes + 1, sizeof(uint64_t))};
    int found = 0;
    uint64_t n = x->size;
    for (uint64_t k = 0; k < 2 * EQV_WITNESS_POSITIONS && !found; k++) {
        uint64_t p = k < EQV_WITNESS_POSITIONS ? k : (n / EQV_WITNESS_POSITIONS) * (k - EQV_WITNESS_POSITIONS) + k * 7919 % (n / EQV_WITNESS_POSITIONS + 1);
        if (p >= n)
            continue;
        if (eval_cell(q->ev, x, p, &a) != EVAL_OK || eval_cell(q->ev, y, p, &b) != EVAL_OK)
            found = -1;
        else if (!cell_equal(&a, &b, q->naxes))
            found = 1;
    }
    free(a.coord);
    free(b.coord);
    return found;
}

int eqv_same(Eqv *q, const Map *x, const Map *y)
{
    if (x == y)
        return 1;
    if (x->size != y->size)
        return 0;
    int fx = form_of(q, x), fy = form_of(q, y);
    int cx = form_class(q, fx), cy = form_class(q, fy);
    if (cx == cy)
        return 1; /* equal normal forms, or found equivalent before */
    for (size_t i = 0; i < q->ndiff; i++) {
        int a = form_class(q, q->diff[i].a), b = form_class(q, q->diff[i].b);
        if ((a == cx && b == cy) || (a == cy && b == cx))
            return 0;
    }
    eqv_enter(q);
    int w = witness(q, q->forms[fx].n, q->forms[fy].n);
    int same = w < 0 ? -1 : w > 0 ? 0 : compare(q, q->forms[fx].n, q->forms[fy].n, NULL);
    eqv_leave(q);
    if (same < 0)
        return -1;
    if (same) {
        q->forms[cx].parent = cy;
        return 1;
    }
    if (q->ndiff == q->capdiff) {
        q->capdiff = q->capdiff ? 2 * q->capdiff : 16;
        q->diff = mem_realloc(q->diff, q->capdiff * sizeof *q->diff);
    }
    q->diff[q->ndiff++] = (DiffPair){fx, fy};
    return 0;
}

/* Evaluates both cells at pos into r; false (with the reason in q->error) if undecided. */
static bool cells_at(Eqv *q, const Map *e1, const Map *e2, uint64_t pos, EqvResult *r)
{
    if (eval_cell(q->ev, e1, pos, &r->c1) != EVAL_OK || eval_cell(q->ev, e2, pos, &r->c2) != EVAL_OK) {
        if (!q->error[0])
            snprintf(q->error, sizeof q->error, "%s", eval_error(q->ev));
        return false;
    }
    return true;
}

void eqv_decide(Eqv *q, const Map *e1, const Map *e2, EqvResult *r)
{
    q->stats.decisions++;
    q->error[0] = 0;
    if (e1->size != e2->size) {
        r->verdict = EQV_SIZES_DIFFER;
        return;
    }
    if (e1 == e2) {
        q->stats.by_pointer++;
        r->verdict = EQV_EQUIVALENT;
        return;
    }
    eqv_enter(q);
    if (q->use_norm && norm_equal(norm_map(&q->scratch, e1), norm_map(&q->scratch, e2))) {
        q->stats.by_norm++;
        r->verdict = EQV_EQUIVALENT;
        goto done;
    }
    /* the probe: positions 0, 1, ... in order, so the first difference is the smallest */
    uint64_t lim = (uint64_t)(q->probe > 0 ? q->probe : 0);
    if (lim > e1->size)
        lim = e1->size;
    for (uint64_t p = 0; p < lim; p++) {
        if (!cells_at(q, e1, e2, p, r))
            goto unknown;
        if (!cell_equal(&r->c1, &r->c2, q->naxes)) {
            q->stats.by_probe++;
            r->verdict = EQV_CELLS_DIFFER;
            r->pos = p;
            goto done;
        }
    }
    uint64_t pos = 0;
    int s = compare(q, e1, e2, &pos);
    if (s < 0)
        goto unknown;
    q->stats.by_isl++;
    if (s == 1) {
        r->verdict = EQV_EQUIVALENT;
        goto done;
    }
    if (!cells_at(q, e1, e2, pos, r))
        goto unknown;
    r->verdict = EQV_CELLS_DIFFER;
    r->pos = pos;
    goto done;
unknown:
    q->stats.unknown++;
    r->verdict = EQV_UNKNOWN;
done:
    eqv_leave(q);
}

