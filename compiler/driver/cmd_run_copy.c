/* cmd_run_copy.c — "mapc run FILE COPY": a copy's relayout plan, then the JIT-compiled kernel run on seeded data
 * over the threads, checked against the interpreter, and timed beside memcpy of the same bytes. */
#include "cmd_run_copy.h"
#include "codegen/codegen.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Destinations up to this many elements are checked position by position; larger ones at CHECK_SAMPLES. */
#define FULL_CHECK_LIMIT (1ull << 22)
#define CHECK_SAMPLES 8192
enum { POISON = 0xA5, MAX_RUN_THREADS = 1024 };

typedef void (*PartFn)(void *dst, const void *src, uint64_t part, uint64_t nparts);

typedef struct Part {
    PartFn fn;
    void *dst;
    const void *src;
    uint64_t part, nparts;
} Part;

static void *part_main(void *arg)
{
    Part *p = arg;
    p->fn(p->dst, p->src, p->part, p->nparts);
    return NULL;
}

/* Runs the copy's parts on `threads` threads (the caller runs part 0); false if a thread cannot start. */
static bool run_parts(PartFn fn, void *dst, const void *src, int threads)
{
    Part parts[MAX_RUN_THREADS];
    pthread_t tid[MAX_RUN_THREADS];
    int started = 1;
    for (int t = 0; t < threads; t++)
        parts[t] = (Part){fn, dst, src, (uint64_t)t, (uint64_t)threads};
    for (int t = 1; t < threads && started == t; t++)
        if (pthread_create(&tid[t], NULL, part_main, &parts[t]) == 0)
            started++;
    part_main(&parts[0]);
    for (int t = 1; t < started; t++)
        pthread_join(tid[t], NULL);
    for (int t = started; t < threads; t++) /* a thread that could not start: its part here */
        part_main(&parts[t]);
    return true;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The element of src (es bytes) that encodes source position q in round k: its k-th es-byte group. */
static void encode(unsigned char *e, uint64_t q, unsigned es, int k)
{
    uint64_t v = es >= 8 ? q : (q >> (8 * es * (unsigned)k)) & ((1ull << (8 * es)) - 1);
    memcpy(e, &v, es); /* little-endian: the low es bytes */
}

/* Checks the copy at the destination positions chosen (all, or CHECK_SAMPLES seeded ones): the kernel run on
 * sources that encode their own positions (in as many rounds as positions need bytes) tells which source
 * position each destination position received, which must hold the same index by the interpreter; pad(zero)
 * positions get 0 and the other paddings keep the poison. "" or the first problem in why. */
static void check(const Prog *p, const Copy *c, PartFn fn, int threads, uint64_t seed, char *why, size_t cap,
                  uint64_t *checked)
{
    unsigned es = (unsigned)elem_type_size(c->elem);
    uint64_t nd = c->dst->size, ns = c->src->size;
    int rounds = 1;
    while (es < 8 && rounds * 8 * (int)es < 64 && (ns - 1) >> (8 * es * (unsigned)rounds))
        rounds++;
    bool full = nd <= FULL_CHECK_LIMIT;
    uint64_t n = full ? nd : CHECK_SAMPLES;
    uint64_t *pos = malloc(n * sizeof *pos), *got = calloc(n, sizeof *got);
    unsigned char *src = malloc(ns * es), *dst = malloc(nd * es);
    bool *same = malloc(n);
    uint64_t r = seed * 0x9E3779B97F4A7C15u + 1;
    for (uint64_t i = 0; i < n; i++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        pos[i] = full ? i : r % nd;
        same[i] = true;
    }
    for (int k = 0; k < rounds; k++) {
        for (uint64_t q = 0; q < ns; q++)
            encode(src + q * es, q, es, k);
        memset(dst, POISON, nd * es);
        run_parts(fn, dst, src, threads);
        for (uint64_t i = 0; i < n; i++) {
            uint64_t v = 0;
            memcpy(&v, dst + pos[i] * es, es);
            unsigned char poison[8];
            memset(poison, POISON, sizeof poison);
            same[i] = same[i] && memcmp(dst + pos[i] * es, poison, es) == 0; /* poison in every round: untouched */
            got[i] |= es >= 8 ? v : v << (8 * es * (unsigned)k);
        }
    }
    Evaluator *ev = eval_new(p);
    Cell dc = {.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t))}, sc = {.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    why[0] = 0;
    for (uint64_t i = 0; i < n && !why[0]; i++) {
        if (eval_cell(ev, c->dst, pos[i], &dc) != EVAL_OK) {
            snprintf(why, cap, "the interpreter cannot evaluate destination position %llu: %s",
                     (unsigned long long)pos[i], eval_error(ev));
            break;
        }
        if (dc.kind == CELL_PAD_ZERO && got[i] != 0)
            snprintf(why, cap, "destination position %llu is pad(zero) but holds %llu", (unsigned long long)pos[i],
                     (unsigned long long)got[i]);
        else if (dc.kind != CELL_LIVE && dc.kind != CELL_PAD_ZERO && !same[i])
            snprintf(why, cap, "destination position %llu (%s) was written", (unsigned long long)pos[i],
                     cell_kind_name(dc.kind));
        else if (dc.kind == CELL_LIVE && (got[i] >= ns || eval_cell(ev, c->src, got[i], &sc) != EVAL_OK ||
                                          !cell_equal(&dc, &sc, p->naxes)))
            snprintf(why, cap, "destination position %llu did not get the source element of its index",
                     (unsigned long long)pos[i]);
    }
    *checked = n;
    eval_free(ev);
    free(dc.coord);
    free(sc.coord);
    free(pos);
    free(got);
    free(same);
    free(src);
    free(dst);
}

