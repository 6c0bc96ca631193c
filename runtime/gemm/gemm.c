/* gemm.c — the GEMM driver: kernel choice and cache, blocking plans, the static partition over threads. */
#include "gemm_impl.h"
#include "pool.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the process-wide kernel cache ---- */

typedef struct KernelEntry {
    CgGemmSpec spec;
    CgPackConv conv_a, conv_b;
    char *cpu;              /* host CPU name and features the code was compiled for */
    JitModule *jm;          /* owned; kept until the process ends */
    GemmKernels k;
    struct KernelEntry *next;
} KernelEntry;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static KernelEntry *cache;
static char *host_cpu;      /* "name features", computed once under cache_lock */

static const char *host_signature(void)
{
    if (!host_cpu)
        host_cpu = cg_host_signature();
    return host_cpu;
}

/* Whether the host feature list has exactly "+name". */
static bool has_feature(const char *sig, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strchr(sig, '+'); p; p = strchr(p + 1, '+'))
        if (strncmp(p + 1, name, n) == 0 && (p[1 + n] == ',' || p[1 + n] == '\0'))
            return true;
    return false;
}

static bool same_spec(const CgGemmSpec *a, const CgGemmSpec *b)
{
    return a->kind == b->kind && a->mr == b->mr && a->nv == b->nv && a->vl == b->vl && a->fused == b->fused &&
           a->a_outer == b->a_outer && memcmp(a->order, b->order, sizeof a->order) == 0;
}

int gemm_kernels(const CgGemmSpec *spec, CgPackConv conv_a, CgPackConv conv_b, GemmKernels *out, char *err,
                 size_t cap)
{
    pthread_mutex_lock(&cache_lock);
    const char *sig = host_signature();
    for (KernelEntry *e = cache; e; e = e->next)
        if (same_spec(&e->spec, spec) && e->conv_a == conv_a && e->conv_b == conv_b && sig &&
            strcmp(e->cpu, sig) == 0) {
            *out = e->k;
            pthread_mutex_unlock(&cache_lock);
            return 0;
        }
    char *msg = NULL;
    void *fn = NULL;
    KernelEntry *e = calloc(1, sizeof *e);
    bool direct = spec->kind == CG_GEMM_F32 && conv_a == CG_PACK_F32 &&
                  (!cg_gemm_order_valid(spec->order) || spec->order[2] == CG_DIM_M);
    if (e && (e->jm = cg_gemm_jit(spec, conv_a, conv_b, direct, &msg))) {
        e->k.macro = jit_module_lookup(e->jm, "gemm_macro");
        e->k.macro_direct = direct ? jit_module_lookup(e->jm, "gemm_macro_direct") : NULL;
        e->k.pack_a = (GemmPackFn)jit_module_lookup(e->jm, "gemm_pack_a");
        e->k.pack_b = (GemmPackFn)jit_module_lookup(e->jm, "gemm_pack_b");
        e->k.blocks = (GemmBlocksFn)jit_module_lookup(e->jm, "gemm_blocks");
        fn = e->k.macro && e->k.pack_a && e->k.pack_b && e->k.blocks && (!direct || e->k.macro_direct) ? e->k.macro
                                                                                                   : NULL;
    }
    if (fn && sig) {
        e->spec = *spec;
        e->conv_a = conv_a;
        e->conv_b = conv_b;
        e->cpu = strdup(sig);
        *out = e->k;
        e->next = cache;
        cache = e;
    } else {
        snprintf(err, cap, "cannot compile the GEMM kernel: %s", msg ? msg : e ? "symbol not found" : "out of memory");
        if (e)
            jit_module_free(e->jm);
        free(e);
        fn = NULL;
    }
    free(msg);
    pthread_mutex_unlock(&cache_lock);
    return fn ? 0 : -1;
}

/* ---- plans: the kernel and the blocking for a type on an ISA ---- */

typedef struct GemmPlan {
    CgGemmSpec spec;
    CgPackConv conv_a, conv_b;
    int mc, kc, nc;         /* cache blocks (mc a multiple of mr, nc of nr) */
} GemmPlan;

