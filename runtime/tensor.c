/* tensor.c — tensors: creation under the rules and capacities of docs/language.md §5, unit buffers, the logical axes
 * and layout (replication projected away), whole-tensor views. */
#include "algebra/algebra.h"
#include "rt_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define U(x) ((unsigned long long)(x))

/* The largest buffer a tensor may have (64 TiB): past it the size is an input error, not an allocation. */
#define RT_MAX_TENSOR_BYTES (UINT64_C(1) << 46)

RtTensor *rt_tensor_new_axes(RtContext *rt, MemKind mem, ElemType elem, const Map *const *maps, int nmaps,
                             const bool *axes)
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
    Prog *p = rt->prog;
    char why[512];
    if (!tensor_check(p, mem, elem, maps, axes, &rt->cfg.limits, why, sizeof why)) {
        rt_fail(rt, "%s", why);
        return NULL;
    }
    MapWhy mw;
    const Map *flat = tensor_layout(&p->arena, mem, maps, mw);
    if (!flat) {
        rt_fail(rt, "tensor layout: %s", mw);
        return NULL;
    }
    uint64_t bytes;
    if (!u64_mul(flat->size, elem_type_size(elem), &bytes) || bytes > RT_MAX_TENSOR_BYTES) {
        rt_fail(rt, "a tensor of %llu %s elements cannot be allocated", U(flat->size), elem_type_name(elem));
        return NULL;
    }
    TensorUnits units = tensor_units(mem, maps);
    if (mem != MEM_HOST && units.chips > (uint64_t)rt_procs(rt) && rt_procs(rt) > 1) {
        rt_fail(rt, "the tensor spans %llu chips but the job has %d processes (one per chip)", U(units.chips),
                rt_procs(rt));
        return NULL;
    }
    /* a process of a job touches only its chip's part of a tensor spread over chips */
    uint64_t resident = mem != MEM_HOST && rt_procs(rt) > 1 && units.chips > 1 ? (bytes + units.chips - 1) / units.chips
                                                                             : bytes;
    if (!mem_fits(resident, why, sizeof why)) {
        rt_fail_memory(rt, "a tensor of %llu %s elements needs %s", U(flat->size), elem_type_name(elem), why);
        return NULL;
    }
    RtTensor *t = calloc(1, sizeof *t);
    bool *own = arena_alloc(&p->arena, (size_t)p->naxes + 1);
    if (!t) {
        rt_fail_memory(rt, "out of memory");
        return NULL;
    }
    if (axes)
        memcpy(own, axes, (size_t)p->naxes);
    else
        map_mark_axes(flat, own);
    *t = (RtTensor){.rt = rt, .mem = mem, .elem = elem, .nmaps = nmaps, .units = units,
                    .flat = flat, .axes = own, .elems = flat->size};
    memcpy(t->maps, maps, (size_t)nmaps * sizeof *maps);
    t->zero_offset = arena_alloc(&p->arena, ((size_t)p->naxes + 1) * sizeof *t->zero_offset);
    /* anonymous pages are zero and take memory only when touched: a process of a job touches only its
     * chip's units (and the runs it receives from other chips) */
    t->alloc = (size_t)((bytes + 4095) & ~UINT64_C(4095));
    if (!t->alloc)
        t->alloc = 4096;
    t->data = mmap(NULL, t->alloc, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (t->data == MAP_FAILED) {
        free(t);
        rt_fail_memory(rt, "a tensor of %llu %s elements cannot be allocated: out of memory for its %llu bytes", U(flat->size),
                elem_type_name(elem), U(bytes));
        return NULL;
    }
    return t;
}

RtTensor *rt_tensor_new(RtContext *rt, MemKind mem, ElemType elem, const Map *const *maps, int nmaps)
{
    return rt_tensor_new_axes(rt, mem, elem, maps, nmaps, NULL);
}

RtTensor *rt_tensor_declared(RtContext *rt, const char *name)
{
    const Name *n = name ? prog_lookup(rt->prog, name) : NULL;
    if (!n || n->kind != NAME_TENSOR) {
        rt_fail(rt, "the program declares no tensor named '%s'", name ? name : "(null)");
        return NULL;
    }
    const TensorDecl *d = n->tensor;
    if (!d) {
        rt_fail(rt, "the declaration of tensor '%s' has errors", name);
        return NULL;
    }
    bool *axes = NULL;
    if (d->axes) { /* axes declared after the tensor (a kernel's tile axes) are not its own */
        axes = arena_alloc(&rt->prog->arena, (size_t)rt->prog->naxes + 1);
        memcpy(axes, d->axes, (size_t)d->axes_n);
    }
    return rt_tensor_new_axes(rt, d->mem, d->elem, d->maps, mem_kind_maps(d->mem), axes);
}

