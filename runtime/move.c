/* move.c — executing moves: host transfers and DMA between views of any two distributions, through
 * JIT-compiled kernels run on the pool one destination unit or one part of the kernel's plan per task
 * (checked plans as the fallback). */
#include "algebra/algebra.h"
#include "rt_impl.h"

#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

/* A destination whose units have more values than this is moved through the kernel's parts instead of unit by
 * unit (the per-unit terms are computed up front). */
#define RT_MAX_PARTS 65536
/* A destination of fewer elements is moved by one thread (a task's work must outweigh waking a thread). */
#define RT_PART_MIN_ELEMS 4096
/* Tasks per thread when units are many: enough to even out units of unequal cost. */
#define RT_TASKS_PER_THREAD 4

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
    if (n == 0)
        m = map_make_bcast(&rt->prog->arena, 1, t->flat->loc, why);
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

/* The element offset in t's dense host array of the index off (naxes entries; 0 off the tensor's axes). */
static uint64_t host_offset(RtContext *rt, const RtTensor *t, const uint64_t *off)
{
    uint64_t pos = 0;
    for (int a = 0; a < rt->prog->naxes; a++)
        if (t->axes[a])
            pos = pos * rt->prog->axes[a].size + off[a];
    return pos;
}

/* ---- plans (the interpreter's moves: checked, slow) ---- */

/* The destination positions [lo, hi) a move writes (relative to its destination pointer): this process's
 * chip under a transport, everything otherwise. */
typedef struct Keep {
    uint64_t lo, hi;
} Keep;
static const Keep keep_all = {0, UINT64_MAX};

typedef struct Exec {
    const Plan *plan;
    unsigned char *dst;
    const unsigned char *src;
    size_t es;
    size_t *bounds;     /* task i runs runs[bounds[i] .. bounds[i+1]) */
    Keep keep;
} Exec;

static void exec_task(void *arg, int task)
{
    const Exec *x = arg;
    size_t es = x->es;
    for (size_t i = x->bounds[task]; i < x->bounds[task + 1]; i++) {
        const Run *r = &x->plan->runs[i];
        uint64_t lo = r->dst > x->keep.lo ? r->dst : x->keep.lo;
        uint64_t hi = r->dst + r->len < x->keep.hi ? r->dst + r->len : x->keep.hi;
        if (lo >= hi)
            continue;
        unsigned char *d = x->dst + lo * es;
        if (r->src == RUN_ZERO)
            memset(d, 0, (hi - lo) * es);
        else
            memcpy(d, x->src + (r->src + lo - r->dst) * es, (hi - lo) * es);
    }
}

/* Runs the plan from src to dst (element pointers at the views' first positions) on the pool. Each
 * task gets a contiguous slice of the runs with about the same number of elements, so results are
 * identical whatever the thread count. */
