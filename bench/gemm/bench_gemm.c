/* bench_gemm.c — GEMM rates of mapc (declared kernels and the engine) against OpenBLAS, BLIS and oneDNN in one run,
 * with the machine's own peak and CPU.
 * Usage: bench-gemm [--quick] [--rounds N] [--threads 1|2|1,2] [--shapes MxNxK,...] [--no-grid] */
#include "bench.h"
#include "front/front.h"
#include "gemm/gemm.h"
#include "gemm/rt_gemm.h"
#include "peak.h"
#include "peers.h"
#include "rounds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(const char *what, const char *why)
{
    fprintf(stderr, "bench-gemm: %s%s%s\n", what, why ? ": " : "", why ? why : "");
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = aligned_alloc(64, (n + 63) / 64 * 64);
    if (!p)
        fail("out of memory", NULL);
    return p;
}

/* ---- declared kernels of the samples ---- */

/* A declared kernel of a sample file on its own runtime, its tensors row-major copies of the given operands. */
typedef struct KernelRun {
    Prog *prog;
    RtContext *rt;
    RtTensor *t[3];
    RtGemm *g;
} KernelRun;

static const KernelDecl *find_kernel(const Prog *p, const char *name)
{
    for (int i = 0; i < p->nkernels; i++)
        if (strcmp(p->kernels[i]->name, name) == 0)
            return p->kernels[i];
    return NULL;
}

/* Parses file with the sizes of axes M, N, K of kernel `name` replaced by size[] (NULL: as declared). */
static Prog *load_sample(const char *file, const char *name, const int64_t *size, const KernelDecl **k)
{
    static char text[1 << 16];
    FILE *f = fopen(file, "rb");
    size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    Prog *p = prog_new();
    if (!len || prog_parse(p, file, text, len) || !(*k = find_kernel(p, name)))
        fail("cannot load the kernel of", file);
    if (!size)
        return p;
    Prog *q = prog_new();
    for (int r = 0; r < 3; r++)
        prog_override_axis(q, p->axes[(*k)->axis[r]].name, (uint64_t)size[r]);
    prog_free(p);
    if (prog_parse(q, file, text, len) || !(*k = find_kernel(q, name)))
        fail("cannot load the kernel at the bench's sizes from", file);
    return q;
}

/* Kernel `name` of samples/gemm/FILE on `threads` threads, A and B filled from a and b (row-major, their
 * element type's size in bytes). */
static KernelRun kernel_new(const char *file, const char *name, const int64_t *size, int threads, const void *a,
                            const void *b)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", MAPC_GEMM_SAMPLES, file);
    const KernelDecl *k;
    KernelRun r = {.prog = load_sample(path, name, size, &k)};
    RtConfig cfg = rt_default_config();
    cfg.threads = threads;
    if (!(r.rt = rt_new(r.prog, &cfg)))
        fail("cannot start the runtime for", name);
    const TensorDecl *ops[3] = {k->a, k->b, k->c};
    for (int i = 0; i < 3; i++)
        if (!(r.t[i] = rt_tensor_declared(r.rt, ops[i]->name)))
            fail(name, rt_error(r.rt));
    if (!(r.g = rt_gemm_new(r.rt, k, r.t[0], r.t[1], r.t[2])))
        fail(name, rt_error(r.rt));
    /* the samples' operands are row-major */
    memcpy(rt_tensor_data(r.t[0]), a, rt_tensor_elems(r.t[0]) * elem_type_size(rt_tensor_elem(r.t[0])));
    memcpy(rt_tensor_data(r.t[1]), b, rt_tensor_elems(r.t[1]) * elem_type_size(rt_tensor_elem(r.t[1])));
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
    KernelRun *r = p;
    if (rt_gemm_run(r->g, 1.0, 0.0))
        fail("a declared kernel failed", rt_error(r->rt));
}

/* ---- one shape's operands and mapc's engine ---- */

typedef struct Case {
    int64_t m, n, k;
    float *a, *b, *c;
    uint16_t *a16, *b16;
    int8_t *a8, *b8;
    uint8_t *au8;
    int32_t *c32;
    Gemm *g;
} Case;

static Case case_new(int64_t m, int64_t n, int64_t k, Gemm *g)
{
    Case c = {.m = m, .n = n, .k = k, .g = g};
    size_t ma = (size_t)(m * k), mb = (size_t)(k * n), mc = (size_t)(m * n);
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
    memset(c.c32, 0, mc * 4);
    return c;
}

