/* test_equiv.c — the equivalence decision and the normal form against exhaustive interpretation
 * on generated pairs: equivalent by construction (docs/language.md §4 identities) and mutated ones.
 *
 * Usage: test_equiv [SEED [COUNT [FIRST [MODE]]]]   (defaults 1, 10000, 0, "all")
 * Mapping i comes from its own generator seeded with rng_case_seed(SEED, i, RNG_KEY_CASE); a failure
 * prints the command that reruns it alone. MODE "isl" decides with the fast paths off (the symbolic procedure
 * alone), "fast" with them on, "all" both; a "-small" suffix ("isl-small", ...) draws small mappings
 * (depth <= 3, |E| <= 64, one helper type) instead of the generator's defaults. Two pairs per mapping:
 * (E, rewrite) and (E, mutant). */
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

typedef struct Run {
    const char *mode;
    long pairs, eq_pairs, ne_pairs, size_diff, unknown;
    long canon_in, canon_in_same, canon_out, canon_out_same;
    const char *program;    /* the generated program of the current mapping */
    double isl_seconds;
    EqvStats paths;     /* how the decisions were reached */
} Run;

/* Generator profiles: "small" (the bulk: shallow, few helper types, |E| <= 64) and the
 * generator's defaults. */
static MapGenOpts profile_opts(const char *mode)
{
    if (strstr(mode, "small"))
        return (MapGenOpts){.max_size = 64, .max_depth = 3, .max_axes = 3, .max_types = 1};
    return (MapGenOpts){0};
}

/* Adds the two mappings of the failure just reported and the program to it. */
static void detail_pair(const Run *r, const char *a, const char *b)
{
    harness_detail("E1 = %s", a);
    harness_detail("E2 = %s", b ? b : "-");
    harness_detail("program:\n%s", r->program);
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
        FAIL("the reference cannot decide (%s)", eval_error(ref));
        detail_pair(r, ta, tb);
        goto out;
    }
    if (expect_equiv == 1 && want.verdict != EQV_EQUIVALENT) {
        FAIL("the rewrite is not equivalent by the reference (verdict %d)", (int)want.verdict);
        detail_pair(r, ta, tb);
        goto out;
    }
    eqv_set_fast_paths(q, fast, fast ? 64 : 0);
    double t0 = harness_seconds();
    eqv_decide(q, a, b, &got);
    if (!fast)
        r->isl_seconds += harness_seconds() - t0;
    r->unknown += got.verdict == EQV_UNKNOWN;
    if (!CHECK_EQ_INT(got.verdict, want.verdict, "the verdict of the reference (fast paths %s; %s)",
                      fast ? "on" : "off", got.verdict == EQV_UNKNOWN ? eqv_error(q) : "decided")) {
        detail_pair(r, ta, tb);
        goto out;
    }
    if (want.verdict == EQV_EQUIVALENT)
        r->eq_pairs++;
    else if (want.verdict == EQV_SIZES_DIFFER)
        r->size_diff++;
    else
        r->ne_pairs++;
    if (want.verdict == EQV_CELLS_DIFFER) {
        char *g1 = harness_cell_text(p, &got.c1), *g2 = harness_cell_text(p, &got.c2);
        char *w1 = harness_cell_text(p, &want.c1), *w2 = harness_cell_text(p, &want.c2);
        if (!CHECK(got.pos == want.pos && !strcmp(g1, w1) && !strcmp(g2, w2),
                   "the first difference: position %" PRIu64 ": %s vs %s; reference position %" PRIu64 ": %s vs %s",
                   got.pos, g1, g2, want.pos, w1, w2))
            detail_pair(r, ta, tb);
        free(g1), free(g2), free(w1), free(w2);
    }
out:
    free(ta);
    free(tb);
    free(want.c1.coord), free(want.c2.coord), free(got.c1.coord), free(got.c2.coord);
}

