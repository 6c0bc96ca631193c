/* layout.c — questions about the positions of one mapping, answered from its cell function for any size:
 * the first position of a kind, the smallest index it holds nowhere, the positions holding an index, and
 * the live coordinates of a range of positions. */
#include "eqv_impl.h"

#include <stdlib.h>

/* The cell function of m, or false with q->error set. */
static bool fn_of(Eqv *q, const Map *m, Fn *f)
{
    *f = eqv_fn_of(q, m);
    if (eqv_fn_ok(q, *f))
        return true;
    eqv_fn_free(q, *f);
    eqv_quota_error(q);
    return false;
}

/* { p : kind(p) = k } of f (kept). */
static isl_set *kind_set(Eqv *q, Fn f, CellKind k)
{
    return isl_pw_aff_eq_set(isl_pw_aff_copy(f.o[0]),
                             isl_pw_aff_from_aff(eqv_aff_const(q, (uint64_t)k)));
}

/* Reads a non-negative integer value (taken) into *v; false if it is not one. */
static bool val_u64(isl_val *x, uint64_t *v)
{
    bool ok = x && isl_val_is_int(x) == isl_bool_true && isl_val_is_neg(x) == isl_bool_false &&
              isl_val_n_abs_num_chunks(x, sizeof *v) <= 1;
    if (ok)
        ok = isl_val_is_zero(x) == isl_bool_true ? (*v = 0, true) : isl_val_get_abs_num_chunks(x, sizeof *v, v) == 0;
    isl_val_free(x);
    return ok;
}

int layout_first_kind(Eqv *q, const Map *m, CellKind k, uint64_t *pos)
{
    eqv_enter(q);
    Fn f;
    int r = -1;
    if (fn_of(q, m, &f)) {
        r = eqv_set_min(q, kind_set(q, f, k), pos);
        eqv_fn_free(q, f);
    }
    eqv_leave(q);
    return r;
}

/* The marked coordinates of f's live positions as a relation [p] -> [c_1 .. c_k]; NULL on failure. */
static isl_map *live_coords(Eqv *q, Fn f, const bool *axes, int *k)
{
    int n = 0;
    for (int a = 0; a < q->naxes; a++)
        n += axes[a];
    *k = n;
    isl_space *sp = isl_space_map_from_domain_and_range(eqv_pos_space(q), isl_space_set_alloc(q->ctx, 0, n));
    isl_pw_aff_list *list = isl_pw_aff_list_alloc(q->ctx, n);
    for (int a = 0; a < q->naxes; a++)
        if (axes[a])
            list = isl_pw_aff_list_add(list, isl_pw_aff_copy(f.o[a + 1]));
    isl_map *map = isl_map_from_multi_pw_aff(isl_multi_pw_aff_from_pw_aff_list(sp, list));
    return isl_map_intersect_domain(map, kind_set(q, f, CELL_LIVE));
}

int layout_missing_index(Eqv *q, const Map *m, const bool *axes, uint64_t *idx)
{
    eqv_enter(q);
    Fn f;
    int r = -1, k;
    if (!fn_of(q, m, &f)) {
        eqv_leave(q);
        return -1;
    }
    isl_set *held = isl_map_range(live_coords(q, f, axes, &k));
    eqv_fn_free(q, f);
    isl_set *box = isl_set_universe(isl_set_get_space(held));
    for (int a = 0, d = 0; a < q->naxes; a++)
        if (axes[a]) {
            box = isl_set_lower_bound_val(box, isl_dim_set, d, isl_val_zero(q->ctx));
            box = isl_set_upper_bound_val(box, isl_dim_set, d, eqv_val(q->ctx, q->prog->axes[a].size - 1));
            d++;
        }
    isl_set *missing = isl_set_coalesce(isl_set_subtract(box, held));
    isl_bool empty = isl_set_is_empty(missing);
    if (empty == isl_bool_true) {
        r = 0;
    } else if (empty == isl_bool_false) {
        isl_point *pt = isl_set_sample_point(isl_set_lexmin(missing));
        missing = NULL;
        r = pt ? 1 : -1;
        for (int a = 0, d = 0; a < q->naxes && r == 1; a++) {
            idx[a] = 0;
            if (axes[a] && !val_u64(isl_point_get_coordinate_val(pt, isl_dim_set, d++), &idx[a]))
                r = -1;
        }
        isl_point_free(pt);
    }
    isl_set_free(missing);
    if (r < 0)
        eqv_quota_error(q);
    eqv_leave(q);
    return r;
}

int64_t layout_positions(Eqv *q, const Map *m, const bool *axes, const uint64_t *idx, uint64_t *out, size_t cap)
{
    eqv_enter(q);
    Fn f;
    if (!fn_of(q, m, &f)) {
        eqv_leave(q);
        return -1;
    }
    isl_set *s = kind_set(q, f, CELL_LIVE);
    for (int a = 0; a < q->naxes; a++)
        if (axes[a])
            s = isl_set_intersect(s, isl_pw_aff_eq_set(isl_pw_aff_copy(f.o[a + 1]),
                                                       isl_pw_aff_from_aff(eqv_aff_const(q, idx[a]))));
    eqv_fn_free(q, f);
    s = isl_set_coalesce(s);
    uint64_t total;
    int64_t r = val_u64(isl_set_count_val(s), &total) && total <= INT64_MAX ? (int64_t)total : -1;
    /* the first cap positions in order: each the minimum of what is above the previous one */
    for (size_t i = 0; r >= 0 && i < cap && i < total; i++) {
        int found = eqv_set_min(q, isl_set_copy(s), &out[i]);
        if (found != 1) {
            r = -1;
            break;
        }
        isl_set *above = isl_set_lower_bound_val(isl_set_universe(eqv_pos_space(q)), isl_dim_set, 0,
                                                 eqv_val(q->ctx, out[i] + 1));
        s = isl_set_intersect(s, above);
    }
    isl_set_free(s);
    if (r < 0)
        eqv_quota_error(q);
    eqv_leave(q);
    return r;
}

int layout_live_bounds(Eqv *q, const Map *m, uint64_t lo, uint64_t hi, uint64_t *min, uint64_t *max, uint64_t *live)
{
    eqv_enter(q);
    Fn f;
    if (!fn_of(q, m, &f)) {
        eqv_leave(q);
        return -1;
    }
    isl_set *range = isl_set_lower_bound_val(isl_set_universe(eqv_pos_space(q)), isl_dim_set, 0, eqv_val(q->ctx, lo));
    range = isl_set_upper_bound_val(range, isl_dim_set, 0, eqv_val(q->ctx, hi - 1));
    isl_set *s = isl_set_coalesce(isl_set_intersect(kind_set(q, f, CELL_LIVE), range));
    int r = val_u64(isl_set_count_val(s), live) ? 1 : -1;
    for (int a = 0; a < q->naxes && r > 0 && *live; a++) {
        isl_pw_aff *c = isl_pw_aff_intersect_domain(isl_pw_aff_copy(f.o[a + 1]), isl_set_copy(s));
        if (!val_u64(isl_pw_aff_min_val(isl_pw_aff_copy(c)), &min[a]) || !val_u64(isl_pw_aff_max_val(c), &max[a]))
            r = -1;
    }
    if (r > 0 && !*live)
        r = 0;
    isl_set_free(s);
    eqv_fn_free(q, f);
    if (r < 0)
        eqv_quota_error(q);
    eqv_leave(q);
    return r;
}
