/* test_api_query.c — mapc_norm, mapc_map_text, mapc_eval_many and mapc_where through the shared library: the normal form as text (equivalent,
 * idempotent, the same for equivalent mappings), where tensors of each memory kind hold indices, and the
 * refusals (unknown names, padding, foreign axes, bad indices) with their diagnostics. */
#include "harness.h"

#include <mapc.h>

#include <stdlib.h>
#include <string.h>

static const char src[] = "axes![A = 8, B = 12, N = 4];\n"
                          "type R = m![A, B];\n"
                          "type S = m![A / 2, A % 2, B];\n"
                          "type T = m![B, A];\n"
                          "tensor H: HostTensor<f32, m![A, B]>;\n"
                          "tensor Hb: HbmTensor<f32, m![2], m![A, B]>;\n"
                          "tensor D[A, B]: DmTensor<f32, m![1], m![2], m![A / 4, B / 4], m![A % 4, B % 4]>;\n";

/* The last diagnostic of p contains want. */
static bool last_diag_has(mapc_program *p, const char *want)
{
    size_t n = mapc_diag_count(p);
    const char *t = n ? mapc_diag_text(p, n - 1) : NULL;
    return t && strstr(t, want);
}

static void test_norm(mapc_program *p)
{
    char *r = NULL, *s = NULL, *t = NULL;
    CHECK(mapc_norm(p, "R", &r) == MAPC_OK && r, "norm R");
    CHECK(mapc_norm(p, "S", &s) == MAPC_OK && s, "norm S");
    CHECK(mapc_norm(p, "T", &t) == MAPC_OK && t, "norm T");
    if (r && s && t) {
        CHECK_EQ_STR(r, "m![A, B]", "normal form of R");
        CHECK_EQ_STR(s, r, "S (A split in two) has R's normal form");
        CHECK(strcmp(t, r) != 0, "T's normal form differs from R's: %s", t);
        char *again = NULL;
        CHECK(mapc_norm(p, r, &again) == MAPC_OK && again && strcmp(again, r) == 0, "idempotent: %s", again);
        free(again);
        int eq = -1;
        CHECK(mapc_equiv(p, t, "T", &eq, NULL) == MAPC_OK && eq == 1, "T's normal form is equivalent to T");
    }
    free(r);
    free(s);
    free(t);
    char *none = (char *)"x";
    CHECK_EQ_INT(mapc_norm(p, "Nope", &none), MAPC_ERR_NOT_FOUND, "unknown type");
    CHECK(none == NULL, "out cleared on failure");
    CHECK_EQ_INT(mapc_norm(p, "m![A, Q]", &none), MAPC_ERR_INPUT, "inline with an undeclared axis");
    CHECK(last_diag_has(p, "undeclared axis 'Q'"), "its diagnostic");
    CHECK_EQ_INT(mapc_norm(p, "R", NULL), MAPC_ERR_ARGUMENT, "NULL out");
}

