/* gemm_codegen.h — the GEMM code-generation boundary: kernel specifications, packing conversions, the
 * loop nest's argument block, and JIT compilation of one kernel signature (LLVM-free types). */
#ifndef MAPC_GEMM_CODEGEN_H
#define MAPC_GEMM_CODEGEN_H

#include "codegen.h"
#include "core/target.h"

#include <stdbool.h>
#include <stdint.h>

/*
 * The arithmetic of a micro-kernel. Every kind reads packed panels whose k axis is grouped by
 * `g` consecutive values (the dot-product width of the instruction):
 *   CG_GEMM_F32    f32 panels, g = 1, llvm.fma (AVX-512/AVX2) or llvm.fmuladd (portable)
 *   CG_GEMM_BF16DP bf16 panels, g = 2, llvm.x86.avx512bf16.dpbf16ps.512 (f32 accumulators)
 *   CG_GEMM_I8VNNI u8 A panels (a + 128) and s8 B panels, g = 4, llvm.x86.avx512.vpdpbusd.512; the
 *                  write-back subtracts 128 * (column sums of the B block), so i8 x i8 is exact
 *   CG_GEMM_I32    i32 panels (sign-extended i8), g = 1, vector mul + add (AVX2 / portable i8)
 *
 * Packed layouts (P the packed element, kcp = kc rounded up to g, panels zero-padded):
 *   A block mc x kc: panel p (rows p*mr ..), element (i, k) at  p*mr*kcp + (k/g)*mr*g + i*g + k%g
 *                    i.e. the mapping m![M / mr, K / g, M % mr, K % g] over [M # mr*.., K # kcp]
 *   B block kc x nc: panel q (cols q*nr ..), element (k, j) at q*nr*kcp + (k/g)*nr*g + j*g + k%g
 *                    i.e. m![N / nr, K / g, N % nr, K % g]
 *
 * The generated macro-kernel (one C function per spec):
 *   void NAME(int64_t mc, int64_t nc, int64_t kc, const void *Ap, const void *Bp, void *C,
 *             int64_t rs, int64_t cs, T alpha, T beta, const int32_t *colsum)
 * T is float (F32, BF16DP) or int32_t (I8VNNI, I32). For every mr x nr micro-tile (B panels
 * outer and A panels inner, or the reverse with a_outer) it accumulates over the whole kc in
 * registers (mr*nv vector accumulators), then writes C(i, j) = alpha*acc + beta*C(i, j) for the
 * tile's live cells (C is the block's (0,0), strides in elements; beta == 0 ignores C, NaN
 * included). With cs == 1, full tiles take vector loads and stores and edge tiles masked ones
 * (llvm.masked.load/store: nothing outside C is touched); a strided C goes through a stack tile
 * element by element. colsum (I8VNNI only, else unused) holds the column sums of the B block (nr
 * per panel).
 */
typedef enum CgGemmKind { CG_GEMM_F32, CG_GEMM_BF16DP, CG_GEMM_I8VNNI, CG_GEMM_I32 } CgGemmKind;

/* A micro-kernel's shape, from a target table (core/target.h) whose bounds the generators take: at most
 * TARGET_MAX_VEC_REGS accumulators (mr * nv), TARGET_MAX_NV vectors per row and TARGET_MAX_LANES lanes. */
typedef struct CgGemmSpec {
    CgGemmKind kind;
    int mr;         /* rows of a micro-tile */
    int nv;         /* vectors per micro-tile row: nr = nv * vl */
    int vl;         /* lanes per vector (accumulator element count; 16 for BF16DP and I8VNNI) */
    bool fused;     /* F32 and BF16DP: float multiply-adds are llvm.fma (true) or llvm.fmuladd (portable) */
    bool a_outer;   /* loop order: A micro-panels outer (true) or B micro-panels outer */
    GemmRole order[3]; /* the block loops of cg_gemm_blocks, outermost first: a permutation of M, N, K
                     * (the BLIS order is N, K, M) */
} CgGemmSpec;

/* Whether order is a permutation of GEMM_M, GEMM_N and GEMM_K. */
bool cg_gemm_order_valid(const GemmRole order[3]);

