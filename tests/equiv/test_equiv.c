/* test_equiv.c — the equivalence decision and the normal form against exhaustive interpretation
 * on generated pairs: equivalent by construction (SPEC §4 identities) and mutated ones.
 *
 * Usage: test_equiv [SEED [COUNT [FIRST [MODE]]]]   (defaults 1, 10000, 0, "all")
 * Mapping i comes from its own generator seeded with mix(SEED, i); a failure prints the command
 * that reruns it alone. MODE "isl" decides with the fast paths off (the symbolic procedure
 * alone), "fast" with them on, "all" both; a "-small" suffix ("isl-small", ...) draws small mappings
 * (depth <= 3, |E| <= 64, one helper type) instead of the generator's defaults. Two pairs per mapping: (E, rewrite) and (E, mutant). */
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

typedef struct Run {
    uint64_t seed, index;
    const char *mode;
    long passed, failed;
    long pairs, eq_pairs, ne_pairs, size_diff, unknown;
    long canon_in, canon_in_same, canon_out, canon_out_same;
    const char *program;
    double isl_seconds;
    EqvStats paths;     /* how the decisions were reached */
} Run;

static uint64_t mix(uint64_t seed, uint64_t i)
{
    MapGen g;
    mapgen_init(&g, seed ^ (i * UINT64_C(0xD1B54A32D192ED03)), NULL);
    return mapgen_next(&g);
}

/* Generator profiles: "small" (the bulk: shallow, few helper types, |E| <= 64) and the
 * generator's defaults. */
static MapGenOpts profile_opts(const char *mode)
{
    if (strstr(mode, "small"))
        return (MapGenOpts){.max_size = 64, .max_depth = 3, .max_axes = 3, .max_types = 1};
    return (MapGenOpts){0};
}

static void fail(Run *r, const char *fmt, const char *a, const char *b, const char *detail)
{
    r->failed++;
    if (r->failed > 20)
        return;
    fprintf(stderr, "FAIL seed %" PRIu64 " index %" PRIu64 " (rerun: test_equiv %" PRIu64 " 1 %" PRIu64 " %s): ",
            r->seed, r->index, r->seed, r->index, r->mode);
    fprintf(stderr, fmt, detail);
    fprintf(stderr, "\n  E1 = %s\n  E2 = %s\nprogram:\n%s", a, b ? b : "-", r->program);
}

static char *text_of(const Prog *p, const Map *m)
{
    size_t n = map_format(p, m, NULL, 0);
    char *s = malloc(n + 1);
    map_format(p, m, s, n + 1);
    return s;
}

