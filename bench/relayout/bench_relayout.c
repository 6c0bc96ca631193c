/* bench_relayout.c — relayout kernels against mapc's identity copy of the same bytes and against memcpy, on 1 and
 * 2 threads, in one run: the five kernels of 256 MiB f32 tensors (8192 x 8192: identity, transpose, blocked,
 * padded, unblocked) and the 57 cases of the TTC suite as HPTT's benchmark/benchmark.sh lists them (f32, sizes in
 * column-major order, first index fastest), one line per case and geometric means. Every round times the
 * contenders of a row in turn after a 2 ms FMA probe of the cores it uses; a round whose probe runs below 85% of
 * the run's best (another tenant on a core) is timed again (at most 4 times). Times are the process's CPU time
 * divided by the threads: on a machine shared with other work, time spent waiting for a core is not the
 * kernel's.
 *
 * Usage: bench-relayout [--quick] [--reps N] [--plan] [--only kernels|ttc]
 *   --quick  a small subset at small sizes, every element checked (a test: ends with "N passed, N failed")
 *   --plan   also print each kernel's relayout plan */
#include "bench.h"
#include "codegen/codegen.h"
#include "front/front.h"
#include "gemm/peak.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef void (*PartFn)(void *dst, const void *src, uint64_t part, uint64_t nparts);

/* One TTC case: B[perm(i)] = A[i] over `dim` indices of sizes size[] (A's; index 0 fastest), B's index i being
 * A's index perm[i]. */
typedef struct Ttc {
    int dim;
    int perm[6];
    uint64_t size[6];
} Ttc;

/* benchmark/benchmark.sh of springer13/hptt: DIM PERM... SIZE... */
static const Ttc ttc[] = {
    {2, {1, 0}, {7264, 7264}}, {2, {1, 0}, {43408, 1216}}, {2, {1, 0}, {1216, 43408}},
    {3, {0, 2, 1}, {368, 384, 384}}, {3, {0, 2, 1}, {2144, 64, 384}}, {3, {0, 2, 1}, {368, 64, 2307}},
    {3, {1, 0, 2}, {384, 384, 355}}, {3, {1, 0, 2}, {2320, 384, 59}}, {3, {1, 0, 2}, {384, 2320, 59}},
    {3, {2, 1, 0}, {384, 355, 384}}, {3, {2, 1, 0}, {2320, 59, 384}}, {3, {2, 1, 0}, {384, 59, 2320}},
    {4, {0, 3, 2, 1}, {80, 96, 75, 96}}, {4, {0, 3, 2, 1}, {464, 16, 75, 96}}, {4, {0, 3, 2, 1}, {80, 16, 75, 582}},
    {4, {2, 1, 3, 0}, {96, 75, 96, 75}}, {4, {2, 1, 3, 0}, {608, 12, 96, 75}}, {4, {2, 1, 3, 0}, {96, 12, 608, 75}},
    {4, {2, 0, 3, 1}, {96, 75, 96, 75}}, {4, {2, 0, 3, 1}, {608, 12, 96, 75}}, {4, {2, 0, 3, 1}, {96, 12, 608, 75}},
    {4, {1, 0, 3, 2}, {96, 96, 75, 75}}, {4, {1, 0, 3, 2}, {608, 96, 12, 75}}, {4, {1, 0, 3, 2}, {96, 608, 12, 75}},
    {4, {3, 2, 1, 0}, {96, 75, 75, 96}}, {4, {3, 2, 1, 0}, {608, 12, 75, 96}}, {4, {3, 2, 1, 0}, {96, 12, 75, 608}},
    {5, {0, 4, 2, 1, 3}, {32, 48, 28, 28, 48}}, {5, {0, 4, 2, 1, 3}, {176, 8, 28, 28, 48}},
    {5, {0, 4, 2, 1, 3}, {32, 8, 28, 28, 298}}, {5, {3, 2, 1, 4, 0}, {48, 28, 28, 48, 28}},
    {5, {3, 2, 1, 4, 0}, {352, 4, 28, 48, 28}}, {5, {3, 2, 1, 4, 0}, {48, 4, 28, 352, 28}},
    {5, {2, 0, 4, 1, 3}, {48, 28, 48, 28, 28}}, {5, {2, 0, 4, 1, 3}, {352, 4, 48, 28, 28}},
    {5, {2, 0, 4, 1, 3}, {48, 4, 352, 28, 28}}, {5, {1, 3, 0, 4, 2}, {48, 48, 28, 28, 28}},
    {5, {1, 3, 0, 4, 2}, {352, 48, 4, 28, 28}}, {5, {1, 3, 0, 4, 2}, {48, 352, 4, 28, 28}},
    {5, {4, 3, 2, 1, 0}, {48, 28, 28, 28, 48}}, {5, {4, 3, 2, 1, 0}, {352, 4, 28, 28, 48}},
    {5, {4, 3, 2, 1, 0}, {48, 4, 28, 28, 352}}, {6, {0, 3, 2, 5, 4, 1}, {16, 32, 15, 32, 15, 15}},
    {6, {0, 3, 2, 5, 4, 1}, {48, 10, 15, 32, 15, 15}}, {6, {0, 3, 2, 5, 4, 1}, {16, 10, 15, 103, 15, 15}},
    {6, {3, 2, 0, 5, 1, 4}, {32, 15, 15, 32, 15, 15}}, {6, {3, 2, 0, 5, 1, 4}, {112, 5, 15, 32, 15, 15}},
    {6, {3, 2, 0, 5, 1, 4}, {32, 5, 15, 112, 15, 15}}, {6, {2, 0, 4, 1, 5, 3}, {32, 15, 32, 15, 15, 15}},
    {6, {2, 0, 4, 1, 5, 3}, {112, 5, 32, 15, 15, 15}}, {6, {2, 0, 4, 1, 5, 3}, {32, 5, 112, 15, 15, 15}},
    {6, {3, 2, 5, 1, 0, 4}, {32, 15, 15, 32, 15, 15}}, {6, {3, 2, 5, 1, 0, 4}, {112, 5, 15, 32, 15, 15}},
    {6, {3, 2, 5, 1, 0, 4}, {32, 5, 15, 112, 15, 15}}, {6, {5, 4, 3, 2, 1, 0}, {32, 15, 15, 15, 15, 32}},
    {6, {5, 4, 3, 2, 1, 0}, {112, 5, 15, 15, 15, 32}}, {6, {5, 4, 3, 2, 1, 0}, {32, 5, 15, 15, 15, 112}},
};
enum { NTTC = sizeof ttc / sizeof *ttc, MAX_THREADS = 2, MAX_CONTENDERS = 3, MAX_TRIES = 4 };

