/* prop_identities.c — every docs/language.md §4 identity, checked exhaustively on generated mappings, plus
 * the map_format round trip.
 *
 * Usage: prop_identities [SEED [COUNT [FIRST]]]   (defaults 1, 10000, 0)
 * Mapping i (FIRST <= i < FIRST + COUNT) comes from its own generator seeded with
 * rng_case_seed(SEED, i, RNG_KEY_CASE), so one failing mapping reruns alone with COUNT 1 and FIRST i
 * (every failure prints that command). */
#include "core/ast.h"
#include "front/front.h"
#include "eval/eval.h"
#include "harness.h"
#include "mapgen.h"
#include "prog_text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUDGET (UINT64_C(1) << 20)

/* The generator's options here (prop_coverage checks that they still produce every construct):
 * |E| <= 512 and depth 4 keep 10,000 mappings at about 15 s in a debugoptimized build (the
 * interpreter allocates per position, so sanitizers slow it down about tenfold). */
static const MapGenOpts gen_opts = {.max_size = 512, .max_depth = 4};


static const Map *type_map(const Prog *p, const char *name)
{
    const Name *n = prog_lookup(p, name);
    return n && n->kind == NAME_TYPE ? n->map : NULL;
}

/* One case: lhs ≡ rhs (two type names of p), decided exhaustively; src is the program. */
static void check_eqv(Prog *p, Evaluator *ev, const char *src, const char *what, const char *lhs, const char *rhs)
{
    const Map *a = type_map(p, lhs), *b = type_map(p, rhs);
    if (!a || !b) {
        FAIL("%s: type %s or %s is missing", what, lhs, rhs);
        harness_detail("program:\n%s", src);
        return;
    }
    uint64_t c1[MAPGEN_MAX_AXES + 8], c2[MAPGEN_MAX_AXES + 8];
    EqvResult res = {.c1.coord = c1, .c2.coord = c2};
    EvalStatus st = eqv_exhaustive(ev, a, b, BUDGET, &res);
    if (CHECK(st == EVAL_OK && res.verdict == EQV_EQUIVALENT, "%s", what))
        return;
    if (st != EVAL_OK) {
        harness_detail("undecided: %s", eval_error(ev));
    } else if (res.verdict == EQV_SIZES_DIFFER) {
        harness_detail("sizes %" PRIu64 " vs %" PRIu64, a->size, b->size);
    } else if (res.verdict == EQV_CELLS_DIFFER) {
        char s1[256], s2[256];
        cell_format(p, &res.c1, s1, sizeof s1);
        cell_format(p, &res.c2, s2, sizeof s2);
        harness_detail("%s vs %s: position %" PRIu64 ": %s vs %s", lhs, rhs, res.pos, s1, s2);
    } else {
        harness_detail("unknown (budget)");
    }
    harness_detail("program:\n%s", src);
}

/* The map_format round trip of one type: prints, parses back, prints identically, equivalent. */
static void check_format(Prog *p, Evaluator *ev, const char *src, const char *name)
{
    const Map *e = type_map(p, name);
    char *text = harness_map_text(p, e);
    int before = p->diags.count;
    const Map *back = prog_parse_map(p, "<format>", text);
    if (!CHECK(back && p->diags.count == before, "map_format output of %s parses back", name)) {
        harness_detail("printed: %s", text);
        harness_detail_diags(p);
        harness_detail("program:\n%s", src);
        free(text);
        return;
    }
    char *text2 = harness_map_text(p, back);
    if (!CHECK_EQ_STR(text2, text, "map_format output of %s prints identically after parsing", name))
        harness_detail("program:\n%s", src);
    uint64_t c1[MAPGEN_MAX_AXES + 8], c2[MAPGEN_MAX_AXES + 8];
    EqvResult res = {.c1.coord = c1, .c2.coord = c2};
    if (!CHECK(eqv_exhaustive(ev, e, back, BUDGET, &res) == EVAL_OK && res.verdict == EQV_EQUIVALENT,
               "map_format output of %s is equivalent", name)) {
        harness_detail("printed: %s (verdict %d, position %" PRIu64 ")", text, (int)res.verdict, res.pos);
        harness_detail("program:\n%s", src);
    }
    free(text);
    free(text2);
}

