/* prop_identities.c — every SPEC §4 identity, checked exhaustively on generated mappings, plus
 * the map_format round trip.
 *
 * Usage: prop_identities [SEED [COUNT [FIRST]]]   (defaults 1, 10000, 0)
 * Mapping i (FIRST <= i < FIRST + COUNT) comes from its own generator seeded with
 * mix(SEED, i), so one failing mapping reruns alone with COUNT 1 and FIRST i. */
#include "core/ast.h"
#include "front/front.h"
#include "eval/eval.h"
#include "mapgen.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUDGET (UINT64_C(1) << 20)

/* The generator's options here (prop_coverage checks that they still produce every construct):
 * |E| <= 512 and depth 4 keep 10,000 mappings at about 15 s in a debugoptimized build (the
 * interpreter allocates per position, so sanitizers slow it down about tenfold). */
static const MapGenOpts gen_opts = {.max_size = 512, .max_depth = 4};

typedef struct Run {
    uint64_t seed, index;
    long passed, failed;
    const char *program;    /* the generated program of the current mapping */
} Run;

/* The seed of mapping i: independent streams per index. */
static uint64_t mix(uint64_t seed, uint64_t i)
{
    MapGen g;
    mapgen_init(&g, seed ^ (i * UINT64_C(0xD1B54A32D192ED03)), NULL);
    return mapgen_next(&g);
}

static void fail_header(Run *r, const char *what)
{
    fprintf(stderr, "FAIL seed %" PRIu64 " index %" PRIu64 " (rerun: prop_identities %" PRIu64 " 1 %" PRIu64 "): %s\n",
            r->seed, r->index, r->seed, r->index, what);
    fprintf(stderr, "program:\n%s", r->program);
}

static void print_diags(const Prog *p)
{
    for (const Diag *d = p->diags.head; d; d = d->next) {
        char buf[2048];
        diag_format(d, buf, sizeof buf);
        fprintf(stderr, "%s", buf);
    }
}

static const Map *type_map(const Prog *p, const char *name)
{
    const Name *n = prog_lookup(p, name);
    return n && n->kind == NAME_TYPE ? n->map : NULL;
}

/* One case: lhs ≡ rhs (two type names of p), decided exhaustively. */
static void check_eqv(Run *r, Prog *p, Evaluator *ev, const char *what, const char *lhs, const char *rhs)
{
    const Map *a = type_map(p, lhs), *b = type_map(p, rhs);
    if (!a || !b) {
        r->failed++;
        fail_header(r, what);
        fprintf(stderr, "  type %s or %s is missing\n", lhs, rhs);
        return;
    }
    uint64_t c1[MAPGEN_MAX_AXES + 8], c2[MAPGEN_MAX_AXES + 8];
    EqvResult res = {.c1.coord = c1, .c2.coord = c2};
    EvalStatus st = eqv_exhaustive(ev, a, b, BUDGET, &res);
    if (st == EVAL_OK && res.verdict == EQV_EQUIVALENT) {
        r->passed++;
        return;
    }
    r->failed++;
    fail_header(r, what);
    if (st != EVAL_OK) {
        fprintf(stderr, "  undecided: %s\n", eval_error(ev));
    } else if (res.verdict == EQV_SIZES_DIFFER) {
        fprintf(stderr, "  sizes %" PRIu64 " vs %" PRIu64 "\n", a->size, b->size);
    } else if (res.verdict == EQV_CELLS_DIFFER) {
        char s1[256], s2[256];
        cell_format(p, &res.c1, s1, sizeof s1);
        cell_format(p, &res.c2, s2, sizeof s2);
        fprintf(stderr, "  %s vs %s: position %" PRIu64 ": %s vs %s\n", lhs, rhs, res.pos, s1, s2);
    } else {
        fprintf(stderr, "  unknown (budget)\n");
    }
}