/* ---- two threads: the caller runs part 0, a pinned worker part 1 ---- */

typedef struct Job {
    PartFn fn;              /* NULL: memcpy halves */
    void *dst;
    const void *src;
    size_t bytes;
    int nparts;
} Job;

static struct {
    pthread_t tid;
    pthread_barrier_t start, done;
    Job job;
    bool quit, started;
} worker;

static void run_part(const Job *j, int part)
{
    if (j->fn) {
        j->fn(j->dst, j->src, (uint64_t)part, (uint64_t)j->nparts);
        return;
    }
    size_t lo = j->bytes * (size_t)part / (size_t)j->nparts, hi = j->bytes * (size_t)(part + 1) / (size_t)j->nparts;
    memcpy((char *)j->dst + lo, (const char *)j->src + lo, hi - lo);
}

static void *worker_main(void *arg)
{
    (void)arg;
    peak_pin_self(1);
    for (;;) {
        pthread_barrier_wait(&worker.start);
        if (worker.quit)
            return NULL;
        run_part(&worker.job, 1);
        pthread_barrier_wait(&worker.done);
    }
}

/* Runs job on `threads` threads (1: the caller alone); the seconds it took: the process's CPU time over the
 * threads (steadier than wall time on a shared machine: a thread that waits for the core is not counted). */
static double run_job(Job j, int threads)
{
    j.nparts = threads;
    double t0 = bench_cpu_seconds();
    if (threads == 1) {
        run_part(&j, 0);
    } else {
        worker.job = j;
        pthread_barrier_wait(&worker.start);
        run_part(&j, 0);
        pthread_barrier_wait(&worker.done);
    }
    return (bench_cpu_seconds() - t0) / threads;
}

/* ---- rounds ---- */

static double best_probe[MAX_THREADS];

/* Whether the cores of `threads` threads run the FMA probe at >= 85% of their best so far. */
static bool probe_ok(int threads)
{
    double per[MAX_THREADS];
    PeakKind k = peak_available(PEAK_FMA_ZMM) ? PEAK_FMA_ZMM : PEAK_FMA_YMM;
    if (peak_rate(k, threads, 0.002, per) == 0)
        return true; /* no probe on this host */
    bool ok = true;
    for (int t = 0; t < threads; t++) {
        if (per[t] > best_probe[t])
            best_probe[t] = per[t];
        ok = ok && per[t] >= 0.85 * best_probe[t];
    }
    return ok;
}