void rt_tensor_free(RtTensor *t)
{
    if (!t)
        return;
    munmap(t->data, t->alloc);
    free(t);
}

void rt_tensor_make_local(RtTensor *t) { t->local = true; }

void *rt_tensor_data(const RtTensor *t) { return t->data; }
uint64_t rt_tensor_elems(const RtTensor *t) { return t->elems; }
ElemType rt_tensor_elem(const RtTensor *t) { return t->elem; }
MemKind rt_tensor_mem(const RtTensor *t) { return t->mem; }
const Map *rt_tensor_map(const RtTensor *t) { return t->flat; }
TensorUnits rt_tensor_units(const RtTensor *t) { return t->units; }

void *rt_tensor_unit(const RtTensor *t, uint64_t chip, uint64_t cluster, uint64_t slice)
{
    const TensorUnits *u = &t->units;
    if (chip >= u->chips || cluster >= u->clusters || slice >= u->slices)
        return NULL;
    uint64_t unit = (chip * u->clusters + cluster) * u->slices + slice;
    return (char *)t->data + unit * u->elements * elem_type_size(t->elem);
}

int rt_tensor_axes(const RtTensor *t, int *axes)
{
    int n = 0;
    for (int a = 0; a < t->rt->prog->naxes; a++)
        if (t->axes[a])
            axes[n++] = a;
    return n;
}

RtView rt_view(RtTensor *t, bool writable)
{
    RtView v = {.tensor = t, .map = t->flat, .pos_offset = 0, .index_offset = t->zero_offset, .writable = writable};
    memcpy(v.dims, t->maps, (size_t)t->nmaps * sizeof *t->maps);
    return v;
}

bool rt_view_has_units(const RtView *v)
{
    const TensorUnits *u = &v->tensor->units;
    return u->chips * u->clusters * u->slices > 1;
}

/* Whether the base of the digit m (a symbol, under any padding) is an axis not marked in axes. */
static bool foreign_digit(const Map *m, const bool *axes)
{
    uint64_t s;
    const Map *x = map_digit_root(m, &s);
    while (x->kind == MAP_PAD)
        x = x->l;
    return x->kind == MAP_SYM && !axes[x->axis];
}

/* rt_logical's rewrite; *mixed is set when a composite base mentions an axis not marked. */
static const Map *logical(RtContext *rt, const Map *m, const bool *axes, bool *mixed)
{
    Arena *a = &rt->prog->arena;
    MapWhy why;
    switch (m->kind) {
    case MAP_BCAST:
        return m;
    case MAP_SYM:
    case MAP_STRIDE:
    case MAP_MOD: {
        if (foreign_digit(m, axes))
            return map_make_bcast(a, m->size, m->loc, why);
        uint64_t s;
        const Map *x = map_digit_root(m, &s);
        if (x->kind != MAP_SYM) {
            bool *used = arena_alloc(a, (size_t)rt->prog->naxes + 1);
            map_mark_axes(x, used);
            for (int i = 0; i < rt->prog->naxes; i++)
                *mixed |= used[i] && !axes[i];
        }
        return m;
    }
    case MAP_RESIZE:
    case MAP_PAD: {
        const Map *l = logical(rt, m->l, axes, mixed);
        return l == m->l ? m : map_make_op(a, m->kind, m->pad, l, m->n, m->loc, why);
    }
    case MAP_PAIR: {
        const Map *l = logical(rt, m->l, axes, mixed), *r = logical(rt, m->r, axes, mixed);
        return l == m->l && r == m->r ? m : map_make_pair(a, l, r, m->loc, why);
    }
    }
    return m;
}

const Map *rt_logical(RtContext *rt, const Map *m, const bool *axes)
{
    bool mixed = false;
    const Map *l = logical(rt, m, axes, &mixed);
    if (mixed) {
        rt_fail(rt, "a composite base mixes the tensor's axes with an axis its digits replicate it along");
        return NULL;
    }
    return l;
}
