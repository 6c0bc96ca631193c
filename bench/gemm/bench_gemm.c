/* bench_gemm.c — GEMM GFLOP/s of mapc's JIT engine against OpenBLAS, BLIS and oneDNN, measured in one run. */
#include "bench.h"
#include "front/front.h"
#include "gemm/gemm.h"
#include "gemm/rt_gemm.h"

#include <dnnl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The peers' entry points, declared here: OpenBLAS and BLIS both export cblas_sgemm, so OpenBLAS is
 * reached through cblas_sgemm (linked first) and BLIS through its own typed API. */
void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda, const float *b,
                 int ldb, float beta, float *c, int ldc);
void openblas_set_num_threads(int n);
void bli_sgemm(int transa, int transb, int64_t m, int64_t n, int64_t k, float *alpha, float *a, int64_t rsa,
               int64_t csa, float *b, int64_t rsb, int64_t csb, float *beta, float *c, int64_t rsc, int64_t csc);
void bli_thread_set_num_threads(int64_t n);
void omp_set_num_threads(int n);

static double peak_core = 117.0; /* f32 GFLOP/s per core (Zen 4 reference; MAPC_PEAK overrides) */
static int rounds = 7;           /* interleaved rounds per shape, at most 64 (--quick: 3) */

/* Wall-clock time, or with --cpu-time the calling thread's CPU time (robust on a busy machine, but
 * only meaningful for one thread: worker threads are not counted). */
static clockid_t bench_clock = CLOCK_MONOTONIC;

static double now(void) { return bench_clock_seconds(bench_clock); }

typedef void (*CallFn)(void *ctx);

/* One contender of a shape: a call and its context. */
typedef struct Contender {
    CallFn f;
    void *ctx;
} Contender;

/* The median GFLOP/s of each contender (at most 16), measured interleaved: after a warm-up call each,
 * `rounds` rounds time one batch of every contender in turn (a batch is as many calls as fill about
 * 20 ms), so every contender meets the same machine (frequency, other tenants). Each batch starts
 * after 100 ms of sleep: the previous library's idle threads (OpenBLAS, OpenMP) spin for a while after
 * their last call and would steal one of the cores. */
static void measure(const Contender *cs, int n, double flops, double *gflops)
{
    int batch[16];
    double samples[16][64];
    for (int i = 0; i < n; i++) {
        double t0 = now();
        cs[i].f(cs[i].ctx);
        double first = now() - t0;
        batch[i] = first > 0 ? (int)(0.02 / first) : 100;
        batch[i] = batch[i] < 1 ? 1 : batch[i] > 1000 ? 1000 : batch[i];
    }
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < n; i++) {
            nanosleep(&(struct timespec){.tv_nsec = 100000000}, NULL);
            double t0 = now();
            for (int j = 0; j < batch[i]; j++)
                cs[i].f(cs[i].ctx);
            samples[i][r] = flops * batch[i] / (now() - t0) * 1e-9;
        }
    for (int i = 0; i < n; i++)
        gflops[i] = bench_median(samples[i], rounds);
}

typedef struct Case {
    int64_t m, n, k;
    int threads;
    float *a, *b, *c;
    uint16_t *a16, *b16;
    int8_t *a8, *b8;
    uint8_t *au8;
    int32_t *c32;
    Gemm *g;
    RtGemm *kernel;         /* the sgemm kernel of samples/gemm/gemm.map at this shape */
} Case;

/* The declared kernel KERNEL of samples/gemm/gemm.map at m x n x k (the sizes of its axes M, N and K
 * replaced) on its own runtime with `threads` threads, its tensors row-major copies of a and b; the
 * program, context and tensors are returned for freeing. Exits on failure. */
typedef struct KernelRun {
    Prog *prog;
    RtContext *rt;
    RtTensor *t[3];
    RtGemm *g;
} KernelRun;