static int rounds = 5;
static long rounds_dropped, rounds_timed;

/* The median seconds of each of n jobs on `threads` threads over the rounds (each round times every job, in an
 * order that rotates, after a probe that must pass). */
static void measure(const Job *jobs, int n, int threads, double *median)
{
    double t[MAX_CONTENDERS][64];
    for (int i = 0; i < n; i++)
        run_job(jobs[i], threads); /* warm: pages, code, the worker */
    for (int r = 0; r < rounds; r++) {
        for (int tries = 0; tries < MAX_TRIES && !probe_ok(threads); tries++)
            rounds_dropped++;
        rounds_timed++;
        for (int k = 0; k < n; k++) {
            int i = (k + r) % n;
            t[i][r] = run_job(jobs[i], threads);
        }
    }
    for (int i = 0; i < n; i++)
        median[i] = bench_median(t[i], rounds);
}

/* ---- programs ---- */

/* Parses text and JIT-compiles it; NULL after printing why. */
static Jit *compile(const char *text, Prog **out)
{
    Prog *p = prog_new();
    if (prog_parse(p, "bench", text, strlen(text))) {
        fprintf(stderr, "bench-relayout: program has errors: %s\n", p->diags.head->msg);
        prog_free(p);
        return NULL;
    }
    CgOptions o = {.opt_level = 2};
    Jit *j = jit_new(p, &o, &p->diags);
    if (!j) {
        fprintf(stderr, "bench-relayout: JIT failed: %s\n", p->diags.head ? p->diags.head->msg : "?");
        prog_free(p);
        return NULL;
    }
    *out = p;
    return j;
}

static PartFn part_fn(Jit *j, const char *copy)
{
    char name[64];
    snprintf(name, sizeof name, "%s_part", copy);
    return (PartFn)jit_lookup(j, name);
}

static void print_plan(const Prog *p, const char *copy)
{
    for (int i = 0; i < p->ncopies; i++)
        if (strcmp(p->copies[i]->name, copy) == 0) {
            char *t = cg_copy_plan(p, p->copies[i], &(CgOptions){.opt_level = 2}, &((Prog *)p)->diags);
            printf("%s", t ? t : "  (no plan)\n");
            free(t);
        }
}

static bool quick, plans;
static long checks_passed, checks_failed;
static double geo[MAX_THREADS][2]; /* sums of logs: vs identity, vs memcpy */
static int geo_n;
static double worst[MAX_THREADS];
static int worst_case[MAX_THREADS];

/* The TTC case's sizes cut for --quick: at most about 2^16 elements, sizes that are not multiples of the
 * vectors kept as they are where they fit. */
static void quick_sizes(const Ttc *c, uint64_t *s)
{
    static const uint64_t cap[7] = {0, 0, 256, 40, 16, 9, 6};
    for (int i = 0; i < c->dim; i++)
        s[i] = c->size[i] <= cap[c->dim] ? c->size[i] : cap[c->dim] - c->size[i] % 3;
}

/* Checks a TTC result element by element (--quick) or at 4096 positions. */
static void check_ttc(const Ttc *c, const uint64_t *s, const float *a, const float *b)
{
    uint64_t n = 1, stride_b[6];
    for (int i = 0; i < c->dim; i++)
        n *= s[i];
    for (int i = 0, acc = 1; i < c->dim; i++) {
        stride_b[i] = (uint64_t)acc;
        acc *= (int)s[c->perm[i]];
    }
    uint64_t bad = 0, step = quick ? 1 : n / 4096 + 1;
    for (uint64_t q = 0; q < n; q += step) {
        uint64_t idx[6], r = q, pos = 0;
        for (int i = 0; i < c->dim; i++) {
            idx[i] = r % s[i];
            r /= s[i];
        }
        for (int i = 0; i < c->dim; i++)
            pos += idx[c->perm[i]] * stride_b[i];
        bad += memcmp(&b[pos], &a[q], sizeof *a) != 0;
    }
    if (bad)
        checks_failed++, printf("  (%llu elements wrong)\n", (unsigned long long)bad);
    else
        checks_passed++;
}

