/* tensor.c — tensors: creation under the rules and capacities of SPEC §5, buffers, the logical axes, views. */
#include "algebra/algebra.h"
#include "rt_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define U(x) ((unsigned long long)(x))

RtTensor *rt_tensor_new(RtContext *rt, MemKind mem, ElemType elem, const Map *const *maps, int nmaps)
{
    if ((unsigned)mem > MEM_DM || (unsigned)elem >= ELEM_COUNT || !maps || nmaps != mem_kind_maps(mem)) {
        rt_fail(rt, "a %s takes %d mappings, not %d", mem_kind_tensor(mem), mem_kind_maps(mem), nmaps);
        return NULL;
    }
    for (int i = 0; i < nmaps; i++)
        if (!maps[i]) {
            rt_fail(rt, "the %s mapping is missing", mem_kind_dim(mem, i));
            return NULL;
        }
    char why[256];
    if (!tensor_check(rt->prog, mem, elem, maps, &rt->cfg.limits, why, sizeof why)) {
        rt_fail(rt, "%s", why);
        return NULL;
    }
    int naxes = rt->prog->naxes;
    /* the flat mapping m![Chip, ..., Element] */
    const Map *flat = maps[nmaps - 1];
    for (int i = nmaps - 2; i >= 0 && flat; i--)
        if (maps[i]->size > 1) /* [1, E] is E: keep the flat mapping as the user wrote the element one */
            flat = map_make_pair(&rt->prog->arena, maps[i], flat, maps[i]->loc, why);
    if (!flat) {
        rt_fail(rt, "tensor layout: %s", why);
        return NULL;
    }
    uint64_t bytes;
    if (!u64_mul(flat->size, elem_type_size(elem), &bytes) || bytes > (UINT64_C(1) << 46)) {
        rt_fail(rt, "a tensor of %llu %s elements cannot be allocated", U(flat->size), elem_type_name(elem));
        return NULL;
    }
    RtTensor *t = calloc(1, sizeof *t);
    if (!t) {
        rt_fail(rt, "out of memory");
        return NULL;
    }
    t->rt = rt;
    t->mem = mem;
    t->elem = elem;
    t->nmaps = nmaps;
    memcpy(t->maps, maps, (size_t)nmaps * sizeof *maps);
    t->flat = flat;
    t->elems = flat->size;
    t->zero_offset = arena_alloc(&rt->prog->arena, ((size_t)naxes + 1) * sizeof *t->zero_offset);
    size_t alloc = (size_t)((bytes + 63) & ~UINT64_C(63));
    t->data = aligned_alloc(64, alloc ? alloc : 64);
    if (!t->data) {
        free(t);
        rt_fail(rt, "cannot allocate %llu bytes", U(bytes));
        return NULL;
    }
    memset(t->data, 0, alloc);
    return t;
}

RtTensor *rt_tensor_declared(RtContext *rt, const char *name)
{
    const Name *n = name ? prog_lookup(rt->prog, name) : NULL;
    if (!n || n->kind != NAME_TENSOR) {
        rt_fail(rt, "the program declares no tensor named '%s'", name ? name : "(null)");
        return NULL;
    }
    const TensorDecl *d = n->tensor;
    return rt_tensor_new(rt, d->mem, d->elem, d->maps, mem_kind_maps(d->mem));
}

void rt_tensor_free(RtTensor *t)
{
    if (!t)
        return;
    free(t->data);
    free(t);
}

void *rt_tensor_data(const RtTensor *t) { return t->data; }
uint64_t rt_tensor_elems(const RtTensor *t) { return t->elems; }
ElemType rt_tensor_elem(const RtTensor *t) { return t->elem; }
const Map *rt_tensor_map(const RtTensor *t) { return t->flat; }

int rt_tensor_axes(const RtTensor *t, int *axes)
{
    int naxes = t->rt->prog->naxes, n = 0;
    bool *used = calloc((size_t)naxes + 1, sizeof *used);
    if (!used)
        return 0;
    map_mark_axes(t->flat, used);
    for (int a = 0; a < naxes; a++)
        if (used[a])
            axes[n++] = a;
    free(used);
    return n;
}

RtView rt_view(RtTensor *t, bool writable)
{
    return (RtView){.tensor = t, .map = t->flat, .pos_offset = 0, .index_offset = t->zero_offset, .writable = writable};
}
