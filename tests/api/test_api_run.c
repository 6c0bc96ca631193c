/* test_api_run.c — the main job from a host program, through the shared library only: declared kernels
 * over generated layouts, types and shapes run on the caller's buffers (filled and read back through
 * device tensors), the strided-view GEMM with its messages, device tensors moved by DMA between
 * distributions, and misuse (NULLs, bad scalars, unknown names) as errors, all against references. */
#include "harness.h"

#include <mapc.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* bf16 from f32 by rounding to nearest even (inputs here are small and finite). */
static uint16_t to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

static float from_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* The layout of a matrix X[R, C] (R rows of r, C columns of c), as one of a few families. */
static void layout_text(Rng *rng, const char *R, const char *C, uint64_t r, uint64_t c, char *out, size_t cap)
{
    switch (rng_below(rng, 5)) {
    case 0: snprintf(out, cap, "m![%s, %s]", R, C); break;
    case 1: snprintf(out, cap, "m![%s, %s]", C, R); break;
    case 2: snprintf(out, cap, "m![%s, %s # %llu]", R, C, (unsigned long long)(c + 1 + rng_below(rng, 5))); break;
    case 3: { /* row blocks of 4, padded */
        uint64_t rp = (r + 3) / 4 * 4;
        snprintf(out, cap, "m![%s # %llu / 4, %s, %s # %llu %% 4]", R, (unsigned long long)rp, C, R,
                 (unsigned long long)rp);
        break;
    }
    default: snprintf(out, cap, "tiled![shape: [%s, %s], tile: [2, 3], outer: row_major, inner: col_major]", R, C); break;
    }
}

/* Every AOT_EVERY-th case is also emitted ahead of time by the mapc of MAPC_TEST_MAPC (if set), linked into a
 * shared object and run there; its C must equal the JIT path's bit for bit (same threads, same plan). */
enum { AOT_EVERY = 10 };

typedef int (*AotFn)(const void *a, const void *b, void *c, double alpha, double beta, int threads);

/* Emits the case's program, runs kernel k from the object on a, b and a copy of c0 (C before the JIT run),
 * and compares the result with want (C after it). */