/* One TTC case: its line, and its ratios in the geometric means. */
static int bench_ttc(int ci, float *a, float *b)
{
    const Ttc *c = &ttc[ci];
    uint64_t s[6], n = 1;
    memcpy(s, c->size, sizeof s);
    if (quick)
        quick_sizes(c, s);
    char text[1024];
    int len = snprintf(text, sizeof text, "axes![");
    for (int i = 0; i < c->dim; i++) {
        len += snprintf(text + len, sizeof text - (size_t)len, "%sI%d = %llu", i ? ", " : "", i, (unsigned long long)s[i]);
        n *= s[i];
    }
    len += snprintf(text + len, sizeof text - (size_t)len, "];\ntype S = m![");
    for (int i = c->dim - 1; i >= 0; i--)
        len += snprintf(text + len, sizeof text - (size_t)len, "I%d%s", i, i ? ", " : "");
    len += snprintf(text + len, sizeof text - (size_t)len, "];\ntype D = m![");
    for (int i = c->dim - 1; i >= 0; i--)
        len += snprintf(text + len, sizeof text - (size_t)len, "I%d%s", c->perm[i], i ? ", " : "");
    snprintf(text + len, sizeof text - (size_t)len, "];\ncopy ttc: S -> D as f32;\ncopy identity: S -> S as f32;\n");
    Prog *p;
    Jit *j = compile(text, &p);
    if (!j)
        return 1;
    size_t bytes = (size_t)n * 4;
    Job jobs[3] = {{part_fn(j, "ttc"), b, a, bytes, 1}, {part_fn(j, "identity"), b, a, bytes, 1}, {NULL, b, a, bytes, 1}};
    char perm[32] = "", sizes[64] = "";
    for (int i = 0; i < c->dim; i++) {
        snprintf(perm + strlen(perm), sizeof perm - strlen(perm), "%s%d", i ? " " : "", c->perm[i]);
        snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%llu", i ? "x" : "", (unsigned long long)s[i]);
    }
    printf("ttc %2d %-11s %-20s", ci + 1, perm, sizes);
    for (int threads = 1; threads <= MAX_THREADS; threads++) {
        double med[3];
        measure(jobs, 3, threads, med);
        double gbs = (double)bytes / med[0] / 1e9, vi = med[1] / med[0], vm = med[2] / med[0];
        printf("  %dt %6.2f GB/s %5.2fx identity %5.2fx memcpy", threads, gbs, vi, vm);
        geo[threads - 1][0] += log(vi);
        geo[threads - 1][1] += log(vm);
        if (geo_n == 0 || vi < worst[threads - 1]) {
            worst[threads - 1] = vi;
            worst_case[threads - 1] = ci + 1;
        }
    }
    printf("\n");
    geo_n++;
    fflush(stdout);
    memset(b, 0, bytes);
    run_job(jobs[0], 2);
    check_ttc(c, s, a, b);
    if (plans)
        print_plan(p, "ttc");
    jit_free(j);
    prog_free(p);
    return 0;
}

/* The five kernels on N x N f32 (8192; --quick 512), as a table. */
static int bench_kernels(float *a, float *b)
{
    uint64_t n = quick ? 512 : 8192, pad = n + 64;
    char text[1024];
    snprintf(text, sizeof text,
             "axes![A = %llu, B = %llu];\ntype Row = m![A, B];\ntype Tr = m![B, A];\n"
             "type Blk = m![A / 16, B / 16, A %% 16, B %% 16];\ntype Pad = m![A, B #{0} %llu];\n"
             "copy identity: Row -> Row as f32;\ncopy transpose: Row -> Tr as f32;\ncopy blocked: Row -> Blk as f32;\n"
             "copy padded: Row -> Pad as f32;\ncopy unblocked: Blk -> Row as f32;\n",
             (unsigned long long)n, (unsigned long long)n, (unsigned long long)pad);
    Prog *p;
    Jit *j = compile(text, &p);
    if (!j)
        return 1;
    size_t bytes = (size_t)(n * n * 4);
    printf("relayout of %llu MiB f32 tensors (%llu x %llu), GB/s counting the tensor's bytes once\n",
           (unsigned long long)(bytes >> 20), (unsigned long long)n, (unsigned long long)n);
    printf("%-10s %7s | %8s %8s %8s | %8s %8s %8s\n", "kernel", "", "1t GB/s", "vs ident", "vs memcpy", "2t GB/s",
           "vs ident", "vs memcpy");
    static const char *const names[] = {"identity", "transpose", "blocked", "padded", "unblocked"};
    for (int k = 0; k < 5; k++) {
        Job jobs[3] = {{part_fn(j, names[k]), b, a, bytes, 1}, {part_fn(j, "identity"), b, a, bytes, 1},
                       {NULL, b, a, bytes, 1}};
        printf("%-10s %7s |", names[k], "");
        for (int threads = 1; threads <= MAX_THREADS; threads++) {
            double med[3];
            measure(jobs, 3, threads, med);
            printf(" %8.2f %7.2fx %7.2fx %s", (double)bytes / med[0] / 1e9, med[1] / med[0], med[2] / med[0],
                   threads == 1 ? "|" : "");
        }
        printf("\n");
        fflush(stdout);
        /* the element {A:3, B:5} where the layout puts it (unblocked reads the source as blocked) */
        memset(b, 0, bytes);
        run_job(jobs[0], 2);
        size_t at = k == 0 || k == 4 ? 3 * n + 5 : k == 1 ? 5 * n + 3 : k == 2 ? 3 * 16 + 5 : 3 * pad + 5;
        float want = k == 4 ? a[3 * 16 + 5] : a[3 * n + 5];
        if (b[at] == want)
            checks_passed++;
        else
            checks_failed++, printf("  (%s: wrong result at %zu)\n", names[k], at);
        if (plans)
            print_plan(p, names[k]);
    }
    jit_free(j);
    prog_free(p);
    return 0;
}

