/* gemm_convert.c — element conversions: bf16 and f16 to and from f32 (round to nearest even), tensor element types to GEMM types. */
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

GemmType gemm_type_of(ElemType e)
{
    switch (e) {
    case ELEM_BF16: return GEMM_BF16;
    case ELEM_F16: return GEMM_F16;
    case ELEM_I8: return GEMM_I8;
    case ELEM_I32: return GEMM_I32;
    default: return GEMM_F32;
    }
}