static void case_free(Case *c)
{
    void *p[] = {c->a, c->b, c->c, c->a16, c->b16, c->a8, c->b8, c->au8, c->c32};
    for (size_t i = 0; i < sizeof p / sizeof *p; i++)
        free(p[i]);
}

static void engine_call(Case *c, GemmType t)
{
    char err[256];
    uint64_t m = (uint64_t)c->m, n = (uint64_t)c->n, k = (uint64_t)c->k;
    void *a = t == GEMM_F32 ? (void *)c->a : t == GEMM_BF16 ? (void *)c->a16 : (void *)c->a8;
    void *b = t == GEMM_F32 ? (void *)c->b : t == GEMM_BF16 ? (void *)c->b16 : (void *)c->b8;
    GemmView av = gemm_row_major(a, m, k, t), bv = gemm_row_major(b, k, n, t);
    int r;
    if (t == GEMM_I8) {
        GemmView cv = gemm_row_major(c->c32, m, n, GEMM_I32);
        r = gemm_i8(c->g, 1, &av, &bv, 0, &cv, err, sizeof err);
    } else {
        GemmView cv = gemm_row_major(c->c, m, n, GEMM_F32);
        r = gemm_f32(c->g, 1.0f, &av, &bv, 0.0f, &cv, err, sizeof err);
    }
    if (r)
        fail("the engine failed", err);
}

static void call_engine_f32(void *p) { engine_call(p, GEMM_F32); }
static void call_engine_bf16(void *p) { engine_call(p, GEMM_BF16); }
static void call_engine_i8(void *p) { engine_call(p, GEMM_I8); }

/* oneDNN's matmul of type t on c's buffers, its first choice (AMX where it has it) or its best without AMX;
 * NULL when the second would be the first or none exists. */
static PeerDnnl *dnnl_for(Case *c, PeerType t, bool no_amx)
{
    void *a = t == PEER_F32 ? (void *)c->a : t == PEER_BF16 ? (void *)c->a16 : (void *)c->au8;
    void *b = t == PEER_F32 ? (void *)c->b : t == PEER_BF16 ? (void *)c->b16 : (void *)c->b8;
    void *cc = t == PEER_U8S8 ? (void *)c->c32 : (void *)c->c;
    const char *why;
    PeerDnnl *d = peer_dnnl_new(t, c->m, c->n, c->k, a, b, cc, no_amx, &why);
    if (!d && why)
        fail(why, NULL);
    return d;
}

/* ---- the table ---- */

typedef struct Bench {
    RoundsConfig cfg;
    RoundsStats stats;
    double peak_f32[3];     /* f32 FMA peak of the engine's vectors on 1 and 2 cores (GFLOP/s) */
    char impl_bf16[2][64], impl_i8[2][64]; /* oneDNN's implementations met (first choice, without AMX) */
} Bench;

static double best_of(double a, double b) { return a > b ? a : b; }

static void note_impl(char *slot, const PeerDnnl *d)
{
    if (d && !slot[0])
        snprintf(slot, 64, "%s", peer_dnnl_impl(d));
}

static void print_header(void)
{
    printf("%-14s %1s | %6s %6s %6s %6s %6s %6s | %5s %5s %5s %5s %5s %4s | %6s %6s %6s %5s %5s | %6s %6s %6s %5s %5s "
           "| %s\n",
           "shape MxNxK", "T", "kernel", "model", "engine", "OpenBL", "BLIS", "oneDNN", "k/pr", "m/pr", "e/pr", "k/e",
           "m/e", "%pk", "bf16", "dnnl", "dn512", "r", "r512", "i8", "dnnl", "dn512", "r", "r512", "retried");
}

/* Prints a rate, or "-" when the contender does not exist. */
static void cell(double v, int w) { v > 0 ? printf(" %*.1f", w, v) : printf(" %*s", w, "-"); }
static void ratio(double x, double y, int w) { x > 0 && y > 0 ? printf(" %*.2f", w, x / y) : printf(" %*s", w, "-"); }