static int execute(RtContext *rt, const Plan *plan, void *dst, const void *src, size_t es, Keep keep)
{
    if (!plan->nruns)
        return 0;
    int ntasks = rt->threads == 1 ? 1 : RT_TASKS_PER_THREAD * rt->threads;
    if ((size_t)ntasks > plan->nruns)
        ntasks = (int)plan->nruns;
    size_t *bounds = calloc((size_t)ntasks + 1, sizeof *bounds);
    if (!bounds)
        return rt_fail_memory(rt, "out of memory");
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
    Exec x = {plan, dst, src, es, bounds, keep};
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

/* ---- kernels, one destination unit per task ---- */

typedef struct Parts {
    RtMoveFn fn;
    unsigned char *dst;
    const unsigned char *src;
    uint64_t step;          /* bytes of one unit's part of the destination */
    uint64_t nunits;
    int nterms;
    const int64_t *terms;   /* per unit: its units' term values */
    const signed char *kind;/* per unit: CELL_LIVE, CELL_PAD_ZERO, or -1 (left alone) */
    uint64_t part;          /* elements of one unit's part */
    Keep keep;
    int ntasks;
} Parts;

static void parts_task(void *arg, int task)
{
    const Parts *p = arg;
    uint64_t lo = p->nunits * (uint64_t)task / (uint64_t)p->ntasks;
    uint64_t hi = p->nunits * (uint64_t)(task + 1) / (uint64_t)p->ntasks;
    for (uint64_t u = lo; u < hi; u++) {
        if (u * p->part < p->keep.lo || u * p->part >= p->keep.hi)
            continue; /* another process's chip */
        if (p->kind[u] == CELL_LIVE)
            p->fn(p->dst + u * p->step, p->src, p->terms + u * (uint64_t)p->nterms);
        else if (p->kind[u] == CELL_PAD_ZERO)
            memset(p->dst + u * p->step, 0, p->step);
    }
}

typedef struct Parted {
    RtPartFn fn;
    unsigned char *dst;
    const unsigned char *src;
    int ntasks;
} Parted;

static void parted_task(void *arg, int task)
{
    const Parted *p = arg;
    p->fn(p->dst, p->src, (uint64_t)task, (uint64_t)p->ntasks);
}

/* The number of term nodes of m (digits: symbols and / % chains). */
static int term_count(const Map *m)
{
    switch (m->kind) {
    case MAP_SYM: case MAP_STRIDE: case MAP_MOD: return 1;
    case MAP_BCAST: return 0;
    case MAP_RESIZE: case MAP_PAD: return term_count(m->l);
    case MAP_PAIR: return term_count(m->l) + term_count(m->r);
    }
    return 0;
}

/* Moves the source mapping s (at src) into the destination mapping d (at dst) through a JIT kernel: when d
 * is pair(UNITS, part) with the view's units (units set), one kernel parametrized by the unit moves each unit's
 * part, a task per unit (or per range of units) on the pool, a unit that is padding zeroed (pad(zero)) or left,
 * only the parts that start inside keep moved; otherwise the whole move's kernel runs in parts (blocks of the
 * destination its plan splits), a few tasks per thread. Returns 0, -1 with rt_error set, or 1 when no kernel
 * applies (the caller moves by plan). */
static int jit_move(RtContext *rt, const Map *d, bool units, const Map *s, ElemType elem, unsigned char *dst,
                    const unsigned char *src, Keep keep)
{
    bool partial = keep.lo > 0 || keep.hi < d->size;
    if (!cover_proved(rt->prog, s, d))
        return 1;
    bool split = units && d->kind == MAP_PAIR && d->l->size <= RT_MAX_PARTS;
    char saved[sizeof rt->error];
    memcpy(saved, rt->error, sizeof saved);
    RtPartFn part = NULL;
    RtMoveFn fn = split ? rt_kernel(rt, d, s, d->l, elem, NULL) : NULL;
    if (!fn) {
        split = false;
        fn = rt_kernel(rt, d, s, NULL, elem, &part);
    }
    if (!fn) {
        memcpy(rt->error, saved, sizeof saved); /* the plan decides, and says why if it cannot */
        return 1;
    }
    if (!split && partial)
        return 1; /* the plan moves this process's part only */
    if (!split && (rt->threads == 1 || d->size < RT_PART_MIN_ELEMS)) {
        fn(dst, src, NULL);
        return 0;
    }
    if (!split) {
        Parted p = {.fn = part, .dst = dst, .src = src, .ntasks = RT_TASKS_PER_THREAD * rt->threads};
        rt_pool_run(rt->pool, p.ntasks, parted_task, &p);
        return 0;
    }
    const Map *um = d->l;
    uint64_t n = um->size;
    int nt = 0;
    int64_t *terms = NULL;
    signed char *kind = malloc(n);
    Cell c = {.coord = calloc((size_t)rt->prog->naxes + 1, sizeof(uint64_t))};
    int cap = term_count(um) + 1;
    uint64_t *vals = calloc((size_t)cap, sizeof *vals);
    bool ok = kind && c.coord && vals;
    for (uint64_t u = 0; u < n && ok; u++) {
        ok = eval_cell(rt->ev, um, u, &c) == EVAL_OK;
        kind[u] = ok && (c.kind == CELL_LIVE || c.kind == CELL_PAD_ZERO) ? (signed char)c.kind : -1;
        if (!ok || c.kind != CELL_LIVE)
            continue;
        int k = eval_terms(um, u, vals, cap);
        if (!terms) {
            nt = k;
            terms = calloc(n * (uint64_t)(k > 0 ? k : 1), sizeof *terms);
        }
        ok = terms && k == nt;
        for (int i = 0; ok && i < k; i++)
            terms[u * (uint64_t)nt + (uint64_t)i] = (int64_t)vals[i];
    }
    int r = 0;
    if (!ok) {
        r = rt_fail(rt, "cannot enumerate the units of the move: %s", eval_error(rt->ev));
    } else {
        int64_t none = 0;
        Parts p = {.fn = fn, .dst = dst, .src = src, .step = d->r->size * elem_type_size(elem), .nunits = n,
                   .nterms = nt, .terms = terms ? terms : &none, .kind = kind, .part = d->r->size, .keep = keep};
        uint64_t most = (uint64_t)RT_TASKS_PER_THREAD * (uint64_t)rt->threads;
        p.ntasks = (int)(n < most ? n : rt->threads == 1 ? 1 : most);
        rt_pool_run(rt->pool, p.ntasks, parts_task, &p);
    }
    free(kind);
    free(terms);
    free(c.coord);
    free(vals);
    return r;
}

/* jit_move over the whole destination (the RtKernelMove that rt_tag_plan runs on tags). */
static int kernel_move(RtContext *rt, const Map *d, bool units, const Map *s, ElemType elem, void *dst, const void *src)
{
    return jit_move(rt, d, units, s, elem, dst, src, keep_all);
}

/* ---- host transfers and DMA ---- */

RtStats rt_stats(const RtContext *rt) { return rt->stats; }

static int check_views(RtContext *rt, const RtView *a, const RtView *b)
{
    if (!a || !b || !a->tensor || !b->tensor || !a->map || !b->map)
        return rt_fail(rt, "a view is missing");
    if (a->tensor->rt != rt || b->tensor->rt != rt)
        return rt_fail(rt, "the tensors belong to another runtime context");
    return 0;
}

/* Whether v is its tensor's whole layout at its origin. */
static bool whole_view(const RtView *v)
{
    return v->map == v->tensor->flat && v->pos_offset == 0 && v->index_offset == v->tensor->zero_offset;
}

/* The part of view v's destination positions this process writes (relative to the view). */
static Keep keep_of(const RtContext *rt, const RtView *v)
{
    if (!rt_spread(rt, v->tensor))
        return keep_all;
    uint64_t lo, hi, off = v->pos_offset;
    rt_own_range(rt, v->tensor, &lo, &hi);
    return (Keep){lo > off ? lo - off : 0, hi > off ? hi - off : 0};
}

/* Whether a move between view v (layout m) and its tensor's dense host array (layout h) is the identity: one
 * process holds the whole tensor and its layout has the host array's normal form, so every position is live
 * and holds the index the host array holds there. Such a move is a memcpy, with no kernel to compile. */
static bool host_identity(RtContext *rt, const RtView *v, const Map *h, const Map *m)
{
    if (rt_spread(rt, v->tensor) || !whole_view(v) || m->size != h->size)
        return false;
    Arena scratch = {0};
    bool same = norm_equal(norm_map(&scratch, m), norm_map(&scratch, h));
    arena_free(&scratch);
    return same;
}

int rt_from_host(RtContext *rt, const RtView *dst, const void *host)
{
    if (check_views(rt, dst, dst) != 0)
        return -1;
    RtTensor *t = dst->tensor;
    bool spread = rt_spread(rt, t), root = rt_chip(rt) <= 0, whole = spread && whole_view(dst);
    if (!host && (root || !spread))
        return rt_fail(rt, "a view or the host array is missing");
    if (!dst->writable)
        return rt_fail(rt, "the destination is a read view; make a write view to fill it");
    const Map *h = host_map(rt, t), *d = h ? rt_logical(rt, dst->map, t->axes) : NULL;
    if (!d)
        return -1;
    size_t es = elem_type_size(t->elem);
    unsigned char *base = (unsigned char *)t->data + dst->pos_offset * es;
    if (host && host_identity(rt, dst, h, d)) {
        rt->stats.host_moves++;
        memcpy(base, host, (size_t)h->size * es);
        return 0;
    }
    int naxes = rt->prog->naxes;
    int64_t *delta = calloc((size_t)naxes + 1, sizeof *delta);
    if (!delta)
        return rt_fail_memory(rt, "out of memory");
    for (int a = 0; a < naxes; a++)
        delta[a] = (int64_t)dst->index_offset[a];
    const Plan *p = NULL;
    unsigned char *copy = NULL; /* this process's copy of process 0's host array, where it is not process 0 */
    int r = 0;
    if (spread && !whole) { /* a part of the tensor: process 0 sends every process the runs its chip holds */
        if (!(p = rt_plan(rt, d, h, delta, false)))
            r = -1;
        else if (!root && !(copy = calloc(h->size ? h->size : 1, es)))
            r = rt_fail(rt, "out of memory receiving a host array");
        RtSide ds = {t, t->data, dst->pos_offset}, ss = {NULL, root ? (unsigned char *)host : copy, 0};
        if (r == 0)
            r = rt_chips_exchange(rt, p, &ds, &ss, es);
        if (copy)
            host = copy;
    }
    /* the whole tensor: process 0 lays out every chip, then sends each chip its unit buffers */
    Keep keep = whole ? (root ? keep_all : (Keep){0, 0}) : keep_of(rt, dst);
    rt->stats.host_moves++;
    if (r == 0 && keep.lo < keep.hi) {
        /* the view's indices are relative to index_offset: the host array read from there on */
        const unsigned char *from = (const unsigned char *)host + host_offset(rt, t, dst->index_offset) * es;
        r = jit_move(rt, d, rt_view_has_units(dst), h, t->elem, base, from, keep);
    }
    if (r > 0) {
        p = p ? p : rt_plan(rt, d, h, delta, false);
        r = !p || check_extent(rt, p, dst->pos_offset, t->elems, 0, h->size) != 0 ? -1
                                                                                  : execute(rt, p, base, host, es, keep);
    }
    if (r == 0 && whole)
        r = rt_chips_whole(rt, t, true);
    free(delta);
    free(copy);
    return r;
}

int rt_to_host(RtContext *rt, const RtView *src, void *host)
{
    if (check_views(rt, src, src) != 0)
        return -1;
    RtTensor *t = src->tensor;
    bool spread = rt_spread(rt, t), root = rt_chip(rt) <= 0, whole = spread && whole_view(src);
    if (!host && (root || !spread))
        return rt_fail(rt, "a view or the host array is missing");
    const Map *h = host_map(rt, t), *s = h ? rt_logical(rt, src->map, t->axes) : NULL;
    if (!s)
        return -1;
    size_t es = elem_type_size(t->elem);
    const unsigned char *base = (const unsigned char *)t->data + src->pos_offset * es;
    if (host && host_identity(rt, src, h, s)) {
        rt->stats.host_moves++;
        memcpy(host, base, (size_t)h->size * es);
        return 0;
    }
    int naxes = rt->prog->naxes;
    int64_t *delta = calloc((size_t)naxes + 1, sizeof *delta);
    if (!delta)
        return rt_fail_memory(rt, "out of memory");
    for (int a = 0; a < naxes; a++)
        delta[a] = -(int64_t)src->index_offset[a];
    const Plan *p = NULL;
    int r = 1;
    /* a replica on every chip: process 0's own is whole */
    bool gather = whole && !(t->maps[0]->kind == MAP_BCAST && t->units.chips > 1);
    if (whole) { /* every chip sends process 0 its unit buffers */
        r = gather && rt_chips_whole(rt, t, false) != 0 ? -1 : root ? 1 : 0;
    } else if (spread) { /* a part: every process sends process 0 the runs of its chip it needs */
        RtSide ds = {NULL, host, 0}, ss = {t, t->data, src->pos_offset};
        p = rt_plan(rt, h, s, delta, true);
        r = !p ? -1 : rt_chips_exchange(rt, p, &ds, &ss, es) != 0 ? -1 : root ? 1 : 0;
    }
    if (r > 0) {
        rt->stats.host_moves++;
        if (whole_view(src)) /* every index is held (docs/language.md §5): the kernel reads one replica of each */
            r = jit_move(rt, h, false, s, t->elem, host, base, keep_all);
    }
    if (r > 0) {
        p = p ? p : rt_plan(rt, h, s, delta, true);
        r = !p || check_extent(rt, p, 0, h->size, src->pos_offset, t->elems) != 0 ? -1
                                                                                 : execute(rt, p, host, base, es, keep_all);
    }
    if (gather && root)
        rt_chips_release(rt, t);
    free(delta);
    return r;
}

/* Whether the two tensors have the same axes (one logical tensor, whatever its distributions); an axis of
 * size 1 has the one coordinate 0 whether a layout names it or not. */
static bool same_axes(const RtContext *rt, const RtTensor *a, const RtTensor *b)
{
    for (int i = 0; i < rt->prog->naxes; i++)
        if (a->axes[i] != b->axes[i] && rt->prog->axes[i].size > 1)
            return false;
    return true;
}

/* The chip mapping m with every broadcast factor (size b > 1) replaced by m![1 # b]: the replica at
 * coordinate 0 of the factor; *shift receives the chips to add so that chip c (0 <= c < |m|) reads its own
 * replica there. m itself (shift 0) when it has no such factor; NULL if a mapping cannot be made. */
static const Map *own_replica(RtContext *rt, const Map *m, uint64_t c, uint64_t *shift)
{
    MapWhy why;
    *shift = 0;
    if (m->kind == MAP_BCAST && m->size > 1) {
        const Map *one = map_make_bcast(&rt->prog->arena, 1, m->loc, why);
        *shift = c;
        return one ? map_make_op(&rt->prog->arena, MAP_PAD, PAD_TOP, one, m->size, m->loc, why) : NULL;
    }
    if (m->kind != MAP_PAIR)
        return m;
    uint64_t rs = m->r->size, sl, sr;
    const Map *l = own_replica(rt, m->l, c / rs, &sl), *r = l ? own_replica(rt, m->r, c % rs, &sr) : NULL;
    if (!r)
        return NULL;
    *shift = sl * rs + sr;
    return l == m->l && r == m->r ? m : map_make_pair(&rt->prog->arena, l, r, m->loc, why);
}

/* Under a transport, a source replicated over chips (broadcast factors in its Chip mapping) is read from the
 * replica on this process's chip: *out is v over that replica (the other replicas padding). False when v
 * is not a whole-chip view of such a tensor, or this process holds none of its chips. */
static bool rebase_replica(RtContext *rt, const RtView *v, RtView *out)
{
    RtTensor *t = v->tensor;
    uint64_t ce = t->units.clusters * t->units.slices * t->units.elements, me = (uint64_t)rt_chip(rt), shift;
    if (!rt_spread(rt, t) || t->units.chips < 2 || v->dims[0] != t->maps[0] || me >= t->units.chips)
        return false;
    const Map *chip = own_replica(rt, t->maps[0], me, &shift);
    if (!chip || chip == t->maps[0])
        return false;
    MapWhy why;
    const Map *dims[4];
    memcpy(dims, v->dims, sizeof dims);
    dims[0] = chip;
    const Map *m = tensor_layout(&rt->prog->arena, t->mem, dims, why);
    if (!m)
        return false;
    *out = *v;
    out->map = m;
    memcpy(out->dims, dims, sizeof dims);
    out->pos_offset = v->pos_offset + shift * ce;
    return true;
}

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
    if (!same_axes(rt, dt, st))
        return rt_fail(rt, "DMA between tensors of different axes; both views must hold one logical tensor");
    size_t es = elem_type_size(dt->elem);
    if ((dt->mem == MEM_DM) != (st->mem == MEM_DM) && dt->mem != MEM_HOST && st->mem != MEM_HOST) {
        if ((dst->pos_offset * es) % 8 || (src->pos_offset * es) % 8)
            return rt_fail(rt, "HBM<->DM DMA needs 8-byte aligned addresses: the views start at bytes %llu and %llu",
                           U(src->pos_offset * es), U(dst->pos_offset * es));
    }
    /* a replicated source is read on this process's chip when no exchange is needed: the destination is
     * this process's own, or the source is whole on every chip */
    RtView here;
    bool local_dst = !rt_spread(rt, dt), everywhere = st->maps[0]->kind == MAP_BCAST && st->units.chips > 1;
    bool rebased = (local_dst || everywhere) && rebase_replica(rt, src, &here);
    if (rebased)
        src = &here;
    const Map *d = rt_logical(rt, dst->map, dt->axes), *s = d ? rt_logical(rt, src->map, st->axes) : NULL;
    if (!s)
        return -1;
    unsigned char *dbase = (unsigned char *)dt->data + dst->pos_offset * es;
    const unsigned char *sbase = (const unsigned char *)st->data + src->pos_offset * es;
    int64_t *delta = calloc((size_t)rt->prog->naxes + 1, sizeof *delta);
    if (!delta)
        return rt_fail_memory(rt, "out of memory");
    const Plan *p = NULL;
    /* between chips of different processes: the runs this process's chip needs arrive first */
    if (!rebased && !local_dst && rt_spread(rt, st)) {
        RtSide ds = {dt, dt->data, dst->pos_offset}, ss = {st, st->data, src->pos_offset};
        const Plan *x = rt_tag_plan(rt, dst, d, src, s, kernel_move);
        p = x ? NULL : rt_plan(rt, d, s, delta, false);
        if ((!x && !p) || rt_chips_exchange(rt, x ? x : p, &ds, &ss, es) != 0) {
            free(delta);
            return -1;
        }
    }
    Keep keep = keep_of(rt, dst);
    if (keep.lo >= keep.hi) { /* this process holds none of the destination */
        free(delta);
        return 0;
    }
    if (dt->data != st->data) { /* within one buffer, the plan checks the exact ranges for overlap */
        int jit = jit_move(rt, d, rt_view_has_units(dst), s, dt->elem, dbase, sbase, keep);
        if (jit <= 0) {
            rt->stats.jit_moves += jit == 0;
            free(delta);
            return jit;
        }
    }
    p = p ? p : rt_plan(rt, d, s, delta, false);
    free(delta);
    if (!p || check_extent(rt, p, dst->pos_offset, dt->elems, src->pos_offset, st->elems) != 0)
        return -1;
    if (dt->data == st->data) {
        /* the same buffer: the byte ranges touched must not overlap */
        uint64_t d0 = dst->pos_offset, d1 = dst->pos_offset + p->dst_end;
        uint64_t s0 = src->pos_offset, s1 = src->pos_offset + p->src_end;
        if (d0 < s1 && s0 < d1)
            return rt_fail(rt, "DMA within one buffer between overlapping ranges [%llu, %llu) and [%llu, %llu)", U(s0),
                           U(s1), U(d0), U(d1));
    }
    rt->stats.plan_moves++;
    return execute(rt, p, dbase, sbase, es, keep);
}

