/* test_equiv_large.c — the equivalence decision on mappings of 2^32..2^60 positions, far beyond
 * enumeration: a small generated mapping E between large mappings X1 (major) and X2 (minor) over
 * extra axes, whose verdict, smallest differing position and cells are known from E alone.
 *
 * Usage: test_equiv_large [SEED [COUNT [FIRST]]]   (defaults 1, 60, 0)
 *
 * Why the expectation is exact: the extra axes are disjoint from E's, so the cell of
 * [X1, E, X2] at (i, e, j) is a function of the three part cells; X1 and X2 are identical (or
 * equivalent by construction) on both sides, and position 0 of any mapping is {} (no padding,
 * no overflow). Hence [X1, E, X2] ≡ [X1', E', X2'] iff E ≡ E', and otherwise the smallest
 * difference is e·|X2| where e is E's smallest difference, with E's two cells there. */
#include "algebra/algebra.h"
#include "eqgen.h"
#include "mapgen.h"
#include "front/front.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUDGET (UINT64_C(1) << 20)
#define LIMIT_SECONDS 2.0 /* CPU seconds per decision: a guard against blow-ups; typical is milliseconds */

static const char big_axes[] = "axes![P = 1048576, Q = 1000000, R = 49152, S = 4294967296];\n";

/* Large parts and equivalent spellings of them (over the extra axes only). */
static const char *const minors[][2] = {
    {"[Q % 1000, S / 256]", "[[Q % 1000 / 10, Q % 10], [S / 65536, S / 256 % 256]]"},
    {"[P % 65536, R]", "[P % 65536 / 256, P % 256, R / 3, R % 3]"},
    {"S", "[S / 65536, S % 65536]"},
    {"[Q, P / 1024]", "[[Q / 1000, Q % 1000], P / 1024 # 1024]"},
    {"[R # 50000, S / 1024]", "[[R / 3, R % 3] # 50000, S / 1024 % 4194304]"},
    {"[R #{!} 65536, Q]", "[[R = 49152] #{!} 65536, Q / 1, 1]"},
};
static const char *const majors[][2] = {
    {"Q / 1000", "[Q / 100000, Q / 1000 % 100]"},
    {"P / 65536", "[P / 262144, P / 65536 % 4]"},
    {"[P / 4096, 1]", "P / 4096 # 256"},
    {"S / 1048576", "[S / 16777216, S / 1048576 % 16]"},
    {"[S / 1048576, 3]", "[S / 16777216, [S / 1048576 % 16, 3]]"},
};

typedef struct Run {
    uint64_t seed, index;
    long passed, failed, equivalent, differing;
    double max_seconds, total_seconds;
    long decisions;
    uint64_t min_size, max_size, max_pos;
} Run;

static uint64_t mix(uint64_t seed, uint64_t i)
{
    MapGen g;
    mapgen_init(&g, seed ^ (i * UINT64_C(0x9E3779B97F4A7C15)), NULL);
    return mapgen_next(&g);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); /* CPU time: the machine is shared */
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static char *cell_text(const Prog *p, const Cell *c)
{
    size_t n = cell_format(p, c, NULL, 0);
    char *s = malloc(n + 1);
    cell_format(p, c, s, n + 1);
    return s;
}

static void fail(Run *r, const char *what, const char *a, const char *b, const char *src)
{
    r->failed++;
    fprintf(stderr, "FAIL seed %" PRIu64 " index %" PRIu64 " (rerun: test_equiv_large %" PRIu64 " 1 %" PRIu64 "): %s\n"
            "  E1 = %s\n  E2 = %s\nprogram:\n%s",
            r->seed, r->index, r->seed, r->index, what, a, b, src);
}

/* Decides big1 vs big2 and checks against the expectation derived from small1 vs small2. */
static void check(Run *r, Prog *p, Evaluator *ref, const Map *s1, const Map *s2, const Map *b1, const Map *b2,
                  uint64_t minor_size, const char *src)
{
    int n = p->naxes + 1;
    EqvResult want = {.c1.coord = calloc((size_t)n, 8), .c2.coord = calloc((size_t)n, 8)};
    EqvResult got = {.c1.coord = calloc((size_t)n, 8), .c2.coord = calloc((size_t)n, 8)};
    char *t1 = eqgen_print(p, b1), *t2 = eqgen_print(p, b2);
    char what[1024];
    if (eqv_exhaustive(ref, s1, s2, BUDGET, &want) != EVAL_OK || want.verdict == EQV_UNKNOWN) {
        fail(r, "the reference cannot decide the small parts", t1, t2, src);
        goto out;
    }
    Eqv *q = eqv_new(p);
    eqv_set_fast_paths(q, false, 0); /* the symbolic procedure alone */
    double t0 = now();
    eqv_decide(q, b1, b2, &got);
    double dt = now() - t0;
    r->decisions++;
    r->total_seconds += dt;
    if (dt > r->max_seconds)
        r->max_seconds = dt;
    if (b1->size < r->min_size || !r->min_size)
        r->min_size = b1->size;
    if (b1->size > r->max_size)
        r->max_size = b1->size;
    if (got.verdict == EQV_UNKNOWN) {
        snprintf(what, sizeof what, "unknown: %s", eqv_error(q));
        fail(r, what, t1, t2, src);
    } else if (got.verdict != want.verdict) {
        snprintf(what, sizeof what, "verdict %d, expected %d", (int)got.verdict, (int)want.verdict);
        fail(r, what, t1, t2, src);
    } else if (want.verdict == EQV_CELLS_DIFFER) {
        uint64_t pos = want.pos * minor_size;
        char *g1 = cell_text(p, &got.c1), *g2 = cell_text(p, &got.c2);
        char *w1 = cell_text(p, &want.c1), *w2 = cell_text(p, &want.c2);
        if (got.pos != pos || strcmp(g1, w1) || strcmp(g2, w2)) {
            snprintf(what, sizeof what, "position %" PRIu64 ": %s vs %s; expected position %" PRIu64 ": %s vs %s",
                     got.pos, g1, g2, pos, w1, w2);
            fail(r, what, t1, t2, src);
        } else {
            r->passed++;
            r->differing++;
            if (pos > r->max_pos)
                r->max_pos = pos;
        }
        free(g1), free(g2), free(w1), free(w2);
    } else {
        r->passed++;
        r->equivalent += want.verdict == EQV_EQUIVALENT;
    }
    if (dt > LIMIT_SECONDS) {
        snprintf(what, sizeof what, "took %.3f s (limit %.1f s)", dt, LIMIT_SECONDS);
        fail(r, what, t1, t2, src);
    }
    eqv_free(q);
out:
    free(t1), free(t2);
    free(want.c1.coord), free(want.c2.coord), free(got.c1.coord), free(got.c2.coord);
}

