/* cg_gemm_impl.h — the LLVM-typed GEMM generators behind gemm_codegen.h (codegen/ only): the macro-kernel
 * (cg_gemm_micro.c), the packing routines (cg_gemm_pack.c) and the loop nest (cg_gemm_nest.c), which
 * cg_gemm_jit.c puts in one module; their IR helpers are in cg_gemm_ir.h. */
#ifndef MAPC_CG_GEMM_IMPL_H
#define MAPC_CG_GEMM_IMPL_H

#include "cg_impl.h"
#include "gemm_codegen.h"

/* Adds the macro-kernel `name` for spec to mod (owned by the caller, in its context). False with
 * *err (malloc'ed) when the spec is invalid or the module does not verify. With direct_a (f32, or
 * bf16 dot products reading K pairs) the kernel reads A unpacked: a row-major block with unit column
 * stride, one more parameter `int64_t a_rs` (bytes between rows), and mc a multiple of mr (no padding
 * rows to read); this
 * skips packing A when B is narrow and packing would cost more than it saves. With direct_b as well
 * (needs direct_a) B is read unpacked too: a row-major block with unit column stride, a last parameter
 * `int64_t b_rs` (bytes between rows), nc a multiple of nr; a product small enough for one k block then
 * runs without packing either operand. */
bool cg_gemm_macro(LLVMModuleRef mod, const CgGemmSpec *spec, const char *name, bool direct_a, bool direct_b,
                   char **err);

/* Adds the packing routine `name` for (conv, w, g) to mod:
 *   void NAME(void *dst, const void *src, int64_t sr, int64_t sk, int64_t R, int64_t K)
 * packs the R x K block whose element (r, k) is src[r*sr + k*sk] (source elements) into panels of
 * w rows: (r, k) goes to dst[(r/w)*w*kcp + (k/g)*w*g + (r%w)*g + k%g], kcp = K rounded up to g, with
 * converted zeros in the padding (rows up to a whole panel, k up to kcp). For A, r is M (sr = rs,
 * sk = cs); for B, r is N (sr = cs, sk = rs). Whole panels are moved a k group at a time as one
 * vector store (vector loads and an interleaving shuffle when sr == 1). False with *err. */
bool cg_gemm_pack(LLVMModuleRef mod, CgPackConv conv, int w, int g, const char *name, char **err);

/* Adds `void NAME(const CgGemmBlocks *)`, the loop nest over one task's share of C: the nc, kc and mc
 * block loops in spec->order (a permutation; the BLIS order N, K, M is: for each nc block of columns,
 * for each kc block of k, for each mc block of rows). k blocks run in increasing order (beta on the first, 1
 * after). The B block (pack_b, plus colsum_fn for I8VNNI) is packed as soon as its k and n loops
 * are open, the A block (pack_a) as soon as its m and k loops are, so the block of the operand that
 * does not depend on an inner loop is reused across it; the macro-kernel runs innermost. With
 * `direct` (macro_direct given; needs M innermost), whole A micro-panels go to macro_direct
 * unpacked and only the rows past the last whole panel are packed. The macro-kernel and packing
 * routines are the module's functions named macro, macro_direct (or NULL), pack_a and pack_b;
 * ea and eb are the source element sizes of A and B in bytes. False with *err. */
bool cg_gemm_blocks(LLVMModuleRef mod, const CgGemmSpec *spec, const char *name, const char *macro,
                    const char *macro_direct, const char *pack_a, const char *pack_b, int ea, int eb, char **err);

#endif
