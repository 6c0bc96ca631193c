/* tensor.c — the runtime context and tensors: creation under the capacities of SPEC §5, and buffers. */
#include "rt_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define U(x) ((unsigned long long)(x))

RtConfig rt_default_config(void)
{
    return (RtConfig){
        .hbm_chip_bytes = UINT64_C(48) << 30,
        .dm_slice_bytes = 512 * 1024,
        .dm_max_clusters = 2,
        .dm_slices = {64, 128, 256, 0},
        .threads = 0,
    };
}

int rt_fail(RtContext *rt, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rt->error, sizeof rt->error, fmt, ap);
    va_end(ap);
    return -1;
}

RtContext *rt_new(Prog *prog, const RtConfig *cfg)
{
    RtContext *rt = calloc(1, sizeof *rt);
    if (!rt)
        return NULL;
    rt->prog = prog;
    rt->cfg = cfg ? *cfg : rt_default_config();
    rt->threads = rt->cfg.threads > 0 ? rt->cfg.threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (rt->threads < 1)
        rt->threads = 1;
    rt->pool = rt_pool_new(rt->threads);
    rt->ev = eval_new(prog);
    if (!rt->pool || !rt->ev) {
        rt_free(rt);
        return NULL;
    }
    return rt;
}

void rt_free(RtContext *rt)
{
    if (!rt)
        return;
    rt_pool_free(rt->pool);
    eval_free(rt->ev);
    rt_plans_free(rt->plans);
    free(rt);
}

const char *rt_error(const RtContext *rt) { return rt->error; }

int rt_threads(const RtContext *rt) { return rt->threads; }

void rt_mark_axes(const Map *m, bool *used)
{
    if (m->kind == MAP_SYM)
        used[m->axis] = true;
    if (m->l)
        rt_mark_axes(m->l, used);
    if (m->r)
        rt_mark_axes(m->r, used);
}

static const char *const dim_names[3][4] = {
    {"Element"}, {"Chip", "Element"}, {"Chip", "Cluster", "Slice", "Element"}};

/* Checks the per-memory rules of SPEC §5; 0 or -1 with the error set. */
static int check_capacity(RtContext *rt, RtMemory mem, RtElem elem, const Map *const *maps)
{
    const RtConfig *cfg = &rt->cfg;
    const Map *element = maps[mem == RT_HOST ? 0 : mem == RT_HBM ? 1 : 3];
    uint64_t bytes = u64_sat_mul(element->size, rt_elem_size(elem));
    if (mem == RT_HBM && bytes > cfg->hbm_chip_bytes)
        return rt_fail(rt, "HBM tensor needs %llu bytes per chip (%llu %s elements), more than the %llu bytes of a chip",
                       U(bytes), U(element->size), rt_elem_name(elem), U(cfg->hbm_chip_bytes));
    if (mem != RT_DM)
        return 0;
    if (maps[1]->size > cfg->dm_max_clusters)
        return rt_fail(rt, "DM tensor spans %llu clusters, more than the %llu of a chip", U(maps[1]->size),
                       U(cfg->dm_max_clusters));
    bool slices_ok = false;
    char allowed[96] = "";
    size_t n = 0;
    for (int i = 0; i < 4 && cfg->dm_slices[i]; i++) {
        slices_ok |= maps[2]->size == cfg->dm_slices[i];
        n += (size_t)snprintf(allowed + n, n < sizeof allowed ? sizeof allowed - n : 0, "%s%llu", i ? ", " : "",
                              U(cfg->dm_slices[i]));
    }
    if (!slices_ok)
        return rt_fail(rt, "DM tensor spans %llu slices; a DM tensor spans one of %s", U(maps[2]->size), allowed);
    if (bytes > cfg->dm_slice_bytes)
        return rt_fail(rt, "DM tensor needs %llu bytes per slice (%llu %s elements), more than the %llu bytes of a slice",
                       U(bytes), U(element->size), rt_elem_name(elem), U(cfg->dm_slice_bytes));
    return 0;
}

RtTensor *rt_tensor_new(RtContext *rt, RtMemory mem, RtElem elem, const Map *const *maps, int nmaps)
{
    int want = mem == RT_HOST ? 1 : mem == RT_HBM ? 2 : 4;
    if ((unsigned)mem > RT_DM || elem >= RT_NELEMS || !maps || nmaps != want) {
        rt_fail(rt, "a %s tensor takes %d mappings, not %d", mem == RT_HOST ? "host" : mem == RT_HBM ? "HBM" : "DM", want,
                nmaps);
        return NULL;
    }
    int naxes = rt->prog->naxes;
    bool *seen = calloc((size_t)naxes + 1, sizeof *seen), *mine = calloc((size_t)naxes + 1, sizeof *mine);
    for (int i = 0; i < nmaps; i++) {
        if (!maps[i]) {
            free(seen);
            free(mine);
            rt_fail(rt, "the %s mapping is missing", dim_names[mem][i]);
            return NULL;
        }
        memset(mine, 0, (size_t)naxes * sizeof *mine);
        rt_mark_axes(maps[i], mine);
        for (int a = 0; a < naxes; a++) {
            if (mine[a] && seen[a]) {
                rt_fail(rt, "the %s mapping uses axis %s, which another mapping of the tensor already uses",
                        dim_names[mem][i], rt->prog->axes[a].name);
                free(seen);
                free(mine);
                return NULL;
            }
            seen[a] |= mine[a];
        }
    }
    free(seen);
    free(mine);
    if (check_capacity(rt, mem, elem, maps) != 0)
        return NULL;
    /* the flat mapping m![Chip, ..., Element] */
    const Map *flat = maps[nmaps - 1];
    MapWhy why;
    for (int i = nmaps - 2; i >= 0 && flat; i--)
        if (maps[i]->size > 1) /* [1, E] is E: keep the flat mapping as the user wrote the element one */
            flat = map_make_pair(&rt->prog->arena, maps[i], flat, maps[i]->loc, why);
    if (!flat) {
        rt_fail(rt, "tensor layout: %s", why);
        return NULL;
    }
    uint64_t bytes;
    if (!u64_mul(flat->size, rt_elem_size(elem), &bytes) || bytes > (UINT64_C(1) << 46)) {
        rt_fail(rt, "a tensor of %llu %s elements cannot be allocated", U(flat->size), rt_elem_name(elem));
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

void rt_tensor_free(RtTensor *t)
{
    if (!t)
        return;
    free(t->data);
    free(t);
}

void *rt_tensor_data(const RtTensor *t) { return t->data; }
uint64_t rt_tensor_elems(const RtTensor *t) { return t->elems; }
RtElem rt_tensor_elem(const RtTensor *t) { return t->elem; }
const Map *rt_tensor_map(const RtTensor *t) { return t->flat; }

int rt_tensor_axes(const RtTensor *t, int *axes)
{
    int naxes = t->rt->prog->naxes, n = 0;
    bool *used = calloc((size_t)naxes + 1, sizeof *used);
    if (!used)
        return 0;
    rt_mark_axes(t->flat, used);
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
