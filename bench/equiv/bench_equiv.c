/* bench_equiv.c — decisions per second and median latency of the equivalence decision on
 * generated pairs, by size, side by side with exhaustive interpretation where that is feasible.
 *
 * Usage: bench-equiv [PAIRS_PER_ROW]   (default 400)
 * Pairs: a generated mapping E with a rewrite through docs/language.md §4 identities (equivalent) and with
 * a mutant (usually not), as in tests/equiv. Large rows put E between large parts over extra
 * axes (2^32..2^60 positions). Times are CPU times of this process. */
#include "algebra/algebra.h"
#include "bench.h"
#include "eqgen.h"
#include "front/front.h"
#include "mapgen.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Stat {
    double *t;
    int n;
    double total;
    int unknown;
} Stat;

static void stat_add(Stat *s, double dt)
{
    s->t[s->n++] = dt;
    s->total += dt;
}

/* The q-quantile of the latencies (sorts them); 0 without any. */
static double quantile(Stat *s, double q) { return s->n ? bench_quantile(s->t, s->n, q) : 0; }

static const char big_axes[] = "axes![P = 1048576, Q = 1000000, R = 49152, S = 4294967296];\n";
static const char *const minors[] = {"[Q % 1000, S / 256]", "[P % 65536, R]", "S", "[Q, P / 1024]",
                                     "[R # 50000, S / 1024]", "[R #{!} 65536, Q]"};
static const char *const majors[] = {"Q / 1000", "P / 65536", "[P / 4096, 1]", "S / 1048576"};

typedef enum { ROW_SMALL, ROW_DEFAULT, ROW_LARGE } RowKind;

/* One row: n pairs of the given kind; fills the three statistics. */
static void run_row(RowKind kind, int n, Stat *fast, Stat *sym, Stat *exh, uint64_t *lo, uint64_t *hi)
{
    MapGen g;
    MapGenOpts small = {.max_size = 64, .max_depth = 3, .max_axes = 3, .max_types = 1};
    *lo = UINT64_MAX;
    *hi = 0;
    for (int i = 0; fast->n < n; i++) {
        mapgen_init(&g, 1000003u * (uint64_t)i + (uint64_t)kind, kind == ROW_DEFAULT ? NULL : &small);
        char *gen = mapgen_program(&g);
        char *src = malloc(strlen(gen) + sizeof big_axes);
        if (!src)
            abort(); /* out of memory: the benchmark cannot go on */
        sprintf(src, "%s%s", kind == ROW_LARGE ? big_axes : "", gen);
        free(gen);
        Prog *p = prog_new();
        if (prog_parse(p, "<gen>", src, strlen(src)) != 0) {
            prog_free(p);
            free(src);
            continue;
        }
        const Map *e = prog_lookup(p, "E")->map;
        char *texts[2] = {eqgen_equivalent(&g, p, e), eqgen_mutant(&g, p, e)};
        char *te = eqgen_print(p, e);
        const char *major = majors[mapgen_below(&g, sizeof majors / sizeof *majors)];
        const char *minor = minors[mapgen_below(&g, sizeof minors / sizeof *minors)];
        for (int k = 0; k < 2 && fast->n < n; k++) {
            const Map *a = e, *b;
            if (kind == ROW_LARGE) {
                char b1[8192], b2[8192];
                snprintf(b1, sizeof b1, "m![%s, [%s], %s]", major, te + 2, minor);
                snprintf(b2, sizeof b2, "m![%s, [%s], %s]", major, texts[k] + 2, minor);
                a = prog_parse_map(p, "<b1>", b1);
                b = prog_parse_map(p, "<b2>", b2);
            } else {
                b = prog_parse_map(p, "<b>", texts[k]);
            }
            if (!a || !b || a->size != b->size) /* "sizes differ" is no decision worth timing */
                continue;
            if (a->size < *lo)
                *lo = a->size;
            if (a->size > *hi)
                *hi = a->size;
            int na = p->naxes + 1;
            EqvResult r = {.c1.coord = calloc((size_t)na, 8), .c2.coord = calloc((size_t)na, 8)};
            for (int mode = 0; mode < 2; mode++) {
                Eqv *q = eqv_new(p);
                eqv_set_fast_paths(q, mode == 0, mode == 0 ? 64 : 0);
                double t0 = bench_cpu_seconds();
                eqv_decide(q, a, b, &r);
                stat_add(mode == 0 ? fast : sym, bench_cpu_seconds() - t0);
                if (r.verdict == EQV_UNKNOWN)
                    (mode == 0 ? fast : sym)->unknown++;
                eqv_free(q);
            }
            if (kind != ROW_LARGE) {
                Evaluator *ev = eval_new(p);
                double t0 = bench_cpu_seconds();
                eqv_exhaustive(ev, a, b, UINT64_C(1) << 22, &r);
                stat_add(exh, bench_cpu_seconds() - t0);
                eval_free(ev);
            }
            free(r.c1.coord);
            free(r.c2.coord);
        }
        free(te);
        free(texts[0]);
        free(texts[1]);
        prog_free(p);
        free(src);
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 400;
    if (n < 1)
        n = 1;
    static const struct {
        RowKind kind;
        const char *name;
    } rows[] = {{ROW_SMALL, "small (depth 3)"}, {ROW_DEFAULT, "generator defaults"}, {ROW_LARGE, "large"}};
    printf("%d pairs of equal sizes per row (rewrites and mutants); CPU time; decisions/s = pairs / total time\n\n", n);
    printf("| pairs | positions | equiv (fast paths): dec/s, median, p90 | symbolic alone: dec/s, median, p90 | exhaustive: dec/s, median, p90 |\n");
    printf("|---|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        Stat f = {calloc((size_t)n, sizeof(double)), 0, 0, 0}, s = {calloc((size_t)n, sizeof(double)), 0, 0, 0},
             x = {calloc((size_t)n, sizeof(double)), 0, 0, 0};
        uint64_t lo, hi;
        run_row(rows[i].kind, n, &f, &s, &x, &lo, &hi);
        char range[64];
        if (rows[i].kind == ROW_LARGE)
            snprintf(range, sizeof range, "2^%d..2^%d", 63 - __builtin_clzll(lo), 64 - __builtin_clzll(hi - 1));
        else
            snprintf(range, sizeof range, "%" PRIu64 "..%" PRIu64, lo, hi);
        printf("| %s | %s | %.0f/s, %.3f ms, %.3f ms%s | %.0f/s, %.3f ms, %.3f ms%s | ", rows[i].name, range,
               f.n / f.total, 1e3 * quantile(&f, 0.5), 1e3 * quantile(&f, 0.9), f.unknown ? " (unknown!)" : "",
               s.n / s.total, 1e3 * quantile(&s, 0.5), 1e3 * quantile(&s, 0.9), s.unknown ? " (unknown!)" : "");
        if (x.n)
            printf("%.0f/s, %.3f ms, %.3f ms |\n", x.n / x.total, 1e3 * quantile(&x, 0.5), 1e3 * quantile(&x, 0.9));
        else
            printf("infeasible (2^32+ positions) |\n");
        free(f.t), free(s.t), free(x.t);
    }
    return 0;
}