static KernelRun kernel_new(const char *kernel, int64_t m, int64_t n, int64_t k, int threads, const float *a,
                            const float *b)
{
    KernelRun r = {.prog = prog_new()};
    FILE *f = fopen(MAPC_GEMM_SAMPLE, "rb");
    static char text[1 << 16];
    size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    prog_override_axis(r.prog, "M", (uint64_t)m);
    prog_override_axis(r.prog, "N", (uint64_t)n);
    prog_override_axis(r.prog, "K", (uint64_t)k);
    if (!len || prog_parse(r.prog, MAPC_GEMM_SAMPLE, text, len)) {
        fprintf(stderr, "bench-gemm: cannot load %s at %lldx%lldx%lld\n", MAPC_GEMM_SAMPLE, (long long)m,
                (long long)n, (long long)k);
        exit(1);
    }
    const KernelDecl *kd = NULL;
    for (int i = 0; i < r.prog->nkernels; i++)
        if (strcmp(r.prog->kernels[i]->name, kernel) == 0)
            kd = r.prog->kernels[i];
    RtConfig cfg = rt_default_config();
    cfg.threads = threads;
    r.rt = kd ? rt_new(r.prog, &cfg) : NULL;
    const char *names[3] = {kd ? kd->a->name : "", kd ? kd->b->name : "", kd ? kd->c->name : ""};
    for (int i = 0; i < 3 && r.rt; i++)
        if (!(r.t[i] = rt_tensor_declared(r.rt, names[i])))
            break;
    if (!r.t[2] || rt_tensor_elem(r.t[0]) != ELEM_F32 || rt_tensor_elem(r.t[1]) != ELEM_F32 ||
        !(r.g = rt_gemm_new(r.rt, kd, r.t[0], r.t[1], r.t[2]))) {
        fprintf(stderr, "bench-gemm: kernel %s: %s\n", kernel, r.rt ? rt_error(r.rt) : "not an f32 kernel");
        exit(1);
    }
    memcpy(rt_tensor_data(r.t[0]), a, (size_t)(m * k) * 4); /* the sample's layouts are row-major */
    memcpy(rt_tensor_data(r.t[1]), b, (size_t)(k * n) * 4);
    return r;
}

static void kernel_free(KernelRun *r)
{
    rt_gemm_free(r->g);
    for (int i = 0; i < 3; i++)
        rt_tensor_free(r->t[i]);
    rt_free(r->rt);
    prog_free(r->prog);
}

static void call_kernel(void *p)
{
    Case *c = p;
    if (rt_gemm_run(c->kernel, 1.0, 0.0)) {
        fprintf(stderr, "bench-gemm: the declared kernel failed\n");
        exit(1);
    }
}

static void call_ours_f32(void *p)
{
    Case *c = p;
    char err[256];
    GemmView a = gemm_row_major(c->a, (uint64_t)c->m, (uint64_t)c->k, GEMM_F32);
    GemmView b = gemm_row_major(c->b, (uint64_t)c->k, (uint64_t)c->n, GEMM_F32);
    GemmView cv = gemm_row_major(c->c, (uint64_t)c->m, (uint64_t)c->n, GEMM_F32);
    if (gemm_f32(c->g, 1.0f, &a, &b, 0.0f, &cv, err, sizeof err)) {
        fprintf(stderr, "bench-gemm: %s\n", err);
        exit(1);
    }
}

static void call_ours_bf16(void *p)
{
    Case *c = p;
    char err[256];
    GemmView a = gemm_row_major(c->a16, (uint64_t)c->m, (uint64_t)c->k, GEMM_BF16);
    GemmView b = gemm_row_major(c->b16, (uint64_t)c->k, (uint64_t)c->n, GEMM_BF16);
    GemmView cv = gemm_row_major(c->c, (uint64_t)c->m, (uint64_t)c->n, GEMM_F32);
    if (gemm_f32(c->g, 1.0f, &a, &b, 0.0f, &cv, err, sizeof err)) {
        fprintf(stderr, "bench-gemm: %s\n", err);
        exit(1);
    }
}

static void call_ours_i8(void *p)
{
    Case *c = p;
    char err[256];
    GemmView a = gemm_row_major(c->a8, (uint64_t)c->m, (uint64_t)c->k, GEMM_I8);
    GemmView b = gemm_row_major(c->b8, (uint64_t)c->k, (uint64_t)c->n, GEMM_I8);
    GemmView cv = gemm_row_major(c->c32, (uint64_t)c->m, (uint64_t)c->n, GEMM_I32);
    if (gemm_i8(c->g, 1, &a, &b, 0, &cv, err, sizeof err)) {
        fprintf(stderr, "bench-gemm: %s\n", err);
        exit(1);
    }
}

static void call_openblas(void *p)
{
    Case *c = p;
    cblas_sgemm(101, 111, 111, (int)c->m, (int)c->n, (int)c->k, 1.0f, c->a, (int)c->k, c->b, (int)c->n, 0.0f, c->c,
                (int)c->n);
}

static void call_blis(void *p)
{
    Case *c = p;
    float one = 1.0f, zero = 0.0f;
    bli_sgemm(0, 0, c->m, c->n, c->k, &one, c->a, c->k, 1, c->b, c->n, 1, &zero, c->c, c->n, 1);
}

/* oneDNN's matmul for the given types on row-major buffers, ready to execute (call_dnnl). */
typedef struct DnnlCall {
    dnnl_primitive_t prim;
    dnnl_primitive_desc_t pd;
    dnnl_stream_t st;
    dnnl_memory_t mem[3];
    dnnl_exec_arg_t args[3];
} DnnlCall;

