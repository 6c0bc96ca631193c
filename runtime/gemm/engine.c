/* engine.c — the GEMM engine: its lifecycle, one call over a static partition of C, and the entry points. */
#include "gemm_impl.h"
#include "pool.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Products of fewer flops run on one task: waking the pool costs more than it saves. */
#define ONE_TASK_FLOPS 8e6
/* A is read unpacked (f32 or bf16 pairs, unit column stride) when a task's share of B is at most this many panels of nr
 * columns: packing A pays off over many B panels, not over a few. */
enum { DIRECT_A_MAX_PANELS = 4 };
/* Reading A unpacked, k blocks this many times longer halve the passes over C. */
enum { DIRECT_KC_FACTOR = 2 };
/* Packed blocks start on a cache line: the kernels' panel loads are line-aligned. */
enum { PACK_ALIGN = 64 };

struct Gemm {
    RtPool *pool;           /* owned; NULL with one thread */
    int threads;
    TargetIsa isa;
    GemmFeatures feat;      /* the dot products the plans may use */
    pthread_mutex_t lock;   /* serializes calls */
    void **buf;             /* per thread: A block, B block and column sums */
    size_t *bufsize;
    GemmKernels k[GEMM_I32 + 1]; /* the kernels per input type, once looked up */
    GemmPlan tiled_plan;    /* the last caller's tiling and its kernels (valid when tiled_k.macro is set):
                             * a declared kernel runs the same tiling call after call */
    GemmKernels tiled_k;
    GemmSmall *small;       /* owned: the path of products of one k block */
};

/* Whether t's table computes some K group of input in with op. */
static bool table_has(const TargetInfo *t, TargetInput in, TargetOp op)
{
    for (int i = 0; i < t->inputs[in].count; i++)
        if (t->inputs[in].group[i].op == op)
            return true;
    return false;
}

Gemm *gemm_new(const GemmOptions *opt, char *err, size_t cap)
{
    int threads = opt && opt->threads > 0 ? opt->threads : 1;
    if (opt && (opt->threads < 0 || opt->threads > GEMM_MAX_THREADS)) {
        snprintf(err, cap, "threads %d is out of range (0 to %d; 0 means 1)", opt->threads, GEMM_MAX_THREADS);
        return NULL;
    }
    int isa_value = opt ? (int)opt->isa : TARGET_ISA_HOST;
    if (isa_value < TARGET_ISA_HOST || isa_value > TARGET_ISA_PORTABLE) {
        snprintf(err, cap, "unknown ISA %d (0 the host's best, %d avx512, %d avx2, %d portable)", isa_value,
                 TARGET_ISA_AVX512, TARGET_ISA_AVX2, TARGET_ISA_PORTABLE);
        return NULL;
    }
    if (opt && (opt->bf16_dot < -1 || opt->bf16_dot > 1)) {
        snprintf(err, cap, "bf16_dot %d is not -1 (widen), 0 (auto) or 1 (vdpbf16ps)", opt->bf16_dot);
        return NULL;
    }
    TargetIsa isa = target_resolve(opt ? opt->isa : TARGET_ISA_HOST);
    if (!target_host_supports(isa)) {
        snprintf(err, cap, "the host CPU cannot run the %s kernels", target_isa_name(isa));
        return NULL;
    }
    Gemm *g = calloc(1, sizeof *g);
    if (!g || !(g->buf = calloc((size_t)threads, sizeof *g->buf)) ||
        !(g->bufsize = calloc((size_t)threads, sizeof *g->bufsize))) {
        gemm_free(g);
        snprintf(err, cap, "out of memory");
        return NULL;
    }
    g->threads = threads;
    g->isa = isa;
    const TargetInfo *ti = target_info(isa);
    const GemmCpu *cpu = gemm_cpu();
    int dot = opt ? opt->bf16_dot : 0;
    g->feat.has_bf16 = table_has(ti, TARGET_IN_BF16, TARGET_OP_DPBF16) && gemm_cpu_has_op(TARGET_OP_DPBF16);
    g->feat.dot_bf16 = g->feat.has_bf16 && (dot > 0 || (dot == 0 && cpu->zen));
    g->feat.vnni = table_has(ti, TARGET_IN_I8, TARGET_OP_VNNI) && gemm_cpu_has_op(TARGET_OP_VNNI);
    pthread_mutex_init(&g->lock, NULL);
    if (!(g->small = gemm_small_new(threads))) {
        pthread_mutex_destroy(&g->lock);
        g->threads = 0;
        gemm_free(g);
        snprintf(err, cap, "out of memory");
        return NULL;
    }
    if (threads > 1 && !(g->pool = rt_pool_new(threads))) {
        pthread_mutex_destroy(&g->lock);
        g->threads = 0;
        gemm_free(g);
        snprintf(err, cap, "cannot start %d threads", threads);
        return NULL;
    }
    return g;
}