static void load_average(char *buf, size_t cap)
{
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f || !fgets(buf, (int)cap, f))
        snprintf(buf, cap, "unknown");
    buf[strcspn(buf, "\n")] = 0;
    if (f)
        fclose(f);
}

int main(int argc, char **argv)
{
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "--plan") == 0)
            plans = true;
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc && atoi(argv[i + 1]) >= 1 && atoi(argv[i + 1]) <= 64)
            rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc &&
                 (strcmp(argv[i + 1], "kernels") == 0 || strcmp(argv[i + 1], "ttc") == 0))
            only = argv[++i];
        else {
            fprintf(stderr, "usage: bench-relayout [--quick] [--reps 1..64] [--plan] [--only kernels|ttc]\n");
            return 2;
        }
    }
    if (quick)
        rounds = 1;
    char cpu[320], load[128];
    peak_cpu_model(cpu, sizeof cpu);
    load_average(load, sizeof load);
    printf("CPU: %s; load average at start: %s\n", cpu, load);
    printf("median of %d rounds per row; each round after a 2 ms FMA probe of its cores (repeated up to %d times "
           "while below 85%% of the best); times are CPU seconds over the threads\n",
           rounds, MAX_TRIES);
    size_t cap = (size_t)8192 * 8256 * 4 + (2u << 20); /* the largest: the padded 8192 x 8192 */
    float *a = aligned_alloc(2u << 20, cap), *b = aligned_alloc(2u << 20, cap);
    if (!a || !b)
        return 1;
    madvise(a, cap, MADV_HUGEPAGE); /* a transpose touches a new 4 KiB page on almost every row otherwise */
    madvise(b, cap, MADV_HUGEPAGE);
    for (size_t i = 0; i < cap / 4; i++)
        a[i] = (float)i;
    memset(b, 0, cap);
    pthread_barrier_init(&worker.start, NULL, 2);
    pthread_barrier_init(&worker.done, NULL, 2);
    if (pthread_create(&worker.tid, NULL, worker_main, NULL) != 0)
        return 1;
    peak_pin_self(0);
    int status = 0;
    if (!only || strcmp(only, "kernels") == 0)
        status |= bench_kernels(a, b);
    if (!only || strcmp(only, "ttc") == 0) {
        printf("TTC suite (HPTT's benchmark.sh), f32%s; GB/s counts the tensor's bytes once\n",
               quick ? ", sizes cut to about 2^16 elements (--quick)" : "");
        int count = quick ? 12 : NTTC;
        for (int i = 0; i < count; i++)
            status |= bench_ttc(quick ? i * 5 : i, a, b);
        for (int t = 0; t < MAX_THREADS && geo_n; t++)
            printf("ttc geometric mean, %d thread%s: %.2fx identity, %.2fx memcpy; lowest %.2fx identity (case %d)\n",
                   t + 1, t ? "s" : "", exp(geo[t][0] / geo_n), exp(geo[t][1] / geo_n), worst[t], worst_case[t]);
    }
    load_average(load, sizeof load);
    printf("load average at the end: %s; %ld rounds, %ld probes below 85%% repeated\n", load, rounds_timed,
           rounds_dropped);
    worker.quit = true;
    pthread_barrier_wait(&worker.start);
    pthread_join(worker.tid, NULL);
    free(a);
    free(b);
    printf("%ld passed, %ld failed\n", checks_passed, checks_failed);
    return status || checks_failed ? 1 : 0;
}