/* One row: every contender at m x n x k on `threads` threads. */
static void bench_shape(Bench *bn, Gemm *g, int threads, int64_t m, int64_t n, int64_t k)
{
    Case c = case_new(m, n, k, g);
    const int64_t size[3] = {m, n, k};
    KernelRun kr = kernel_new("gemm.map", "sgemm", size, threads, c.a, c.b);
    KernelRun km = kernel_new("gemm.map", "sgemm_model", size, threads, c.a, c.b);
    PeerSgemm ps = {.m = m, .n = n, .k = k, .a = c.a, .b = c.b, .c = c.c};
    PeerDnnl *df = dnnl_for(&c, PEER_F32, false), *db = dnnl_for(&c, PEER_BF16, false);
    PeerDnnl *db5 = dnnl_for(&c, PEER_BF16, true), *di = dnnl_for(&c, PEER_U8S8, false);
    PeerDnnl *di5 = dnnl_for(&c, PEER_U8S8, true);
    if (!df || !db || !di)
        fail("oneDNN has no matmul for a bench type", NULL);
    note_impl(bn->impl_bf16[0], db);
    note_impl(bn->impl_bf16[1], db5);
    note_impl(bn->impl_i8[0], di);
    note_impl(bn->impl_i8[1], di5);
    enum { KERNEL, MODEL, ENGINE, OPENBLAS, BLIS, DNNL, BF16, DNNL_BF16, DNNL_BF16_512, I8, DNNL_I8, DNNL_I8_512, N };
    Contender cs[N] = {
        [KERNEL] = {call_kernel, &kr},        [MODEL] = {call_kernel, &km},       [ENGINE] = {call_engine_f32, &c},   [OPENBLAS] = {peer_openblas, &ps},
        [BLIS] = {peer_blis, &ps},            [DNNL] = {peer_dnnl_run, df},       [BF16] = {call_engine_bf16, &c},
        [DNNL_BF16] = {peer_dnnl_run, db},    [DNNL_BF16_512] = {peer_dnnl_run, db5},
        [I8] = {call_engine_i8, &c},          [DNNL_I8] = {peer_dnnl_run, di},    [DNNL_I8_512] = {peer_dnnl_run, di5}};
    /* the variants without AMX only where oneDNN's first choice uses it (else they are the same code) */
    Contender run[N];
    int idx[N], nrun = 0;
    for (int i = 0; i < N; i++) {
        bool same = (i == DNNL_BF16_512 && (!db5 || strcmp(peer_dnnl_impl(db5), peer_dnnl_impl(db)) == 0)) ||
                    (i == DNNL_I8_512 && (!di5 || strcmp(peer_dnnl_impl(di5), peer_dnnl_impl(di)) == 0));
        idx[i] = same ? -1 : nrun;
        if (!same)
            run[nrun++] = cs[i];
    }
    double got[N], r[N];
    int retried = bn->stats.retried;
    rounds_measure(&bn->cfg, threads, run, nrun, 2.0 * (double)m * (double)n * (double)k, got, &bn->stats);
    for (int i = 0; i < N; i++)
        r[i] = idx[i] < 0 ? 0 : got[idx[i]];
    double best = best_of(best_of(r[OPENBLAS], r[BLIS]), r[DNNL]);
    char shape[32];
    snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)m, (long long)n, (long long)k);
    printf("%-14s %1d |", shape, threads);
    for (int i = KERNEL; i <= DNNL; i++)
        cell(r[i], 6);
    printf(" |");
    ratio(r[KERNEL], best, 5);
    ratio(r[MODEL], best, 5);
    ratio(r[ENGINE], best, 5);
    ratio(r[KERNEL], r[ENGINE], 5);
    ratio(r[MODEL], r[ENGINE], 5);
    printf(" %3.0f%% |", 100 * r[ENGINE] / bn->peak_f32[threads]);
    for (int i = BF16; i <= DNNL_BF16_512; i++)
        cell(r[i], 6);
    ratio(r[BF16], r[DNNL_BF16], 5);
    ratio(r[BF16], r[DNNL_BF16_512], 5);
    printf(" |");
    for (int i = I8; i <= DNNL_I8_512; i++)
        cell(r[i], 6);
    ratio(r[I8], r[DNNL_I8], 5);
    ratio(r[I8], r[DNNL_I8_512], 5);
    printf(" | %d\n", bn->stats.retried - retried);
    fflush(stdout);
    kernel_free(&kr);
    kernel_free(&km);
    PeerDnnl *ds[] = {df, db, db5, di, di5};
    for (size_t i = 0; i < sizeof ds / sizeof *ds; i++)
        peer_dnnl_free(ds[i]);
    case_free(&c);
}

