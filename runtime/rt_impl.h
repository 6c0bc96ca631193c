/* rt_impl.h — what the runtime's files share: the context, tensors, move plans, relayout kernels, tiles. */
#ifndef MAPC_RT_IMPL_H
#define MAPC_RT_IMPL_H

#include "pool.h"
#include "rt.h"

#include <stdarg.h>

/* ---- Move plans (plan.c) ---- */

/* A run of a move: len elements from src to dst (positions relative to the views); src == RUN_ZERO
 * writes zeros instead. */
#define RUN_ZERO UINT64_MAX
typedef struct Run {
    uint64_t dst, src, len;
} Run;

typedef struct Plan {
    const Map *dst, *src;
    int64_t *delta;         /* source index = destination index + delta, per axis */
    bool missing_ok;
    Run *runs;
    size_t nruns;
    uint64_t dst_end, src_end;  /* one past the highest position touched */
    struct Plan *next;
} Plan;

/* The cached plan that moves src (mapping) into dst (mapping): every destination cell that is live
 * with index i receives the source element whose index is i + delta (the smallest such position);
 * pad(zero) cells receive 0; other cells are skipped. A live index with no source is an error unless
 * missing_ok (then it is skipped). NULL with rt_error set on error. */
const Plan *rt_plan(RtContext *rt, const Map *dst, const Map *src, const int64_t *delta, bool missing_ok);
void rt_plans_free(Plan *p);

/* ---- JIT relayout kernels (kernel.c) ---- */

typedef void (*RtCopyFn)(void *dst, const void *src);
typedef struct RtKernel RtKernel;
/* The JIT-compiled kernel giving every live cell of dst the src element with the same index
 * (pad(zero) cells 0, other cells untouched). The caller must know that src holds every index dst
 * does (cover_proved). NULL with rt_error set if it cannot be compiled. */
RtCopyFn rt_kernel(RtContext *rt, const Map *dst, const Map *src, ElemType elem);
void rt_kernels_free(RtKernel *k);

/* ---- Tiles (tile.c) ---- */

/* The mapping m with the digit index split out and replaced by LEN values padded with kind (for
 * LEN 1 of a symbol's digit, by 1 # |index|, which no resize truncates); *bufstride receives the
 * buffer positions per step of the digit. NULL with rt_error set if index is not a digit of m. */
const Map *rt_tile_map(RtContext *rt, const Map *m, const Map *index, uint64_t len, PadKind kind, uint64_t *bufstride);

/* ---- Context and tensors ---- */

struct RtContext {
    Prog *prog;
    RtConfig cfg;
    RtPool *pool;
    int threads;
    Evaluator *ev;
    Plan *plans;
    RtKernel *kernels;
    RtStats stats;
    char error[512];
};

struct RtTensor {
    RtContext *rt;
    MemKind mem;
    ElemType elem;
    const Map *maps[4];
    int nmaps;
    const Map *flat;
    void *data;
    uint64_t elems;
    uint64_t *zero_offset;  /* naxes zeros: the index offset of a whole-tensor view */
    const Map *host;        /* the dense row-major mapping of the logical tensor, made on first use */
};


#endif
