/* main.c — sample: uses functions and a GEMM kernel that `mapc emit` compiled ahead of time (see meson.build). */
#include "gemm.h"
#include "layouts.h"

#include <math.h>
#include <stdio.h>

/* The layouts: a transpose and a padded copy, checked through the emitted offset and cell functions. */
static int check_layouts(void)
{
    static float a[64 * 48], t[64 * 48], p[64 * 64];
    for (int i = 0; i < 64 * 48; i++)
        a[i] = (float)i;
    lay_transpose(t, a);
    lay_pad_rows(p, a);
    int64_t c[lay_NAXES] = {3, 5};
    int bad = t[lay_ColMajor_offset(c)] != a[lay_RowMajor_offset(c)];
    bad += p[lay_Padded_offset(c)] != a[3 * 48 + 5];
    int64_t k[lay_NAXES];
    bad += lay_Padded_cell(50, k) != MAPC_CELL_PAD_ZERO || p[50] != 0.0f;
    printf("{A:3, B:5}: row-major %lld, column-major %lld, padded %lld -> %s\n", (long long)lay_RowMajor_offset(c),
           (long long)lay_ColMajor_offset(c), (long long)lay_Padded_offset(c), bad ? "WRONG" : "ok");
    return bad;
}

/* The kernel: C = 2 * A * B + C on 96 x 64 and 64 x 80 matrices (B column-major), against a loop in double. */
static int check_kernel(void)
{
    enum { M = 96, N = 80, K = 64 };
    static float a[M * K], b[N * K], c[M * N], c0[M * N];
    for (int i = 0; i < M * K; i++)
        a[i] = (float)(i % 7) - 3.0f;
    for (int i = 0; i < N * K; i++)
        b[i] = (float)(i % 5) * 0.5f;
    for (int i = 0; i < M * N; i++)
        c[i] = c0[i] = (float)(i % 3);
    int status = mm_matmul(a, b, c, 2.0, 1.0, 2);
    if (status != 0) {
        printf("mm_matmul: %s\n", mapc_aot_error());
        return 1;
    }
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double want = c0[i * N + j];
            for (int q = 0; q < K; q++)
                want += 2.0 * a[i * K + q] * b[j * K + q];
            bad += fabs(c[i * N + j] - want) > 1e-4 * (1 + fabs(want));
        }
    printf("matmul %dx%dx%d on 2 threads: %d wrong elements -> %s\n", M, N, K, bad, bad ? "WRONG" : "ok");
    return bad != 0;
}

int main(void)
{
    int bad = check_layouts();
    bad += check_kernel();
    return bad != 0;
}
