/* colsum.c — the column sums of an i8 block that correct the VNNI kernel's unsigned A operand, in vectorizable strips. */
#include "gemm_impl.h"

/* Columns summed at once: a strip of accumulators the compiler keeps in vector registers. */
enum { STRIP = 64 };

/* Built for the widest vectors the host has (chosen once at load time) where the compiler can clone functions. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define COLSUM_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define COLSUM_CLONES
#endif

COLSUM_CLONES
void gemm_colsum(const int8_t *restrict src, int64_t sr, int64_t sk, int64_t R, int64_t K, int w,
                 int32_t *restrict colsum)
{
    int64_t np = (R + w - 1) / w;
    for (int64_t r = R; r < np * w; r++)
        colsum[r] = 0;
    if (sr == 1) { /* contiguous along r: strips of STRIP columns accumulate row by row */
        int64_t r0 = 0;
        for (; r0 + STRIP <= R; r0 += STRIP) {
            int32_t acc[STRIP] = {0};
            for (int64_t k = 0; k < K; k++)
                for (int i = 0; i < STRIP; i++)
                    acc[i] += src[k * sk + r0 + i];
            for (int i = 0; i < STRIP; i++)
                colsum[r0 + i] = acc[i];
        }
        for (int64_t r = r0; r < R; r++) {
            int32_t sum = 0;
            for (int64_t k = 0; k < K; k++)
                sum += src[k * sk + r];
            colsum[r] = sum;
        }
        return;
    }
    for (int64_t r = 0; r < R; r++) { /* along k: strips of STRIP values, then the rest */
        const int8_t *x = src + r * sr;
        int32_t sum = 0;
        int64_t k = 0;
        if (sk == 1) {
            int32_t acc[STRIP] = {0};
            for (; k + STRIP <= K; k += STRIP)
                for (int i = 0; i < STRIP; i++)
                    acc[i] += x[k + i];
            for (int i = 0; i < STRIP; i++)
                sum += acc[i];
        }
        for (; k < K; k++)
            sum += x[k * sk];
        colsum[r] = sum;
    }
}