void gemm_free(Gemm *g)
{
    if (!g)
        return;
    if (g->pool)
        rt_pool_free(g->pool);
    if (g->buf)
        for (int i = 0; i < g->threads; i++)
            free(g->buf[i]);
    if (g->threads)
        pthread_mutex_destroy(&g->lock);
    gemm_small_free(g->small);
    free(g->buf);
    free(g->bufsize);
    free(g);
}

int gemm_runnable_kgroup(const Gemm *g, GemmType t, int kgroup)
{
    return gemm_host_kgroup(g->isa, &g->feat, t, kgroup);
}

TargetIsa gemm_isa(const Gemm *g)
{
    return g->isa;
}

bool gemm_bf16_dot(const Gemm *g)
{
    return g->feat.dot_bf16;
}

/* The engine's kernels for input type t (looked up once per engine). */
static const GemmKernels *engine_kernels(Gemm *g, GemmType t, const GemmPlan *p, char *err, size_t cap)
{
    if (!g->k[t].macro && gemm_kernels(&p->spec, p->conv_a, p->conv_b, true, &g->k[t], err, cap))
        return NULL;
    return &g->k[t];
}

int gemm_prepare(Gemm *g, GemmType t, char *err, size_t cap)
{
    int v = (int)t; /* an int: the check holds whatever value the caller's enum carries */
    if (v != GEMM_F32 && v != GEMM_BF16 && v != GEMM_F16 && v != GEMM_I8) {
        snprintf(err, cap, "gemm_prepare takes an input type (f32, bf16, f16 or i8), not %s (%d)", gemm_type_name(t),
                 v);
        return -1;
    }
    GemmPlan p = gemm_plan(g->isa, &g->feat, t, &gemm_cpu()->caches);
    return engine_kernels(g, t, &p, err, cap) ? 0 : -1;
}

/* ---- one call ---- */

typedef struct Job {
    Gemm *g;
    const GemmPlan *p;
    const GemmKernels *k;
    GemmView a, b, c;
    bool is_int;
    float af, bf;
    int32_t ai, bi;
    bool split_m;           /* tasks own row ranges (else column ranges) of C */
    bool direct_a;          /* the f32 kernel reads row-major A unpacked (narrow B) */
    int64_t kc;             /* the k block (the plan's, or longer with direct_a) */
    int64_t chunk;          /* rows or columns per task */
    size_t asize, bsize;    /* bytes of the packed A and B blocks */
} Job;

