/* tensor_rules.c — the static rules of tensors in memories (docs/language.md §5), decided by the layout queries for any
 * size: capacities, no overlap (no overflow cell), whole (every index held); the layout and its unit shape. */
#include "algebra.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

TensorLimits tensor_default_limits(void)
{
    return (TensorLimits){
        .hbm_chip_bytes = UINT64_C(48) << 30,
        .dm_slice_bytes = 512 * 1024,
        .max_clusters = 2,
        .max_slices = 256,
    };
}

TensorUnits tensor_units(MemKind mem, const Map *const *maps)
{
    TensorUnits u = {1, 1, 1, maps[mem_kind_maps(mem) - 1]->size};
    if (mem != MEM_HOST)
        u.chips = maps[0]->size;
    if (mem == MEM_DM) {
        u.clusters = maps[1]->size;
        u.slices = maps[2]->size;
    }
    return u;
}

const Map *tensor_layout(Arena *a, MemKind mem, const Map *const *maps, MapWhy why)
{
    int n = mem_kind_maps(mem);
    const Map *units = NULL; /* the pair of the unit mappings of more than one unit, major first */
    for (int i = n - 2; i >= 0; i--)
        if (maps[i]->size > 1 && !(units = units ? map_make_pair(a, maps[i], units, maps[i]->loc, why) : maps[i]))
            return NULL;
    return units ? map_make_pair(a, units, maps[n - 1], maps[n - 1]->loc, why) : maps[n - 1];
}

/* Appends a capacity violation to why; false. */
static bool over(char *why, size_t size, const char *fmt, uint64_t a, uint64_t b)
{
    snprintf(why, size, fmt, U(a), U(b));
    return false;
}

/* "chip 1, cluster 0, slice 8, element 2251" for the position pos of the layout. */
static void unit_text(MemKind mem, TensorUnits u, uint64_t pos, Text *t)
{
    uint64_t e = pos % u.elements, unit = pos / u.elements;
    uint64_t s = unit % u.slices, l = unit / u.slices % u.clusters, c = unit / u.slices / u.clusters;
    if (mem == MEM_DM)
        text_printf(t, "chip %llu, cluster %llu, slice %llu, element %llu", U(c), U(l), U(s), U(e));
    else if (mem == MEM_HBM)
        text_printf(t, "chip %llu, element %llu", U(c), U(e));
    else
        text_printf(t, "element %llu", U(e));
}

/* Appends why the layout position pos is overflow: the mapping that is overflow there by itself, or what
 * each mapping of more than one position contributes there ("the Chip mapping gives {N:1}, the Element
 * mapping gives {N:3}"), through the interpreter. */
static void parts_text(Eqv *q, const Prog *p, MemKind mem, const Map *const *maps, TensorUnits u, uint64_t pos,
                       Text *t)
{
    uint64_t local[4], e = pos % u.elements, unit = pos / u.elements;
    int n = mem_kind_maps(mem);
    local[n - 1] = e;
    for (int i = n - 2; i >= 0; i--) {
        local[i] = unit % maps[i]->size;
        unit /= maps[i]->size;
    }
    uint64_t coord[256];
    Cell c = {.coord = coord};
    char cells[4][192];
    bool shown[4] = {0};
    for (int i = 0; i < n; i++) {
        if (maps[i]->size == 1 || p->naxes > 256 || eval_cell(eqv_evaluator(q), maps[i], local[i], &c) != EVAL_OK)
            continue;
        if (c.kind == CELL_OVERFLOW) {
            text_printf(t, "the %s mapping is overflow there by itself (it claims one digit twice)", mem_kind_dim(mem, i));
            return;
        }
        cell_format(p, &c, cells[i], sizeof cells[i]);
        shown[i] = true;
    }
    bool first = true;
    for (int i = 0; i < n; i++)
        if (shown[i]) {
            text_printf(t, "%sthe %s mapping gives %s", first ? "" : ", ", mem_kind_dim(mem, i), cells[i]);
            first = false;
        }
    text_printf(t, ": together they claim one digit twice");
}

/* The index idx (naxes entries) as an i![...] literal over the marked axes. */
static void index_text(const Prog *p, const bool *axes, const uint64_t *idx, Text *t)
{
    text_printf(t, "i![");
    bool first = true;
    for (int a = 0; a < p->naxes; a++)
        if (axes[a]) {
            text_printf(t, "%s%s: %llu", first ? "" : ", ", p->axes[a].name, U(idx[a]));
            first = false;
        }
    text_printf(t, "]");
}

/* Whether the digits of layout tile every marked axis (cover_proved against the dense row-major layout of
 * the marked axes, or of the axes with a size over 1): a sufficient condition for holding every index. */
static bool holds_all_by_digits(const Prog *p, Arena *a, const Map *layout, const bool *axes)
{
    MapWhy why;
    const Map *dense = NULL;
    for (int i = p->naxes - 1; i >= 0; i--) {
        if (!axes[i] || p->axes[i].size == 1)
            continue;
        const Map *s = map_make_sym(a, i, p->axes[i].size, layout->loc, why);
        dense = s && dense ? map_make_pair(a, s, dense, layout->loc, why) : s;
        if (!dense)
            return false;
    }
    return !dense || cover_proved(p, layout, dense);
}

/* Positions and indices up to which the coverage rule is decided by enumeration rather than by isl, whose set
 * difference can run for minutes on small layouts of repeated digits (found by fuzz_decls). */