static void call_dnnl(void *p)
{
    DnnlCall *d = p;
    if (dnnl_primitive_execute(d->prim, d->st, 3, d->args) != dnnl_success || dnnl_stream_wait(d->st) != dnnl_success) {
        fprintf(stderr, "bench-gemm: oneDNN execution failed\n");
        exit(1);
    }
}

static void dnnl_setup(DnnlCall *d, const Case *c, dnnl_engine_t eng, dnnl_stream_t st, dnnl_data_type_t ta,
                       dnnl_data_type_t tb, dnnl_data_type_t tc, void *a, void *b, void *cc)
{
    dnnl_memory_desc_t amd, bmd, cmd;
    dnnl_dims_t ad = {c->m, c->k}, bd = {c->k, c->n}, cd = {c->m, c->n};
    dnnl_matmul_desc_t md;
    *d = (DnnlCall){.st = st};
    if (dnnl_memory_desc_init_by_tag(&amd, 2, ad, ta, dnnl_ab) ||
        dnnl_memory_desc_init_by_tag(&bmd, 2, bd, tb, dnnl_ab) ||
        dnnl_memory_desc_init_by_tag(&cmd, 2, cd, tc, dnnl_ab) || dnnl_matmul_desc_init(&md, &amd, &bmd, NULL, &cmd) ||
        dnnl_primitive_desc_create(&d->pd, &md, NULL, eng, NULL) || dnnl_primitive_create(&d->prim, d->pd) ||
        dnnl_memory_create(&d->mem[0], &amd, eng, a) || dnnl_memory_create(&d->mem[1], &bmd, eng, b) ||
        dnnl_memory_create(&d->mem[2], &cmd, eng, cc)) {
        fprintf(stderr, "bench-gemm: cannot create the oneDNN matmul\n");
        exit(1);
    }
    d->args[0] = (dnnl_exec_arg_t){DNNL_ARG_SRC, d->mem[0]};
    d->args[1] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, d->mem[1]};
    d->args[2] = (dnnl_exec_arg_t){DNNL_ARG_DST, d->mem[2]};
}

static void dnnl_teardown(DnnlCall *d)
{
    dnnl_primitive_destroy(d->prim);
    dnnl_primitive_desc_destroy(d->pd);
    for (int i = 0; i < 3; i++)
        dnnl_memory_destroy(d->mem[i]);
}

static void *xmalloc(size_t n)
{
    void *p = aligned_alloc(64, (n + 63) / 64 * 64);
    if (!p) {
        fprintf(stderr, "bench-gemm: out of memory\n");
        exit(1);
    }
    return p;
}

