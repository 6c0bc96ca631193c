/* gemm_impl.h — what the GEMM runtime files share: packing formats and element conversions. */
#ifndef MAPC_GEMM_IMPL_H
#define MAPC_GEMM_IMPL_H

#include "gemm.h"
#include "codegen/gemm_codegen.h"


/*
 * The reference packer (the engine uses the JIT-compiled one; tests compare the two).
 * Packs an R x K operand block into panels of w rows (the layout of gemm_codegen.h):
 * element (r, k), read at src[r*sr + k*sk] (in source elements), goes to
 *     dst[(r/w)*w*kcp + (k/g)*w*g + (r%w)*g + k%g]        kcp = K rounded up to g
 * and the padding (r >= R up to a whole panel, k >= K up to kcp) is the converted zero. For A,
 * rows are M (sr = rs, sk = cs); for B, rows are N (sr = cs, sk = rs). When colsum is not NULL
 * (i8 B blocks), colsum[r] = sum over k of the element, for r < whole panels (0 in the padding).
 */
void gemm_pack(CgPackConv conv, void *dst, const void *src, int64_t sr, int64_t sk, int64_t R, int64_t K, int w, int g,
               int32_t *colsum);

/* colsum[r] = sum over k < K of the i8 element (r, k) at src[r*sr + k*sk], for r up to whole panels
 * of w (0 in the padding): the correction of the VNNI kernel. */
void gemm_colsum(const int8_t *restrict src, int64_t sr, int64_t sk, int64_t R, int64_t K, int w,
                 int32_t *restrict colsum);

/* The JIT-compiled routines of one kernel signature (see gemm_codegen.h for their contracts). */
typedef void (*GemmPackFn)(void *dst, const void *src, int64_t sr, int64_t sk, int64_t R, int64_t K);
typedef void (*GemmBlocksFn)(const CgGemmBlocks *args);
typedef struct GemmKernels {
    void *macro;            /* the macro-kernel (float or int32 alpha/beta) */
    void *macro_direct;     /* f32 with f32 A only: the macro-kernel reading A unpacked, or NULL */
    GemmPackFn pack_a, pack_b;
    GemmBlocksFn blocks;    /* the loop nest over one task's share of C (calls the three above) */
} GemmKernels;

/* The kernels for spec with the given packing conversions (A panels of mr rows, B of nr), from the
 * process-wide cache or compiled now for the host. 0, or -1 with err. */
int gemm_kernels(const CgGemmSpec *spec, CgPackConv conv_a, CgPackConv conv_b, GemmKernels *out, char *err,
                 size_t cap);

#endif
