/* desc_offset.c — element offsets of a descriptor: its own formula (the independent oracle for
 * the conversion), its buffer size, and element_offset through a mapping. */
#include "desc.h"

#include <stdlib.h>
#include <string.h>

static bool add(uint64_t a, uint64_t b, uint64_t *out) { return !__builtin_add_overflow(a, b, out); }

/* Offset of coordinates x in an order over extents n: row-major (last index fastest),
 * column-major (first index fastest), or strided (sum x_i * strides_i). */
static bool order_offset(DescOrder o, int r, const uint64_t *x, const uint64_t *n, const uint64_t *strides,
                         uint64_t *out)
{
    uint64_t acc = 0;
    for (int k = 0; k < r; k++) {
        int i = o == DESC_COL_MAJOR ? r - 1 - k : k;
        uint64_t t;
        if (o == DESC_STRIDED) {
            if (!u64_mul(x[i], strides[i], &t) || !add(acc, t, &acc))
                return false;
        } else if (!u64_mul(acc, n[i], &acc) || !add(acc, x[i], &acc)) {
            return false;
        }
    }
    *out = acc;
    return true;
}

/* Number of positions an order spans over extents n: their product, or the strided footprint
 * 1 + sum (n_i - 1) * strides_i. */
static bool order_span(DescOrder o, int r, const uint64_t *n, const uint64_t *strides, uint64_t *out)
{
    uint64_t acc = 1;
    for (int i = 0; i < r; i++) {
        uint64_t t;
        if (o == DESC_STRIDED) {
            if (!u64_mul(n[i] - 1, strides[i], &t) || !add(acc, t, &acc))
                return false;
        } else if (!u64_mul(acc, n[i], &acc)) {
            return false;
        }
    }
    *out = acc;
    return true;
}

static bool level_size(const DescLevel *L, int r, const uint64_t *s, uint64_t *out);

/* tile_elems: prod t_i for a flat inner layout, the nested level's size over t otherwise. */
static bool tile_elems(const DescLevel *L, int r, uint64_t *out)
{
    if (L->inner == DESC_NESTED)
        return level_size(L->nested, r, L->tile, out);
    return order_span(DESC_ROW_MAJOR, r, L->tile, NULL, out);
}

/* The grid g_i = ceil(s_i / t_i), malloc'ed. */
static uint64_t *grid(const DescLevel *L, int r, const uint64_t *s)
{
    uint64_t *g = mem_alloc((size_t)(r + 1) * sizeof *g);
    for (int i = 0; i < r; i++)
        g[i] = s[i] / L->tile[i] + (s[i] % L->tile[i] != 0);
    return g;
}

/* A level's size over extents s: outer span * tile_elems. */
static bool level_size(const DescLevel *L, int r, const uint64_t *s, uint64_t *out)
{
    uint64_t *g = grid(L, r, s), span, te;
    bool ok = order_span(L->outer, r, g, L->outer_strides, &span) && tile_elems(L, r, &te) && u64_mul(span, te, out);
    free(g);
    return ok;
}

/* A level's offset of x over extents s: outer(T) * tile_elems + inner(e). */
static bool level_offset(const DescLevel *L, int r, const uint64_t *s, const uint64_t *x, uint64_t *out)
{
    uint64_t *g = grid(L, r, s);
    uint64_t *T = mem_alloc((size_t)(r + 1) * sizeof *T), *e = mem_alloc((size_t)(r + 1) * sizeof *e);
    for (int i = 0; i < r; i++) {
        T[i] = x[i] / L->tile[i];
        e[i] = x[i] % L->tile[i];
    }
    uint64_t o, te, in;
    bool ok = order_offset(L->outer, r, T, g, L->outer_strides, &o) && tile_elems(L, r, &te) &&
              (L->inner == DESC_NESTED ? level_offset(L->nested, r, L->tile, e, &in)
                                       : order_offset(L->inner, r, e, L->tile, L->inner_strides, &in)) &&
              u64_mul(o, te, &o) && add(o, in, out);
    free(g);
    free(T);
    free(e);
    return ok;
}

bool desc_offset(const Desc *d, const uint64_t *index, uint64_t *offset)
{
    for (int i = 0; i < d->rank; i++)
        if (index[i] >= d->extent[i])
            return false;
    if (d->kind == DESC_KIND_STRIDED)
        return order_offset(DESC_STRIDED, d->rank, index, d->extent, d->strides, offset);
    return level_offset(d->tiled, d->rank, d->extent, index, offset);
}

bool desc_size(const Desc *d, uint64_t *size)
{
    if (d->kind == DESC_KIND_STRIDED)
        return order_span(DESC_STRIDED, d->rank, d->extent, d->strides, size);
    return level_size(d->tiled, d->rank, d->extent, size);
}

int desc_element_offset(const Prog *p, Evaluator *ev, const Desc *d, const Map *m, const uint64_t *index,
                        uint64_t *pos)
{
    /* The seam for generated inverse code (E_offset): until it is available, scan the
     * positions with the reference interpreter (fine for test sizes). */
    uint64_t *want = mem_calloc((size_t)p->naxes + 1, sizeof *want);
    Cell c = {.coord = mem_calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    for (int i = 0; i < d->rank; i++)
        want[d->axes[i]] = index[i];
    Cell w = {CELL_LIVE, want};
    int found = 0;
    for (uint64_t q = 0; q < m->size && !found; q++) {
        if (eval_cell(ev, m, q, &c) != EVAL_OK) {
            found = -1;
            break;
        }
        if (cell_equal(&c, &w, p->naxes)) {
            *pos = q;
            found = 1;
        }
    }
    free(want);
    free(c.coord);
    return found;
}