/* norm(E): equivalent to E (exhaustive), idempotent, and the printed form parses back to it. */
static const Map *check_norm(Run *r, Prog *p, Evaluator *ref, const Map *e)
{
    const Map *n = norm_map(&p->arena, e);
    char *te = eqgen_print(p, e), *tn = harness_map_text(p, n);
    int k = p->naxes + 1;
    EqvResult w = {.c1.coord = calloc((size_t)k, 8), .c2.coord = calloc((size_t)k, 8)};
    if (!CHECK(eqv_exhaustive(ref, e, n, BUDGET, &w) == EVAL_OK && w.verdict == EQV_EQUIVALENT,
               "norm is equivalent (verdict %d)", (int)w.verdict))
        detail_pair(r, te, tn);
    if (!CHECK(norm_equal(norm_map(&p->arena, n), n), "norm is idempotent"))
        detail_pair(r, te, tn);
    const Map *back = prog_parse_map(p, "<norm>", tn);
    if (!CHECK(back && norm_equal(back, n), "the printed normal form parses back to itself"))
        detail_pair(r, te, tn);
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

/* Both pairs of mapping `index` of the run seeded with seed, decided as the mode says. */
static void run_one(Run *r, uint64_t seed, uint64_t index, bool isl, bool fast)
{
    MapGen g;
    MapGenOpts o = profile_opts(r->mode);
    mapgen_init(&g, rng_case_seed(seed, index, RNG_KEY_CASE), &o);
    harness_case(index);
    char *src = mapgen_program(&g);
    r->program = src;
    Prog *p = prog_new();
    if (prog_parse(p, "<gen>", src, strlen(src)) != 0) {
        FAIL("the generated program does not parse");
        detail_pair(r, "-", NULL);
        goto out;
    }
    const Map *e = prog_lookup(p, "E")->map;
    Evaluator *ref = eval_new(p);
    eval_set_budget(ref, BUDGET);
    Eqv *q = eqv_new(p);

    char *eq_text = eqgen_equivalent(&g, p, e);
    const Map *e2 = prog_parse_map(p, "<rewrite>", eq_text);
    if (!e2) {
        FAIL("the rewrite does not parse");
        detail_pair(r, eq_text, NULL);
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
            if (!CHECK(same, "equivalent mappings of the canonical fragment get the same normal form")) {
                char *t1 = harness_map_text(p, n1), *t2 = harness_map_text(p, n2);
                detail_pair(r, t1, t2);
                free(t1), free(t2);
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
static void budget_check(void)
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
    harness_context("the budget check");
    CHECK_EQ_INT(res.verdict, EQV_UNKNOWN, "a budget of 1000 isl operations answers unknown (%s)", eqv_error(q));
    CHECK(strstr(eqv_error(q), "budget"), "the reason names the budget: %s", eqv_error(q));
    eqv_set_budget(q, EQV_DEFAULT_MAX_OPS, EQV_DEFAULT_MAX_ITEMS);
    eqv_decide(q, a, b, &res);
    CHECK_EQ_INT(res.verdict, EQV_CELLS_DIFFER, "the default budget decides");
    free(res.c1.coord), free(res.c2.coord);
    eqv_free(q);
    prog_free(p);
}

int main(int argc, char **argv)
{
    HarnessArgs a = {.seed = 1, .count = 10000, .word = "all"};
    harness_args(argc, argv, "[SEED [COUNT [FIRST [MODE]]]]", &a);
    harness_report_limit(20);
    Run r = {.mode = a.word};
    bool isl = strncmp(r.mode, "fast", 4) != 0, fast = strncmp(r.mode, "isl", 3) != 0;
    double t0 = harness_seconds();
    for (uint64_t i = a.first; i < a.first + a.count; i++)
        run_one(&r, a.seed, i, isl, fast);
    double t = harness_seconds() - t0;
    printf("seed %" PRIu64 ", mappings %" PRIu64 "..%" PRIu64 ", mode %s: %ld pairs decided (%ld equivalent, %ld "
           "differing cells, %ld sizes differ, %ld unknown) in %.2f s (symbolic alone: %.2f s)\n",
           a.seed, a.first, a.first + a.count - 1, r.mode, r.pairs, r.eq_pairs, r.ne_pairs, r.size_diff, r.unknown, t,
           r.isl_seconds);
    printf("decided by: identical normal forms %lu, the probe of the first positions %lu, the symbolic "
           "procedure %lu\n",
           r.paths.by_norm, r.paths.by_probe, r.paths.by_isl);
    budget_check();
    printf("normal forms of equivalent pairs: identical in %ld/%ld inside the canonical fragment, %ld/%ld (%.1f%%) "
           "outside it\n",
           r.canon_in_same, r.canon_in, r.canon_out_same, r.canon_out,
           r.canon_out ? 100.0 * (double)r.canon_out_same / (double)r.canon_out : 0.0);
    return harness_report();
}
