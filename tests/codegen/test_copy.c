/* test_copy.c — relayout kernels against an interpreted copy, element by element, for every element
 * type: live cells get the source element of the same index, pad(zero) gets 0, every other cell
 * keeps the poison written before the call; whole and in parts (NAME_part).
 *
 * Usage: test_copy [SEED [COUNT [FIRST]]]   (defaults 1, 40, 0): generated program i (FIRST <= i <
 * FIRST + COUNT) comes from mapgen seeded with (SEED + i) * 1000003; a failure prints the command that
 * reruns it. */
#include "cgtest.h"
#include "codegen/codegen.h"
#include "eval/eval.h"
#include "front/front.h"
#include "harness.h"
#include "mapgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const elems[] = {"f32", "f64", "bf16", "f16", "i8", "i32"};

/* Checks every copy kernel of p against the interpreter (one case each); label names the program in
 * failures. */
static void check_prog(Prog *p, const char *label, uint64_t seed, int opt)
{
    Jit *j = cgtest_compile(p, label, NULL, opt);
    if (!j)
        return;
    Evaluator *ev = eval_new(p);
    char name[128];
    snprintf(name, sizeof name, "%s (seed %llu)", label, (unsigned long long)seed);
    for (int i = 0; i < p->ncopies; i++) {
        char why[256];
        int64_t *want = cgtest_copy_expected(p, ev, p->copies[i], why, sizeof why);
        if (CHECK(want != NULL, "%s copy %s: %s", name, p->copies[i]->name, why) &&
            cgtest_check_copy(p, j, p->copies[i], want, CGTEST_WHOLE, 0, name))
            cgtest_check_copy(p, j, p->copies[i], want, CGTEST_PARTS, 0, name);
        free(want);
    }
    eval_free(ev);
    jit_free(j);
}

static const char *const fixed_cases[] = {
    ("axes![A=16, B=32];"
    "type R = m![A, B]; type T = m![B, A]; type K = m![A / 4, B / 8, A % 4, B % 8];"
    "type P = m![A, B #{0} 40]; type Q = m![A # 20, B #{!} 36]; type Z = m![A #{0} 17, B # 33];"
    "copy id: R -> R as ELEM; copy tr: R -> T as ELEM; copy blk: R -> K as ELEM; copy unblk: K -> R as ELEM;"
    "copy tblk: T -> K as ELEM; copy pad0: R -> P as ELEM; copy padtb: T -> Q as ELEM; copy unpad: P -> R as ELEM;"
    "copy z: K -> Z as ELEM;"),
    ("axes![M=5, N=8]; type R = m![M, N]; type C = m![[M # 6] / 2, N / 4, [M # 6] % 2, N % 4];"
    "type O = m![M, N, M];"
    "copy tile: R -> C as ELEM; copy untile: C -> R as ELEM; copy ovf: R -> O as ELEM;"),
    ("axes![A=6]; type S = m![A # 8 / 4, A # 8 % 4]; type D = m![A #{0} 7, 2];"
    "copy s: S -> D as ELEM; copy b: D -> S as ELEM;"),
    /* overlapping digits in the source: no fast inverse, a compile-time table of positions */
    ("axes![A=4, B=3]; type V = m![A, A % 2, B]; type W = m![B, A #{0} 5];"
    "copy v: V -> W as ELEM;"),
};

/* Replaces every "ELEM" in text by elem. */
static char *with_elem(const char *text, const char *elem)
{
    size_t n = strlen(text) + 1;
    char *out = malloc(n * 2);
    char *o = out;
    for (const char *s = text; *s;)
        if (strncmp(s, "ELEM", 4) == 0) {
            o += sprintf(o, "%s", elem);
            s += 4;
        } else {
            *o++ = *s++;
        }
    *o = 0;
    return out;
}

/* Large tensors (4 MiB and more take the streaming-store variant when the destination is
 * aligned, the ordinary one otherwise): checked against closed formulas, aligned and not. */