static void run_one(Run *r)
{
    MapGen g;
    MapGenOpts o = {.max_size = 64, .max_depth = 3, .max_axes = 3, .max_types = 1};
    mapgen_init(&g, mix(r->seed, r->index), &o);
    char *gen = mapgen_program(&g);
    size_t len = strlen(gen) + sizeof big_axes;
    char *src = malloc(len);
    snprintf(src, len, "%s%s", big_axes, gen);
    free(gen);
    Prog *p = prog_new();
    if (prog_parse(p, "<gen>", src, strlen(src)) != 0) {
        fail(r, "the program does not parse", "-", "-", src);
        goto out;
    }
    const Map *e = prog_lookup(p, "E")->map;
    Evaluator *ref = eval_new(p);
    eval_set_budget(ref, BUDGET);

    int mi = (int)mapgen_below(&g, sizeof minors / sizeof *minors);
    int ma = (int)mapgen_below(&g, sizeof majors / sizeof *majors);
    char xt[256];
    snprintf(xt, sizeof xt, "m![%s]", minors[mi][0]);
    const Map *x2 = prog_parse_map(p, "<minor>", xt);
    char *te = eqgen_print(p, e);

    /* equivalent: both large parts respelled, E rewritten */
    char *rw = eqgen_equivalent(&g, p, e);
    const Map *e2 = prog_parse_map(p, "<rewrite>", rw);
    /* not equivalent: a mutant of E that the reference finds different (if one turns up) */
    const Map *mu = NULL;
    for (int tries = 0; tries < 8 && !mu; tries++) {
        char *mt = eqgen_mutant(&g, p, e);
        const Map *x = prog_parse_map(p, "<mutant>", mt);
        free(mt);
        if (!x || x->size != e->size)
            continue;
        int n = p->naxes + 1;
        EqvResult w = {.c1.coord = calloc((size_t)n, 8), .c2.coord = calloc((size_t)n, 8)};
        if (eqv_exhaustive(ref, e, x, BUDGET, &w) == EVAL_OK && w.verdict == EQV_CELLS_DIFFER)
            mu = x;
        free(w.c1.coord), free(w.c2.coord);
    }
    const char *others[2] = {rw, NULL};
    const Map *smalls[2] = {e2, mu};
    char *mut_text = mu ? eqgen_print(p, mu) : NULL;
    others[1] = mut_text;
    for (int k = 0; k < 2; k++) {
        if (!smalls[k] || !x2)
            continue;
        char b1[8192], b2[8192];
        snprintf(b1, sizeof b1, "m![%s, [%s], %s]", majors[ma][0], te + 2, minors[mi][0]);
        /* the first side keeps X1, X2; the second respells them when the small parts are equivalent */
        snprintf(b2, sizeof b2, "m![%s, [%s], %s]", majors[ma][k == 0], others[k] + 2, minors[mi][k == 0]);
        const Map *m1 = prog_parse_map(p, "<big1>", b1), *m2 = prog_parse_map(p, "<big2>", b2);
        if (!m1 || !m2) {
            fail(r, "a large mapping does not parse", b1, b2, src);
            continue;
        }
        check(r, p, ref, e, smalls[k], m1, m2, x2->size, src);
    }
    free(mut_text);
    free(rw);
    free(te);
    eval_free(ref);
out:
    prog_free(p);
    free(src);
}

int main(int argc, char **argv)
{
    Run r = {.seed = 1};
    uint64_t count = 60, first = 0;
    if (argc > 1)
        r.seed = strtoull(argv[1], NULL, 10);
    if (argc > 2)
        count = strtoull(argv[2], NULL, 10);
    if (argc > 3)
        first = strtoull(argv[3], NULL, 10);
    for (uint64_t i = first; i < first + count; i++) {
        r.index = i;
        run_one(&r);
    }
    printf("seed %" PRIu64 ": %ld large decisions (%ld equivalent, %ld differing, sizes %" PRIu64 "..%" PRIu64
           ", farthest first difference %" PRIu64 "), mean %.1f ms, max %.1f ms\n",
           r.seed, r.decisions, r.equivalent, r.differing, r.min_size, r.max_size, r.max_pos,
           r.decisions ? 1e3 * r.total_seconds / (double)r.decisions : 0.0, 1e3 * r.max_seconds);
    printf("%ld passed, %ld failed\n", r.passed, r.failed);
    return r.failed ? 1 : 0;
}