/* Task t: the C rows (or columns) [t*chunk, (t+1)*chunk) through every block, k blocks in order. */
static void run_task(void *arg, int t)
{
    Job *j = arg;
    const GemmPlan *p = j->p;
    int64_t m = (int64_t)j->c.rows, n = (int64_t)j->c.cols, k = (int64_t)j->a.cols;
    int64_t m0 = 0, m1 = m, n0 = 0, n1 = n;
    if (j->split_m) {
        m0 = t * j->chunk;
        m1 = m0 + j->chunk < m ? m0 + j->chunk : m;
    } else {
        n0 = t * j->chunk;
        n1 = n0 + j->chunk < n ? n0 + j->chunk : n;
    }
    if (m0 >= m1 || n0 >= n1)
        return;
    char *buf = j->g->buf[t];
    CgGemmBlocks args = {
        .m0 = m0, .m1 = m1, .n0 = n0, .n1 = n1, .k = k,
        .a = j->a.data, .b = j->b.data, .a_rs = j->a.rs, .a_cs = j->a.cs, .b_rs = j->b.rs, .b_cs = j->b.cs,
        .c = j->c.data, .c_rs = j->c.rs, .c_cs = j->c.cs,
        .mc = p->mc, .kc = j->kc, .nc = p->nc,
        .abuf = buf, .bbuf = buf + j->asize, .colsum = (int32_t *)(buf + j->asize + j->bsize),
        .colsum_fn = gemm_colsum, .direct = j->direct_a,
        .alpha_f = j->af, .beta_f = j->bf, .alpha_i = j->ai, .beta_i = j->bi};
    j->k->blocks(&args);
}

/* C <- beta*C (k = 0 or alpha = 0); beta = 0 stores zeros. */
static void scale_c(const GemmView *c, bool is_int, float bf, int32_t bi)
{
    for (uint64_t i = 0; i < c->rows; i++)
        for (uint64_t j = 0; j < c->cols; j++) {
            size_t off = (size_t)(i * (uint64_t)c->rs + j * (uint64_t)c->cs);
            if (is_int) {
                uint32_t *x = (uint32_t *)c->data + off;
                *x = bi == 0 ? 0 : (uint32_t)bi * *x; /* C unread when beta = 0, as for floats */
            } else {
                float *x = (float *)c->data + off;
                *x = bf == 0.0f ? 0.0f : bf * *x;
            }
        }
}

static size_t round_up(size_t n, size_t m)
{
    return (n + m - 1) / m * m;
}

/* The plan and kernels of a caller's tiling in *p and j->k, kept in g from call to call (the process-wide
 * cache compares CPU signatures under a lock). -1 with err. */
static int tiled_kernels(Gemm *g, const GemmTiling *tl, GemmType t, GemmPlan *p, Job *j, char *err, size_t cap)
{
    if (!gemm_plan_tiled(g->isa, &g->feat, t, tl, p, err, cap))
        return -1;
    if (!g->tiled_k.macro || !gemm_spec_same(&p->spec, &g->tiled_plan.spec) || p->conv_a != g->tiled_plan.conv_a ||
        p->conv_b != g->tiled_plan.conv_b) {
        GemmKernels k;
        g->tiled_k = (GemmKernels){0};
        if (gemm_kernels(&p->spec, p->conv_a, p->conv_b, false, &k, err, cap)) /* a tiling reads A packed */
            return -1;
        g->tiled_plan = *p;
        g->tiled_k = k;
    }
    j->k = &g->tiled_k;
    return 0;
}

int gemm_use_kernels(Gemm *g, const GemmTiling *tl, GemmType t, const CgGemmSpec *spec, CgPackConv conv_a,
                     CgPackConv conv_b, const GemmKernels *k, char *err, size_t cap)
{
    GemmPlan p;
    if (!gemm_plan_tiled(g->isa, &g->feat, t, tl, &p, err, cap))
        return -1;
    if (!gemm_spec_same(&p.spec, spec) || p.conv_a != conv_a || p.conv_b != conv_b) {
        snprintf(err, cap, "its compiled routines are not the ones this mapc plans for its tiling on %s (built "
                 "by another mapc version?)", target_isa_name(g->isa));
        return -1;
    }
    pthread_mutex_lock(&g->lock);
    g->tiled_plan = p;
    g->tiled_k = *k;
    pthread_mutex_unlock(&g->lock);
    return 0;
}