static void test_where(mapc_program *p)
{
    mapc_place pl[4];
    size_t n = 99;
    /* host: element A*12 + B */
    CHECK(mapc_where(p, "H", "i![A: 3, B: 5]", pl, 4, &n) == MAPC_OK && n == 1, "H holds it once: %zu", n);
    CHECK(n == 1 && pl[0].element == 41 && pl[0].chip == 0 && pl[0].slice == 0, "H: element 41, got %llu",
          (unsigned long long)pl[0].element);
    /* HBM over 2 chips, replicated: both chips, same element */
    CHECK(mapc_where(p, "Hb", "i![A: 1, B: 2]", pl, 4, &n) == MAPC_OK && n == 2, "Hb: two replicas, %zu", n);
    if (n == 2)
        CHECK(pl[0].chip == 0 && pl[1].chip == 1 && pl[0].element == 14 && pl[1].element == 14, "Hb: chips 0, 1");
    /* DM: cluster (A/4)/... : slice A/4*3 + B/4, element (A%4)*4 + B%4, replicated over 2 clusters */
    CHECK(mapc_where(p, "D", "i![A: 5, B: 9]", pl, 4, &n) == MAPC_OK && n == 2, "D: two clusters, %zu", n);
    if (n == 2)
        CHECK(pl[0].cluster == 0 && pl[1].cluster == 1 && pl[0].slice == 5 && pl[0].element == 5 &&
                  pl[1].slice == 5 && pl[1].element == 5,
              "D: slice %llu element %llu", (unsigned long long)pl[0].slice, (unsigned long long)pl[0].element);
    /* counting only */
    CHECK(mapc_where(p, "D", "i![A: 5, B: 9]", NULL, 0, &n) == MAPC_OK && n == 2, "count with cap 0");
    CHECK(mapc_where(p, "D", "i![A: 5, B: 9]", pl, 1, &n) == MAPC_OK && n == 2, "count beyond cap");

    CHECK_EQ_INT(mapc_where(p, "Nope", "i![A: 1]", pl, 4, &n), MAPC_ERR_NOT_FOUND, "unknown tensor");
    CHECK_EQ_INT(mapc_where(p, "R", "i![A: 1]", pl, 4, &n), MAPC_ERR_NOT_FOUND, "a type is not a tensor");
    CHECK_EQ_INT(mapc_where(p, "H", "i![A: 1, N: 2]", pl, 4, &n), MAPC_ERR_ARGUMENT, "a foreign axis");
    CHECK(last_diag_has(p, "N is not an axis of tensor H"), "its diagnostic");
    CHECK_EQ_INT(mapc_where(p, "H", "pad(top)", pl, 4, &n), MAPC_ERR_INPUT, "padding is not an index");
    CHECK(last_diag_has(p, "expected an index literal i![...], not pad(top)"), "its diagnostic");
    CHECK_EQ_INT(mapc_where(p, "H", "i![A: 8]", pl, 4, &n), MAPC_ERR_INPUT, "out of range");
    CHECK(last_diag_has(p, "out of range"), "its diagnostic");
    CHECK_EQ_INT(mapc_where(p, "H", "i![A: 1]", NULL, 4, &n), MAPC_ERR_ARGUMENT, "NULL places with cap 4");
}

/* A failed call's diagnostics do not make the program one "with errors": inline mappings and the JIT still
 * work afterwards, also in a program without types. */
static void test_after_failure(void)
{
    static const char axes_only[] = "axes![A = 8];\n";
    mapc_program *p = NULL;
    CHECK(mapc_compile_string("a.map", axes_only, strlen(axes_only), &p) == MAPC_OK, "compile axes only");
    uint64_t size = 0;
    CHECK_EQ_INT(mapc_type_size(p, "m![A, Q]", &size), MAPC_ERR_INPUT, "a bad inline mapping");
    CHECK(mapc_type_size(p, "m![A / 2]", &size) == MAPC_OK && size == 4, "the next inline mapping works");
    mapc_jit *j = NULL;
    CHECK(mapc_jit_create(p, NULL, &j) == MAPC_OK && j, "the JIT after a failed call");
    mapc_jit_free(j);
    mapc_program_free(p);
}

/* A program with a kernel declaration has tile axes of its own: the API's axes and coordinates are still
 * those of axes![...], as in the generated functions. */