/* The grid kernels of samples/gemm/slice-grid.map beside the engine (and the best peer) at their own shapes. */
static void bench_grids(Bench *bn, Gemm *g, int threads)
{
    /* grid2d: f32 1024^3 on an 8 x 8 slice grid */
    Case c = case_new(1024, 1024, 1024, g);
    KernelRun kr = kernel_new("slice-grid.map", "grid2d", NULL, threads, c.a, c.b);
    PeerSgemm ps = {.m = c.m, .n = c.n, .k = c.k, .a = c.a, .b = c.b, .c = c.c};
    PeerDnnl *df = dnnl_for(&c, PEER_F32, false);
    Contender cs[] = {{call_kernel, &kr}, {call_engine_f32, &c}, {peer_openblas, &ps}, {peer_blis, &ps},
                      {peer_dnnl_run, df}};
    double r[5];
    rounds_measure(&bn->cfg, threads, cs, 5, 2.0 * 1024 * 1024 * 1024, r, &bn->stats);
    double best = best_of(best_of(r[2], r[3]), r[4]);
    printf("%-8s f32 1024x1024x1024, 8x8 slices  %1d | %6.1f %6.1f %6.1f %6.1f %6.1f | %5.2f %5.2f\n", "grid2d",
           threads, r[0], r[1], r[2], r[3], r[4], r[0] / best, r[0] / r[1]);
    kernel_free(&kr);
    peer_dnnl_free(df);
    case_free(&c);
    /* book: bf16 512 x 512 x 64 on a 16 x 16 slice grid (256 slices) */
    c = case_new(512, 512, 64, g);
    kr = kernel_new("slice-grid.map", "book", NULL, threads, c.a16, c.b16);
    PeerDnnl *db = dnnl_for(&c, PEER_BF16, false), *db5 = dnnl_for(&c, PEER_BF16, true);
    Contender cb[] = {{call_kernel, &kr}, {call_engine_bf16, &c}, {peer_dnnl_run, db}, {peer_dnnl_run, db5 ? db5 : db}};
    rounds_measure(&bn->cfg, threads, cb, 4, 2.0 * 512 * 512 * 64, r, &bn->stats);
    printf("%-8s bf16 512x512x64, 16x16 slices  %1d | %6.1f %6.1f %6s %6s %6.1f | %5.2f %5.2f | oneDNN without AMX "
           "%.1f (%.2f)\n",
           "book", threads, r[0], r[1], "", "", r[2], r[0] / r[2], r[0] / r[1], r[3], r[0] / r[3]);
    fflush(stdout);
    kernel_free(&kr);
    peer_dnnl_free(db);
    peer_dnnl_free(db5);
    case_free(&c);
}

/* Measures and prints the peak of every instruction the host has, on 1 and 2 cores; keeps the f32 FMA peak of the
 * engine's vectors. */
static void print_peaks(Bench *bn, int max_threads)
{
    char model[320];
    peak_cpu_model(model, sizeof model);
    printf("CPU: %s\npeak (best of 5 x 50 ms per instruction, G ops/s, a multiply-add counting 2):", model);
    for (int k = 0; k < PEAK_COUNT; k++) {
        if (!peak_available((PeakKind)k))
            continue;
        double best[3] = {0, 0, 0};
        for (int t = 1; t <= max_threads; t++)
            for (int i = 0; i < 5; i++)
                best[t] = best_of(best[t], peak_rate((PeakKind)k, t, 0.05, NULL));
        printf(" %s %.0f", peak_name((PeakKind)k), best[1]);
        if (max_threads > 1)
            printf(" (2 cores %.0f)", best[2]);
        printf(";");
        if ((PeakKind)k == bn->cfg.probe)
            memcpy(bn->peak_f32, best, sizeof best);
    }
    printf("\n");
}

/* Parses "MxNxK,MxNxK,..." into shapes (at most max); the count, or -1. */
static int parse_shapes(const char *s, int64_t (*shapes)[3], int max)
{
    int n = 0;
    while (*s && n < max) {
        long long m, nn, k;
        int used;
        if (sscanf(s, "%lldx%lldx%lld%n", &m, &nn, &k, &used) != 3 || m < 1 || nn < 1 || k < 1)
            return -1;
        shapes[n][0] = m, shapes[n][1] = nn, shapes[n][2] = k;
        n++;
        s += used;
        if (*s == ',')
            s++;
        else if (*s)
            return -1;
    }
    return n;
}