/* The shared body of gemm_f32 and gemm_i8 (after the entry point's type check); tl is the caller's
 * tiling or NULL for the engine's own plan. */
static int run(Gemm *g, const GemmTiling *tl, bool is_int, float af, float bf, int32_t ai, int32_t bi,
               const GemmView *a, const GemmView *b, const GemmView *c, char *err, size_t cap)
{
    Job j = {.g = g, .a = *a, .b = *b, .c = *c, .is_int = is_int, .af = af, .bf = bf, .ai = ai, .bi = bi};
    GemmPlan p;
    if (tl && tiled_kernels(g, tl, a->type, &p, &j, err, cap))
        return -1;
    if (c->rows == 0 || c->cols == 0)
        return 0;
    if (a->cols == 0 || (is_int ? ai == 0 : af == 0.0f)) {
        scale_c(c, is_int, bf, bi);
        return 0;
    }
    /* A column-major C is computed as C^T = B^T A^T, so the kernel's rows stay contiguous (the
     * engine's own plan only: a caller's tiling fixes which operand is packed how). */
    if (!tl && c->cs != 1 && c->rs == 1 && c->cols > 1) {
        j.a = gemm_view(b->data, b->len, b->cols, b->rows, b->cs, b->rs, b->type);
        j.b = gemm_view(a->data, a->len, a->cols, a->rows, a->cs, a->rs, a->type);
        j.c = gemm_view(c->data, c->len, c->cols, c->rows, c->cs, c->rs, c->type);
    }
    if (!tl) {
        p = gemm_plan(g->isa, &g->feat, a->type, &gemm_cpu()->caches);
        if (!(j.k = engine_kernels(g, a->type, &p, err, cap)))
            return -1;
    }
    j.p = &p;
    int mr = p.spec.mr, nr = p.spec.nv * p.spec.vl, kg = cg_gemm_kgroup(p.spec.kind);
    size_t ps = (size_t)cg_gemm_packed_size(p.spec.kind), kcp = (size_t)((p.kc + kg - 1) / kg * kg);
    /* blocks are packed in whole panels (a caller's mc need not be a multiple of mr) */
    size_t mcp = round_up((size_t)p.mc, (size_t)mr), ncp = round_up((size_t)p.nc, (size_t)nr);
    j.asize = round_up(mcp * kcp * ps, PACK_ALIGN);
    j.bsize = round_up(ncp * kcp * ps, PACK_ALIGN);
    size_t need = j.asize + j.bsize + round_up(ncp * sizeof(int32_t), PACK_ALIGN);
    int64_t m = (int64_t)j.c.rows, n = (int64_t)j.c.cols;
    double flops = 2.0 * (double)m * (double)n * (double)j.a.cols;
    int tasks = flops < ONE_TASK_FLOPS ? 1 : g->threads;
    if (!tl && !is_int) {
        int r = gemm_small(g->small, g->isa, g->pool, tasks, p.kc, af, bf, &j.a, &j.b, &j.c, err, cap);
        if (r)
            return r < 0 ? -1 : 0;
    }
    j.split_m = tl ? tl->split == 0 : m >= n;
    /* the engine's own plan only: a caller's tiling packs A into its DM layout */
    /* bf16 pairs: an odd K would read past a row for the last pair */
    j.direct_a = !tl && j.k->macro_direct && j.a.cs == 1 && (p.spec.kind != CG_GEMM_BF16DP || j.a.cols % 2 == 0) &&
                 (j.split_m ? n : (n + tasks - 1) / tasks) <= DIRECT_A_MAX_PANELS * nr;
    /* longer k blocks when the packed blocks still fit them: at most DIRECT_A_MAX_PANELS panels of B,
     * one partial A panel */
    j.kc = p.kc;
    if (j.direct_a && (int64_t)DIRECT_KC_FACTOR * p.kc * DIRECT_A_MAX_PANELS * nr <= (int64_t)p.kc * p.nc &&
        DIRECT_KC_FACTOR * mr <= p.mc)
        j.kc = (int64_t)DIRECT_KC_FACTOR * p.kc;
    int64_t unit = j.split_m ? mr : nr, units = ((j.split_m ? m : n) + unit - 1) / unit;
    j.chunk = (units + tasks - 1) / tasks * unit;
    if (gemm_grow_buffers(g->buf, g->bufsize, tasks, need, PACK_ALIGN, err, cap))
        return -1;
    if (tasks == 1)
        run_task(&j, 0);
    else
        rt_pool_run(g->pool, tasks, run_task, &j);
    return 0;
}

