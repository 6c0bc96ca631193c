/* test_equiv_large.c — the equivalence decision on mappings of 2^32..2^60 positions, far beyond
 * enumeration: a small generated mapping E between large mappings X1 (major) and X2 (minor) over
 * extra axes, whose verdict, smallest differing position and cells are known from E alone.
 *
 * Usage: test_equiv_large [SEED [COUNT [FIRST]]]   (defaults 1, 60, 0)
 * Mapping i comes from its own generator seeded with rng_case_seed(SEED, i, RNG_KEY_GAMMA); a failure
 * prints the command that reruns it alone.
 *
 * Why the expectation is exact: the extra axes are disjoint from E's, so the cell of
 * [X1, E, X2] at (i, e, j) is a function of the three part cells; X1 and X2 are identical (or
 * equivalent by construction) on both sides, and position 0 of any mapping is {} (no padding,
 * no overflow). Hence [X1, E, X2] ≡ [X1', E', X2'] iff E ≡ E', and otherwise the smallest
 * difference is e·|X2| where e is E's smallest difference, with E's two cells there. */
#include "algebra/algebra.h"
#include "eqgen.h"
#include "front/front.h"
#include "harness.h"
#include "mapgen.h"
#include "prog_text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    long equivalent, differing;
    double max_seconds, total_seconds;
    long decisions;
    uint64_t min_size, max_size, max_pos;
} Run;

/* Adds the two mappings of the failure just reported and the program to it. */
static void detail_pair(const char *a, const char *b, const char *src)
{
    harness_detail("E1 = %s", a);
    harness_detail("E2 = %s", b);
    harness_detail("program:\n%s", src);
}

/* Decides big1 vs big2 and checks against the expectation derived from small1 vs small2. */
static void check(Run *r, Prog *p, Evaluator *ref, const Map *s1, const Map *s2, const Map *b1, const Map *b2,
                  uint64_t minor_size, const char *src)
{
    int n = p->naxes + 1;
    EqvResult want = {.c1.coord = calloc((size_t)n, 8), .c2.coord = calloc((size_t)n, 8)};
    EqvResult got = {.c1.coord = calloc((size_t)n, 8), .c2.coord = calloc((size_t)n, 8)};
    char *t1 = eqgen_print(p, b1), *t2 = eqgen_print(p, b2);
    if (eqv_exhaustive(ref, s1, s2, BUDGET, &want) != EVAL_OK || want.verdict == EQV_UNKNOWN) {
        FAIL("the reference cannot decide the small parts");
        detail_pair(t1, t2, src);
        goto out;
    }
    Eqv *q = eqv_new(p);
    eqv_set_fast_paths(q, false, 0); /* the symbolic procedure alone */
    double t0 = harness_cpu_seconds(); /* CPU time: the machine is shared */
    eqv_decide(q, b1, b2, &got);
    double dt = harness_cpu_seconds() - t0;
    r->decisions++;
    r->total_seconds += dt;
    if (dt > r->max_seconds)
        r->max_seconds = dt;
    if (b1->size < r->min_size || !r->min_size)
        r->min_size = b1->size;
    if (b1->size > r->max_size)
        r->max_size = b1->size;
    if (!CHECK_EQ_INT(got.verdict, want.verdict, "the verdict of the small parts (%s)",
                      got.verdict == EQV_UNKNOWN ? eqv_error(q) : "decided")) {
        detail_pair(t1, t2, src);
    } else if (want.verdict == EQV_CELLS_DIFFER) {
        uint64_t pos = want.pos * minor_size;
        char *g1 = harness_cell_text(p, &got.c1), *g2 = harness_cell_text(p, &got.c2);
        char *w1 = harness_cell_text(p, &want.c1), *w2 = harness_cell_text(p, &want.c2);
        if (CHECK(got.pos == pos && !strcmp(g1, w1) && !strcmp(g2, w2),
                  "the first difference: position %" PRIu64 ": %s vs %s; expected position %" PRIu64 ": %s vs %s",
                  got.pos, g1, g2, pos, w1, w2)) {
            r->differing++;
            if (pos > r->max_pos)
                r->max_pos = pos;
        } else {
            detail_pair(t1, t2, src);
        }
        free(g1), free(g2), free(w1), free(w2);
    } else {
        r->equivalent += want.verdict == EQV_EQUIVALENT;
    }
    if (!CHECK(dt <= LIMIT_SECONDS, "decided in %.3f CPU seconds (limit %.1f s)", dt, LIMIT_SECONDS))
        detail_pair(t1, t2, src);
    eqv_free(q);
out:
    free(t1), free(t2);
    free(want.c1.coord), free(want.c2.coord), free(got.c1.coord), free(got.c2.coord);
}

/* Both large pairs of mapping `index` of the run seeded with seed. */
static void run_one(Run *r, uint64_t seed, uint64_t index)
{
    MapGen g;
    MapGenOpts o = {.max_size = 64, .max_depth = 3, .max_axes = 3, .max_types = 1};
    mapgen_init(&g, rng_case_seed(seed, index, RNG_KEY_GAMMA), &o);
    harness_case(index);
    char *gen = mapgen_program(&g);
    size_t len = strlen(gen) + sizeof big_axes;
    char *src = malloc(len);
    snprintf(src, len, "%s%s", big_axes, gen);
    free(gen);
    Prog *p = prog_new();
    if (prog_parse(p, "<gen>", src, strlen(src)) != 0) {
        FAIL("the program does not parse");
        detail_pair("-", "-", src);
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
            FAIL("a large mapping does not parse");
            detail_pair(b1, b2, src);
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
    HarnessArgs a = {.seed = 1, .count = 60};
    harness_args(argc, argv, "[SEED [COUNT [FIRST]]]", &a);
    Run r = {0};
    for (uint64_t i = a.first; i < a.first + a.count; i++)
        run_one(&r, a.seed, i);
    printf("seed %" PRIu64 ": %ld large decisions (%ld equivalent, %ld differing, sizes %" PRIu64 "..%" PRIu64
           ", farthest first difference %" PRIu64 "), mean %.1f ms, max %.1f ms\n",
           a.seed, r.decisions, r.equivalent, r.differing, r.min_size, r.max_size, r.max_pos,
           r.decisions ? 1e3 * r.total_seconds / (double)r.decisions : 0.0, 1e3 * r.max_seconds);
    return harness_report();
}
