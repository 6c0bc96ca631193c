/* rt_gemm.h — running a declared GEMM kernel (KernelDecl, docs/language.md §6) over HBM tensors in any layout. */
#ifndef MAPC_RT_GEMM_H
#define MAPC_RT_GEMM_H

#include "codegen/gemm_codegen.h"
#include "desc/desc.h"
#include "gemm.h"
#include "rt.h"

/* How a kernel reaches an operand: in place, or staged through a row-major HBM tensor that a JIT-compiled
 * relayout kernel (rt_dma) fills before the product (and C back after it); see KernelAccess. */
typedef KernelAccess RtGemmAccess;

typedef struct RtGemm RtGemm;

/* Prepares kernel k of rt's program over the tensors a, b and c (which must hold the kernel's
 * operands: the same element types and axes as its declarations, e.g. from rt_tensor_declared):
 * decides each operand's access, creates staging tensors, starts a GEMM engine with rt's thread
 * count on the ISA k was checked for (k->isa; "the host CPU cannot run the avx512 kernels" if the
 * host lacks it) and compiles the kernels (so the first run does not pay for the JIT). NULL with rt_error
 * set on failure. The tensors must outlive the result. */
RtGemm *rt_gemm_new(RtContext *rt, const KernelDecl *k, RtTensor *a, RtTensor *b, RtTensor *c);
void rt_gemm_free(RtGemm *g);

/* C <- alpha*A*B + beta*C (alpha and beta are rounded to float, or must be integers for i8 kernels).
 * Staged operands are moved in (C only if beta != 0) and C out. 0, or -1 with rt_error set. Results
 * are bit-identical between runs with the same thread count. */
int rt_gemm_run(RtGemm *g, double alpha, double beta);

/* The access of operand 0 (A), 1 (B) or 2 (C); the name of the ISA whose kernels run (k->isa's). */
const RtGemmAccess *rt_gemm_access(const RtGemm *g, int operand);
const char *rt_gemm_isa_name(const RtGemm *g);
/* The K group the kernels compute with: k->kgroup, or 1 when its instruction is one the host CPU lacks
 * (gemm_runnable_kgroup). */
int rt_gemm_kgroup(const RtGemm *g);
/* Seconds the last rt_gemm_run spent moving staged operands (0 when every operand is in place). */
double rt_gemm_stage_seconds(const RtGemm *g);
/* The units that compute (blocks of C, each once) and, in *grid_units, the positions of the kernel's grid
 * (with its idle and replicated units). */
size_t rt_gemm_units(const RtGemm *g, uint64_t *grid_units);

/* Runs the kernel of descriptor d, compiled ahead of time into an emitted object (see CgAotKernel), on the
 * caller's buffers a, b and c laid out as the kernel's operands (C read only when beta != 0), with threads
 * (>= 1) workers: C <- alpha*A*B + beta*C (alpha and beta already checked: finite within f32, 32-bit integers
 * for i8). The first call per (d, threads) starts an engine (refusing an ISA the host lacks) and allocates
 * the staging buffers, kept until gemm_release_kernels. Calls on one (d, threads) are serialized; results
 * are bit-identical to the JIT path's for the same thread count. 0, or -1 with err. */
int gemm_aot_run(const CgAotKernel *d, const void *a, const void *b, void *c, double alpha, double beta, int threads,
                 char *err, size_t cap);

/* Whether a host whose LLVM feature list is host ("cpu +feature,...", gemm_cpu()->signature; NULL: unknown) runs
 * the routines of d: its ISA and kind known, and every feature they were compiled with (cg_aot_features) one
 * the host has. 0, or -1 with err naming the kernel, its ISA and the first missing feature. gemm_aot_run checks
 * this before it calls any routine. */
int gemm_aot_host_check(const CgAotKernel *d, const char *host, char *err, size_t cap);

/* Drops the runner's states of descriptor d (its engines and buffers), before d's memory is freed. */
void gemm_aot_forget(const CgAotKernel *d);

/* Kernel k of p described for gemm_aot_run with JIT-compiled code: the GEMM routines of its spec (the
 * process-wide cache) and the relayout kernels of its staged operands (compiled now). NULL with err. The
 * program must outlive the result. */
typedef struct GemmJitKernel GemmJitKernel;
GemmJitKernel *gemm_jit_kernel_new(Prog *p, const KernelDecl *k, char *err, size_t cap);
const CgAotKernel *gemm_jit_kernel_descriptor(const GemmJitKernel *j);
void gemm_jit_kernel_free(GemmJitKernel *j);

#endif
