/* main.c — a host program using an installed libmapc: it runs the declared kernel `product` of gemm.map
 * on its own matrices (laid out as the kernel's tensors say), then the same product through the
 * strided-view GEMM, and checks both against a plain triple loop. Exit 0 when both agree. */
#include <mapc/mapc.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M = 192, N = 200, K = 96, LDC = 208 };

/* The largest |got - want| relative to the sum of the magnitudes of the products. */
static double max_error(const float *c, int64_t rs, const double *want, const double *mag)
{
    double worst = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double e = fabs(c[i * rs + j] - want[i * N + j]) / (mag[i * N + j] > 0 ? mag[i * N + j] : 1);
            worst = e > worst ? e : worst;
        }
    return worst;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "gemm.map";
    /* A row-major (i*K + k), B column-major (j*K + k), C rows padded to LDC */
    float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N);
    float *c = calloc((size_t)M * LDC, sizeof(float)), *c2 = calloc((size_t)M * N, sizeof(float));
    double *want = calloc((size_t)M * N, sizeof(double)), *mag = calloc((size_t)M * N, sizeof(double));
    for (int i = 0; i < M * K; i++)
        a[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
    for (int i = 0; i < K * N; i++)
        b[i] = (float)((i * 53) % 97) / 48.0f - 1.0f;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < K; k++) {
                double t = (double)a[i * K + k] * b[j * K + k];
                want[i * N + j] += t;
                mag[i * N + j] += fabs(t);
            }

    /* 1. the declared kernel, JIT-compiled for this machine */
    mapc_program *p = NULL;
    mapc_status s = mapc_compile_file(path, &p);
    if (s != MAPC_OK) {
        fprintf(stderr, "%s: %s\n", path, p && mapc_diag_count(p) ? mapc_diag_text(p, 0) : mapc_status_string(s));
        return 1;
    }
    mapc_kernel *k = NULL;
    s = mapc_kernel_create(p, "product", &(mapc_kernel_options){.threads = 2}, &k);
    if (s != MAPC_OK) {
        fprintf(stderr, "kernel: %s\n", mapc_diag_count(p) ? mapc_diag_text(p, mapc_diag_count(p) - 1)
                                                           : mapc_status_string(s));
        return 1;
    }
    if (mapc_kernel_operand_bytes(k, 2) != sizeof(float) * M * LDC) {
        fprintf(stderr, "C's layout is not %d x %d floats\n", M, LDC);
        return 1;
    }
    if (mapc_kernel_run(k, a, b, c, 1.0, 0.0) != MAPC_OK) {
        fprintf(stderr, "run: %s\n", mapc_kernel_error(k));
        return 1;
    }
    double e1 = max_error(c, LDC, want, mag);

    /* 2. the strided-view GEMM: the same operands described by their strides */
    mapc_gemm *g = NULL;
    if (mapc_gemm_create(NULL, &g) != MAPC_OK)
        return 1;
    mapc_matrix va = mapc_row_major(a, M, K, MAPC_F32), vb = mapc_col_major(b, K, N, MAPC_F32);
    mapc_matrix vc = mapc_row_major(c2, M, N, MAPC_F32);
    if (mapc_gemm_f32(g, 1.0f, &va, &vb, 0.0f, &vc) != MAPC_OK) {
        fprintf(stderr, "gemm: %s\n", mapc_gemm_error(g));
        return 1;
    }
    double e2 = max_error(c2, N, want, mag);
    /* a wrong view is refused with a message, never printed by the library */
    mapc_matrix bad = mapc_row_major(b, K + 1, N, MAPC_F32);
    mapc_status sb = mapc_gemm_f32(g, 1.0f, &va, &bad, 0.0f, &vc);

    double bound = (K + 2) * 0x1p-24;
    printf("kernel product: max error %.3g, strided GEMM: max error %.3g (bound %.3g); a bad view: \"%s\"\n", e1, e2,
           bound, mapc_gemm_error(g));
    int ok = e1 <= bound && e2 <= bound && sb == MAPC_ERR_ARGUMENT;
    printf("%s\n", ok ? "ok" : "FAILED");
    mapc_gemm_free(g);
    mapc_kernel_free(k);
    mapc_program_free(p);
    mapc_release_caches(); /* the compiled GEMM kernels: nothing is left allocated at exit */
    free(a), free(b), free(c), free(c2), free(want), free(mag);
    return ok ? 0 : 1;
}