static void test_public_axes(void)
{
    static const char ksrc[] = "axes![M = 16, N = 32, K = 24];\n"
                               "type R = m![M, K];\n"
                               "tensor A: HbmTensor<f32, m![1], m![M, K]>;\n"
                               "tensor B: HbmTensor<f32, m![1], m![K, N]>;\n"
                               "tensor C: HbmTensor<f32, m![1], m![M, N]>;\n"
                               "kernel gemm: C[M, N] = A[M, K] * B[K, N] { tile M = 8, N = 16, K = 8; }\n";
    mapc_program *p = NULL;
    CHECK(mapc_compile_string("k.map", ksrc, strlen(ksrc), &p) == MAPC_OK, "compile a kernel program");
    CHECK_EQ_INT(mapc_axis_count(p), 3, "three public axes");
    const char *name = NULL;
    uint64_t size = 0;
    CHECK(mapc_axis(p, 2, &name, &size) == MAPC_OK && strcmp(name, "K") == 0 && size == 24, "axis 2 is K = 24");
    CHECK_EQ_INT(mapc_axis(p, 3, &name, &size), MAPC_ERR_ARGUMENT, "no axis 3");
    int kind = -1;
    int64_t c[4] = {-1, -1, -1, -7};
    CHECK(mapc_eval(p, "R", 24 * 3 + 5, &kind, c) == MAPC_OK && kind == MAPC_CELL_LIVE, "eval R");
    CHECK(c[0] == 3 && c[1] == 0 && c[2] == 5 && c[3] == -7, "M 3, N 0, K 5, nothing past them: %lld %lld %lld %lld",
          (long long)c[0], (long long)c[1], (long long)c[2], (long long)c[3]);
    mapc_jit *j = NULL;
    mapc_offset_fn off = NULL;
    CHECK(mapc_jit_create(p, NULL, &j) == MAPC_OK && mapc_jit_offset(j, "R", &off) == MAPC_OK, "jit R_offset");
    if (off)
        CHECK_EQ_INT(off(c), 24 * 3 + 5, "R_offset of those coordinates");
    mapc_jit_free(j);
    mapc_program_free(p);
}

/* mapc_map_text gives a type's definition and an inline mapping's text; mapc_eval_many agrees with mapc_eval at
 * every position (and past the end), and refuses what mapc_eval refuses. */
static void test_text_and_many(mapc_program *p)
{
    char *t = NULL;
    CHECK(mapc_map_text(p, "S", &t) == MAPC_OK && t && strcmp(t, "m![A / 2, A % 2, B]") == 0, "text of S: %s", t);
    free(t);
    t = NULL;
    CHECK(mapc_map_text(p, "m![B,A]", &t) == MAPC_OK && t && strcmp(t, "m![B, A]") == 0, "inline text: %s", t);
    free(t);
    t = (char *)"x";
    CHECK_EQ_INT(mapc_map_text(p, "Nope", &t), MAPC_ERR_NOT_FOUND, "text of an unknown type");
    CHECK(t == NULL, "out cleared on failure");
    enum { N = 100 };
    uint64_t pos[N];
    int kinds[N];
    int64_t coords[N * 3];
    for (int i = 0; i < N; i++)
        pos[i] = (uint64_t)(i * 7 % 97); /* 0..96: every position of S and oob past it */
    CHECK(mapc_eval_many(p, "S", pos, N, kinds, coords) == MAPC_OK, "eval_many S");
    int bad = 0;
    for (int i = 0; i < N; i++) {
        int k;
        int64_t c[3] = {9, 9, 9};
        if (mapc_eval(p, "S", pos[i], &k, c) != MAPC_OK || k != kinds[i] || memcmp(c, coords + 3 * i, sizeof c) != 0)
            bad++;
    }
    CHECK_EQ_INT(bad, 0, "eval_many agrees with eval at every position");
    CHECK_EQ_INT(mapc_eval_many(p, "S", pos, 0, NULL, NULL), MAPC_OK, "no positions");
    CHECK_EQ_INT(mapc_eval_many(p, "S", pos, N, NULL, coords), MAPC_ERR_ARGUMENT, "NULL kinds");
    CHECK_EQ_INT(mapc_eval_many(NULL, "S", pos, N, kinds, coords), MAPC_ERR_ARGUMENT, "NULL program");
    CHECK_EQ_INT(mapc_eval_many(p, "Nope", pos, N, kinds, coords), MAPC_ERR_NOT_FOUND, "unknown type");
}

int main(int argc, char **argv)
{
    HarnessArgs args = {0};
    harness_args(argc, argv, "", &args);
    mapc_program *p = NULL;
    CHECK(mapc_compile_string("q.map", src, strlen(src), &p) == MAPC_OK && p, "compile");
    if (p && mapc_diag_count(p) == 0) {
        test_norm(p);
        test_text_and_many(p);
        test_where(p);
        test_after_failure();
        test_public_axes();
    } else if (p) {
        harness_detail("%s", mapc_diag_text(p, 0));
    }
    mapc_program_free(p);
    return harness_report();
}
