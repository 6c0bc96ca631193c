/* run_verify.h — seeded operands for `mapc run` and the double-precision check of its results. */
#ifndef MAPC_RUN_VERIFY_H
#define MAPC_RUN_VERIFY_H

#include "core/ast.h"

#include <stdint.h>

/* A dense host operand: rows x cols elements of type elem, element (i, j) at i*ri + j*ci (the
 * runtime's host arrays are row-major over the tensor's axes in declaration order, so an operand
 * whose axes were declared in the other order is transposed: ri = 1, ci = rows). */
typedef struct HostMat {
    void *data;
    ElemType elem;
    uint64_t rows, cols;
    uint64_t ri, ci;
} HostMat;

/* Allocates m->data for m's shape (rows*cols elements, zeroed); false if out of memory. */
bool drv_host_alloc(HostMat *m);
/* Fills m with seeded values: f32 uniform in [-1, 1), bf16 and f16 the same rounded to the type,
 * i8 uniform over [-128, 127], i32 uniform over [-1000, 1000]; nan_fill puts NaN in every f32
 * element instead (a C whose beta is 0 must be ignored). The values are those of one splitmix64
 * stream from *seed, whatever the number of threads filling them; *seed is advanced past them. */
void drv_host_fill(HostMat *m, uint64_t *seed, bool nan_fill, int threads);
/* Element (i, j) as a double. */
double drv_host_get(const HostMat *m, uint64_t i, uint64_t j);

/* The result of checking C against alpha*A*B + beta*C0 computed in double (int64 wrapped to 32 bits
 * for i8 kernels). For floating types the error of an element is |c - ref| / s with s the sum of the
 * magnitudes of its terms (|alpha| sum|a*b| + |beta*c0|, 1 if that is 0), and the bound is
 * (k + 2) * 2^-24: each product of f32, bf16 or f16 inputs is exact in f32, and the k additions, the
 * alpha and the beta steps round once each. Integer kernels must be exact. */
typedef struct CheckResult {
    uint64_t checked;       /* elements compared */
    bool sampled;           /* a seeded sample rather than every element */
    double max_err, bound;
    uint64_t worst_i, worst_j;
    double worst_got, worst_want;
    bool ok;
} CheckResult;

/* How much of C to check: every element when m*n*k <= full_limit or all is set (a blocked double
 * reference on `threads` threads), else `samples` elements chosen from seed. */
typedef struct CheckPolicy {
    bool all;
    uint64_t full_limit, samples, seed;
    int threads;
} CheckPolicy;

/* Compares C with the reference per policy. The reference reads only the host arrays, never the
 * code under test. */
CheckResult drv_check_gemm(const HostMat *a, const HostMat *b, const HostMat *c0, const HostMat *c, double alpha,
                           double beta, const CheckPolicy *policy);

#endif