static void check_aot(const char *src, uint64_t index, int threads, const void *a, const void *b, const void *c0,
                      const void *want, size_t cbytes, double alpha, double beta)
{
    const char *mapc = getenv("MAPC_TEST_MAPC");
    if (!mapc || !*mapc)
        return;
    char dir[] = "/tmp/mapc-aot-XXXXXX", cmd[4096], path[256];
    if (!CHECK(mkdtemp(dir) != NULL, "case %llu: a temporary directory", (unsigned long long)index))
        return;
    snprintf(path, sizeof path, "%s/case.map", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(src, f);
        fclose(f);
    }
    /* for the host's best ISA, as the API's programs are checked (MAPC_ISA, a driver knob, would change it) */
    snprintf(cmd, sizeof cmd, "cd %s && MAPC_ISA= '%s' emit case.map -o case.o --header case.h --prefix aot_ && "
             "cc -shared -o case.so case.o", dir, mapc);
    bool built = CHECK(f && system(cmd) == 0, "case %llu: emit and link: %s", (unsigned long long)index, cmd);
    snprintf(path, sizeof path, "%s/case.so", dir);
    void *lib = built ? dlopen(path, RTLD_NOW) : NULL;
    AotFn fn = lib ? (AotFn)(uintptr_t)dlsym(lib, "aot_k") : NULL;
    if (CHECK(fn != NULL, "case %llu: the emitted kernel aot_k: %s", (unsigned long long)index,
              lib ? "not found" : dlerror())) {
        void *c = malloc(cbytes);
        memcpy(c, c0, cbytes);
        int s = fn(a, b, c, alpha, beta, threads);
        if (CHECK(s == MAPC_OK, "case %llu: the emitted kernel: %s", (unsigned long long)index, mapc_aot_error()))
            CHECK(memcmp(c, want, cbytes) == 0, "case %llu: the emitted kernel's C differs from the JIT's\n%s",
                  (unsigned long long)index, src);
        /* misuse is an error, never a crash */
        CHECK(fn(a, b, NULL, alpha, beta, threads) == MAPC_ERR_ARGUMENT && strstr(mapc_aot_error(), "missing"),
              "case %llu: a null C", (unsigned long long)index);
        CHECK(fn(a, b, c, NAN, beta, threads) == MAPC_ERR_ARGUMENT, "case %llu: alpha nan", (unsigned long long)index);
        free(c);
    }
    if (lib)
        dlclose(lib);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

typedef enum { T_F32, T_BF16, T_I8 } CaseType;

/* One generated kernel: a program text with tensors A, B, C in random layouts and `kernel k`. The dense
 * host array of a tensor is row-major over its axes in declaration order (M, N, K), so B's is N-major:
 * element (q, j) of B at j*k + q of hb and vb. */
static void kernel_case(Rng *rng, uint64_t index)
{
    uint64_t m = 1 + rng_below(rng, 70), n = 1 + rng_below(rng, 70), k = 1 + rng_below(rng, 70);
    CaseType ty = (CaseType)rng_below(rng, 3);
    static const char *const in_t[] = {"f32", "bf16", "i8"}, *const out_t[] = {"f32", "f32", "i32"};
    char la[256], lb[256], lc[256], src[2048];
    layout_text(rng, "M", "K", m, k, la, sizeof la);
    layout_text(rng, "K", "N", k, n, lb, sizeof lb);
    layout_text(rng, "M", "N", m, n, lc, sizeof lc);
    snprintf(src, sizeof src,
             "axes![M = %llu, N = %llu, K = %llu];\n"
             "tensor A: HbmTensor<%s, m![1], %s>;\ntensor B: HbmTensor<%s, m![1], %s>;\n"
             "tensor C: HbmTensor<%s, m![1], %s>;\n"
             "kernel k: C[M, N] = A[M, K] * B[K, N] { tile M = %llu, N = %llu, K = %llu; }\n",
             (unsigned long long)m, (unsigned long long)n, (unsigned long long)k, in_t[ty], la, in_t[ty], lb,
             out_t[ty], lc, (unsigned long long)(1 + rng_below(rng, 64)), (unsigned long long)(1 + rng_below(rng, 64)),
             (unsigned long long)(1 + rng_below(rng, 64)));
    mapc_program *p = NULL;
    mapc_status s = mapc_compile_string("case", src, strlen(src), &p);
    if (!CHECK(s == MAPC_OK, "case %llu compiles: %s\n%s", (unsigned long long)index,
               p && mapc_diag_count(p) ? mapc_diag_text(p, 0) : mapc_status_string(s), src)) {
        mapc_program_free(p);
        return;
    }
    mapc_kernel *kern = NULL;
    int threads = 1 + (int)rng_below(rng, 2);
    s = mapc_kernel_create(p, "k", &(mapc_kernel_options){.threads = threads}, &kern);
    CHECK(s == MAPC_OK, "case %llu: kernel: %s %s", (unsigned long long)index, mapc_status_string(s),
          mapc_diag_count(p) ? mapc_diag_text(p, mapc_diag_count(p) - 1) : "");
    mapc_runtime *rt = NULL;
    CHECK(mapc_runtime_create(p, 1, &rt) == MAPC_OK, "runtime");
    mapc_tensor *t[3] = {0};
    mapc_view *w[3] = {0};
    const char *names[3] = {"A", "B", "C"};
    for (int i = 0; i < 3 && rt; i++)
        CHECK(mapc_tensor_create(rt, names[i], &t[i]) == MAPC_OK && mapc_tensor_view(rt, t[i], 1, &w[i]) == MAPC_OK,
              "tensor %s: %s", names[i], mapc_runtime_error(rt));
    if (!kern || !t[0] || !t[1] || !t[2]) {
        mapc_kernel_free(kern);
        mapc_runtime_free(rt);
        mapc_program_free(p);
        return;
    }
    CHECK_EQ_U64(mapc_kernel_operand_bytes(kern, 2), mapc_tensor_bytes(t[2]), "C's bytes");
    /* dense host operands, written into the tensors (their buffers are then in the declared layouts) */
    size_t ie = ty == T_F32 ? 4 : ty == T_BF16 ? 2 : 1;
    unsigned char *ha = malloc(m * k * ie), *hb = malloc(k * n * ie);
    void *hc = malloc(m * n * 4), *h0 = malloc(m * n * 4);
    double *va = malloc(m * k * sizeof *va), *vb = malloc(k * n * sizeof *vb), *vc = malloc(m * n * sizeof *vc);
    for (uint64_t i = 0; i < m * k + k * n; i++) {
        bool in_a = i < m * k;
        uint64_t j = in_a ? i : i - m * k;
        unsigned char *h = in_a ? ha : hb;
        double *v = in_a ? va : vb;
        if (ty == T_I8) {
            int8_t x = (int8_t)(rng_below(rng, 256) - 128);
            ((int8_t *)h)[j] = x;
            v[j] = x;
        } else {
            float f = (float)rng_signed_unit(rng);
            if (ty == T_BF16) {
                ((uint16_t *)h)[j] = to_bf16(f);
                f = from_bf16(((uint16_t *)h)[j]);
            } else {
                ((float *)h)[j] = f;
            }
            v[j] = f;
        }
    }
    for (uint64_t i = 0; i < m * n; i++) {
        if (ty == T_I8)
            ((int32_t *)h0)[i] = (int32_t)rng_below(rng, 2001) - 1000, vc[i] = ((int32_t *)h0)[i];
        else
            ((float *)h0)[i] = (float)rng_signed_unit(rng), vc[i] = ((float *)h0)[i];
    }
    CHECK(mapc_view_write(rt, w[0], ha) == MAPC_OK && mapc_view_write(rt, w[1], hb) == MAPC_OK &&
              mapc_view_write(rt, w[2], h0) == MAPC_OK,
          "host writes: %s", mapc_runtime_error(rt));
    double alpha = ty == T_I8 ? (double)((int)rng_below(rng, 7) - 3) : rng_signed_unit(rng) * 2;
    double beta = rng_below(rng, 3) == 0 ? 0.0 : ty == T_I8 ? 2.0 : 0.5;
    size_t cbytes = mapc_tensor_bytes(t[2]);
    void *c0 = malloc(cbytes);
    memcpy(c0, mapc_tensor_data(t[2]), cbytes);
    s = mapc_kernel_run(kern, mapc_tensor_data(t[0]), mapc_tensor_data(t[1]), mapc_tensor_data(t[2]), alpha, beta);
    CHECK(s == MAPC_OK, "case %llu: run: %s", (unsigned long long)index, mapc_kernel_error(kern));
    CHECK(mapc_view_read(rt, w[2], hc) == MAPC_OK, "read C: %s", mapc_runtime_error(rt));
    uint64_t bad = 0;
    for (uint64_t i = 0; i < m && s == MAPC_OK; i++)
        for (uint64_t j = 0; j < n; j++) {
            double acc = 0, mag = 0;
            for (uint64_t q = 0; q < k; q++) {
                acc += va[i * k + q] * vb[j * k + q];
                mag += fabs(va[i * k + q] * vb[j * k + q]);
            }
            if (ty == T_I8) {
                int32_t want = (int32_t)(uint32_t)((uint64_t)(int64_t)alpha * (uint64_t)(int64_t)acc +
                                                   (uint64_t)(int64_t)beta * (uint64_t)(int64_t)vc[i * n + j]);
                bad += ((int32_t *)hc)[i * n + j] != want;
            } else {
                double want = alpha * acc + beta * vc[i * n + j], got = ((float *)hc)[i * n + j];
                bad += !(fabs(got - want) <= (k + 4) * 0x1p-23 * (fabs(alpha) * mag + fabs(beta * vc[i * n + j])) + 1e-30);
            }
        }
    CHECK_EQ_U64(bad, 0, "case %llu: wrong elements of C (%s)\n%s", (unsigned long long)index, in_t[ty], src);
    if (s == MAPC_OK && index % AOT_EVERY == 0)
        check_aot(src, index, threads, mapc_tensor_data(t[0]), mapc_tensor_data(t[1]), c0, mapc_tensor_data(t[2]),
                  cbytes, alpha, beta);
    free(c0);
    free(ha), free(hb), free(hc), free(h0), free(va), free(vb), free(vc);
    mapc_kernel_free(kern);
    mapc_runtime_free(rt);
    mapc_program_free(p);
}

/* The strided-view GEMM: a transposed product against the reference, and the prelude's messages. */
static void test_strided(void)
{
    mapc_gemm *g = NULL;
    CHECK(mapc_gemm_create(&(mapc_gemm_options){.threads = 2}, &g) == MAPC_OK && g, "engine");
    CHECK(mapc_gemm_create(&(mapc_gemm_options){.isa = "sse9"}, &(mapc_gemm *){0}) == MAPC_ERR_ARGUMENT, "bad isa");
    CHECK(mapc_gemm_create(&(mapc_gemm_options){.threads = -1}, &(mapc_gemm *){0}) == MAPC_ERR_ARGUMENT, "bad threads");
    if (!g)
        return;
    enum { M = 37, N = 29, K = 23 };
    static float a[K * M], b[K * N], c[M * N];
    for (int i = 0; i < K * M; i++)
        a[i] = (float)((i * 7) % 13) - 6;
    for (int i = 0; i < K * N; i++)
        b[i] = (float)((i * 5) % 11) - 5;
    /* A given column-major (a transpose), B row-major */
    mapc_matrix va = mapc_col_major(a, M, K, MAPC_F32), vb = mapc_row_major(b, K, N, MAPC_F32);
    mapc_matrix vc = mapc_row_major(c, M, N, MAPC_F32);
    CHECK(mapc_gemm_f32(g, 1.0f, &va, &vb, 0.0f, &vc) == MAPC_OK, "product: %s", mapc_gemm_error(g));
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double want = 0;
            for (int q = 0; q < K; q++)
                want += (double)a[q * M + i] * b[q * N + j];
            bad += c[i * N + j] != (float)want; /* small integers: exact */
        }
    CHECK_EQ_INT(bad, 0, "strided product");
    mapc_matrix v34 = mapc_row_major(a, 3, 4, MAPC_F32), v55 = mapc_row_major(b, 5, 5, MAPC_F32);
    CHECK(mapc_gemm_f32(g, 1, &v34, &v55, 0, &vc) == MAPC_ERR_ARGUMENT &&
              strcmp(mapc_gemm_error(g), "A.cols (4) != B.rows (5)") == 0,
          "message: %s", mapc_gemm_error(g));
    v34.len = 8;
    mapc_matrix v45 = mapc_row_major(b, 4, 5, MAPC_F32), v35 = mapc_row_major(c, 3, 5, MAPC_F32);
    CHECK(mapc_gemm_f32(g, 1, &v34, &v45, 0, &v35) == MAPC_ERR_ARGUMENT &&
              strcmp(mapc_gemm_error(g), "A view of 3x4 (strides 4,1) needs 12 elements but slice has 8") == 0,
          "message: %s", mapc_gemm_error(g));
    CHECK(mapc_gemm_f32(g, 1, NULL, &v45, 0, &v35) == MAPC_ERR_ARGUMENT &&
              strcmp(mapc_gemm_error(g), "A view is missing (a null pointer)") == 0,
          "message: %s", mapc_gemm_error(g));
    v34.len = 12;
    CHECK(mapc_gemm_i8(g, 1, &v34, &v45, 0, &v35) == MAPC_ERR_ARGUMENT &&
              strcmp(mapc_gemm_error(g), "mapc_gemm_i8 cannot run f32 x f32 -> f32; use mapc_gemm_f32") == 0,
          "message: %s", mapc_gemm_error(g));
    v34.type = (mapc_type)42;
    CHECK(mapc_gemm_f32(g, 1, &v34, &v45, 0, &v35) == MAPC_ERR_ARGUMENT, "unknown type");
    CHECK(mapc_gemm_f32(NULL, 1, &v34, &v45, 0, &v35) == MAPC_ERR_ARGUMENT, "NULL engine");
    mapc_gemm_free(g);
    mapc_gemm_free(NULL);
}

