/* gemm_impl.h — what the GEMM runtime files share: the reference packer, the host CPU, the kernel cache and the
 * blocking plans. */
#ifndef MAPC_GEMM_IMPL_H
#define MAPC_GEMM_IMPL_H

#include "gemm.h"
#include "codegen/gemm_codegen.h"
#include "pool.h"

/* ---- the reference packer and the column sums (gemm_pack_ref.c) ---- */

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
 * of w (0 in the padding): the correction of the VNNI kernel (the engine's loop nest calls it). */
void gemm_colsum(const int8_t *restrict src, int64_t sr, int64_t sk, int64_t R, int64_t K, int w,
                 int32_t *restrict colsum);

/* ---- the host CPU as LLVM compiles for it (cpu.c) ---- */

typedef struct GemmCpu {
    const char *signature;  /* "name +feature,..." (cg_host_signature): the kernels' target; NULL if unknown */
    bool bf16;              /* avx512bf16: vdpbf16ps */
    bool vnni;              /* avx512vnni: vpdpbusd */
    bool zen;               /* an AMD Zen core, where vdpbf16ps runs at twice the f32 FMA rate */
    TargetCaches caches;    /* its data caches per core (target_host_caches): the engine's cache blocks */
} GemmCpu;

/* The host CPU, found once per process (thread-safe). */
const GemmCpu *gemm_cpu(void);
/* Whether the host CPU has the instruction of op (the dot products need a feature beyond their ISA). */
bool gemm_cpu_has_op(TargetOp op);

/* ---- the process-wide kernel cache (kernel_cache.c) ---- */

/* The JIT-compiled routines of one kernel signature (see gemm_codegen.h for their contracts). */
typedef void (*GemmPackFn)(void *dst, const void *src, int64_t sr, int64_t sk, int64_t R, int64_t K);
typedef void (*GemmBlocksFn)(const CgGemmBlocks *args);
typedef struct GemmKernels {
    void *macro;            /* the macro-kernel (float or int32 alpha/beta) */
    void *macro_direct;     /* f32 with f32 A or bf16 dot products with bf16 A, M innermost: the macro-kernel
                             * reading A unpacked, or NULL */
    void *macro_small;      /* f32 with macro_direct: the macro-kernel reading A and B unpacked, or NULL */
    GemmPackFn pack_a, pack_b;
    GemmBlocksFn blocks;    /* the loop nest over one task's share of C (calls the three above) */
} GemmKernels;

/* The kernels for spec with the given packing conversions (A panels of mr rows, B of nr), from the
 * process-wide cache (keyed by the spec, the conversions, want_direct and the host CPU's signature) or compiled
 * now for the host. want_direct adds the macro-kernels reading A unpacked where the spec allows it (f32 with f32 A
 * or bf16 dot products with bf16 A, M innermost) and, for f32, B too (the small-product path); the engine's own
 * plans use them, a caller's tiling never does. 0, or -1 with err. Thread-safe. */
int gemm_kernels(const CgGemmSpec *spec, CgPackConv conv_a, CgPackConv conv_b, bool want_direct, GemmKernels *out,
                 char *err, size_t cap);
/* Whether two specs describe the same kernels. */
bool gemm_spec_same(const CgGemmSpec *a, const CgGemmSpec *b);

/* Makes k (compiled elsewhere: ahead of time for spec with the conversions) the kernels of g's calls with
 * tiling tl on input type t, after checking that they are the ones g would compile for it. 0, or -1 with
 * err (the tiling does not fit g's ISA or the host, or the plans differ). */
int gemm_use_kernels(Gemm *g, const GemmTiling *tl, GemmType t, const CgGemmSpec *spec, CgPackConv conv_a,
                     CgPackConv conv_b, const GemmKernels *k, char *err, size_t cap);

/* Grows each of the n per-task buffers buf[t] (of size[t] bytes) to at least need bytes aligned to align
 * (contents not kept). 0, or -1 with "out of memory" in err. */
int gemm_grow_buffers(void **buf, size_t *size, int n, size_t need, size_t align, char *err, size_t cap);

/* The GEMM type of a tensor's element type. */
GemmType gemm_type_of(ElemType e);

/* Frees every kernel of the process-wide cache (what gemm_release_kernels does after the runner's states). */
void gemm_kernels_release(void);

/* ---- plans: the kernel and the blocking for a type on an ISA (blocking.c) ---- */

typedef struct GemmPlan {
    CgGemmSpec spec;
    CgPackConv conv_a, conv_b;
    int mc, kc, nc;         /* cache blocks (the engine's own: mc a multiple of mr, nc of nr) */
} GemmPlan;

/* The dot-product instructions an engine may use beyond the multiply-adds of its ISA. */
typedef struct GemmFeatures {
    bool dot_bf16;          /* its own plans run bf16 on vdpbf16ps (else widened to f32 in packing) */
    bool has_bf16;          /* the host has vdpbf16ps (for tilings that group bf16 K by 2) */
    bool vnni;              /* the host has vpdpbusd (i8 K groups of 4; the engine's own plans use it) */
} GemmFeatures;

/* The engine's plan for input type t on isa: its table's default micro-tile, with the widest K group of t whose
 * instruction f allows, and the cache model's blocks for caches c (target_cache_blocks). */
GemmPlan gemm_plan(TargetIsa isa, const GemmFeatures *f, GemmType t, const TargetCaches *c);
/* The K group a tiling's kgroup runs with on a host of features f: kgroup, or isa's first group for t (a
 * multiply-add every host of the ISA has, widening in packing) when kgroup's dot-product instruction is one
 * f lacks (vdpbf16ps or vpdpbusd on an AVX-512 CPU without them). A group isa's table lacks is returned as
 * it is (gemm_plan_tiled reports it). */
int gemm_host_kgroup(TargetIsa isa, const GemmFeatures *f, GemmType t, int kgroup);
/* The plan of a caller's tiling for input type t on isa, or false with err (a K group or micro-tile the
 * ISA's kernels cannot run, an instruction the host lacks, tile sizes out of range). */
bool gemm_plan_tiled(TargetIsa isa, const GemmFeatures *f, GemmType t, const GemmTiling *tl, GemmPlan *p, char *err,
                     size_t cap);

/* ---- products of one k block read unpacked (small.c) ---- */

typedef struct GemmSmall GemmSmall;

/* The small-product state of an engine of up to `tasks` tasks (its kernels per micro-tile, B buffers); NULL
 * when out of memory. */
GemmSmall *gemm_small_new(int tasks);
void gemm_small_free(GemmSmall *s);

/* C = alpha*A*B + beta*C for f32 A, B and C with unit column strides and K at most kc (one k block), when
 * a micro-tile of isa with enough accumulators divides M and N: A is read unpacked, B too when it is small
 * (else packed once per task), C in full tiles, on `tasks` tasks of pool (row ranges of C). The per-element
 * arithmetic is the engine's (k in order from zero, then alpha and beta). 1 when it ran, 0 when the product
 * does not qualify (nothing done), -1 with err (a kernel did not compile, out of memory). */
int gemm_small(GemmSmall *s, TargetIsa isa, RtPool *pool, int tasks, int kc, float alpha, float beta,
               const GemmView *a, const GemmView *b, const GemmView *c, char *err, size_t cap);

#endif