static void check_large(void)
{
    static const char text[] = "axes![A = 1024, B = 1024];\n"
                               "type R = m![A, B]; type T = m![B, A]; type K = m![A / 16, B / 16, A % 16, B % 16];\n"
                               "type P = m![A, B #{0} 1040];\n"
                               "copy tr: R -> T as f32; copy blk: R -> K as f32; copy padr: R -> P as f32;\n"
                               "copy tr16: R -> T as bf16;\n";
    Prog *p = prog_new();
    Jit *j = cgtest_compile(p, "<large>", text, 2);
    if (!j) {
        prog_free(p);
        return;
    }
    enum { N = 1024 };
    uint32_t *src = aligned_alloc(64, N * N * 4), *buf = aligned_alloc(64, N * 1040 * 4 + 64);
    for (uint32_t i = 0; i < N * N; i++)
        src[i] = i * 2654435761u;
    const char *names[] = {"tr", "blk", "padr"};
    for (int k = 0; k < 3; k++)
        for (int shift = 0; shift < 2; shift++) { /* shift 1: a destination that is not 64-byte aligned */
            uint32_t *dst = buf + shift;
            memset(buf, 0xA5, N * 1040 * 4 + 64);
            ((void (*)(void *, const void *))jit_lookup(j, names[k]))(dst, src);
            int bad = 0;
            for (uint32_t a = 0; a < N; a++)
                for (uint32_t b = 0; b < N; b++) {
                    size_t at = k == 0 ? b * N + a
                                : k == 1 ? ((a / 16) * (N / 16) + b / 16) * 256 + (a % 16) * 16 + b % 16
                                         : a * 1040 + b;
                    bad += dst[at] != src[a * N + b];
                }
            if (k == 2)
                for (uint32_t a = 0; a < N; a++)
                    for (uint32_t b = N; b < 1040; b++)
                        bad += dst[a * 1040 + b] != 0;
            CHECK_EQ_INT(bad, 0, "large copy %s (destination offset %d): elements wrong", names[k], shift);
        }
    uint16_t *s16 = (uint16_t *)src, *d16 = (uint16_t *)buf;
    ((void (*)(void *, const void *))jit_lookup(j, "tr16"))(d16, s16);
    int bad = 0;
    for (uint32_t a = 0; a < N; a++)
        for (uint32_t b = 0; b < N; b++)
            bad += d16[b * N + a] != s16[a * N + b];
    CHECK_EQ_INT(bad, 0, "large copy tr16: elements wrong");
    free(src);
    free(buf);
    jit_free(j);
    prog_free(p);
}

int main(int argc, char **argv)
{
    HarnessArgs a = {.seed = 1, .count = 40};
    harness_args(argc, argv, "[SEED [COUNT [FIRST]]]", &a);
    check_large();
    for (size_t i = 0; i < sizeof fixed_cases / sizeof *fixed_cases; i++)
        for (int e = 0; e < 6; e++) {
            char *t = with_elem(fixed_cases[i], elems[e]);
            Prog *p = prog_new();
            if (prog_parse(p, "<case>", t, strlen(t)))
                FAIL("case %zu does not parse: %s", i, p->diags.head->msg);
            else
                check_prog(p, "case", i, e % 3 ? 2 : 0);
            prog_free(p);
            free(t);
        }
    int accepted = 0, rejected = 0;
    for (uint64_t i = a.first; i < a.first + a.count; i++) {
        uint64_t seed = a.seed + i;
        MapGen g;
        MapGenOpts go = {.max_size = 256};
        mapgen_init(&g, seed * 1000003, &go);
        harness_case(i);
        char *base = mapgen_program(&g);
        size_t cap = strlen(base) + 1;
        char *all = malloc(cap);
        strcpy(all, base);
        int ncopy = 0;
        for (int x = 0; x < 12; x++) {
            char *e = mapgen_expr(&g, 0, NULL);
            for (int dir = 0; dir < 2; dir++) {
                char stmt[4096];
                snprintf(stmt, sizeof stmt, "copy k%d_%d: %s -> %s as %s;\n", x, dir, dir ? e : "E", dir ? "E" : e,
                         elems[(x + dir + seed) % 6]);
                size_t len = strlen(all);
                char *trial = malloc(len + strlen(stmt) + 1);
                memcpy(trial, all, len);
                strcpy(trial + len, stmt);
                Prog *p = prog_new();
                if (prog_parse(p, "<gen>", trial, strlen(trial)) == 0) {
                    free(all);
                    all = trial;
                    ncopy++;
                    accepted++;
                } else {
                    free(trial);
                    rejected++;
                }
                prog_free(p);
            }
            free(e);
        }
        if (ncopy) {
            Prog *p = prog_new();
            prog_parse(p, "<gen>", all, strlen(all));
            check_prog(p, "generated", seed, seed % 4 == 0 ? 2 : 0);
            prog_free(p);
        }
        free(all);
        free(base);
    }
    printf("generated copies: %d accepted, %d rejected by the source check\n", accepted, rejected);
    return harness_report();
}
