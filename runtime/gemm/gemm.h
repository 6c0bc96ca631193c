/* gemm.h — GEMM over checked strided views (docs/language.md §6): C <- alpha*A*B + beta*C, JIT-compiled kernels. */
#ifndef MAPC_GEMM_H
#define MAPC_GEMM_H

#include "core/target.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Views. Element (i, j) of a view lives at data[i*rs + j*cs] (strides in elements, not bytes), as in
 * seeds/gemmkit-matrix-views.zh.txt: row-major is (rs = cols, cs = 1), column-major (rs = 1,
 * cs = rows), a transpose swaps the strides (and the extents), a sub-matrix keeps its parent's
 * strides with data at its (0, 0), and a broadcast uses stride 0 (allowed for A and B, never for C).
 * `len` is the number of elements available from `data` (the slice length).
 *
 * Supported types (A x B -> C): f32 x f32 -> f32, bf16 x bf16 -> f32, f16 x f16 -> f32 (through
 * gemm_f32, alpha and beta are float) and i8 x i8 -> i32 (through gemm_i8, alpha and beta are
 * int32; the i32 arithmetic wraps modulo 2^32, so the result is exact whenever it is representable).
 * bf16 and f16 elements are their IEEE/bfloat bit patterns in uint16_t.
 *
 * The validation prelude (gemm_check, run by gemm_f32/gemm_i8 before any arithmetic) returns the
 * first failure, checking in this order (X is A, then B, then C, the three view checks per view;
 * values are decimal):
 *   "unsupported element types X x Y -> Z; supported: f32 x f32 -> f32, bf16 x bf16 -> f32,
 *    f16 x f16 -> f32, i8 x i8 -> i32"                        (one line)
 *   "A.cols (3) != B.rows (4)"
 *   "A.rows (5) != C.rows (6)"
 *   "B.cols (5) != C.cols (6)"
 *   "X view of 3x4 (strides -4,1) has negative strides or is too large to address"
 *   "X view of 3x4 (strides 4,1) needs 12 elements but slice has 8"
 *   "X view of 3x4 (strides 4,1) needs 12 elements but data is null"
 *   "C view aliases itself (3x4, strides 0,1); C must address each (i,j) uniquely"
 *   "C aliases A or B"                                          (byte ranges intersect)
 * and the entry points add
 *   "gemm_f32 cannot run i8 x i8 -> i32; use gemm_i8"
 *   "gemm_i8 cannot run f32 x f32 -> f32; use gemm_f32"      (with the actual types)
 *   "cannot compile the GEMM kernel: ..."                      (the JIT failed)
 *   "out of memory"
 * "Too large to address": the view's extent (highest offset + 1) in bytes does not fit in int64.
 * The aliasing test is exact (gcd of the strides, not a sufficient condition). Views with a zero
 * extent need no elements and address nothing. m = 0 or n = 0 is a no-op; k = 0 or alpha = 0
 * computes C <- beta*C (beta = 0 stores zeros, even over NaN; this also holds for k > 0).
 */

typedef enum GemmType { GEMM_F32, GEMM_BF16, GEMM_F16, GEMM_I8, GEMM_I32 } GemmType;

typedef struct GemmView {
    void *data;          /* element (0, 0); only read for A and B */
    uint64_t len;        /* elements available from data */
    uint64_t rows, cols;
    int64_t rs, cs;      /* row and column strides, in elements */
    GemmType type;
} GemmView;

/* Convenience constructors (the seed's from_row_major / from_col_major / new). */
GemmView gemm_view(void *data, uint64_t len, uint64_t rows, uint64_t cols, int64_t rs, int64_t cs, GemmType t);
GemmView gemm_row_major(void *data, uint64_t rows, uint64_t cols, GemmType t);
GemmView gemm_col_major(void *data, uint64_t rows, uint64_t cols, GemmType t);
/* The rows [r0, r0 + rows) and columns [c0, c0 + cols) of v (its strides; len what is left from there). */
GemmView gemm_sub_view(const GemmView *v, uint64_t r0, uint64_t c0, uint64_t rows, uint64_t cols);

