/* test_jit.c — JIT-compiled E_cell / E_offset / E_each agree with the interpreter on a generated corpus
 * (every position of every mapping: all padding kinds, overflow, composite bases).
 *
 * Usage: test_jit [SEED [COUNT [FIRST]]]   (defaults 1, 90, 0): generated program i (FIRST <= i <
 * FIRST + COUNT) comes from mapgen seeded with SEED + i; a failure prints the command that reruns it. */
#include "algebra/algebra.h"
#include "cgtest.h"
#include "codegen/codegen.h"
#include "front/front.h"
#include "harness.h"
#include "mapgen.h"

#include <stdlib.h>
#include <string.h>

/* Hand-written cases: the worked values of docs/language.md §3 and the padding-precedence corner cases. */
static const char *const fixed_cases[] = {
    "axes![A=8, B=512]; type E = m![A, B];",
    "axes![C=13, D=61]; type E = m![C, D # 64];",
    "axes![C=2, D=3]; type E = m![C, D = 2];",
    "axes![B=512]; type E = m![B / 64, B % 32, B / 32 % 2];",
    "axes![A=6]; type E = m![A # 8 / 4, A # 8 % 4];",
    "axes![A=4, B=4]; type E = m![[B, A # 9] / 4, [B, A # 9] % 4];",
    "axes![A=4, B=4]; type E = m![[B, A # 9] / 4, [B, A # 9] # 36 % 4];",
    "axes![A=3]; type E = m![A #{!} 4 # 16];",
    "axes![A=8, B=2]; type E = m![A # 16, B #{!} 4];",
    "axes![A=8]; type E = m![A, A];",
    "axes![A=8]; type E = m![A % 4, A % 4];",
    "axes![C=2, D=6]; type E = m![[C, D] / 4, [C, D] % 4];",
    "axes![M=5, N=8]; type E = m![[M # 6] / 2, N / 4, [M # 6] % 2, N % 4];",
    "axes![A=4, B=3]; type E = m![A #{0} 6, [B #{!} 4 = 3], 2 #{0} 3];",
    "axes![A=5]; type E = m![3, A = 4, 1];",
    /* 2^7 loop bodies: past the limit, the enumeration is one loop over the cell function */
    "axes![A=2, B=2]; type E = m![[A, B] = 3, [A, B] = 3, [A, B] = 3, [A, B] = 3, [A, B] = 3, [A, B] = 3, [B, A] = 3];",
};

/* Layouts of 2^33 to 2^48 positions: sampled positions (and the last ones) against the
 * interpreter; composite bases this large are told apart by the decision procedure. One case per type. */
static void check_large(void)
{
    static const char text[] = "axes![A = 4294967296, B = 65535, C = 3];\n"
                               "type E = m![A, B];\n"
                               "type F = m![B / 5, A # 4294967299, B % 5];\n"
                               "type G = m![[A, C] / 6, [A, C] % 6 #{0} 7];\n";
    Prog *p = prog_new();
    Jit *j = cgtest_compile(p, "<large>", text, 1);
    Evaluator *ev = eqv_evaluator_new(p);
    Cell c = {.coord = calloc(4, sizeof(uint64_t))};
    const char *names[] = {"E", "F", "G"};
    for (int t = 0; t < 3; t++) {
        char b1[32], b2[32];
        snprintf(b1, sizeof b1, "%s_cell", names[t]);
        snprintf(b2, sizeof b2, "%s_offset", names[t]);
        CellFn cell = j ? (CellFn)jit_lookup(j, b1) : NULL;
        OffsetFn off = j ? (OffsetFn)jit_lookup(j, b2) : NULL;
        const Map *m = prog_lookup(p, names[t])->map;
        bool ok = cell && off;
        Rng rng = rng_seeded(12345 + (uint64_t)t);
        uint64_t pos = 0;
        for (int i = 0; i < 2000 && ok; i++) {
            pos = i < 10 ? m->size - 1 - (uint64_t)i : rng_below(&rng, m->size + 10);
            int64_t k[4];
            if (eval_cell(ev, m, pos, &c) != EVAL_OK) {
                ok = false;
                break;
            }
            int kk = cell(pos, k);
            bool same = kk == (int)c.kind;
            for (int a = 0; a < 3; a++)
                same = same && (uint64_t)k[a] == c.coord[a];
            int64_t q = kk == CELL_LIVE ? off(k) : 0;
            ok = same && q >= 0 && (uint64_t)q <= pos;
        }
        CHECK(ok, "large %s: the JIT functions agree with the interpreter (position %llu)", names[t],
              (unsigned long long)pos);
    }
    free(c.coord);
    eqv_evaluator_free(ev);
    jit_free(j);
    prog_free(p);
}

/* The types of generated program i: mapgen seeded with seed + i, and extra more expressions. */
static void check_generated(uint64_t seed, uint64_t i, int extra)
{
    MapGen g;
    mapgen_init(&g, seed + i, NULL);
    harness_case(i);
    char *all = mapgen_program(&g);
    for (int x = 0; x < extra; x++) {
        char *e = mapgen_expr(&g, 0, NULL);
        all = harness_append(all, "type X%d = %s;\n", x, e);
        free(e);
    }
    Prog *p = prog_new();
    /* O0 compiles 3x faster; O2 still covered */
    Jit *j = cgtest_compile(p, "<gen>", all, (seed + i) % 8 == 0 ? 2 : 0);
    if (!j)
        harness_detail("%s", all);
    for (int t = 0; j && t < p->ntypes; t++) {
        const char *nm = p->types[t]->name;
        char b1[64], b2[64], b3[64];
        snprintf(b1, sizeof b1, "%s_cell", nm);
        snprintf(b2, sizeof b2, "%s_offset", nm);
        snprintf(b3, sizeof b3, "%s_each", nm);
        if (!cgtest_check_type(p, p->types[t]->map, nm, (CellFn)jit_lookup(j, b1), (OffsetFn)jit_lookup(j, b2),
                               (EachFn)jit_lookup(j, b3), seed + i)) {
            char buf[4096];
            map_format(p, p->types[t]->map, buf, sizeof buf);
            harness_detail("in program seed %llu: %s = %s", (unsigned long long)(seed + i), nm, buf);
        }
    }
    jit_free(j);
    prog_free(p);
    free(all);
}

int main(int argc, char **argv)
{
    HarnessArgs a = {.seed = 1, .count = 90};
    harness_args(argc, argv, "[SEED [COUNT [FIRST]]]", &a);
    check_large();
    for (size_t i = 0; i < sizeof fixed_cases / sizeof *fixed_cases; i++) {
        Prog *p = prog_new();
        harness_context("fixed case %zu", i);
        Jit *j = cgtest_compile(p, "<case>", fixed_cases[i], (int)(i % 4));
        if (j)
            cgtest_check_type(p, prog_lookup(p, "E")->map, fixed_cases[i], (CellFn)jit_lookup(j, "E_cell"),
                              (OffsetFn)jit_lookup(j, "E_offset"), (EachFn)jit_lookup(j, "E_each"), i);
        jit_free(j);
        prog_free(p);
    }
    for (uint64_t i = a.first; i < a.first + a.count; i++)
        check_generated(a.seed, i, 20);
    return harness_report();
}