int main(int argc, char **argv)
{
    static const int64_t shapes[][3] = {{64, 64, 64},     {128, 128, 128},  {256, 256, 256}, {512, 512, 512},
                                        {1024, 1024, 1024}, {2048, 2048, 2048}, {1000, 1000, 1000}, {777, 777, 777},
                                        {4096, 64, 4096}, {4096, 4096, 64}};
    int nshapes = sizeof shapes / sizeof *shapes;
    int max_threads = 2;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            rounds = 3;
        } else if (strcmp(argv[i], "--cpu-time") == 0) {
            bench_clock = CLOCK_THREAD_CPUTIME_ID;
            max_threads = 1;
        } else {
            fprintf(stderr, "usage: bench-gemm [--quick] [--cpu-time]\n");
            return 2;
        }
    }
    const char *pk = getenv("MAPC_PEAK");
    if (pk)
        peak_core = atof(pk);
    char err[256];
    dnnl_engine_t eng;
    dnnl_stream_t st;
    if (dnnl_engine_create(&eng, dnnl_cpu, 0) || dnnl_stream_create(&st, eng, dnnl_stream_default_flags)) {
        fprintf(stderr, "bench-gemm: cannot create the oneDNN engine\n");
        return 1;
    }
    printf("GEMM C = A*B, row-major, GFLOP/s (median of %d interleaved rounds, %s); shapes MxNxK; peak f32 %.0f "
           "GFLOP/s per core (bf16 2x, i8 4x)\n",
           rounds, bench_clock == CLOCK_MONOTONIC ? "wall clock" : "thread CPU time, 1 thread only", peak_core);
    printf("%-15s %2s | %7s %7s %8s %7s %7s %6s %6s %5s | %7s %7s %6s %6s | %7s %7s %6s %6s\n", "shape", "T",
           "kernel", "engine", "OpenBLAS", "BLIS", "oneDNN", "ratio", "engine", "%pk", "bf16", "dnnl", "ratio", "x f32",
           "i8", "dnnl", "ratio", "x f32");
    for (int threads = 1; threads <= max_threads; threads++) {
        Gemm *g = gemm_new(&(GemmOptions){.threads = threads}, err, sizeof err);
        if (!g || gemm_prepare(g, GEMM_F32, err, sizeof err) || gemm_prepare(g, GEMM_BF16, err, sizeof err) ||
            gemm_prepare(g, GEMM_I8, err, sizeof err)) {
            fprintf(stderr, "bench-gemm: %s\n", err);
            return 1;
        }
        openblas_set_num_threads(threads);
        bli_thread_set_num_threads(threads);
        omp_set_num_threads(threads);
        for (int s = 0; s < nshapes; s++) {
            Case c = {.m = shapes[s][0], .n = shapes[s][1], .k = shapes[s][2], .threads = threads, .g = g};
            size_t ma = (size_t)(c.m * c.k), mb = (size_t)(c.k * c.n), mc = (size_t)(c.m * c.n);
            c.a = xmalloc(ma * 4);
            c.b = xmalloc(mb * 4);
            c.c = xmalloc(mc * 4);
            c.a16 = xmalloc(ma * 2);
            c.b16 = xmalloc(mb * 2);
            c.a8 = xmalloc(ma);
            c.b8 = xmalloc(mb);
            c.au8 = xmalloc(ma);
            c.c32 = xmalloc(mc * 4);
            srand(1);
            for (size_t i = 0; i < ma; i++) {
                c.a[i] = (float)rand() / (float)RAND_MAX - 0.5f;
                c.a16[i] = gemm_f32_to_bf16(c.a[i]);
                c.a8[i] = (int8_t)(rand() % 255 - 127);
                c.au8[i] = (uint8_t)(rand() % 256);
            }
            for (size_t i = 0; i < mb; i++) {
                c.b[i] = (float)rand() / (float)RAND_MAX - 0.5f;
                c.b16[i] = gemm_f32_to_bf16(c.b[i]);
                c.b8[i] = (int8_t)(rand() % 255 - 127);
            }
            memset(c.c, 0, mc * 4);
            double flops = 2.0 * (double)c.m * (double)c.n * (double)c.k;
            KernelRun kr = kernel_new("sgemm", c.m, c.n, c.k, threads, c.a, c.b);
            c.kernel = kr.g;
            DnnlCall df, db, di;
            dnnl_setup(&df, &c, eng, st, dnnl_f32, dnnl_f32, dnnl_f32, c.a, c.b, c.c);
            dnnl_setup(&db, &c, eng, st, dnnl_bf16, dnnl_bf16, dnnl_f32, c.a16, c.b16, c.c);
            dnnl_setup(&di, &c, eng, st, dnnl_u8, dnnl_s8, dnnl_s32, c.au8, c.b8, c.c32);
            const Contender cs[] = {{call_kernel, &c}, {call_ours_f32, &c},  {call_openblas, &c},
                                    {call_blis, &c},   {call_dnnl, &df},     {call_ours_bf16, &c},
                                    {call_dnnl, &db},  {call_ours_i8, &c},   {call_dnnl, &di}};
            double r[9];
            measure(cs, 9, flops, r);
            kernel_free(&kr);
            dnnl_teardown(&df);
            dnnl_teardown(&db);
            dnnl_teardown(&di);
            double decl = r[0], ours = r[1], ob = r[2], bl = r[3], dn = r[4], obf = r[5], dbf = r[6], oi8 = r[7],
                   di8 = r[8];
            double best = ob > bl ? ob : bl;
            best = dn > best ? dn : best;
            char shape[32];
            snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)c.m, (long long)c.n, (long long)c.k);
            printf("%-15s %2d | %7.1f %7.1f %8.1f %7.1f %7.1f %6.2f %6.2f %4.0f%% "
                   "| %7.1f %7.1f %6.2f %6.2f | %7.1f %7.1f %6.2f %6.2f\n",
                   shape, threads, decl, ours, ob, bl, dn, decl / best, ours / best,
                   100 * decl / (peak_core * threads), obf, dbf, obf / dbf, obf / ours, oi8, di8, oi8 / di8,
                   oi8 / ours);
            fflush(stdout);
            free(c.a);
            free(c.b);
            free(c.c);
            free(c.a16);
            free(c.b16);
            free(c.a8);
            free(c.b8);
            free(c.au8);
            free(c.c32);
        }
        gemm_free(g);
    }
    printf("kernel: `mapc run samples/gemm/gemm.map sgemm` (the declared tiles and DM packing layouts) at each "
           "shape; engine: gemm_f32 with its own plan\n"
           "ratio: kernel (then engine) / best of OpenBLAS, BLIS, oneDNN (f32), or mapc / oneDNN matmul (bf16, "
           "u8*s8); %%pk: kernel of %.0f GFLOP/s x threads;\nx f32: mapc bf16 or i8 (engine) / mapc f32 (engine)\n",
           peak_core);
    dnnl_stream_destroy(st);
    dnnl_engine_destroy(eng);
    return 0;
}
