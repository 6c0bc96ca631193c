/* fuzz_parser.c — libFuzzer target: arbitrary bytes through the front end, the printer and the interpreter.
 *
 * Each input is parsed twice: as a whole program, and as a lone expression after a fixed
 * declaration. Every defined type is printed with map_format (which must parse back), a few of
 * its positions are evaluated with a small composite-base budget, and every diagnostic is
 * formatted. Everything is freed, so LeakSanitizer sees any leak. A crash, a sanitizer report,
 * a leak, or a printed mapping that does not parse back is a finding. */
#include "core/ast.h"
#include "eval/eval.h"
#include "front/front.h"
#include "prog_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inputs above this are skipped: longer ones add time, not coverage. */
#define MAX_INPUT 4096
/* Positions compared at most when two composite bases are compared during evaluation. */
#define BASE_BUDGET 512

static const char fixed_decl[] =
    "axes![A = 8, B = 6, C = 4, D = 61];\n"
    "const N = 2;\n"
    "type T = m![A # 9];\n"
    "type U = m![[C, B] / 4, [C, B] % 4];\n";

/* Formats every diagnostic of p (the text is discarded; the point is that it is well-formed). */
static void format_diags(const Prog *p)
{
    for (const Diag *d = p->diags.head; d; d = d->next) {
        size_t n = diag_format(d, NULL, 0);
        char *buf = malloc(n + 1);
        if (!buf)
            abort();
        size_t m = diag_format(d, buf, n + 1);
        if (m != n || strlen(buf) != n)
            __builtin_trap(); /* diag_format must report its own length */
        free(buf);
    }
}

/* Prints m, parses the text back into p (it must parse without diagnostics) and checks that
 * the reparsed mapping prints identically. */
static void check_roundtrip(Prog *p, const Map *m)
{
    char *text = harness_map_text(p, m);
    int before = p->diags.count;
    const Map *back = prog_parse_map(p, "<format>", text);
    if (!back || p->diags.count != before) {
        fprintf(stderr, "map_format output does not parse back: %s\n", text);
        __builtin_trap();
    }
    char *text2 = harness_map_text(p, back);
    if (strcmp(text, text2) != 0) {
        fprintf(stderr, "map_format is not stable:\n  %s\n  %s\n", text, text2);
        __builtin_trap();
    }
    free(text);
    free(text2);
}

/* Evaluates a few positions of m (first, middle, last, one past the end, and one from seed). */
static void eval_some(Evaluator *ev, const Prog *p, const Map *m, uint64_t seed)
{
    uint64_t pos[5] = {0, m->size / 2, m->size - 1, m->size, seed % m->size};
    Cell c = {.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    if (!c.coord)
        abort();
    for (int i = 0; i < 5; i++) {
        if (eval_cell(ev, m, pos[i], &c) != EVAL_OK)
            continue; /* undecided within the budget: allowed */
        if (c.kind > CELL_OVERFLOW)
            __builtin_trap();
        free(harness_cell_text(p, &c)); /* the text is discarded; the point is that it is well-formed */
        if (i == 3 && c.kind != CELL_OOB)
            __builtin_trap(); /* position |E| is out of bounds */
    }
    free(c.coord);
}

/* Exercises every type of p that was defined without errors. */
static void exercise(Prog *p, uint64_t seed)
{
    Evaluator *ev = eval_new(p);
    if (!ev)
        abort();
    eval_set_budget(ev, BASE_BUDGET);
    int ntypes = p->ntypes; /* the round trips below parse more text into p, but define no types */
    for (int i = 0; i < ntypes; i++) {
        const Map *m = p->types[i]->map;
        if (!m)
            continue;
        eval_some(ev, p, m, seed);
        check_roundtrip(p, m);
    }
    eval_free(ev);
}

/* Parses text as a lone expression after fixed_decl and exercises the mapping. */
static void parse_expr(const char *text, uint64_t seed)
{
    Prog *q = prog_new();
    if (!q)
        abort();
    if (prog_parse(q, "<decl>", fixed_decl, sizeof fixed_decl - 1) != 0)
        __builtin_trap();
    const Map *m = prog_parse_map(q, "<expr>", text);
    if (m) {
        Evaluator *ev = eval_new(q);
        if (!ev)
            abort();
        eval_set_budget(ev, BASE_BUDGET);
        eval_some(ev, q, m, seed);
        eval_free(ev);
        check_roundtrip(q, m);
    }
    format_diags(q);
    prog_free(q);
}

static uint64_t hash_bytes(const uint8_t *data, size_t size)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 1099511628211u;
    return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_INPUT)
        return 0;
    uint64_t seed = hash_bytes(data, size);

    /* 1. The bytes as a whole program. */
    Prog *p = prog_new();
    if (!p)
        abort();
    prog_parse(p, "<fuzz>", (const char *)data, size);
    exercise(p, seed);
    format_diags(p);
    prog_free(p);

    /* 2. The bytes (up to a NUL) as one expression after a fixed declaration: as given (a type
     *    name or m![...]), and wrapped in m![...]. */
    char *text = malloc(size + 5); /* "m![" + bytes + "]" + NUL */
    if (!text)
        abort();
    memcpy(text, "m![", 3);
    memcpy(text + 3, data, size);
    text[size + 3] = 0;
    parse_expr(text + 3, seed);
    size_t len = strlen(text);
    text[len] = ']';
    text[len + 1] = 0;
    parse_expr(text, seed);
    free(text);
    return 0;
}