/* How a source operand is converted into a packed panel (source -> packed element). */
typedef enum CgPackConv {
    CG_PACK_F32,      /* f32 -> f32 */
    CG_PACK_BF16_F32, /* bf16 -> f32 */
    CG_PACK_F16_F32,  /* f16 -> f32 */
    CG_PACK_BF16,     /* bf16 -> bf16 (copy) */
    CG_PACK_I8_U8,    /* i8 -> u8 as a + 128 (the VNNI unsigned operand) */
    CG_PACK_I8,       /* i8 -> i8 (copy) */
    CG_PACK_I8_I32,   /* i8 -> i32 */
} CgPackConv;

/* The micro-kernel computing K groups with op for input type in on ti, with an mr x nr micro-tile and the
 * block loops in order: its spec and packing conversions (the one definition: the engine's plans and the
 * kernels `mapc emit` compiles ahead of time both take it). */
void cg_gemm_spec_for(const TargetInfo *ti, TargetOp op, TargetInput in, int mr, int nr, const GemmRole order[3],
                      CgGemmSpec *spec, CgPackConv *conv_a, CgPackConv *conv_b);

/* The k group of a kind (1, 2 or 4) and the packed element size in bytes. */
int cg_gemm_kgroup(CgGemmKind kind);
int cg_gemm_packed_size(CgGemmKind kind);

/* The arguments of the generated loop nest (one task's share of C), read by field offsets. */
typedef struct CgGemmBlocks {
    int64_t m0, m1, n0, n1, k;     /* C rows [m0, m1) and columns [n0, n1); the contraction length */
    const void *a, *b;             /* A and B at their (0, 0) */
    int64_t a_rs, a_cs, b_rs, b_cs;/* in elements */
    void *c;
    int64_t c_rs, c_cs;
    int64_t mc, kc, nc;            /* cache blocks (mc a multiple of mr, nc of nr) */
    void *abuf, *bbuf;             /* the packed A and B blocks */
    int32_t *colsum;               /* I8VNNI: the B block's column sums (else unused) */
    void (*colsum_fn)(const int8_t *src, int64_t sr, int64_t sk, int64_t R, int64_t K, int w, int32_t *colsum);
    int64_t direct;                /* nonzero: read A unpacked (needs gemm_macro_direct, a_cs 1; bf16: even k) */
    float alpha_f, beta_f;         /* F32 and BF16DP kinds */
    int32_t alpha_i, beta_i;       /* I8VNNI and I32 kinds */
} CgGemmBlocks;

/* Compiles the routines of one kernel signature for the host into their own JIT (cg_gemm_jit.c):
 *   "gemm_macro"         the macro-kernel of spec (see above)
 *   "gemm_macro_direct"  with direct (F32 with f32 A, BF16DP with bf16 A read as K pairs): the
 *                        macro-kernel reading A unpacked, which takes one more parameter, int64_t a_rs
 *                        (bytes between rows of A)
 *   "gemm_macro_small"   with direct: the macro-kernel reading A and B unpacked (row-major, unit column
 *                        strides), two more parameters, int64_t a_rs, int64_t b_rs (bytes between rows);
 *                        mc a multiple of mr and nc of nr (the engine's path for small products)
 *   "gemm_pack_a"        void (void *dst, const void *src, int64_t sr, int64_t sk, int64_t R, int64_t K):
 *                        packs an R x K block of A (conv_a) into panels of spec->mr rows
 *   "gemm_pack_b"        the same for B (conv_b) into panels of nr = spec->nv * spec->vl
 *   "gemm_blocks"        void (const CgGemmBlocks *): the loop nest over one task's share of C
 * Packed layouts: element (r, k) of an R x K block goes to dst[(r/w)*w*kcp + (k/g)*w*g + (r%w)*g + k%g],
 * kcp = K rounded up to g, with converted zeros in the padding; for A, r is M (sr = rs, sk = cs); for B,
 * r is N (sr = cs, sk = rs). The loop nest runs the nc, kc and mc block loops in spec->order; k blocks run in increasing order (beta on the first, 1 after); each packed block
 * is made as soon as its loops are open, so the block of the operand that does not depend on an inner
 * loop is reused across it; with `direct` set in the arguments (needs M innermost) whole A
 * micro-panels are read unpacked. NULL with *err (malloc'ed) when the spec is invalid or LLVM fails. */