/* Bytes per element; the name used in messages ("f32", "bf16", "f16", "i8", "i32"). */
size_t gemm_type_size(GemmType t);
const char *gemm_type_name(GemmType t);

/* The validation prelude: 0 if (a, b, c) is a valid triple, else -1 with the message (see above)
 * in err[cap] (truncated to fit; err may be NULL when cap is 0). Never prints. */
int gemm_check(const GemmView *a, const GemmView *b, const GemmView *c, char *err, size_t cap);

/* Options of an engine. isa is the kernel family it generates (core/target.h): TARGET_ISA_HOST (0)
 * picks the host's best, target_host_isa: AVX512 when the host has AVX-512F/BW/VL (bf16 dot products
 * with avx512_bf16, see bf16_dot; i8 with AVX512-VNNI when present, else i32 multiply-adds), else
 * AVX2 (with FMA), else PORTABLE (plain LLVM vectors; what LLVM makes of them on the host). Each
 * family's micro-tiles, K groups and cache blocks are its target table's. Forcing a family the host
 * lacks is refused by gemm_new. */
enum { GEMM_MAX_THREADS = 1024 };

typedef struct GemmOptions {
    int threads;         /* 1 to GEMM_MAX_THREADS (0: 1) */
    TargetIsa isa;
    int bf16_dot;        /* bf16 on AVX512: 1 the vdpbf16ps kernel, -1 widen to f32 in packing and use
                          * the f32 kernel, 0 auto (the dot-product kernel on AMD Zen, where it runs at
                          * twice the f32 rate; the f32 kernel on Intel, where it does not) */
} GemmOptions;

/* An engine: a thread pool and per-thread packing buffers. Calls on one engine are serialized
 * (a mutex); use one engine per concurrent caller. The compiled kernels are shared process-wide,
 * cached by their full signature (kernel kind, tile sizes, CPU name and features). Results are
 * bit-identical between runs with the same thread count (static partition of C, fixed k order). */
typedef struct Gemm Gemm;

/* NULL with err set on failure: "the host CPU cannot run the avx512 kernels" (a forced ISA the
 * host lacks), "cannot start 2 threads", "out of memory", and for options out of their ranges
 * "threads -3 is out of range (0 to 1024; 0 means 1)", "unknown ISA 7 (...)", "bf16_dot 5 is not ...". */
Gemm *gemm_new(const GemmOptions *opt, char *err, size_t cap);
void gemm_free(Gemm *g);

/* Frees every JIT-compiled kernel of the process-wide cache and the engines and buffers of kernels compiled
 * ahead of time (gemm_aot_run). Only when no Gemm and no kernel from the cache is in use or will be used
 * again, as at the end of a program; later calls compile (and start) afresh. */
void gemm_release_kernels(void);
/* The ISA the engine uses (never TARGET_ISA_HOST; target_isa_name gives "avx512", "avx2", "portable");
 * whether bf16 runs on the vdpbf16ps kernel. */
TargetIsa gemm_isa(const Gemm *g);
/* The K group a tiling for input type t with K groups of kgroup runs with on this host: kgroup, or 1 when its
 * dot-product instruction is one the host CPU lacks (vdpbf16ps, vpdpbusd; the elements are then widened when
 * packed, with the same results for i8 and within the same bound for bf16). */
int gemm_runnable_kgroup(const Gemm *g, GemmType t, int kgroup);
bool gemm_bf16_dot(const Gemm *g);

/* C <- alpha*A*B + beta*C for f32, bf16 or f16 inputs and f32 C. 0, or -1 with err set (C untouched). */
int gemm_f32(Gemm *g, float alpha, const GemmView *a, const GemmView *b, float beta, const GemmView *c, char *err,
             size_t cap);
