/* strided.c — mappings written as MLIR strided<[...]> memref layouts (read in as strided![...], desc.h): each axis
 * one digit whose position weight is its stride, verified through the strided descriptor's own mapping. */
#include "desc/desc.h"
#include "interop_impl.h"

const char *iop_strided_export(Prog *p, const Map *m, const char **why)
{
    int axes[IOP_MAX_DIGITS];
    int rank = iop_layout_axes(p, m, "a strided layout", axes, why);
    if (rank < 0)
        return NULL;
    IopLeaf v[IOP_MAX_DIGITS];
    bool gaps;
    int n = iop_leaves(p, m, v, IOP_MAX_DIGITS, &gaps, why);
    if (n < 0)
        return NULL;
    if ((*why = iop_whole(p, v, n, axes, rank, "a strided layout")) != NULL)
        return NULL;
    uint64_t *stride = arena_alloc(&p->arena, (size_t)rank * sizeof *stride), *extent = arena_alloc(&p->arena,
                                                                                                    (size_t)rank * sizeof *extent);
    for (int i = 0; i < rank; i++) {
        extent[i] = p->axes[axes[i]].size;
        stride[i] = 1;
        int found = 0;
        for (int k = 0; k < n; k++)
            if (v[k].axis == axes[i] && v[k].count > 1) {
                found++;
                stride[i] = v[k].weight;
            }
        if (found > 1 || (found == 1 && extent[i] == 1)) {
            *why = arena_printf(&p->arena, "axis %s is split into %d digits: a strided layout gives each dimension "
                                "one stride (a tiled layout is an affine map)", p->axes[axes[i]].name, found);
            return NULL;
        }
    }
    for (int k = 0; k < n; k++)
        if (v[k].axis < 0) {
            *why = arena_printf(&p->arena, "it repeats every cell %llu times (a broadcast): MLIR's stride-0 "
                                "dimensions are dimensions of the tensor, not of the buffer", U(v[k].count));
            return NULL;
        }
    Desc d = {.kind = DESC_KIND_STRIDED, .rank = rank, .axes = axes, .extent = extent, .strides = stride,
              .loc = m->loc};
    IopBuf b;
    iop_buf_init(&b, &p->arena);
    iop_buf_printf(&b, "strided<[");
    for (int i = 0; i < rank; i++)
        iop_buf_printf(&b, "%s%llu", i ? ", " : "", U(stride[i]));
    iop_buf_printf(&b, "]>");
    Diags scratch;
    diags_init(&scratch, &p->arena);
    const Map *c = desc_to_map(p, &d, &scratch);
    if (!c) {
        *why = arena_printf(&p->arena, "the closest candidate, %s, has no mapping: %s", b.s,
                            scratch.head ? scratch.head->msg : "no reason given");
        return NULL;
    }
    *why = iop_verify_map(p, m, c, b.s);
    return *why ? NULL : b.s;
}
