/* bench_addrgen.c — address generation: positions/s of JIT E_cell and of the E_each enumeration loop,
 * against the reference interpreter and hand-written C, for row-major, transposed, blocked and padded
 * layouts. One command; prints medians of several runs (CPU time, steadier than wall time on a shared machine) and
 * the ratios measured in the same run. */
#include "bench.h"
#include "codegen/codegen.h"
#include "eval/eval.h"
#include "front/front.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { A = 4096, B = 4096, PADB = 4112, RUNS = 7 };
#define N ((uint64_t)A * B)

static const char program[] = "axes![A = 4096, B = 4096];\n"
                              "type Row = m![A, B];\n"
                              "type Tr = m![B, A];\n"
                              "type Blk = m![A / 16, B / 16, A % 16, B % 16];\n"
                              "type Pad = m![A, B # 4112];\n";

/* ---- hand-written C: the same cells, and the same enumerations with the same visitor ---- */

typedef int (*CellFn)(uint64_t pos, int64_t *c);
typedef void (*VisitFn)(void *ctx, uint64_t pos, int kind, const int64_t *c);
typedef void (*EachFn)(VisitFn visit, void *ctx);

static int c_row(uint64_t p, int64_t *c) { if (p >= N) return 4; c[0] = (int64_t)(p / B); c[1] = (int64_t)(p % B); return 0; }
static int c_tr(uint64_t p, int64_t *c) { if (p >= N) return 4; c[1] = (int64_t)(p / A); c[0] = (int64_t)(p % A); return 0; }
static int c_blk(uint64_t p, int64_t *c)
{
    if (p >= N)
        return 4;
    uint64_t bi = p % 16, ai = p / 16 % 16, bb = p / 256 % (B / 16), ab = p / 256 / (B / 16);
    c[0] = (int64_t)(ab * 16 + ai);
    c[1] = (int64_t)(bb * 16 + bi);
    return 0;
}
static int c_pad(uint64_t p, int64_t *c)
{
    if (p >= (uint64_t)A * PADB)
        return 4;
    uint64_t a = p / PADB, b = p % PADB;
    if (b >= B) {
        c[0] = c[1] = 0;
        return 1;
    }
    c[0] = (int64_t)a;
    c[1] = (int64_t)b;
    return 0;
}

static void e_row(VisitFn v, void *x)
{
    int64_t c[2];
    uint64_t p = 0;
    for (c[0] = 0; c[0] < A; c[0]++)
        for (c[1] = 0; c[1] < B; c[1]++)
            v(x, p++, 0, c);
}
static void e_tr(VisitFn v, void *x)
{
    int64_t c[2];
    uint64_t p = 0;
    for (c[1] = 0; c[1] < B; c[1]++)
        for (c[0] = 0; c[0] < A; c[0]++)
            v(x, p++, 0, c);
}
static void e_blk(VisitFn v, void *x)
{
    int64_t c[2];
    uint64_t p = 0;
    for (int ab = 0; ab < A / 16; ab++)
        for (int bb = 0; bb < B / 16; bb++)
            for (int ai = 0; ai < 16; ai++)
                for (int bi = 0; bi < 16; bi++) {
                    c[0] = ab * 16 + ai;
                    c[1] = bb * 16 + bi;
                    v(x, p++, 0, c);
                }
}
static void e_pad(VisitFn v, void *x)
{
    int64_t c[2], z[2] = {0, 0};
    uint64_t p = 0;
    for (c[0] = 0; c[0] < A; c[0]++) {
        for (c[1] = 0; c[1] < B; c[1]++)
            v(x, p++, 0, c);
        for (int k = B; k < PADB; k++)
            v(x, p++, 1, z);
    }
}

/* The visitor both enumerations call: folds the cell into a checksum. */
static void __attribute__((noinline)) visit(void *ctx, uint64_t pos, int kind, const int64_t *c)
{
    uint64_t *s = ctx;
    *s += pos ^ (uint64_t)kind ^ (uint64_t)(c[0] * 31 + c[1]);
}

static uint64_t sink;