static char *cell_text(const Prog *p, const Cell *c)
{
    size_t n = cell_format(p, c, NULL, 0);
    char *s = malloc(n + 1);
    cell_format(p, c, s, n + 1);
    return s;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One pair: the decision (fast paths as given) against the exhaustive reference. */
static void check_pair(Run *r, Prog *p, Evaluator *ref, Eqv *q, const Map *a, const Map *b, bool fast,
                       int expect_equiv /* 1 by construction, -1 unknown */)
{
    int n = p->naxes + 1;
    EqvResult want = {.c1.coord = calloc((size_t)n, 8), .c2.coord = calloc((size_t)n, 8)};
    EqvResult got = {.c1.coord = calloc((size_t)n, 8), .c2.coord = calloc((size_t)n, 8)};
    char *ta = eqgen_print(p, a), *tb = eqgen_print(p, b);
    r->pairs++;
    if (eqv_exhaustive(ref, a, b, BUDGET, &want) != EVAL_OK || want.verdict == EQV_UNKNOWN) {
        fail(r, "the reference cannot decide (%s)", ta, tb, eval_error(ref));
        goto out;
    }
    if (expect_equiv == 1 && want.verdict != EQV_EQUIVALENT) {
        fail(r, "the rewrite is not equivalent by the reference%s", ta, tb, "");
        goto out;
    }
    eqv_set_fast_paths(q, fast, fast ? 64 : 0);
    double t0 = now();
    eqv_decide(q, a, b, &got);
    if (!fast)
        r->isl_seconds += now() - t0;
    if (got.verdict == EQV_UNKNOWN) {
        r->unknown++;
        fail(r, "unknown: %s", ta, tb, eqv_error(q));
        goto out;
    }
    if (got.verdict != want.verdict) {
        char d[64];
        snprintf(d, sizeof d, "%d vs reference %d", (int)got.verdict, (int)want.verdict);
        fail(r, "verdict %s", ta, tb, d);
        goto out;
    }
    if (want.verdict == EQV_EQUIVALENT)
        r->eq_pairs++;
    else if (want.verdict == EQV_SIZES_DIFFER)
        r->size_diff++;
    else
        r->ne_pairs++;
    if (want.verdict == EQV_CELLS_DIFFER) {
        char *g1 = cell_text(p, &got.c1), *g2 = cell_text(p, &got.c2);
        char *w1 = cell_text(p, &want.c1), *w2 = cell_text(p, &want.c2);
        if (got.pos != want.pos || strcmp(g1, w1) || strcmp(g2, w2)) {
            char d[512];
            snprintf(d, sizeof d, "position %" PRIu64 ": %s vs %s; reference position %" PRIu64 ": %s vs %s", got.pos,
                     g1, g2, want.pos, w1, w2);
            fail(r, "%s", ta, tb, d);
            free(g1), free(g2), free(w1), free(w2);
            goto out;
        }
        free(g1), free(g2), free(w1), free(w2);
    }
    r->passed++;
out:
    free(ta);
    free(tb);
    free(want.c1.coord), free(want.c2.coord), free(got.c1.coord), free(got.c2.coord);
}

/* norm(E): equivalent to E (exhaustive), idempotent, and the printed form parses back to it. */
static const Map *check_norm(Run *r, Prog *p, Evaluator *ref, const Map *e)
{
    const Map *n = norm_map(&p->arena, e);
    char *te = eqgen_print(p, e), *tn = text_of(p, n);
    int k = p->naxes + 1;
    EqvResult w = {.c1.coord = calloc((size_t)k, 8), .c2.coord = calloc((size_t)k, 8)};
    if (eqv_exhaustive(ref, e, n, BUDGET, &w) != EVAL_OK || w.verdict != EQV_EQUIVALENT)
        fail(r, "norm is not equivalent: %s", te, tn, w.verdict == EQV_CELLS_DIFFER ? "cells differ" : "sizes differ");
    else
        r->passed++;
    if (!norm_equal(norm_map(&p->arena, n), n))
        fail(r, "norm is not idempotent%s", te, tn, "");
    else
        r->passed++;
    const Map *back = prog_parse_map(p, "<norm>", tn);
    if (!back || !norm_equal(back, n))
        fail(r, "the printed normal form does not parse back to itself%s", te, tn, "");
    else
        r->passed++;
    free(te);
    free(tn);
    free(w.c1.coord), free(w.c2.coord);
    return n;
}

/* Whether the reference finds a and b not equivalent. */
static bool differs(Prog *p, Evaluator *ref, const Map *a, const Map *b)
{
    int n = p->naxes + 1;
    EqvResult w = {.c1.coord = calloc((size_t)n, 8), .c2.coord = calloc((size_t)n, 8)};
    bool d = eqv_exhaustive(ref, a, b, BUDGET, &w) == EVAL_OK && (w.verdict == EQV_CELLS_DIFFER || w.verdict == EQV_SIZES_DIFFER);
    free(w.c1.coord), free(w.c2.coord);
    return d;
}

static void run_one(Run *r, bool isl, bool fast)
{
    MapGen g;
    MapGenOpts o = profile_opts(r->mode);
    mapgen_init(&g, mix(r->seed, r->index), &o);
    char *src = mapgen_program(&g);
    r->program = src;
    Prog *p = prog_new();
    if (prog_parse(p, "<gen>", src, strlen(src)) != 0) {
        fail(r, "the generated program does not parse%s", "-", NULL, "");
        goto out;
    }
    const Map *e = prog_lookup(p, "E")->map;
    Evaluator *ref = eval_new(p);
    eval_set_budget(ref, BUDGET);
    Eqv *q = eqv_new(p);

    char *eq_text = eqgen_equivalent(&g, p, e);
    const Map *e2 = prog_parse_map(p, "<rewrite>", eq_text);
    if (!e2) {
        fail(r, "the rewrite does not parse%s", eq_text, NULL, "");
    } else {
        if (isl)
            check_pair(r, p, ref, q, e, e2, false, 1);
        if (fast)
            check_pair(r, p, ref, q, e, e2, true, 1);
        const Map *n1 = check_norm(r, p, ref, e);
        const Map *n2 = check_norm(r, p, ref, e2);
        bool same = norm_equal(n1, n2);
        if (norm_in_fragment(e) && norm_in_fragment(e2)) {
            r->canon_in++;
            r->canon_in_same += same;
            if (!same) {
                char *t1 = text_of(p, n1), *t2 = text_of(p, n2);
                fail(r, "equivalent mappings of the canonical fragment get different normal forms%s", t1, t2, "");
                free(t1), free(t2);
            } else {
                r->passed++;
            }
        } else {
            r->canon_out++;
            r->canon_out_same += same;
        }
    }
    free(eq_text);

    /* a mutant, preferably one the reference finds not equivalent (most are; some mutations
     * land on an equivalent mapping, and some texts are not well-formed) */
    const Map *m = NULL;
    for (int tries = 0; tries < 8; tries++) {
        char *mt = eqgen_mutant(&g, p, e);
        const Map *x = prog_parse_map(p, "<mutant>", mt);
        free(mt);
        if (!x)
            continue;
        m = x;
        if (differs(p, ref, e, x))
            break;
    }
    if (m) {
        if (isl)
            check_pair(r, p, ref, q, e, m, false, -1);
        if (fast)
            check_pair(r, p, ref, q, e, m, true, -1);
    }
    EqvStats st = eqv_stats(q);
    r->paths.by_norm += st.by_norm;
    r->paths.by_probe += st.by_probe;
    r->paths.by_isl += st.by_isl;
    r->paths.by_pointer += st.by_pointer;
    eqv_free(q);
    eval_free(ref);
out:
    prog_free(p);
    free(src);
}

/* A tiny operation budget must give "unknown" with a reason, never a verdict. */
static void budget_check(Run *r)
{
    static const char src[] = "axes![A = 6, B = 8, C = 5];\n";
    Prog *p = prog_new();
    prog_parse(p, "<budget>", src, strlen(src));
    const Map *a = prog_parse_map(p, "<a>", "m![[A # 8, C] / 4, B, [A # 8, C] % 4]");
    const Map *b = prog_parse_map(p, "<b>", "m![[A #{0} 8, C] / 4, B, [A # 8, C] % 4]");
    Eqv *q = eqv_new(p);
    eqv_set_fast_paths(q, false, 0);
    eqv_set_budget(q, 1000, EQV_DEFAULT_MAX_ITEMS);
    EqvResult res = {.c1.coord = calloc(4, 8), .c2.coord = calloc(4, 8)};
    eqv_decide(q, a, b, &res);
    r->program = src;
    if (res.verdict != EQV_UNKNOWN || !strstr(eqv_error(q), "budget"))
        fail(r, "a budget of 1000 isl operations did not answer unknown (%s)", "-", "-", eqv_error(q));
    else
        r->passed++;
    eqv_set_budget(q, EQV_DEFAULT_MAX_OPS, EQV_DEFAULT_MAX_ITEMS);
    eqv_decide(q, a, b, &res);
    if (res.verdict != EQV_CELLS_DIFFER)
        fail(r, "the default budget did not decide%s", "-", "-", "");
    else
        r->passed++;
    free(res.c1.coord), free(res.c2.coord);
    eqv_free(q);
    prog_free(p);
}

int main(int argc, char **argv)
{
    Run r = {.seed = 1, .mode = "all"};
    uint64_t count = 10000, first = 0;
    if (argc > 1)
        r.seed = strtoull(argv[1], NULL, 10);
    if (argc > 2)
        count = strtoull(argv[2], NULL, 10);
    if (argc > 3)
        first = strtoull(argv[3], NULL, 10);
    if (argc > 4)
        r.mode = argv[4];
    bool isl = strncmp(r.mode, "fast", 4) != 0, fast = strncmp(r.mode, "isl", 3) != 0;
    double t0 = now();
    for (uint64_t i = first; i < first + count; i++) {
        r.index = i;
        run_one(&r, isl, fast);
    }
    double t = now() - t0;
    printf("seed %" PRIu64 ", mappings %" PRIu64 "..%" PRIu64 ", mode %s: %ld pairs decided (%ld equivalent, %ld "
           "differing cells, %ld sizes differ, %ld unknown) in %.2f s (symbolic alone: %.2f s)\n",
           r.seed, first, first + count - 1, r.mode, r.pairs, r.eq_pairs, r.ne_pairs, r.size_diff, r.unknown, t,
           r.isl_seconds);
    printf("decided by: identical normal forms %lu, the probe of the first positions %lu, the symbolic "
           "procedure %lu\n",
           r.paths.by_norm, r.paths.by_probe, r.paths.by_isl);
    budget_check(&r);
    printf("normal forms of equivalent pairs: identical in %ld/%ld inside the canonical fragment, %ld/%ld (%.1f%%) "
           "outside it\n",
           r.canon_in_same, r.canon_in, r.canon_out_same, r.canon_out,
           r.canon_out ? 100.0 * (double)r.canon_out_same / (double)r.canon_out : 0.0);
    printf("%ld passed, %ld failed\n", r.passed, r.failed);
    return r.failed ? 1 : 0;
}