/* All identities for mapping `index` of the run seeded with seed. */
static void run_one(uint64_t seed, uint64_t index)
{
    MapGen g;
    mapgen_init(&g, rng_case_seed(seed, index, RNG_KEY_CASE), &gen_opts);
    harness_case(index);
    char *prog = mapgen_program(&g);
    uint64_t n = g.main_size;

    /* L, R, S with |L|·|R|·|S| <= 512, for the pair identities. */
    uint64_t ls, rs, ss;
    char *L = mapgen_expr(&g, 64, &ls);
    char *R = mapgen_expr(&g, 512 / ls, &rs);
    char *S = mapgen_expr(&g, 512 / ls / rs, &ss);

    /* Divisors of |E|: 1, |E| and up to two others. */
    uint64_t divs[4] = {1, n}, nd = 2;
    for (int tries = 0; tries < 8 && nd < 4; tries++) {
        uint64_t d = 1 + mapgen_below(&g, n);
        if (n % d == 0 && d != 1 && d != n && (nd == 2 || divs[2] != d))
            divs[nd++] = d;
    }

    char *src = harness_append(NULL, "%s", prog);
    src = harness_append(src, "type Ia = m![{E}, 1];\ntype Ib = m![1, {E}];\n");
    for (uint64_t i = 0; i < nd; i++)
        src = harness_append(src, "type Sp%" PRIu64 " = m![{E} / %" PRIu64 ", {E} %% %" PRIu64 "];\n", i, divs[i],
                             divs[i]);
    src = harness_append(src, "type Str1 = m![{E} / 1];\ntype Padn = m![{E} # %" PRIu64 "];\n", n);
    src = harness_append(src, "type Resn = m![{E} = %" PRIu64 "];\n", n);
    src = harness_append(src, "type Mod1 = m![{E} %% 1];\ntype One = m![1];\n");
    src = harness_append(src, "type Lt = %s;\ntype Rt = %s;\ntype St = %s;\n", L, R, S);
    src = harness_append(src, "type LRs = m![[{Lt}, {Rt}] / %" PRIu64 "];\n", rs);
    src = harness_append(src, "type LRm = m![[{Lt}, {Rt}] %% %" PRIu64 "];\n", rs);
    src = harness_append(src, "type AsL = m![[{Lt}, {Rt}], {St}];\ntype AsR = m![{Lt}, [{Rt}, {St}]];\n");
    Prog *p = prog_new();
    if (prog_parse(p, "<gen>", src, strlen(src)) != 0) {
        FAIL("the generated program does not parse");
        harness_detail_diags(p);
        harness_detail("program:\n%s", src);
    } else {
        Evaluator *ev = eval_new(p);
        check_eqv(p, ev, src, "E = [E, 1]", "E", "Ia");
        check_eqv(p, ev, src, "E = [1, E]", "E", "Ib");
        for (uint64_t i = 0; i < nd; i++) {
            char name[32], what[96];
            snprintf(name, sizeof name, "Sp%" PRIu64, i);
            snprintf(what, sizeof what, "E = [E / n, E %% n] with n = %" PRIu64, divs[i]);
            check_eqv(p, ev, src, what, "E", name);
        }
        check_eqv(p, ev, src, "E = E / 1", "E", "Str1");
        check_eqv(p, ev, src, "E = E # |E|", "E", "Padn");
        check_eqv(p, ev, src, "E = E = |E|", "E", "Resn");
        check_eqv(p, ev, src, "E % 1 = 1", "Mod1", "One");
        check_eqv(p, ev, src, "[L, R] / |R| = L", "LRs", "Lt");
        check_eqv(p, ev, src, "[L, R] % |R| = R", "LRm", "Rt");
        check_eqv(p, ev, src, "[[L, R], S] = [L, [R, S]]", "AsL", "AsR");
        check_format(p, ev, src, "E");
        check_format(p, ev, src, "Lt");
        eval_free(ev);
    }
    prog_free(p);
    free(src);
    free(prog);
    free(L);
    free(R);
    free(S);
}

int main(int argc, char **argv)
{
    HarnessArgs a = {.seed = 1, .count = 10000};
    harness_args(argc, argv, "[SEED [COUNT [FIRST]]]", &a);
    for (uint64_t i = a.first; i < a.first + a.count; i++) {
        run_one(a.seed, i);
        if (harness_failed() > 50) {
            fprintf(stderr, "stopping after 50 failures\n");
            break;
        }
    }
    printf("seed %" PRIu64 ", mappings %" PRIu64 "..%" PRIu64 "\n", a.seed, a.first, a.first + a.count - 1);
    return harness_report();
}
