/* gemm_beta0.c — under memcheck: with beta = 0 the strided-view GEMM never reads C, so an uninitialized C of odd
 * shape (edge tiles, masked and element-by-element stores) comes back fully defined, for i8 and f32, and with
 * alpha = 0 too (C <- beta*C alone). Prints "ok" and exits 0 when every element is alpha*A*B; memcheck reports
 * any read of C's undefined bytes. */
#include <mapc/mapc.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M = 13, N = 19, K = 8 };

int main(void)
{
    int8_t *a = malloc(M * K), *b = malloc(K * N);
    float *af = malloc(sizeof(float) * M * K), *bf = malloc(sizeof(float) * K * N);
    int32_t *c = malloc(sizeof(int32_t) * M * N); /* left uninitialized */
    float *cf = malloc(sizeof(float) * M * N);    /* left uninitialized */
    memset(a, 1, M * K);
    memset(b, 2, K * N);
    for (int i = 0; i < M * K; i++)
        af[i] = 1.0f;
    for (int i = 0; i < K * N; i++)
        bf[i] = 2.0f;
    mapc_gemm *g = NULL;
    if (mapc_gemm_create(NULL, &g) != MAPC_OK)
        return 2;
    mapc_matrix ma = mapc_row_major(a, M, K, MAPC_I8), mb = mapc_row_major(b, K, N, MAPC_I8);
    mapc_matrix mc = mapc_row_major(c, M, N, MAPC_I32);
    mapc_matrix fa = mapc_row_major(af, M, K, MAPC_F32), fb = mapc_col_major(bf, K, N, MAPC_F32);
    mapc_matrix fc = mapc_row_major(cf, M, N, MAPC_F32);
    fc.rs = 1, fc.cs = M; /* column-major C: the element-by-element stores */
    int ok = mapc_gemm_i8(g, 1, &ma, &mb, 0, &mc) == MAPC_OK && mapc_gemm_f32(g, 1.0f, &fa, &fb, 0.0f, &fc) == MAPC_OK;
    for (int i = 0; ok && i < M * N; i++)
        ok = c[i] == 2 * K && cf[i] == 2.0f * K; /* a branch on every element: memcheck sees undefined ones */
    int32_t *c0 = malloc(sizeof(int32_t) * M * N); /* alpha = 0 and beta = 0: zeros, C unread */
    float *cf0 = malloc(sizeof(float) * M * N);
    mc.data = c0;
    fc.data = cf0;
    ok = ok && mapc_gemm_i8(g, 0, &ma, &mb, 0, &mc) == MAPC_OK && mapc_gemm_f32(g, 0.0f, &fa, &fb, 0.0f, &fc) == MAPC_OK;
    for (int i = 0; ok && i < M * N; i++)
        ok = c0[i] == 0 && cf0[i] == 0.0f;
    free(c0);
    free(cf0);
    printf("%s\n", ok ? "ok" : "FAILED");
    mapc_gemm_free(g);
    mapc_release_caches();
    free(a), free(b), free(af), free(bf), free(c), free(cf);
    return ok ? 0 : 1;
}