#define ENUM_COVER_LIMIT (UINT64_C(1) << 22)

/* The lexicographically smallest index over the marked axes that no live cell of layout holds, by running the
 * interpreter over every position: 1 with it in idx, 0 when every index is held, -1 when the layout or the
 * index space is past ENUM_COVER_LIMIT or the interpreter cannot decide (the exact decision is then used). */
static int missing_by_enumeration(const Prog *p, const Map *layout, const bool *axes, uint64_t *idx)
{
    uint64_t n = 1;
    for (int a = 0; a < p->naxes; a++)
        if (axes[a] && (n = u64_sat_mul(n, p->axes[a].size)) > ENUM_COVER_LIMIT)
            return -1;
    if (layout->size > ENUM_COVER_LIMIT)
        return -1;
    uint8_t *held = calloc((size_t)n, 1);
    uint64_t *coord = calloc((size_t)p->naxes + 1, sizeof *coord);
    Evaluator *ev = held && coord ? eqv_evaluator_new(p) : NULL;
    int r = ev ? 0 : -1;
    Cell c = {.coord = coord};
    for (uint64_t pos = 0; r == 0 && pos < layout->size; pos++) {
        if (eval_cell(ev, layout, pos, &c) != EVAL_OK) {
            r = -1;
            break;
        }
        if (c.kind != CELL_LIVE)
            continue;
        uint64_t lin = 0; /* the index linearized with the first marked axis major */
        for (int a = 0; a < p->naxes; a++)
            if (axes[a])
                lin = lin * p->axes[a].size + c.coord[a];
        held[lin] = 1;
    }
    for (uint64_t lin = 0; r == 0 && lin < n; lin++)
        if (!held[lin]) {
            for (int a = p->naxes - 1; a >= 0; a--) {
                idx[a] = axes[a] ? lin % p->axes[a].size : 0;
                if (axes[a])
                    lin /= p->axes[a].size;
            }
            r = 1;
        }
    if (ev)
        eqv_evaluator_free(ev);
    free(held);
    free(coord);
    return r;
}

bool tensor_check(const Prog *p, MemKind mem, ElemType elem, const Map *const *maps, const bool *axes,
                  const TensorLimits *lim, char *why, size_t size)
{
    TensorUnits u = tensor_units(mem, maps);
    uint64_t bytes = u64_sat_mul(u.elements, elem_type_size(elem));
    const char *en = elem_type_name(elem);
    if (mem == MEM_HBM && bytes > lim->hbm_chip_bytes) {
        snprintf(why, size, "HBM tensor needs %llu bytes per chip (%llu %s elements), more than the %llu bytes of a chip",
                 U(bytes), U(u.elements), en, U(lim->hbm_chip_bytes));
        return false;
    }
    if (mem == MEM_DM) {
        if (u.clusters > lim->max_clusters)
            return over(why, size, "DM tensor spans %llu clusters, more than the %llu of a chip", u.clusters,
                        lim->max_clusters);
        if (u.slices > lim->max_slices)
            return over(why, size, "DM tensor spans %llu slices, more than the %llu of a cluster", u.slices,
                        lim->max_slices);
        if (bytes > lim->dm_slice_bytes) {
            snprintf(why, size,
                     "DM tensor needs %llu bytes per slice (%llu %s elements), more than the %llu bytes of a slice",
                     U(bytes), U(u.elements), en, U(lim->dm_slice_bytes));
            return false;
        }
    }
    Arena scratch = {0};
    MapWhy mw;
    const Map *layout = tensor_layout(&scratch, mem, maps, mw);
    if (!layout) {
        snprintf(why, size, "the tensor's layout: %s", mw);
        arena_free(&scratch);
        return false;
    }
    bool used[256] = {0};
    if (p->naxes > 256) {
        snprintf(why, size, "a tensor over %d axes is more than the 256 the rules consider", p->naxes);
        arena_free(&scratch);
        return false;
    }
    if (!axes) {
        map_mark_axes(layout, used);
        axes = used;
    }
    Eqv *q = eqv_new(p);
    Text t = {why, size, 0};
    uint64_t pos, idx[256];
    bool ok = false;
    int r = !q ? -1 : cover_no_overflow(p, layout) ? 0 : layout_first_kind(q, layout, CELL_OVERFLOW, &pos);
    if (r > 0) {
        text_printf(&t, "the tensor's layout is overflow at ");
        unit_text(mem, u, pos, &t);
        text_printf(&t, ": ");
        parts_text(q, p, mem, maps, u, pos, &t);
    } else if (r == 0 && holds_all_by_digits(p, &scratch, layout, axes)) {
        ok = true; /* proved from the digits: the exact decision below is not needed */
    } else if (r == 0 && ((r = missing_by_enumeration(p, layout, axes, idx)) > 0 ||
                          (r < 0 && (r = layout_missing_index(q, layout, axes, idx)) > 0))) {
        text_printf(&t, "the tensor holds index ");
        index_text(p, axes, idx, &t);
        text_printf(&t, " nowhere (its layout does not cover its axes)");
    } else if (r == 0) {
        ok = true;
    }
    if (r < 0)
        snprintf(why, size, "cannot decide the tensor's rules: %s", q ? eqv_error(q) : "out of memory");
    eqv_free(q);
    arena_free(&scratch);
    return ok;
}
