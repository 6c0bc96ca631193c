/* move.c — executing moves: host transfers and DMA between views, run by plans on the thread pool. */
#include "rt_impl.h"

#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

/* The dense row-major mapping m![X1, ..., Xk] of t's logical tensor (its axes in declaration order). */
static const Map *host_map(RtContext *rt, RtTensor *t)
{
    if (t->host)
        return t->host;
    int *axes = calloc((size_t)rt->prog->naxes + 1, sizeof *axes);
    if (!axes)
        return NULL;
    int n = rt_tensor_axes(t, axes);
    MapWhy why;
    const Map *m = NULL;
    if (n == 0) {
        m = map_make_bcast(&rt->prog->arena, 1, t->flat->loc, why);
    }
    for (int i = n - 1; i >= 0; i--) {
        const Map *s = map_make_sym(&rt->prog->arena, axes[i], rt->prog->axes[axes[i]].size, t->flat->loc, why);
        m = s && m ? map_make_pair(&rt->prog->arena, s, m, t->flat->loc, why) : s;
        if (!m)
            break;
    }
    free(axes);
    if (!m)
        rt_fail(rt, "the host array of this tensor cannot be described: %s", why);
    return t->host = m;
}

typedef struct Exec {
    const Plan *plan;
    unsigned char *dst;
    const unsigned char *src;
    size_t es;
    size_t *bounds;     /* task i runs runs[bounds[i] .. bounds[i+1]) */
} Exec;

static void exec_task(void *arg, int task)
{
    const Exec *x = arg;
    size_t es = x->es;
    for (size_t i = x->bounds[task]; i < x->bounds[task + 1]; i++) {
        const Run *r = &x->plan->runs[i];
        unsigned char *d = x->dst + r->dst * es;
        if (r->src == RUN_ZERO) {
            memset(d, 0, r->len * es);
            continue;
        }
        const unsigned char *s = x->src + r->src * es;
        if (r->len == 1) {
            switch (es) {
            case 1: *d = *s; break;
            case 2: memcpy(d, s, 2); break;
            case 4: memcpy(d, s, 4); break;
            default: memcpy(d, s, es); break;
            }
        } else {
            memcpy(d, s, r->len * es);
        }
    }
}

/* Runs the plan from src to dst (element pointers at the views' first positions) on the pool. Each
 * task gets a contiguous slice of the runs with about the same number of elements, so results are
 * identical whatever the thread count. */
static int execute(RtContext *rt, const Plan *plan, void *dst, const void *src, size_t es)
{
    if (!plan->nruns)
        return 0;
    int ntasks = rt->threads == 1 ? 1 : 4 * rt->threads;
    if ((size_t)ntasks > plan->nruns)
        ntasks = (int)plan->nruns;
    size_t *bounds = calloc((size_t)ntasks + 1, sizeof *bounds);
    if (!bounds)
        return rt_fail(rt, "out of memory");
    uint64_t total = 0;
    for (size_t i = 0; i < plan->nruns; i++)
        total += plan->runs[i].len;
    uint64_t acc = 0;
    int k = 1;
    for (size_t i = 0; i < plan->nruns && k < ntasks; i++) {
        acc += plan->runs[i].len;
        while (k < ntasks && acc >= total / (uint64_t)ntasks * (uint64_t)k)
            bounds[k++] = i + 1;
    }
    while (k <= ntasks)
        bounds[k++] = plan->nruns;
    Exec x = {plan, dst, src, es, bounds};
    rt_pool_run(rt->pool, ntasks, exec_task, &x);
    free(bounds);
    return 0;
}

/* Checks that the positions a plan touches lie inside both buffers. */
static int check_extent(RtContext *rt, const Plan *p, uint64_t dst_off, uint64_t dst_elems, uint64_t src_off,
                        uint64_t src_elems)
{
    if (p->dst_end && u64_sat_add(dst_off, p->dst_end) > dst_elems)
        return rt_fail(rt, "the destination view reaches position %llu of a buffer of %llu elements",
                       U(dst_off + p->dst_end - 1), U(dst_elems));
    if (p->src_end && u64_sat_add(src_off, p->src_end) > src_elems)
        return rt_fail(rt, "the source view reaches position %llu of a buffer of %llu elements",
                       U(src_off + p->src_end - 1), U(src_elems));
    return 0;
}

static int check_views(RtContext *rt, const RtView *a, const RtView *b)
{
    if (!a || !b || !a->tensor || !b->tensor || !a->map || !b->map)
        return rt_fail(rt, "a view is missing");
    if (a->tensor->rt != rt || b->tensor->rt != rt)
        return rt_fail(rt, "the tensors belong to another runtime context");
    return 0;
}

int rt_from_host(RtContext *rt, const RtView *dst, const void *host)
{
    if (check_views(rt, dst, dst) != 0 || !host)
        return rt_fail(rt, "a view or the host array is missing");
    if (!dst->writable)
        return rt_fail(rt, "the destination is a read view; make a write view to fill it");
    const Map *h = host_map(rt, dst->tensor);
    if (!h)
        return -1;
    int naxes = rt->prog->naxes;
    int64_t *delta = calloc((size_t)naxes + 1, sizeof *delta);
    for (int a = 0; a < naxes; a++)
        delta[a] = (int64_t)dst->index_offset[a];
    const Plan *p = rt_plan(rt, dst->map, h, delta, false);
    free(delta);
    if (!p || check_extent(rt, p, dst->pos_offset, dst->tensor->elems, 0, h->size) != 0)
        return -1;
    size_t es = elem_type_size(dst->tensor->elem);
    return execute(rt, p, (unsigned char *)dst->tensor->data + dst->pos_offset * es, host, es);
}

