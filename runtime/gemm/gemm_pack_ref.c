/* gemm_pack_ref.c — the scalar packers: the reference panel packer (the JIT one is checked against it) and the
 * column sums of i8 B blocks (the VNNI correction, called by the generated loop nest). */
#include "gemm_impl.h"

#include <string.h>

/* One packing loop nest per conversion; the loop order follows the contiguous source axis. */
#define PACK_BODY(ST, DT, CONV, ZERO)                                                                \
    do {                                                                                             \
        const ST *s = src;                                                                           \
        DT *d = dst;                                                                                 \
        int64_t kcp = (K + g - 1) / g * g, np = (R + w - 1) / w;                                     \
        for (int64_t p = 0; p < np; p++) {                                                           \
            DT *pd = d + p * w * kcp;                                                                \
            int64_t r0 = p * w, live = R - r0 < w ? R - r0 : w;                                      \
            if (sk == 1 || live < w) {                                                               \
                for (int64_t r = 0; r < w; r++) {                                                    \
                    for (int64_t k = 0; k < kcp; k++) {                                              \
                        DT v = ZERO;                                                                 \
                        if (r < live && k < K) {                                                     \
                            ST x = s[(r0 + r) * sr + k * sk];                                        \
                            v = CONV;                                                                \
                        }                                                                            \
                        pd[(k / g) * w * g + r * g + k % g] = v;                                     \
                    }                                                                                \
                }                                                                                    \
            } else {                                                                                 \
                for (int64_t k = 0; k < kcp; k++) {                                                  \
                    DT *kd = pd + (k / g) * w * g + k % g;                                           \
                    if (k >= K) {                                                                    \
                        for (int64_t r = 0; r < w; r++)                                              \
                            kd[r * g] = ZERO;                                                        \
                        continue;                                                                    \
                    }                                                                                \
                    const ST *sp = s + r0 * sr + k * sk;                                             \
                    for (int64_t r = 0; r < w; r++) {                                                \
                        ST x = sp[r * sr];                                                           \
                        kd[r * g] = CONV;                                                            \
                    }                                                                                \
                }                                                                                    \
            }                                                                                        \
        }                                                                                            \
    } while (0)

void gemm_pack(CgPackConv conv, void *dst, const void *src, int64_t sr, int64_t sk, int64_t R, int64_t K, int w, int g,
               int32_t *colsum)
{
    if (conv == CG_PACK_F32 && sr == 1 && g == 1 && R >= w) {
        /* contiguous rows along r (row-major B, column-major A): whole panel rows are copies, and
         * the partial last panel goes through the general loop */
        const float *s = src;
        float *d = dst;
        int64_t full = R / w;
        for (int64_t p = 0; p < full; p++)
            for (int64_t k = 0; k < K; k++)
                memcpy(d + (p * K + k) * w, s + p * w + k * sk, (size_t)w * 4);
        if (R > full * w)
            gemm_pack(conv, d + full * w * K, s + full * w, sr, sk, R - full * w, K, w, g, NULL);
        return;
    }
    switch (conv) {
    case CG_PACK_F32: PACK_BODY(float, float, x, 0.0f); break;
    case CG_PACK_BF16_F32: PACK_BODY(uint16_t, float, gemm_bf16_to_f32(x), 0.0f); break;
    case CG_PACK_F16_F32: PACK_BODY(uint16_t, float, gemm_f16_to_f32(x), 0.0f); break;
    case CG_PACK_BF16: PACK_BODY(uint16_t, uint16_t, x, 0); break;
    case CG_PACK_I8_U8: PACK_BODY(int8_t, uint8_t, (uint8_t)((uint8_t)x ^ 0x80u), 0x80); break;
    case CG_PACK_I8: PACK_BODY(int8_t, int8_t, x, 0); break;
    case CG_PACK_I8_I32: PACK_BODY(int8_t, int32_t, x, 0); break;
    }
    if (colsum)
        gemm_colsum(src, sr, sk, R, K, w, colsum);
}
