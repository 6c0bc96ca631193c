/* test_relayout.c — relayout plans against the interpreter on generated layout pairs: permutations of 2 to 4
 * axes (sizes that are and are not multiples of the vectors), split into digits, with top, zero and bottom
 * paddings; every element type; each program compiled for every ISA the host runs (AVX-512, AVX2, portable),
 * some with tiny caches (so that their blocks are small and their stores stream); every copy run whole at an
 * aligned and a misaligned destination, in parts and on two threads, on poisoned destinations; and a fixed program
 * of narrow planes, whose plans must interleave or deinterleave vectors.
 *
 * Usage: test_relayout [SEED [COUNT [FIRST]]]   (defaults 1, 6, 0); MAPC_TEST_COUNT lowers COUNT. */
#include "cgtest.h"
#include "harness.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const elems[] = {"f32", "f64", "bf16", "i8", "i32", "f16"};
static const uint64_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 12, 15, 16, 17, 20, 24, 31, 32, 33, 40, 48, 64};
enum { MAX_AXES = 4, MAX_ELEMS = 1 << 15, MAX_ELEMS_BIG = 1 << 17 };

static uint64_t below(Rng *r, uint64_t n) { return rng_next(r) % n; }

/* A divisor k of n with 1 < k < n (0: none), drawn at random. */
static uint64_t divisor(Rng *r, uint64_t n)
{
    uint64_t d[64];
    int nd = 0;
    for (uint64_t k = 2; k < n && nd < 64; k++)
        if (n % k == 0)
            d[nd++] = k;
    return nd ? d[below(r, (uint64_t)nd)] : 0;
}

static const char *pad_op(Rng *r) { return below(r, 3) == 0 ? "#" : below(r, 2) ? "#{0}" : "#{!}"; }

/* A layout over the axes: each axis whole or cut into two digits (exactly, or of a padded axis), the digits in
 * random order, sometimes one of them padded by 1 to 17 positions; "m![...]" appended to out. */
static void layout(Rng *r, int na, const char *const *names, const uint64_t *n, char *out, size_t cap)
{
    char dig[2 * MAX_AXES][96];
    uint64_t size[2 * MAX_AXES];
    int nd = 0;
    for (int a = 0; a < na; a++) {
        uint64_t k = below(r, 3) ? divisor(r, n[a]) : 0;
        if (k) {
            size[nd] = n[a] / k;
            snprintf(dig[nd++], sizeof dig[0], "%s / %llu", names[a], (unsigned long long)k);
            size[nd] = k;
            snprintf(dig[nd++], sizeof dig[0], "%s %% %llu", names[a], (unsigned long long)k);
        } else if (n[a] > 2 && below(r, 4) == 0) { /* a padded axis cut at 4: the high digit's last part padding */
            uint64_t m = (n[a] + 3) / 4 * 4;
            const char *op = pad_op(r);
            size[nd] = m / 4;
            snprintf(dig[nd++], sizeof dig[0], "%s %s %llu / 4", names[a], op, (unsigned long long)m);
            size[nd] = 4;
            snprintf(dig[nd++], sizeof dig[0], "%s %s %llu %% 4", names[a], op, (unsigned long long)m);
        } else {
            size[nd] = n[a];
            snprintf(dig[nd++], sizeof dig[0], "%s", names[a]);
        }
    }
    for (int i = nd - 1; i > 0; i--) { /* shuffle */
        int j = (int)below(r, (uint64_t)i + 1);
        char t[96];
        memcpy(t, dig[i], sizeof t);
        memcpy(dig[i], dig[j], sizeof t);
        memcpy(dig[j], t, sizeof t);
        uint64_t z = size[i];
        size[i] = size[j];
        size[j] = z;
    }
    if (below(r, 3) == 0) {
        int i = (int)below(r, (uint64_t)nd);
        char t[96];
        snprintf(t, sizeof t, "(%s) %s %llu", dig[i], pad_op(r), (unsigned long long)(size[i] + 1 + below(r, 17)));
        memcpy(dig[i], t, sizeof t);
    }
    harness_cat(out, cap, "m![");
    for (int i = 0; i < nd; i++)
        harness_cat(out, cap, "%s%s", i ? ", " : "", dig[i]);
    harness_cat(out, cap, "]");
}

/* Program i: its axes, three layouts and copies among them and to themselves. */
static char *program(uint64_t seed, bool big)
{
    Rng r = rng_seeded(seed * 0x9E3779B97F4A7C15u + 11);
    static const char *const names[MAX_AXES] = {"A", "B", "C", "D"};
    int na = 2 + (int)below(&r, 3);
    uint64_t n[MAX_AXES], total;
    do {
        total = 1;
        for (int a = 0; a < na; a++)
            total *= n[a] = sizes[below(&r, sizeof sizes / sizeof *sizes)];
    } while (total > (big ? MAX_ELEMS_BIG : MAX_ELEMS) || total < 64);
    char *text = malloc(8192);
    text[0] = 0;
    harness_cat(text, 8192, "axes![");
    for (int a = 0; a < na; a++)
        harness_cat(text, 8192, "%s%s = %llu", a ? ", " : "", names[a], (unsigned long long)n[a]);
    harness_cat(text, 8192, "];\n");
    for (int l = 0; l < 3; l++) {
        char lay[2048] = "";
        /* L0 row-major: the source of most copies, so that every kind of destination meets a plain source */
        if (l == 0) {
            harness_cat(lay, sizeof lay, "m![");
            for (int a = 0; a < na; a++)
                harness_cat(lay, sizeof lay, "%s%s", a ? ", " : "", names[a]);
            harness_cat(lay, sizeof lay, "]");
        } else {
            layout(&r, na, names, n, lay, sizeof lay);
        }
        harness_cat(text, 8192, "type L%d = %s;\n", l, lay);
    }
    static const int pairs[][2] = {{0, 1}, {0, 2}, {1, 0}, {2, 1}, {1, 1}};
    for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++)
        harness_cat(text, 8192, "copy c%zu: L%d -> L%d as %s;\n", k, pairs[k][0], pairs[k][1],
                    elems[(k + seed) % (sizeof elems / sizeof *elems)]);
    return text;
}