/* C <- alpha*A*B + beta*C for i8 inputs and i32 C (exact, wrapping modulo 2^32). */
int gemm_i8(Gemm *g, int32_t alpha, const GemmView *a, const GemmView *b, int32_t beta, const GemmView *c, char *err,
            size_t cap);

/* A caller's plan (a declared kernel's, see KernelDecl): the micro-tile and k group the packed
 * panels have, the cache blocks (tile sizes), the block-loop order and the split over threads. */
typedef struct GemmTiling {
    int mr, nr;             /* A panels of mr rows; B panels of nr columns (a micro-tile of the engine's ISA) */
    int kgroup;             /* k values per packed group: one the ISA's table allows for the input type */
    int64_t mc, nc, kc;     /* block sizes along M, N and K */
    GemmRole order[3];      /* block loops, outermost first (a permutation of M, N, K) */
    int split;              /* one product (gemm_*_tiled): 0 threads own blocks of rows of C, 1 of columns */
} GemmTiling;
/* A tiling out of its ranges is refused with the values: "the block-loop order 0, 0, 0 is not a permutation of
 * M (0), N (1) and K (2)", "split 5 is neither 0 (threads own rows of C) nor 1 (columns of C)". */

/* gemm_f32 / gemm_i8 with the caller's tiling instead of the engine's (NULL: the engine's). Errors
 * add "a 16x64 micro-tile does not fit the avx2 kernels (8-lane vectors, 16 registers)", "bf16 panels
 * with K groups of 2 need vdpbf16ps, which the host CPU lacks (avx512_bf16)", "bf16 panels cannot
 * group K by 2" (on an ISA whose table lacks the group) and the like. */
int gemm_f32_tiled(Gemm *g, const GemmTiling *tiling, float alpha, const GemmView *a, const GemmView *b, float beta,
                   const GemmView *c, char *err, size_t cap);
int gemm_i8_tiled(Gemm *g, const GemmTiling *tiling, int32_t alpha, const GemmView *a, const GemmView *b, int32_t beta,
                  const GemmView *c, char *err, size_t cap);

/* One unit of a spread product (a declared kernel's grid, KernelDecl.grid): C's block c <- alpha * a * b
 * + beta * c, with a the block's rows of A (rows x k) and b its columns of B (k x cols). */
typedef struct GemmUnit {
    GemmView a, b, c;
} GemmUnit;

/* The caller's tiling over n units, spread statically over the engine's threads: each task takes a range of
 * consecutive units, each unit whole on one thread (neighbouring blocks of one task run as one larger
 * block, which computes every element of C alike), so results are bit-identical whatever the thread count. Each
 * unit's views are validated as gemm_f32_tiled's (the first failure names the unit); the units' C blocks
 * must not overlap, which a kernel's grid guarantees (a replicated block is given once). 0, or -1 with
 * err set (C untouched when validation fails). */
int gemm_f32_units(Gemm *g, const GemmTiling *tiling, float alpha, float beta, const GemmUnit *units, size_t n,
                   char *err, size_t cap);
int gemm_i8_units(Gemm *g, const GemmTiling *tiling, int32_t alpha, int32_t beta, const GemmUnit *units, size_t n,
                  char *err, size_t cap);

/* Compiles (or finds in the cache) every kernel the engine may use for input type t (f32, bf16, f16 or i8),
 * so a later call does not pay for the JIT. 0 or -1 with err set ("gemm_prepare takes an input type (f32,
 * bf16, f16 or i8), not ? (9)" for any other value). */
int gemm_prepare(Gemm *g, GemmType t, char *err, size_t cap);

/* bf16/f16 conversions (round to nearest even), for tests and callers. */
uint16_t gemm_f32_to_bf16(float x);
float gemm_bf16_to_f32(uint16_t h);
uint16_t gemm_f32_to_f16(float x);
float gemm_f16_to_f32(uint16_t h);

#endif