int main(int argc, char **argv)
{
    enum { MAX_SHAPES = 32 };
    int64_t shapes[MAX_SHAPES][3] = {{64, 64, 64},       {128, 128, 128},    {256, 256, 256},    {512, 512, 512},
                                     {1024, 1024, 1024}, {2048, 2048, 2048}, {1000, 1000, 1000}, {777, 777, 777},
                                     {4096, 64, 4096},   {4096, 4096, 64}};
    int nshapes = 10, tmin = 1, tmax = 2;
    bool grids = true;
    Bench bn = {.cfg = {.rounds = 11, .retries = 3, .accept = 0.75, .batch_seconds = 0.02}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--quick") == 0) {
            bn.cfg.rounds = 3;
        } else if (strcmp(a, "--no-grid") == 0) {
            grids = false;
        } else if (strcmp(a, "--rounds") == 0 && v && atoi(v) >= 1) {
            bn.cfg.rounds = atoi(v);
            i++;
        } else if (strcmp(a, "--threads") == 0 && v && (!strcmp(v, "1") || !strcmp(v, "2") || !strcmp(v, "1,2"))) {
            tmin = v[0] - '0';
            tmax = v[strlen(v) - 1] - '0';
            i++;
        } else if (strcmp(a, "--shapes") == 0 && v && (nshapes = parse_shapes(v, shapes, MAX_SHAPES)) > 0) {
            i++;
        } else {
            fprintf(stderr, "usage: bench-gemm [--quick] [--rounds N] [--threads 1|2|1,2] [--shapes MxNxK,...] "
                            "[--no-grid]\n");
            return 2;
        }
    }
    bn.cfg.probe = peak_available(PEAK_FMA_ZMM) ? PEAK_FMA_ZMM : PEAK_FMA_YMM;
    print_peaks(&bn, tmax);
    printf("protocol: the caller pinned to CPU 0, every library's workers to CPU 1; each contender timed in batches "
           "of about %.0f ms (after two warm-up calls), %d rounds interleaved, medians; a batch counts only when a 1 ms "
           "FMA probe of each of its T cores just before and just after it ran at >= %.0f%% of that core's best probe "
           "of the run (else another tenant had a core, e.g. a 2-thread contender ran at one core's speed): it is "
           "timed again, at most %d times, then kept\n",
           bn.cfg.batch_seconds * 1e3, bn.cfg.rounds, bn.cfg.accept * 100, bn.cfg.retries);
    print_header();
    for (int threads = tmin; threads <= tmax; threads++) {
        char err[256];
        Gemm *g = gemm_new(&(GemmOptions){.threads = threads}, err, sizeof err);
        if (!g || gemm_prepare(g, GEMM_F32, err, sizeof err) || gemm_prepare(g, GEMM_BF16, err, sizeof err) ||
            gemm_prepare(g, GEMM_I8, err, sizeof err))
            fail("cannot start the engine", err);
        peers_set_threads(threads);
        rounds_pin(threads);
        rounds_calibrate(&bn.cfg, threads);
        for (int s = 0; s < nshapes; s++)
            bench_shape(&bn, g, threads, shapes[s][0], shapes[s][1], shapes[s][2]);
        gemm_free(g);
    }
    if (grids) {
        printf("grid kernels of samples/gemm/slice-grid.map   T | kernel engine OpenBL   BLIS oneDNN |  k/pr   k/e\n");
        for (int threads = tmin; threads <= tmax; threads++) {
            char err[256];
            Gemm *g = gemm_new(&(GemmOptions){.threads = threads}, err, sizeof err);
            if (!g)
                fail("cannot start the engine", err);
            peers_set_threads(threads);
            rounds_pin(threads);
            rounds_calibrate(&bn.cfg, threads);
            bench_grids(&bn, g, threads);
            gemm_free(g);
        }
    }
    printf("kernel: the declared sgemm of samples/gemm/gemm.map (mapc run) at each shape, its tiles as declared; "
           "model: its sgemm_model, without a tile clause (the cache model's tiles for this machine); engine: "
           "gemm_f32 / gemm_i8 with its own plan; k/pr, m/pr, e/pr: kernel, model and engine over the best of "
           "OpenBLAS, BLIS, oneDNN; k/e, m/e: kernel and model over engine; %%pk: engine over the f32 FMA peak measured above (x cores)\n"
           "bf16, i8: the engine; dnnl: oneDNN's matmul, first choice (bf16 %s, u8*s8 %s); dn512: its best without "
           "AMX (bf16 %s, u8*s8 %s), shown where the first choice uses AMX; r, r512: mapc over each\n"
           "batches retried: %d of %d (kept after %d retries: %d)\n",
           bn.impl_bf16[0], bn.impl_i8[0], bn.impl_bf16[1][0] ? bn.impl_bf16[1] : "-",
           bn.impl_i8[1][0] ? bn.impl_i8[1] : "-", bn.stats.retried, bn.stats.batches, bn.cfg.retries,
           bn.stats.forced);
    return 0;
}