/* Narrow planes (2, 4 or 8 values against many, contiguous on the narrow side), with tails and paddings: the
 * interleaving and deinterleaving vectors; each copy's plan must say so where vectors are wider than the
 * narrow side (AVX-512, AVX2). */
static const char weave_text[] =
    "axes![A = 37, B = 4, C = 2, D = 70];\n"
    "type L0 = m![B, A]; type L1 = m![A, B]; type L2 = m![D, C]; type L3 = m![C, D];\n"
    "type L4 = m![C, A #{0} 40, B]; type L5 = m![A #{!} 40, B];\n"
    "copy w0: L0 -> L1 as f32; copy w1: L1 -> L0 as bf16; copy w2: L3 -> L2 as i8; copy w3: L2 -> L3 as f64;\n"
    "copy w4: m![B, C, A] -> L4 as i32; copy w5: L0 -> L5 as f16;\n";

/* The ISAs of this host, best first. */
static int host_isas(TargetIsa *out)
{
    int n = 0;
    static const TargetIsa all[] = {TARGET_ISA_AVX512, TARGET_ISA_AVX2, TARGET_ISA_PORTABLE};
    for (int i = 0; i < 3; i++)
        if (target_host_supports(all[i]))
            out[n++] = all[i];
    return n;
}

/* Checks every copy of text compiled for isa (with tiny caches when small_caches); with weaves, that each
 * copy's plan (de)interleaves. */
static void check_program(const char *text, uint64_t seed, TargetIsa isa, bool small_caches, bool weaves)
{
    Prog *p = prog_new();
    prog_set_target(p, isa);
    if (small_caches) {
        TargetCaches c = {.l1d = TARGET_MIN_L1D, .l2 = TARGET_MIN_L2, .source = "MAPC_CACHES"};
        prog_set_caches(p, &c);
    }
    char label[128];
    snprintf(label, sizeof label, "program %llu for %s%s", (unsigned long long)seed, target_isa_name(isa),
             small_caches ? " with 4 KiB L1d and 64 KiB L2" : "");
    if (prog_parse(p, label, text, strlen(text)) != 0) {
        /* a layout pair the copy rule refuses (a destination index the source lacks): not a kernel to test */
        prog_free(p);
        return;
    }
    Jit *j = cgtest_compile(p, label, NULL, 2);
    if (!j) {
        harness_detail("%s", text);
        prog_free(p);
        return;
    }
    Evaluator *ev = eval_new(p);
    for (int i = 0; i < p->ncopies; i++) {
        const Copy *c = p->copies[i];
        char why[256];
        int64_t *want = cgtest_copy_expected(p, ev, c, why, sizeof why);
        if (!CHECK(want != NULL, "%s copy %s: %s", label, c->name, why))
            continue;
        if (weaves && isa != TARGET_ISA_PORTABLE) {
            char *plan = cg_copy_plan(p, c, &(CgOptions){.opt_level = 2}, &p->diags);
            CHECK(plan && strstr(plan, "interleaved"), "%s copy %s: the plan does not (de)interleave: %s", label,
                  c->name, plan ? plan : "?");
            free(plan);
        }
        bool ok = cgtest_check_copy(p, j, c, want, CGTEST_WHOLE, 0, label) &&
                  cgtest_check_copy(p, j, c, want, CGTEST_WHOLE, 1, label) &&
                  cgtest_check_copy(p, j, c, want, CGTEST_PARTS, 0, label) &&
                  cgtest_check_copy(p, j, c, want, CGTEST_THREADS, 0, label);
        if (!ok) {
            char *plan = cg_copy_plan(p, c, &(CgOptions){.opt_level = 2}, &p->diags);
            harness_detail("plan:\n%s", plan ? plan : "?");
            free(plan);
        }
        free(want);
    }
    eval_free(ev);
    jit_free(j);
    prog_free(p);
}

int main(int argc, char **argv)
{
    HarnessArgs a = {.seed = 1, .count = 6};
    harness_args(argc, argv, "[SEED [COUNT [FIRST]]]", &a);
    TargetIsa isas[3];
    int nisa = host_isas(isas);
    for (int k = 0; k < nisa; k++)
        check_program(weave_text, 0, isas[k], k == 1, true);
    for (uint64_t i = a.first; i < a.first + a.count; i++) {
        harness_case(i);
        uint64_t seed = a.seed + i;
        char *text = program(seed, i % 4 == 3);
        for (int k = 0; k < nisa; k++)
            check_program(text, seed, isas[k], (i + (uint64_t)k) % 3 == 0, false);
        free(text);
    }
    return harness_report();
}