static GemmPlan plan_for(GemmIsa isa, bool bf16_dot, bool vnni, GemmType t)
{
    GemmPlan p = {0};
    bool x512 = isa == GEMM_ISA_AVX512, avx2 = isa == GEMM_ISA_AVX2;
    int vl = x512 ? 16 : 8;
    p.spec = (CgGemmSpec){
        .kind = CG_GEMM_F32, .mr = x512 ? 12 : avx2 ? 6 : 4, .nv = 2, .vl = vl, .fused = x512 || avx2, .a_outer = true};
    p.conv_a = p.conv_b = t == GEMM_BF16 ? CG_PACK_BF16_F32 : t == GEMM_F16 ? CG_PACK_F16_F32 : CG_PACK_F32;
    p.kc = 256;
    if (t == GEMM_BF16 && x512 && bf16_dot) {
        p.spec.kind = CG_GEMM_BF16DP;
        p.conv_a = p.conv_b = CG_PACK_BF16;
        p.kc = 512;
    } else if (t == GEMM_I8 && x512 && vnni) {
        p.spec.kind = CG_GEMM_I8VNNI;
        p.spec.fused = false;
        p.conv_a = CG_PACK_I8_U8;
        p.conv_b = CG_PACK_I8;
        p.kc = 1024;
    } else if (t == GEMM_I8) {
        p.spec.kind = CG_GEMM_I32;
        p.spec.fused = false;
        p.conv_a = p.conv_b = CG_PACK_I8_I32;
    }
    /* Blocking measured on a (busy) Xeon model 207 with 48 KiB L1d and 2 MiB L2 per core: the A
     * micro-panel (mr x kc) stays in L1 while the kc x nc B block streams from L2. */
    int MC = 480, NC = 768;
    /* MAPC_GEMM_TUNE=mr,nv,mc,kc,nc,a_outer overrides every plan, for re-tuning on a quiet machine
     * (ignored unless all six values are in range). */
    const char *tune = getenv("MAPC_GEMM_TUNE");
    int tmr, tnv, tmc, tkc, tnc, tao;
    if (tune && sscanf(tune, "%d,%d,%d,%d,%d,%d", &tmr, &tnv, &tmc, &tkc, &tnc, &tao) == 6 && tmr >= 1 && tnv >= 1 &&
        tnv <= 8 && tmr * tnv <= 32 && tmc >= 1 && tmc <= 8192 && tkc >= 1 && tkc <= 8192 && tnc >= 1 &&
        tnc <= 16384) {
        p.spec.mr = tmr;
        p.spec.nv = tnv;
        MC = tmc;
        p.kc = tkc;
        NC = tnc;
        p.spec.a_outer = tao != 0;
    }
    int mr = p.spec.mr, nr = p.spec.nv * p.spec.vl;
    p.mc = (MC + mr - 1) / mr * mr;
    p.nc = (NC + nr - 1) / nr * nr;
    return p;
}

/* The plan of a caller's tiling on isa, or false with err (a k group or micro-tile the host's kernels
 * cannot run). */
static bool plan_tiled(GemmIsa isa, bool has_bf16, bool vnni, GemmType t, const GemmTiling *tl, GemmPlan *p,
                       char *err, size_t cap)
{
    bool x512 = isa == GEMM_ISA_AVX512, avx2 = isa == GEMM_ISA_AVX2;
    int vl = x512 ? 16 : 8;
    *p = (GemmPlan){0};
    p->spec = (CgGemmSpec){.kind = CG_GEMM_F32, .mr = tl->mr, .nv = tl->nr / vl, .vl = vl, .fused = x512 || avx2,
                           .a_outer = true};
    memcpy(p->spec.order, tl->order, sizeof p->spec.order);
    p->conv_a = p->conv_b = t == GEMM_BF16 ? CG_PACK_BF16_F32 : t == GEMM_F16 ? CG_PACK_F16_F32 : CG_PACK_F32;
    int g = tl->kgroup;
    bool ok = g == 1 && t != GEMM_I8;
    if (t == GEMM_BF16 && g == 2) {
        if (!x512 || !has_bf16) {
            snprintf(err, cap, "bf16 panels with K groups of 2 need vdpbf16ps, which the host CPU lacks (avx512_bf16)");
            return false;
        }
        p->spec.kind = CG_GEMM_BF16DP;
        p->conv_a = p->conv_b = CG_PACK_BF16;
        ok = true;
    } else if (t == GEMM_I8 && g == 4) {
        if (!x512 || !vnni) {
            snprintf(err, cap, "i8 panels with K groups of 4 need vpdpbusd, which the host CPU lacks (avx512_vnni)");
            return false;
        }
        p->spec.kind = CG_GEMM_I8VNNI;
        p->spec.fused = false;
        p->conv_a = CG_PACK_I8_U8;
        p->conv_b = CG_PACK_I8;
        ok = true;
    } else if (t == GEMM_I8 && g == 1) {
        p->spec.kind = CG_GEMM_I32;
        p->spec.fused = false;
        p->conv_a = p->conv_b = CG_PACK_I8_I32;
        ok = true;
    }
    if (!ok) {
        snprintf(err, cap, "%s panels cannot group K by %d", gemm_type_name(t), g);
        return false;
    }
    int regs = x512 ? 32 : 16;
    if (tl->mr < 1 || tl->nr < vl || tl->nr % vl || tl->mr * p->spec.nv + p->spec.nv + 1 > regs) {
        snprintf(err, cap, "a %dx%d micro-tile does not fit the %s kernels (%d-lane vectors, %d registers)", tl->mr,
                 tl->nr, gemm_isa_name(isa), vl, regs);
        return false;
    }
    if (tl->mc < 1 || tl->nc < 1 || tl->kc < 1 || tl->mc > INT32_MAX || tl->nc > INT32_MAX || tl->kc > INT32_MAX) {
        snprintf(err, cap, "tile sizes %lld x %lld x %lld are out of range", (long long)tl->mc, (long long)tl->nc,
                 (long long)tl->kc);
        return false;
    }
    p->mc = (int)tl->mc;
    p->nc = (int)tl->nc;
    p->kc = (int)tl->kc;
    return true;
}