/* Both kinds of function are called through a pointer, never inlined or specialized (GCC would
 * otherwise clone the timing loops for the constant hand-written functions). */
#if defined(__clang__)
#define NOIPA __attribute__((noinline))
#else
#define NOIPA __attribute__((noipa))
#endif
static NOIPA double time_cell(CellFn f, uint64_t n)
{
    double t0 = bench_cpu_seconds();
    uint64_t s = 0;
    int64_t c[2];
    for (uint64_t p = 0; p < n; p++)
        s += (uint64_t)f(p, c) + (uint64_t)(c[0] * 31 + c[1]);
    sink += s;
    return bench_cpu_seconds() - t0;
}

static NOIPA double time_each(EachFn f)
{
    uint64_t s = 0;
    double t0 = bench_cpu_seconds();
    f(visit, &s);
    sink += s;
    return bench_cpu_seconds() - t0;
}

int main(void)
{
    Prog *p = prog_new();
    if (prog_parse(p, "bench", program, strlen(program))) {
        fprintf(stderr, "bench: program has errors\n");
        return 1;
    }
    CgOptions o = {.opt_level = 3};
    Jit *j = jit_new(p, &o, &p->diags);
    if (!j) {
        fprintf(stderr, "bench: JIT failed: %s\n", p->diags.head ? p->diags.head->msg : "?");
        return 1;
    }
    struct { const char *name; CellFn hc; EachFn he; } lay[] = {
        {"Row", c_row, e_row}, {"Tr", c_tr, e_tr}, {"Blk", c_blk, e_blk}, {"Pad", c_pad, e_pad}};
    Evaluator *ev = eval_new(p);
    Cell cell = {.coord = calloc(3, sizeof(uint64_t))};
    printf("address generation, Mpositions/s (median of %d runs; %llu positions per run, interpreter on the first 1/64)\n",
           RUNS, (unsigned long long)N);
    printf("%-5s %10s %10s %10s | %10s %10s | %9s %9s %9s\n", "type", "interp", "jit cell", "C cell", "jit each",
           "C each", "cell/int", "cell/C", "each/C");
    for (int l = 0; l < 4; l++) {
        char nm[32];
        snprintf(nm, sizeof nm, "%s_cell", lay[l].name);
        CellFn jc = (CellFn)jit_lookup(j, nm);
        snprintf(nm, sizeof nm, "%s_each", lay[l].name);
        EachFn je = (EachFn)jit_lookup(j, nm);
        const Map *m = prog_lookup(p, lay[l].name)->map;
        uint64_t n = m->size;
        double ti[RUNS], tjc[RUNS], thc[RUNS], tje[RUNS], the[RUNS];
        for (int r = 0; r < RUNS; r++) {
            double t0 = bench_cpu_seconds();
            for (uint64_t q = 0; q < n / 64; q++)
                eval_cell(ev, m, q, &cell), sink += cell.coord[0];
            ti[r] = (bench_cpu_seconds() - t0) * 64;
            tjc[r] = time_cell(jc, n);
            thc[r] = time_cell(lay[l].hc, n);
            tje[r] = time_each(je);
            the[r] = time_each(lay[l].he);
        }
        double mi = bench_median(ti, RUNS), mjc = bench_median(tjc, RUNS), mhc = bench_median(thc, RUNS),
               mje = bench_median(tje, RUNS), mhe = bench_median(the, RUNS);
        double s = (double)n / 1e6;
        printf("%-5s %10.1f %10.1f %10.1f | %10.1f %10.1f | %8.0fx %8.2fx %8.2fx\n", lay[l].name, s / mi, s / mjc,
               s / mhc, s / mje, s / mhe, mi / mjc, mhc / mjc, mhe / mje);
    }
    printf("(ratios: cell/int = JIT E_cell speed over the interpreter; cell/C and each/C = JIT speed over\n"
           " hand-written C, 1.00x = equal; checksum %llu)\n", (unsigned long long)(sink & 0xffff));
    free(cell.coord);
    eval_free(ev);
    jit_free(j);
    prog_free(p);
    return 0;
}