int rt_dma_chip_bytes(RtContext *rt, const RtView *dst, const RtView *src, uint64_t *bytes)
{
    *bytes = 0;
    if (check_views(rt, dst, src) != 0)
        return -1;
    RtTensor *dt = dst->tensor, *st = src->tensor;
    if (dt->mem == MEM_HOST || st->mem == MEM_HOST || dt->local || st->local ||
        (st->maps[0]->kind == MAP_BCAST && st->units.chips > 1))
        return 0;
    if (dt->elem != st->elem || !same_axes(rt, dt, st))
        return rt_fail(rt, "the views do not hold one logical tensor of one element type");
    const Map *d = rt_logical(rt, dst->map, dt->axes), *s = d ? rt_logical(rt, src->map, st->axes) : NULL;
    int64_t *delta = s ? calloc((size_t)rt->prog->naxes + 1, sizeof *delta) : NULL;
    if (!delta)
        return s ? rt_fail_memory(rt, "out of memory") : -1;
    const Plan *p = rt_tag_plan(rt, dst, d, src, s, kernel_move); /* the runs rt_dma exchanges */
    p = p ? p : rt_plan(rt, d, s, delta, false);
    free(delta);
    if (!p)
        return -1;
    RtSide ds = {dt, dt->data, dst->pos_offset}, ss = {st, st->data, src->pos_offset};
    *bytes = rt_chips_cross_bytes(rt, p, &ds, &ss, elem_type_size(dt->elem));
    return 0;
}