/* ---- the engine ---- */

struct Gemm {
    RtPool *pool;           /* owned; NULL with one thread */
    int threads;
    GemmIsa isa;
    bool bf16_dot;          /* bf16 through vdpbf16ps (else converted to f32 in packing) */
    bool vnni;              /* i8 through vpdpbusd (else sign-extended to i32 in packing) */
    bool has_bf16;          /* the host has vdpbf16ps (for tilings that ask for it) */
    pthread_mutex_t lock;   /* serializes calls */
    void **buf;             /* per thread: A block, B block and column sums */
    size_t *bufsize;
    GemmKernels k[GEMM_I32 + 1]; /* the kernels per input type, once looked up */
    GemmPlan tiled_plan;    /* the last caller's tiling and its kernels (valid when tiled_k.macro is set):
                             * a declared kernel runs the same tiling call after call */
    GemmKernels tiled_k;
};

const char *gemm_isa_name(GemmIsa isa)
{
    switch (isa) {
    case GEMM_ISA_AUTO: return "auto";
    case GEMM_ISA_AVX512: return "avx512";
    case GEMM_ISA_AVX2: return "avx2";
    case GEMM_ISA_PORTABLE: return "portable";
    }
    return "?";
}

Gemm *gemm_new(const GemmOptions *opt, char *err, size_t cap)
{
    int threads = opt && opt->threads > 0 ? opt->threads : 1;
    GemmIsa isa = opt ? opt->isa : GEMM_ISA_AUTO;
    pthread_mutex_lock(&cache_lock);
    const char *sig = host_signature();
    bool x86 = sig && has_feature(sig, "sse2");
    bool has512 = sig && has_feature(sig, "avx512f") && has_feature(sig, "avx512bw") && has_feature(sig, "avx512vl");
    bool bf16 = sig && has_feature(sig, "avx512bf16"), vnni = sig && has_feature(sig, "avx512vnni");
    bool has2 = sig && has_feature(sig, "avx2") && has_feature(sig, "fma");
    /* AMD Zen 4 and later run vdpbf16ps at twice the f32 FMA rate; Intel cores (Cooper Lake to
     * Emerald Rapids) on a single port, no faster than two FMA ports, so there bf16 is widened to f32
     * in packing and runs on the f32 kernel (measured: 0.55x vs 1.0x of f32 on a Xeon model 207). */
    bool zen = sig && strncmp(sig, "znver", 5) == 0;
    pthread_mutex_unlock(&cache_lock);
    if (isa == GEMM_ISA_AUTO)
        isa = has512 ? GEMM_ISA_AVX512 : has2 ? GEMM_ISA_AVX2 : GEMM_ISA_PORTABLE;
    if ((isa == GEMM_ISA_AVX512 && !has512) || (isa == GEMM_ISA_AVX2 && !has2) || (!x86 && isa != GEMM_ISA_PORTABLE)) {
        snprintf(err, cap, "the host CPU cannot run the %s kernels", gemm_isa_name(isa));
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
    int dot = opt ? opt->bf16_dot : 0;
    g->bf16_dot = isa == GEMM_ISA_AVX512 && bf16 && (dot > 0 || (dot == 0 && zen));
    g->vnni = isa == GEMM_ISA_AVX512 && vnni;
    g->has_bf16 = isa == GEMM_ISA_AVX512 && bf16;
    pthread_mutex_init(&g->lock, NULL);
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
    free(g->buf);
    free(g->bufsize);
    free(g);
}

GemmIsa gemm_isa(const Gemm *g)
{
    return g->isa;
}

bool gemm_bf16_dot(const Gemm *g)
{
    return g->bf16_dot;
}

/* The engine's kernels for input type t (looked up once per engine). */
static const GemmKernels *engine_kernels(Gemm *g, GemmType t, const GemmPlan *p, char *err, size_t cap)
{
    if (!g->k[t].macro && gemm_kernels(&p->spec, p->conv_a, p->conv_b, &g->k[t], err, cap))
        return NULL;
    return &g->k[t];
}

int gemm_prepare(Gemm *g, GemmType t, char *err, size_t cap)
{
    GemmPlan p = plan_for(g->isa, g->bf16_dot, g->vnni, t);
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
                *x = (uint32_t)bi * *x;
            } else {
                float *x = (float *)c->data + off;
                *x = bf == 0.0f ? 0.0f : bf * *x;
            }
        }
}

