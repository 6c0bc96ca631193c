/* cg_relayout.h — blocked, vectorized relayout of strided boxes (codegen/ only): the plan derived from the two
 * mappings (cg_relayout.c) and its loop nests, register transposes and streaming stores (cg_relayout_ir.c). */
#ifndef MAPC_CG_RELAYOUT_H
#define MAPC_CG_RELAYOUT_H

#include "cg_impl.h"

/* How far ahead of a register tile its source rows are prefetched (two 64-byte lines); rows shorter than four
 * times this are not. */
enum { RL_PREFETCH_BYTES = 128 };

/* Dimensions of a box after fusing; a destination has at most one per plan term, padding run or broadcast. */
enum { RL_MAX_DIMS = 64, RL_MAX_LEVELS = RL_MAX_DIMS + 2 };

/* How a box's innermost work is done: element by element; vectors of vl elements along the dimension that is
 * contiguous in both (RUN); vl x vl transposes in registers of the destination-contiguous dimension against
 * the source-contiguous one (TILE); or, when one of the two has only 2, 4 or 8 values and the plane of both is
 * contiguous on that side, that many vectors interleaved into (or deinterleaved from) as many (WEAVE). */
typedef enum { RL_SCALAR, RL_RUN, RL_TILE, RL_WEAVE } RlMode;

/* One dimension of a box: n values, i·dw added to the destination position, i·sw to the source position. */
typedef struct RlDim {
    uint64_t n, dw, sw;
    int term;               /* the destination plan term of its innermost fused loop (-1: padding or broadcast) */
    int first;              /* ... and of its outermost (names the fused digits in plans) */
    bool chunks;            /* the chunks of a RUN dimension cut for parts (split_run) */
} RlDim;

/* One loop of a box's nest, outer to inner: a dimension, or the blocks of a TILE's a or b dimension. */
typedef enum { RL_LEVEL_DIM, RL_LEVEL_ABLOCK, RL_LEVEL_BBLOCK } RlLevelKind;
typedef struct RlLevel {
    RlLevelKind kind;
    int dim;                /* RL_LEVEL_DIM: the dimension */
} RlLevel;

/* Positions dbase + sum(i_k·dw_k) of the destination receive the source elements at sbase + sum(i_k·sw_k)
 * (CELL_LIVE) or zeros (CELL_PAD_ZERO). */
typedef struct RlBox {
    int kind;
    uint64_t dbase, sbase, elems;
    RlDim d[RL_MAX_DIMS];
    int nd;
    RlMode mode;
    int a, b;               /* the destination-contiguous and the source-contiguous dimension, or -1 */
    unsigned vl;            /* RUN: lanes per vector; TILE: the side of a register tile */
    uint64_t run;           /* RUN: the elements contiguous in both (before cutting into chunks) */
    uint64_t ba, bb;        /* TILE: the L1 block along a and along b (multiples of vl) */
    bool prefetch;          /* TILE: source rows are separate and long: prefetch them two tiles ahead (measured on
                             * Zen 4: 8192 x 8192 f32 1.15x faster; rows that are adjacent, 0.6x) */
    bool narrow_a;          /* WEAVE: a is the narrow dimension (source rows interleaved into the destination);
                             * else b is (the contiguous source deinterleaved into destination rows) */
    RlLevel level[RL_MAX_LEVELS];
    int nlevels;
    int flat;               /* the first flat levels (dimensions) run as one loop, which parts split */
    bool aligned;           /* every full vector store is at a multiple of its size from the destination */
} RlBox;

/* The relayout plan of a copy kernel: what cg_relayout_emit generates and cg_relayout_describe states. */
typedef struct RlPlan {
    RlBox *box;             /* in enumeration order; only live and zero-padding boxes */
    int nbox;
    int main;               /* the box with the most elements (-1: none) */
    unsigned esize;
    TargetIsa isa;
    unsigned vbytes;        /* vector bytes of the ISA */
    bool stream;            /* streaming stores in the variant for an aligned destination */
    uint64_t stream_min;    /* bytes of destination from which stores stream (4 x L2) */
    uint64_t dst_bytes;
    uint64_t contiguous;    /* elements contiguous in both layouts in the main box (its RUN dimension), else 1 */
    TargetCaches caches;
} RlPlan;

/* What the planner reads from the copy: the destination as enumerated (dmap, with its plan), the source
 * weight of each destination term (the copy is linear), the given unit (NULL: none) whose first skip terms
 * the caller has already offset both buffers by. */
typedef struct RlInput {
    const Map *dmap;
    const CgPlan *dpl;
    const uint64_t *srcw;
    const CgGiven *given;
    int skip;
    unsigned esize;
    uint64_t dst_elems;
} RlInput;

/* Plans the copy for cg's ISA and caches: false (nothing to free) when the destination does not decompose
 * into boxes the planner takes (then the caller enumerates it cell by cell). */
bool rl_plan(Cg *cg, const RlInput *in, RlPlan *out);
void rl_plan_free(RlPlan *p);
/* The plan in words, one item a line, each line starting with two spaces; snprintf-like. */
size_t rl_describe(const Prog *prog, const CgPlan *dpl, const RlPlan *p, char *buf, size_t cap);

/* Emits the plan into the function being built, whose element pointers (of type ety) are dst and src:
 * the part `part` of `nparts` (i64 values; 0 <= part < nparts <= 65536) of every box's outermost loop, so
 * that the parts together write every position once. Streams the stores when p->stream and dst_raw
 * (the destination's address) is aligned to the vector. */
void rl_emit(Cg *cg, const RlPlan *p, LLVMTypeRef ety, LLVMValueRef dst_raw, LLVMValueRef dst, LLVMValueRef src,
             LLVMValueRef part, LLVMValueRef nparts);

#endif