/* ---- units ---- */

typedef struct UnitJob {
    Job j;                  /* the plan, kernels, scalars and block sizes (its views are unused) */
    const GemmUnit *units;
    size_t n;
    int tasks;
} UnitJob;

/* Whether view y continues view x by elems rows (down) or columns (across), with the same strides. */
static bool continues(const GemmView *x, const GemmView *y, bool down)
{
    if (x->rs != y->rs || x->cs != y->cs || x->type != y->type || (down ? x->cols != y->cols : x->rows != y->rows))
        return false;
    int64_t step = down ? (int64_t)x->rows * x->rs : (int64_t)x->cols * x->cs;
    return (const char *)y->data == (const char *)x->data + step * (int64_t)gemm_type_size(x->type);
}

/* Unit y merged into x when it is the next block of C down (the same columns of B, the next rows of A) or
 * across (the same rows of A, the next columns of B): one larger product with the same arithmetic per
 * element of C (the k order does not depend on the block), so merging never changes a result. */
static bool merge(GemmUnit *x, const GemmUnit *y)
{
    bool same_b = x->b.data == y->b.data && x->b.cols == y->b.cols && x->b.rs == y->b.rs && x->b.cs == y->b.cs;
    bool same_a = x->a.data == y->a.data && x->a.rows == y->a.rows && x->a.rs == y->a.rs && x->a.cs == y->a.cs;
    if (same_b && continues(&x->a, &y->a, true) && continues(&x->c, &y->c, true)) {
        x->a.rows += y->a.rows;
        x->c.rows += y->c.rows;
        return true;
    }
    if (same_a && continues(&x->b, &y->b, false) && continues(&x->c, &y->c, false)) {
        x->b.cols += y->b.cols;
        x->c.cols += y->c.cols;
        return true;
    }
    return false;
}

/* One unit (or a run of merged units) through every block of its C view, on buffer buf. */
static void run_unit(const Job *j, const GemmUnit *x, char *buf)
{
    const GemmPlan *p = j->p;
    if (x->c.rows == 0 || x->c.cols == 0)
        return;
    if (x->a.cols == 0 || (j->is_int ? j->ai == 0 : j->af == 0.0f)) {
        scale_c(&x->c, j->is_int, j->bf, j->bi);
        return;
    }
    CgGemmBlocks args = {
        .m0 = 0, .m1 = (int64_t)x->c.rows, .n0 = 0, .n1 = (int64_t)x->c.cols, .k = (int64_t)x->a.cols,
        .a = x->a.data, .b = x->b.data, .a_rs = x->a.rs, .a_cs = x->a.cs, .b_rs = x->b.rs, .b_cs = x->b.cs,
        .c = x->c.data, .c_rs = x->c.rs, .c_cs = x->c.cs,
        .mc = p->mc, .kc = p->kc, .nc = p->nc,
        .abuf = buf, .bbuf = buf + j->asize, .colsum = (int32_t *)(buf + j->asize + j->bsize),
        .colsum_fn = gemm_colsum, .direct = 0,
        .alpha_f = j->af, .beta_f = j->bf, .alpha_i = j->ai, .beta_i = j->bi};
    j->k->blocks(&args);
}