static size_t round64(size_t n)
{
    return (n + 63) / 64 * 64;
}

/* The shared body of gemm_f32 and gemm_i8 (after the entry point's type check); tl is the caller's
 * tiling or NULL for the engine's own plan. */
static int run(Gemm *g, const GemmTiling *tl, bool is_int, float af, float bf, int32_t ai, int32_t bi,
               const GemmView *a, const GemmView *b, const GemmView *c, char *err, size_t cap)
{
    Job j = {.g = g, .a = *a, .b = *b, .c = *c, .is_int = is_int, .af = af, .bf = bf, .ai = ai, .bi = bi};
    GemmPlan p;
    GemmKernels tiled_k;
    if (tl) {
        if (!plan_tiled(g->isa, g->has_bf16, g->vnni, a->type, tl, &p, err, cap))
            return -1;
        /* the process-wide cache compares CPU signatures under a lock: keep the last tiling's kernels */
        if (!g->tiled_k.macro || !same_spec(&p.spec, &g->tiled_plan.spec) || p.conv_a != g->tiled_plan.conv_a ||
            p.conv_b != g->tiled_plan.conv_b) {
            g->tiled_k = (GemmKernels){0};
            if (gemm_kernels(&p.spec, p.conv_a, p.conv_b, &tiled_k, err, cap))
                return -1;
            g->tiled_plan = p;
            g->tiled_k = tiled_k;
        }
        j.k = &g->tiled_k;
    }
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
        p = plan_for(g->isa, g->bf16_dot, g->vnni, a->type);
        if (!(j.k = engine_kernels(g, a->type, &p, err, cap)))
            return -1;
    }
    j.p = &p;
    int mr = p.spec.mr, nr = p.spec.nv * p.spec.vl, kg = cg_gemm_kgroup(p.spec.kind);
    size_t ps = (size_t)cg_gemm_packed_size(p.spec.kind), kcp = (size_t)((p.kc + kg - 1) / kg * kg);
    /* blocks are packed in whole panels (a caller's mc need not be a multiple of mr) */
    size_t mcp = (size_t)(p.mc + mr - 1) / (size_t)mr * (size_t)mr, ncp = (size_t)(p.nc + nr - 1) / (size_t)nr * (size_t)nr;
    j.asize = round64(mcp * kcp * ps);
    j.bsize = round64(ncp * kcp * ps);
    size_t need = j.asize + j.bsize + round64(ncp * 4);
    int64_t m = (int64_t)j.c.rows, n = (int64_t)j.c.cols;
    /* small problems run on one task: waking the pool costs more than it saves */
    double flops = 2.0 * (double)m * (double)n * (double)j.a.cols;
    int tasks = flops < 8e6 ? 1 : g->threads;
    j.split_m = tl ? tl->split == 0 : m >= n;
    /* packing A pays off over many B panels; with few, the kernel reads row-major f32 A directly
     * (the engine's own plan only: a caller's tiling packs A into its DM layout) */
    j.direct_a = !tl && j.k->macro_direct && j.a.cs == 1 && (j.split_m ? n : (n + tasks - 1) / tasks) <= 4 * nr;
    /* reading A directly, longer k blocks halve the passes over C (the packed blocks still fit:
     * at most 4*nr columns of B, one partial A panel) */
    j.kc = p.kc;
    if (j.direct_a && (int64_t)2 * p.kc * 4 * nr <= (int64_t)p.kc * p.nc && 2 * mr <= p.mc)
        j.kc = 2 * p.kc;
    int64_t unit = j.split_m ? mr : nr, units = ((j.split_m ? m : n) + unit - 1) / unit;
    j.chunk = (units + tasks - 1) / tasks * unit;
    for (int t = 0; t < tasks; t++)
        if (g->bufsize[t] < need) {
            free(g->buf[t]);
            g->bufsize[t] = 0;
            if (!(g->buf[t] = aligned_alloc(64, need))) {
                snprintf(err, cap, "out of memory");
                return -1;
            }
            g->bufsize[t] = need;
        }
    if (tasks == 1)
        run_task(&j, 0);
    else
        rt_pool_run(g->pool, tasks, run_task, &j);
    return 0;
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
