/* chip_reduce.h — the sum over chips of a GEMM whose chip grid splits K: partial products to C. */
#ifndef MAPC_CHIP_REDUCE_H
#define MAPC_CHIP_REDUCE_H

#include "desc/desc.h"
#include "gemm.h"
#include "rt.h"

/* C(i, j) = partial[0](i, j) + partial[1](i, j) + ... in part order (f32, or i32 wrapping for integer
 * kernels), written into out (rows x cols of M x N at any strides). blocks (the kernel plan's part blocks)
 * cover every element of every part once; block b was computed into partial[b.part] by chip b.chip. Under rt's transport the blocks of chip c were computed by process c: each process sums one range of
 * rows (reduce-scatter) and sends it to all (allgather), so every process ends with the whole of out and the
 * same bits as one process. 0, or -1 with rt_error set. */
int chip_reduce(RtContext *rt, const KernelBlock *blocks, size_t n, int nparts, void *const *partial, uint64_t M,
                uint64_t N, bool is_int, const GemmView *out);

#endif