/* The run of units from *lo (below hi): consecutive ones merged while they continue each other. */
static GemmUnit next_run(const UnitJob *u, size_t *lo, size_t hi)
{
    GemmUnit run = u->units[(*lo)++];
    while (*lo < hi && merge(&run, &u->units[*lo]))
        (*lo)++;
    return run;
}

/* Task t: the units [t*n/tasks, (t+1)*n/tasks) in runs (next_run), and consecutive runs merged again (rows of
 * a grid's blocks, each merged across, then stacked down), on task t's buffers. */
static void unit_task(void *arg, int t)
{
    UnitJob *u = arg;
    size_t lo = u->n * (size_t)t / (size_t)u->tasks, hi = u->n * (size_t)(t + 1) / (size_t)u->tasks;
    char *buf = u->j.g->buf[t];
    if (lo >= hi)
        return;
    GemmUnit cur = next_run(u, &lo, hi);
    while (lo < hi) {
        GemmUnit next = next_run(u, &lo, hi);
        if (!merge(&cur, &next)) {
            run_unit(&u->j, &cur, buf);
            cur = next;
        }
    }
    run_unit(&u->j, &cur, buf);
}

/* The shared body of gemm_f32_units and gemm_i8_units. */
static int run_units(Gemm *g, const GemmTiling *tl, bool is_int, float af, float bf, int32_t ai, int32_t bi,
                     const GemmUnit *units, size_t n, char *err, size_t cap)
{
    if (!tl) {
        snprintf(err, cap, "a spread product needs the kernel's tiling");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        char why[224];
        if (gemm_check(&units[i].a, &units[i].b, &units[i].c, why, sizeof why)) {
            snprintf(err, cap, "unit %zu: %s", i, why);
            return -1;
        }
        if ((units[i].a.type == GEMM_I8) != is_int || units[i].a.type != units[0].a.type) {
            snprintf(err, cap, "unit %zu: its element types differ from the call's", i);
            return -1;
        }
    }
    if (n == 0)
        return 0;
    /* one f32 unit whose K is one k block of the tiling: the small-product path reads A and B as they are, with
     * the packed path's per-element arithmetic (k in order from zero, then alpha and beta), so the DM tiles need
     * no packing and the call no loop nest */
    if (n == 1 && !is_int && units[0].a.cols <= (uint64_t)tl->kc) {
        double flops = 2.0 * (double)units[0].c.rows * (double)units[0].c.cols * (double)units[0].a.cols;
        int tasks = flops < ONE_TASK_FLOPS ? 1 : g->threads;
        int r = gemm_small(g->small, g->isa, g->pool, tasks, (int)tl->kc, af, bf, &units[0].a, &units[0].b,
                           &units[0].c, err, cap);
        if (r)
            return r < 0 ? -1 : 0;
    }
    UnitJob u = {.j = {.g = g, .is_int = is_int, .af = af, .bf = bf, .ai = ai, .bi = bi}, .units = units, .n = n};
    GemmPlan p;
    if (tiled_kernels(g, tl, units[0].a.type, &p, &u.j, err, cap))
        return -1;
    u.j.p = &p;
    int mr = p.spec.mr, nr = p.spec.nv * p.spec.vl, kg = cg_gemm_kgroup(p.spec.kind);
    size_t ps = (size_t)cg_gemm_packed_size(p.spec.kind), kcp = (size_t)((p.kc + kg - 1) / kg * kg);
    /* the tiling's M and N blocks are its DM tiles; which elements of C are computed together never changes an
     * element's arithmetic (only the K blocks do), so the runs of merged units take the cache model's M and N
     * blocks for the tiling's K block where they are larger */
    TargetBlocks mb = target_cache_blocks_kc(&gemm_cpu()->caches, mr, nr, kcp, ps);
    if (mb.mc > (uint64_t)p.mc)
        p.mc = (int)mb.mc;
    if (mb.nc > (uint64_t)p.nc)
        p.nc = (int)mb.nc;
    size_t mcp = round_up((size_t)p.mc, (size_t)mr), ncp = round_up((size_t)p.nc, (size_t)nr);
    u.j.asize = round_up(mcp * kcp * ps, PACK_ALIGN);
    u.j.bsize = round_up(ncp * kcp * ps, PACK_ALIGN);
    size_t need = u.j.asize + u.j.bsize + round_up(ncp * sizeof(int32_t), PACK_ALIGN);
    double flops = 0;
    for (size_t i = 0; i < n; i++)
        flops += 2.0 * (double)units[i].c.rows * (double)units[i].c.cols * (double)units[i].a.cols;
    u.tasks = flops < ONE_TASK_FLOPS ? 1 : (size_t)g->threads < n ? g->threads : (int)n;
    if (gemm_grow_buffers(g->buf, g->bufsize, u.tasks, need, PACK_ALIGN, err, cap))
        return -1;
    if (u.tasks == 1)
        unit_task(&u, 0);
    else
        rt_pool_run(g->pool, u.tasks, unit_task, &u);
    return 0;
}