int rt_to_host(RtContext *rt, const RtView *src, void *host)
{
    if (check_views(rt, src, src) != 0 || !host)
        return rt_fail(rt, "a view or the host array is missing");
    const Map *h = host_map(rt, src->tensor);
    if (!h)
        return -1;
    int naxes = rt->prog->naxes;
    int64_t *delta = calloc((size_t)naxes + 1, sizeof *delta);
    for (int a = 0; a < naxes; a++)
        delta[a] = -(int64_t)src->index_offset[a];
    const Plan *p = rt_plan(rt, h, src->map, delta, true);
    free(delta);
    if (!p || check_extent(rt, p, 0, h->size, src->pos_offset, src->tensor->elems) != 0)
        return -1;
    size_t es = elem_type_size(src->tensor->elem);
    return execute(rt, p, host, (const unsigned char *)src->tensor->data + src->pos_offset * es, es);
}

typedef struct Parts {
    RtCopyFn fn;
    unsigned char *dst;
    const unsigned char *src;
    uint64_t dstep, sstep;  /* bytes between consecutive parts */
    int nparts, ntasks;
} Parts;

static void parts_task(void *arg, int task)
{
    const Parts *p = arg;
    int lo = (int)((int64_t)p->nparts * task / p->ntasks), hi = (int)((int64_t)p->nparts * (task + 1) / p->ntasks);
    for (int i = lo; i < hi; i++)
        p->fn(p->dst + (uint64_t)i * p->dstep, p->src + (uint64_t)i * p->sstep);
}

/* The move through a JIT-compiled kernel. With several threads, a destination whose outermost
 * digit X (the slices, say) also stands in the source is moved as |X| parts by one kernel for a
 * part, spread over the pool. Returns 1 if it did not apply (the caller moves by plan), 0 or -1. */
static int dma_jit(RtContext *rt, const RtView *dst, const RtView *src, size_t es)
{
    const Map *dm = dst->map, *sm = src->map;
    Parts p = {.nparts = 1, .ntasks = 1};
    if (!cover_proved(rt->prog, sm, dm))
        return 1;
    if (rt->threads > 1 && dm->kind == MAP_PAIR && dm->l->size > 1 &&
        (dm->l->kind == MAP_SYM || dm->l->kind == MAP_STRIDE || dm->l->kind == MAP_MOD)) {
        char saved[sizeof rt->error];
        memcpy(saved, rt->error, sizeof saved);
        uint64_t bufstride;
        const Map *part = rt_tile_map(rt, sm, dm->l, 1, PAD_TOP, &bufstride);
        if (part && cover_proved(rt->prog, part, dm->r)) {
            p.nparts = (int)(dm->l->size < 1u << 30 ? dm->l->size : 1u << 30);
            p.dstep = dm->r->size * es;
            p.sstep = bufstride * es;
            p.ntasks = p.nparts < rt->threads ? p.nparts : rt->threads;
            dm = dm->r;
            sm = part;
        }
        memcpy(rt->error, saved, sizeof saved);
    }
    p.fn = rt_kernel(rt, dm, sm, dst->tensor->elem);
    if (!p.fn)
        return 1;
    p.dst = (unsigned char *)dst->tensor->data + dst->pos_offset * es;
    p.src = (const unsigned char *)src->tensor->data + src->pos_offset * es;
    rt_pool_run(rt->pool, p.ntasks, parts_task, &p);
    rt->stats.jit_moves++;
    return 0;
}

RtStats rt_stats(const RtContext *rt) { return rt->stats; }

int rt_dma(RtContext *rt, const RtView *dst, const RtView *src)
{
    if (check_views(rt, dst, src) != 0)
        return -1;
    if (!dst->writable)
        return rt_fail(rt, "the destination is a read view; make a write view to move into it");
    RtTensor *dt = dst->tensor, *st = src->tensor;
    if (dt->elem != st->elem)
        return rt_fail(rt, "DMA between %s and %s tensors; both must hold the same element type", elem_type_name(st->elem),
                       elem_type_name(dt->elem));
    size_t es = elem_type_size(dt->elem);
    if ((dt->mem == MEM_DM) != (st->mem == MEM_DM) && dt->mem != MEM_HOST && st->mem != MEM_HOST) {
        if ((dst->pos_offset * es) % 8 || (src->pos_offset * es) % 8)
            return rt_fail(rt, "HBM<->DM DMA needs 8-byte aligned addresses: the views start at bytes %llu and %llu",
                           U(src->pos_offset * es), U(dst->pos_offset * es));
    }
    int naxes = rt->prog->naxes;
    if (dt->data != st->data) { /* within one buffer, the plan checks the exact ranges for overlap */
        int jit = dma_jit(rt, dst, src, es);
        if (jit <= 0)
            return jit;
    }
    int64_t *delta = calloc((size_t)naxes + 1, sizeof *delta);
    const Plan *p = rt_plan(rt, dst->map, src->map, delta, false);
    free(delta);
    if (!p || check_extent(rt, p, dst->pos_offset, dt->elems, src->pos_offset, st->elems) != 0)
        return -1;
    rt->stats.plan_moves++;
    if (dt->data == st->data) {
        /* the same buffer: the byte ranges touched must not overlap */
        uint64_t d0 = dst->pos_offset, d1 = dst->pos_offset + p->dst_end;
        uint64_t s0 = src->pos_offset, s1 = src->pos_offset + p->src_end;
        if (d0 < s1 && s0 < d1)
            return rt_fail(rt, "DMA within one buffer between overlapping ranges [%llu, %llu) and [%llu, %llu)", U(s0),
                           U(s1), U(d0), U(d1));
    }
    return execute(rt, p, (unsigned char *)dt->data + dst->pos_offset * es,
                   (const unsigned char *)st->data + src->pos_offset * es, es);
}