/* Device tensors: a DM tensor split over slices filled by DMA from HBM, read back equal; a tile. */
static void test_tensors(void)
{
    static const char src[] = "axes![N = 4, C = 64, H = 8, W = 8];\n"
                              "tensor Hbm: HbmTensor<bf16, m![N], m![C, H, W]>;\n"
                              "tensor Dm: DmTensor<bf16, m![1], m![1], m![C / 2], m![N, H, W, C % 2]>;\n";
    mapc_program *p = NULL;
    CHECK(mapc_compile_string("tensors", src, strlen(src), &p) == MAPC_OK, "compile");
    mapc_runtime *rt = NULL;
    CHECK(mapc_runtime_create(p, 2, &rt) == MAPC_OK, "runtime");
    mapc_tensor *h = NULL, *d = NULL;
    CHECK(mapc_tensor_create(rt, "Hbm", &h) == MAPC_OK && mapc_tensor_create(rt, "Dm", &d) == MAPC_OK, "tensors");
    CHECK(mapc_tensor_create(rt, "Nope", &(mapc_tensor *){0}) == MAPC_ERR_NOT_FOUND, "unknown tensor");
    uint64_t n = mapc_tensor_host_elems(h);
    CHECK_EQ_U64(n, 4 * 64 * 8 * 8, "host elements");
    uint16_t *in = malloc(n * 2), *out = calloc(n, 2);
    for (uint64_t i = 0; i < n; i++)
        in[i] = (uint16_t)(1 + i % 65535); /* never 0, so a held element is seen */
    mapc_view *hw = NULL, *hr = NULL, *dw = NULL, *dr = NULL;
    mapc_tensor_view(rt, h, 1, &hw);
    mapc_tensor_view(rt, h, 0, &hr);
    mapc_tensor_view(rt, d, 1, &dw);
    mapc_tensor_view(rt, d, 0, &dr);
    CHECK(mapc_view_write(rt, hw, in) == MAPC_OK, "write: %s", mapc_runtime_error(rt));
    CHECK(mapc_dma(rt, dw, hr) == MAPC_OK, "dma: %s", mapc_runtime_error(rt));
    CHECK(mapc_view_read(rt, dr, out) == MAPC_OK, "read: %s", mapc_runtime_error(rt));
    CHECK(memcmp(in, out, n * 2) == 0, "HBM over chips -> DM over slices -> host is the identity");
    /* the slice tile holding channels 16 and 17 is slice 8; read back into a zeroed array */
    mapc_view *tile = NULL;
    CHECK(mapc_view_tile(rt, dr, 2, "m![C / 2]", 1, 8, &tile) == MAPC_OK, "tile: %s", mapc_runtime_error(rt));
    memset(out, 0, n * 2);
    CHECK(tile && mapc_view_read(rt, tile, out) == MAPC_OK, "read tile: %s", mapc_runtime_error(rt));
    /* a unit tile keeps the tensor's indices: channels 16 and 17 of every image land where they were */
    uint64_t held = 0, wrong = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t c = i / 64 % 64;
        held += out[i] != 0;
        wrong += (c == 16 || c == 17) ? out[i] != in[i] : out[i] != 0;
    }
    CHECK(held == 4 * 2 * 64 && wrong == 0, "tile holds channels 16 and 17: %llu held, %llu wrong",
          (unsigned long long)held, (unsigned long long)wrong);
    CHECK(mapc_view_tile(rt, dr, 2, "m![Q]", 1, 0, &(mapc_view *){0}) != MAPC_OK, "a tile over no digit");
    CHECK(mapc_dma(rt, NULL, hr) == MAPC_ERR_ARGUMENT, "NULL view");
    free(in);
    free(out);
    mapc_runtime_free(rt);
    mapc_program_free(p);
}