int gemm_f32_units(Gemm *g, const GemmTiling *tiling, float alpha, float beta, const GemmUnit *units, size_t n,
                   char *err, size_t cap)
{
    pthread_mutex_lock(&g->lock);
    int r = run_units(g, tiling, false, alpha, beta, 0, 0, units, n, err, cap);
    pthread_mutex_unlock(&g->lock);
    return r;
}

int gemm_i8_units(Gemm *g, const GemmTiling *tiling, int32_t alpha, int32_t beta, const GemmUnit *units, size_t n,
                  char *err, size_t cap)
{
    pthread_mutex_lock(&g->lock);
    int r = run_units(g, tiling, true, 0.0f, 0.0f, alpha, beta, units, n, err, cap);
    pthread_mutex_unlock(&g->lock);
    return r;
}

int gemm_f32(Gemm *g, float alpha, const GemmView *a, const GemmView *b, float beta, const GemmView *c, char *err,
             size_t cap)
{
    return gemm_f32_tiled(g, NULL, alpha, a, b, beta, c, err, cap);
}

int gemm_i8(Gemm *g, int32_t alpha, const GemmView *a, const GemmView *b, int32_t beta, const GemmView *c, char *err,
            size_t cap)
{
    return gemm_i8_tiled(g, NULL, alpha, a, b, beta, c, err, cap);
}

int gemm_f32_tiled(Gemm *g, const GemmTiling *tiling, float alpha, const GemmView *a, const GemmView *b, float beta,
                   const GemmView *c, char *err, size_t cap)
{
    if (gemm_check(a, b, c, err, cap))
        return -1;
    if (a->type == GEMM_I8) {
        snprintf(err, cap, "gemm_f32 cannot run i8 x i8 -> i32; use gemm_i8");
        return -1;
    }
    pthread_mutex_lock(&g->lock);
    int r = run(g, tiling, false, alpha, beta, 0, 0, a, b, c, err, cap);
    pthread_mutex_unlock(&g->lock);
    return r;
}

int gemm_i8_tiled(Gemm *g, const GemmTiling *tiling, int32_t alpha, const GemmView *a, const GemmView *b, int32_t beta,
                  const GemmView *c, char *err, size_t cap)
{
    if (gemm_check(a, b, c, err, cap))
        return -1;
    if (a->type != GEMM_I8) {
        snprintf(err, cap, "gemm_i8 cannot run %s x %s -> %s; use gemm_f32", gemm_type_name(a->type),
                 gemm_type_name(b->type), gemm_type_name(c->type));
        return -1;
    }
    pthread_mutex_lock(&g->lock);
    int r = run(g, tiling, true, 0.0f, 0.0f, alpha, beta, a, b, c, err, cap);
    pthread_mutex_unlock(&g->lock);
    return r;
}
