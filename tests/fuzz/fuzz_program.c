/* fuzz_program.c — libFuzzer target: whole programs through the checks, the interpreter, the normal form and
 * the equivalence decision, each answer checked against exhaustive interpretation where that is cheap.
 *
 * The bytes are parsed and checked as one program. For every type defined without errors: a few positions
 * are evaluated (the decision procedure's interpreter), norm(E) is built and decided equivalent to E, and
 * consecutive pairs of types are decided with a small budget. Where both mappings have at most
 * EXHAUSTIVE_LIMIT positions, each verdict the decision reached (equivalent, sizes differ, cells differ at
 * the smallest position p) is compared with exhaustive interpretation. A crash, a sanitizer report, a leak,
 * a wrong verdict, or norm(E) found different from E is a finding. */
#include "algebra/algebra.h"
#include "core/ast.h"
#include "eval/eval.h"
#include "front/front.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INPUT 4096
/* The decision's budget: isl operations per decision and items per mapping (small: inputs must stay fast). */
#define EQV_OPS 200000UL
#define EQV_ITEMS 96
/* Mappings up to this many positions are also compared exhaustively. */
#define EXHAUSTIVE_LIMIT 2048
/* Types and pairs looked at per input. */
#define MAX_TYPES 12

/* A result with coordinate arrays for n axes (calloc'ed; free with result_free). */
static EqvResult result_new(int n)
{
    EqvResult r = {.c1.coord = calloc((size_t)n + 1, sizeof(uint64_t)),
                   .c2.coord = calloc((size_t)n + 1, sizeof(uint64_t))};
    if (!r.c1.coord || !r.c2.coord)
        abort();
    return r;
}

static void result_free(EqvResult *r)
{
    free(r->c1.coord);
    free(r->c2.coord);
}

/* Reports a wrong verdict on stderr and traps. */
static void wrong(const Prog *p, const Map *a, const Map *b, const char *what, const EqvResult *got,
                  const EqvResult *want)
{
    char ta[512], tb[512];
    map_format(p, a, ta, sizeof ta);
    map_format(p, b, tb, sizeof tb);
    fprintf(stderr, "%s\n  E1 = %s\n  E2 = %s\n  decision %d at %" PRIu64 ", exhaustive %d at %" PRIu64 "\n", what, ta,
            tb, (int)got->verdict, got->pos, (int)want->verdict, want->pos);
    __builtin_trap();
}

/* Decides a ≡ b with q and, when both are small, checks the verdict against exhaustive interpretation
 * by ref. must_equal: the pair is equivalent by construction (an answer "differ" is a finding). */
static void decide(const Prog *p, Eqv *q, Evaluator *ref, const Map *a, const Map *b, bool must_equal)
{
    EqvResult got = result_new(p->naxes), want = result_new(p->naxes);
    eqv_decide(q, a, b, &got);
    if (must_equal && (got.verdict == EQV_SIZES_DIFFER || got.verdict == EQV_CELLS_DIFFER))
        wrong(p, a, b, "norm(E) decided different from E", &got, &want);
    if (got.verdict != EQV_UNKNOWN && a->size <= EXHAUSTIVE_LIMIT && b->size <= EXHAUSTIVE_LIMIT &&
        eqv_exhaustive(ref, a, b, EXHAUSTIVE_LIMIT, &want) == EVAL_OK && want.verdict != EQV_UNKNOWN) {
        if (got.verdict != want.verdict)
            wrong(p, a, b, "the decision disagrees with exhaustive interpretation", &got, &want);
        if (got.verdict == EQV_CELLS_DIFFER && got.pos != want.pos)
            wrong(p, a, b, "the decision names another first difference", &got, &want);
    }
    result_free(&got);
    result_free(&want);
}

/* Evaluates the first, middle, last and one-past-the-end positions of m (the last must be out of bounds). */
static void eval_some(const Prog *p, Evaluator *ev, const Map *m)
{
    Cell c = {.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    if (!c.coord)
        abort();
    uint64_t pos[4] = {0, m->size / 2, m->size - 1, m->size};
    for (int i = 0; i < 4; i++)
        if (eval_cell(ev, m, pos[i], &c) == EVAL_OK && (c.kind > CELL_OVERFLOW || (i == 3 && c.kind != CELL_OOB)))
            __builtin_trap();
    free(c.coord);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_INPUT)
        return 0;
    Prog *p = prog_new();
    if (!p)
        abort();
    prog_parse(p, "<fuzz>", (const char *)data, size);
    Eqv *q = eqv_new(p);
    Evaluator *ref = eval_new(p);
    if (!q || !ref)
        abort();
    eqv_set_budget(q, EQV_OPS, EQV_ITEMS);
    eval_set_budget(ref, EXHAUSTIVE_LIMIT);
    const Map *maps[MAX_TYPES];
    int n = 0;
    for (int i = 0; i < p->ntypes && n < MAX_TYPES; i++)
        if (p->types[i]->map)
            maps[n++] = p->types[i]->map;
    for (int i = 0; i < n; i++) {
        eval_some(p, eqv_evaluator(q), maps[i]);
        const Map *nf = norm_map(&p->arena, maps[i]);
        if (!nf)
            __builtin_trap(); /* norm never fails */
        decide(p, q, ref, maps[i], nf, true);
        if (i + 1 < n)
            decide(p, q, ref, maps[i], maps[i + 1], false);
    }
    eval_free(ref);
    eqv_free(q);
    prog_free(p);
    return 0;
}