/* Misuse of the kernel calls. */
static void test_kernel_errors(void)
{
    static const char src[] = "axes![M = 8, N = 8, K = 8];\n"
                              "tensor A: HbmTensor<i8, m![1], m![M, K]>;\ntensor B: HbmTensor<i8, m![1], m![K, N]>;\n"
                              "tensor C: HbmTensor<i32, m![1], m![M, N]>;\n"
                              "kernel k: C[M, N] = A[M, K] * B[K, N] { tile M = 8, N = 16, K = 8; }\n";
    mapc_program *p = NULL;
    mapc_compile_string("errors", src, strlen(src), &p);
    mapc_kernel *k = NULL;
    CHECK(mapc_kernel_create(p, "nope", NULL, &k) == MAPC_ERR_NOT_FOUND && !k, "unknown kernel");
    CHECK(mapc_kernel_create(p, "k", &(mapc_kernel_options){.threads = -3}, &k) == MAPC_ERR_ARGUMENT, "bad threads");
    CHECK(mapc_kernel_create(p, "k", NULL, &k) == MAPC_OK && k, "kernel");
    static int8_t a[64], b[64];
    static int32_t c[64];
    CHECK(mapc_kernel_run(k, NULL, b, c, 1, 0) == MAPC_ERR_ARGUMENT &&
              strcmp(mapc_kernel_error(k), "operand A's buffer is missing (a null pointer)") == 0,
          "%s", mapc_kernel_error(k));
    CHECK(mapc_kernel_run(k, a, b, c, 2.5, 0) == MAPC_ERR_ARGUMENT &&
              strcmp(mapc_kernel_error(k), "alpha (2.5) must be a 32-bit integer for an i8 kernel") == 0,
          "%s", mapc_kernel_error(k));
    CHECK(mapc_kernel_run(k, a, b, c, NAN, 0) == MAPC_ERR_ARGUMENT, "NaN alpha");
    CHECK(mapc_kernel_run(k, a, b, c, -2147483648.0, 0) == MAPC_OK && mapc_kernel_error(k)[0] == 0, "INT32_MIN");
    CHECK(mapc_kernel_run(NULL, a, b, c, 1, 0) == MAPC_ERR_ARGUMENT, "NULL kernel");
    mapc_kernel_free(k);
    mapc_kernel_free(NULL);
    mapc_program_free(p);
}

int main(int argc, char **argv)
{
    HarnessArgs args = {.seed = 1, .count = 300};
    harness_args(argc, argv, "[SEED [COUNT [FIRST]]]", &args);
    for (uint64_t i = args.first; i < args.first + args.count; i++) {
        harness_case(i);
        Rng rng = rng_seeded(rng_case_seed(args.seed, i, 0xa91));
        kernel_case(&rng, i);
    }
    test_strided();
    test_tensors();
    test_kernel_errors();
    return harness_report();
}