/* Appends printf text to a malloc'ed string. */
static char *append(char *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *append(char *s, const char *fmt, ...)
{
    size_t n = s ? strlen(s) : 0;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *t = realloc(s, n + (size_t)k + 1);
    if (!t)
        abort();
    va_start(ap, fmt);
    vsnprintf(t + n, (size_t)k + 1, fmt, ap);
    va_end(ap);
    return t;
}

/* The map_format round trip of one type: prints, parses back, prints identically, equivalent. */
static void check_format(Run *r, Prog *p, Evaluator *ev, const char *name)
{
    const Map *e = type_map(p, name);
    size_t need = map_format(p, e, NULL, 0);
    char *text = malloc(need + 1);
    map_format(p, e, text, need + 1);
    int before = p->diags.count;
    const Map *back = prog_parse_map(p, "<format>", text);
    if (!back || p->diags.count != before) {
        r->failed++;
        fail_header(r, "map_format output parses back");
        fprintf(stderr, "  printed: %s\n", text);
        print_diags(p);
        free(text);
        return;
    }
    size_t need2 = map_format(p, back, NULL, 0);
    char *text2 = malloc(need2 + 1);
    map_format(p, back, text2, need2 + 1);
    if (strcmp(text, text2) != 0) {
        r->failed++;
        fail_header(r, "map_format output prints identically after parsing");
        fprintf(stderr, "  first:  %s\n  second: %s\n", text, text2);
    } else {
        r->passed++;
    }
    uint64_t c1[MAPGEN_MAX_AXES + 8], c2[MAPGEN_MAX_AXES + 8];
    EqvResult res = {.c1.coord = c1, .c2.coord = c2};
    if (eqv_exhaustive(ev, e, back, BUDGET, &res) == EVAL_OK && res.verdict == EQV_EQUIVALENT) {
        r->passed++;
    } else {
        r->failed++;
        fail_header(r, "map_format output is equivalent");
        fprintf(stderr, "  printed: %s (verdict %d, position %" PRIu64 ")\n", text, (int)res.verdict, res.pos);
    }
    free(text);
    free(text2);
}

/* All identities for mapping `index`. */
static void run_one(Run *r, uint64_t index)
{
    MapGen g;
    mapgen_init(&g, mix(r->seed, index), &gen_opts);
    r->index = index;
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

    char *src = append(NULL, "%s", prog);
    src = append(src, "type Ia = m![{E}, 1];\ntype Ib = m![1, {E}];\n");
    for (uint64_t i = 0; i < nd; i++)
        src = append(src, "type Sp%" PRIu64 " = m![{E} / %" PRIu64 ", {E} %% %" PRIu64 "];\n", i, divs[i], divs[i]);
    src = append(src, "type Str1 = m![{E} / 1];\ntype Padn = m![{E} # %" PRIu64 "];\ntype Resn = m![{E} = %" PRIu64 "];\n", n, n);
    src = append(src, "type Mod1 = m![{E} %% 1];\ntype One = m![1];\n");
    src = append(src, "type Lt = %s;\ntype Rt = %s;\ntype St = %s;\n", L, R, S);
    src = append(src, "type LRs = m![[{Lt}, {Rt}] / %" PRIu64 "];\ntype LRm = m![[{Lt}, {Rt}] %% %" PRIu64 "];\n", rs, rs);
    src = append(src, "type AsL = m![[{Lt}, {Rt}], {St}];\ntype AsR = m![{Lt}, [{Rt}, {St}]];\n");
    r->program = src;

    Prog *p = prog_new();
    if (prog_parse(p, "<gen>", src, strlen(src)) != 0) {
        r->failed++;
        fail_header(r, "the generated program parses");
        print_diags(p);
    } else {
        Evaluator *ev = eval_new(p);
        check_eqv(r, p, ev, "E = [E, 1]", "E", "Ia");
        check_eqv(r, p, ev, "E = [1, E]", "E", "Ib");
        for (uint64_t i = 0; i < nd; i++) {
            char name[32], what[96];
            snprintf(name, sizeof name, "Sp%" PRIu64, i);
            snprintf(what, sizeof what, "E = [E / n, E %% n] with n = %" PRIu64, divs[i]);
            check_eqv(r, p, ev, what, "E", name);
        }
        check_eqv(r, p, ev, "E = E / 1", "E", "Str1");
        check_eqv(r, p, ev, "E = E # |E|", "E", "Padn");
        check_eqv(r, p, ev, "E = E = |E|", "E", "Resn");
        check_eqv(r, p, ev, "E % 1 = 1", "Mod1", "One");
        check_eqv(r, p, ev, "[L, R] / |R| = L", "LRs", "Lt");
        check_eqv(r, p, ev, "[L, R] % |R| = R", "LRm", "Rt");
        check_eqv(r, p, ev, "[[L, R], S] = [L, [R, S]]", "AsL", "AsR");
        check_format(r, p, ev, "E");
        check_format(r, p, ev, "Lt");
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
    Run r = {.seed = 1};
    uint64_t count = 10000, first = 0;
    if (argc > 1)
        r.seed = strtoull(argv[1], NULL, 0);
    if (argc > 2)
        count = strtoull(argv[2], NULL, 0);
    if (argc > 3)
        first = strtoull(argv[3], NULL, 0);
    for (uint64_t i = first; i < first + count; i++) {
        run_one(&r, i);
        if (r.failed > 50) {
            fprintf(stderr, "stopping after 50 failures\n");
            break;
        }
    }
    printf("seed %" PRIu64 ", mappings %" PRIu64 "..%" PRIu64 "\n", r.seed, first, first + count - 1);
    printf("%ld passed, %ld failed\n", r.passed, r.failed);
    return r.failed != 0;
}