JitModule *cg_gemm_jit(const CgGemmSpec *spec, CgPackConv conv_a, CgPackConv conv_b, bool direct, char **err);

/* Only the packing routine "gemm_pack" for (conv, w, g), for tests that compare it with a reference. */
JitModule *cg_gemm_jit_pack(CgPackConv conv, int w, int g, char **err);

/* ---- Kernels compiled ahead of time (`mapc emit`) ----
 *
 * Per declared kernel an emitted object holds its routines (as cg_gemm_jit makes them, compiled for the
 * kernel's ISA alone: cg_aot_features), the relayout kernels of its staged operands, this
 * descriptor, and `int PREFIX<kernel>(a, b, c, alpha, beta, threads)`, which calls mapc_aot_run(&descriptor,
 * ...) in libmapc (the runner, runtime/gemm/aot_run.c). Every field is 64 bits wide (an integer or a
 * pointer), so the generator lays the descriptor out exactly as a C compiler lays out this struct; abi is
 * CG_AOT_ABI, which changes whenever the layout or a field's meaning does. */
#define CG_AOT_ABI 2 /* 2: every routine bounded to the kernel's ISA (cg_aot_features), whatever --cpu */

/* The target features (LLVM's "+name" list) every instruction of an emitted kernel of ISA isa and kind belongs to
 * (with the base x86-64 set): its routines, its staging kernels and what they call are compiled for exactly
 * these, whatever the object's CPU, and the runner refuses the kernel on a host that lacks one. "" for the
 * portable ISA. */
const char *cg_aot_features(TargetIsa isa, CgGemmKind kind);

typedef struct CgAotOperand {
    int64_t elem;           /* ElemType */
    int64_t elems;          /* positions of the caller's buffer (the tensor's whole layout) */
    int64_t rows, cols;     /* M x K (A), K x N (B), M x N (C) */
    int64_t strided;        /* 1: read (and written) in place at base + i*rs + j*cs; 0: staged row-major */
    int64_t rs, cs, base;
    void (*stage_in)(void *dst, const void *src);   /* staged: the caller's layout -> the row-major buffer */
    void (*stage_out)(void *dst, const void *src);  /* staged C: the row-major buffer -> the caller's layout */
} CgAotOperand;

typedef struct CgAotKernel {
    int64_t abi;
    const char *name;       /* the kernel's name in its program */
    int64_t isa;            /* TargetIsa the routines were compiled for */
    int64_t kind, mr, nv, vl, fused, a_outer, order[3], conv_a, conv_b; /* the compiled CgGemmSpec */
    int64_t kgroup, mc, nc, kc, split;                                /* the declared tiling */
    CgAotOperand op[3];     /* A, B, C */
    int64_t nblocks;
    const int64_t *blocks;  /* nblocks x (m0, n0, rows, cols): the blocks of C of the grid's units */
    void *macro, *pack_a, *pack_b, *loop_nest; /* see cg_gemm_jit: gemm_macro, gemm_pack_a/b, gemm_blocks */
} CgAotKernel;

/* The descriptor of declared kernel k of p, less its code (the name and the routines' and staging kernels'
 * pointers are NULL): the spec it compiles to (cg_gemm_spec_for), its tiling, each operand's sizes and access,
 * the grid's blocks (d->blocks malloc'ed: the caller frees it). layout[i] receives operand i's flat layout
 * (the tensor's whole buffer) and staging[i] its row-major staging layout, or NULL when it is read in place.
 * kgroup is the K group the routines compute with (0: the declared one; the JIT path gives 1 when the host
 * lacks the declared group's dot product). Emitted objects and the JIT path (mapc_kernel_*) both describe a
 * kernel so. 0, or -1 with err. */
int cg_kernel_describe(Prog *p, const KernelDecl *k, int kgroup, CgAotKernel *d, const Map *layout[3],
                       const Map *staging[3], char *err, size_t cap);

#endif