int run_copy(Prog *p, const Copy *c, const RunOptions *o)
{
    if (o->size[0] || o->size[1] || o->size[2] || o->alpha != 1.0 || o->beta != 0.0 || o->check_all || o->mpi == 1)
        return drv_usage_error("--m, --n, --k, --alpha, --beta, --check and --mpi apply to kernels, not to copy %s",
                               c->name);
    CgOptions opt = {.opt_level = 2};
    char *plan = cg_copy_plan(p, c, &opt, &p->diags);
    if (!plan) {
        fprintf(stderr, "mapc: copy %s: %s\n", c->name, p->diags.head ? p->diags.head->msg : "no plan");
        return DRV_EXIT_INPUT;
    }
    char *s = drv_fmt_map(p, c->src), *d = drv_fmt_map(p, c->dst);
    unsigned es = (unsigned)elem_type_size(c->elem);
    uint64_t bytes = c->dst->size * es;
    printf("copy %s: %s -> %s as %s, %llu elements (%llu bytes) of destination\n", c->name, s, d,
           elem_type_name(c->elem), (unsigned long long)c->dst->size, (unsigned long long)bytes);
    if (o->threads == 1)
        printf("plan:\n%s  1 thread\n", plan);
    else
        printf("plan:\n%s  %d threads, thread k running part k of %d\n", plan, o->threads, o->threads);
    free(s);
    free(d);
    free(plan);
    if (o->plan_only)
        return DRV_EXIT_OK;
    double t0 = now();
    Jit *j = jit_new(p, &opt, &p->diags);
    if (!j) {
        fprintf(stderr, "mapc: cannot compile copy %s: %s\n", c->name, p->diags.head ? p->diags.head->msg : "?");
        return DRV_EXIT_INPUT;
    }
    char name[512];
    snprintf(name, sizeof name, "%s_part", c->name);
    PartFn fn = (PartFn)jit_lookup(j, name);
    double compile = now() - t0;
    char why[512];
    uint64_t checked = 0;
    check(p, c, fn, o->threads, o->seed, why, sizeof why, &checked);
    bool ok = !why[0];
    /* timing: the kernel and memcpy of its destination's bytes, interleaved */
    unsigned char *src = malloc(c->src->size * es + 1), *dst = malloc(bytes + 1), *dst2 = malloc(bytes + 1);
    for (uint64_t i = 0; i < c->src->size * es; i++)
        src[i] = (unsigned char)(i * 131 + o->seed);
    memset(dst, 0, bytes);
    memset(dst2, 0, bytes);
    double *tk = malloc(sizeof(double) * (size_t)o->reps), *tm = malloc(sizeof(double) * (size_t)o->reps);
    run_parts(fn, dst, src, o->threads); /* warm */
    for (int r = 0; r < o->reps; r++) {
        double a = now();
        run_parts(fn, dst, src, o->threads);
        double b = now();
        memcpy(dst2, src, bytes < c->src->size * es ? bytes : c->src->size * es);
        tk[r] = b - a;
        tm[r] = now() - b;
    }
    qsort(tk, (size_t)o->reps, sizeof *tk, cmp_double);
    qsort(tm, (size_t)o->reps, sizeof *tm, cmp_double);
    double mk = tk[o->reps / 2], mm = tm[o->reps / 2];
    printf("  %.4g ms median of %d runs: %.2f GB/s (the destination's bytes once), %.2fx memcpy of as many bytes "
           "(one thread)\n",
           mk * 1e3, o->reps, (double)bytes / mk / 1e9, mm / mk);
    printf("  check: %s%llu destination positions against the interpreter: %s\n",
           checked == c->dst->size ? "all " : "", (unsigned long long)checked, ok ? "ok" : why);
    printf("  wall time: compile %.1f ms\n", compile * 1e3);
    free(tk);
    free(tm);
    free(src);
    free(dst);
    free(dst2);
    jit_free(j);
    return ok ? DRV_EXIT_OK : DRV_EXIT_INPUT;
}
