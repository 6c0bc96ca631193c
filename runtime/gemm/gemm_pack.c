/* gemm_pack.c — packing GEMM operand blocks into micro-kernel panels, and bf16/f16 conversions. */
#include "gemm_impl.h"

#include <string.h>

uint16_t gemm_f32_to_bf16(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40); /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

float gemm_bf16_to_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float x;
    memcpy(&x, &u, 4);
    return x;
}

float gemm_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, u;
    if (e == 0x1f) {
        u = sign | 0x7f800000u | (m << 13);
    } else if (e != 0) {
        u = sign | ((e + 112) << 23) | (m << 13);
    } else if (m == 0) {
        u = sign;
    } else { /* subnormal: normalize */
        int s = 0;
        while (!(m & 0x400)) {
            m <<= 1;
            s++;
        }
        u = sign | ((uint32_t)(113 - s) << 23) | ((m & 0x3ff) << 13);
    }
    float x;
    memcpy(&x, &u, 4);
    return x;
}

uint16_t gemm_f32_to_f16(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    uint32_t sign = (u >> 16) & 0x8000, a = u & 0x7fffffffu;
    if (a > 0x7f800000u)
        return (uint16_t)(sign | 0x7e00);
    if (a >= 0x477ff000u) /* rounds to >= 65520: infinity */
        return (uint16_t)(sign | 0x7c00);
    if (a < 0x38800000u) { /* below the smallest normal: subnormal or zero, rounded to even */
        if (a < 0x33000000u)
            return (uint16_t)sign;
        uint32_t e = a >> 23, m = (a & 0x7fffff) | 0x800000;
        int shift = (int)(126 - e); /* value m * 2^(e-150) in units of 2^-24; 14..24 */
        uint32_t r = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1)))
            r++;
        return (uint16_t)(sign | r);
    }
    uint32_t r = a - 0x38000000u; /* rebias 127 -> 15 */
    r += 0xfffu + ((r >> 13) & 1);
    return (uint16_t)(sign | (r >> 13));
}

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

void gemm_colsum(const int8_t *restrict src, int64_t sr, int64_t sk, int64_t R, int64_t K, int w,
                 int32_t *restrict colsum)
{
    int64_t np = (R + w - 1) / w;
    for (int64_t r = 0; r < np * w; r++)
        colsum[r] = 0;
    if (sr == 1) { /* contiguous along r: accumulate row by row */
        for (int64_t k = 0; k < K; k++)
            for (int64_t r = 0; r < R; r++)
                colsum[r] += src[k * sk + r];
        return;
    }
    for (int64_t r = 0; r < R; r++) {
        int32_t sum = 0;
        for (int64_t k = 0; k < K; k++)
            sum += src[r * sr + k * sk];
        colsum[r] = sum;
    }
}
