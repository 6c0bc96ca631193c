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
/* Appends the run dst <- src of one element to p's runs (cap: their capacity), extending the last run when
 * both continue it (src RUN_ZERO: a zero). False when memory runs out. */
bool rt_plan_push(Plan *p, size_t *cap, uint64_t dst, uint64_t src);

/* Runs the JIT kernel of the move from s (at src) into d (at dst) over the whole destination: 0, -1 with
 * rt_error set, or 1 when no kernel applies (move.c's, handed to rt_tag_plan). */
typedef int (*RtKernelMove)(RtContext *rt, const Map *d, bool units, const Map *s, ElemType elem, void *dst,
                            const void *src);
/* The plan of the move of view src (its logical mapping s) into view dst (d) that the move's own JIT
 * kernel (run by move) carries out, found by running that kernel on position tags (every source position p
 * holds p + 1): the live destination cells it writes and the source positions they read, as runs relative
 * to the views (pad(zero) cells are left out). Cached by the two mappings. NULL when no kernel applies or
 * the tags do not fit (2^32 - 2 source positions or more, a DM tensor whose i32 tags exceed a slice): the
 * caller plans with the interpreter (rt_plan). */
const Plan *rt_tag_plan(RtContext *rt, const RtView *dst, const Map *d, const RtView *src, const Map *s,
                        RtKernelMove move);

/* ---- JIT relayout kernels (kernel.c) ---- */

/* A move kernel: dst points at the destination part it writes (a unit's, or the whole destination),
 * src at the source's position 0; unit_terms are the term values of the destination's unit part at
 * that unit (unused by kernels without units). */
typedef void (*RtMoveFn)(void *dst, const void *src, const int64_t *unit_terms);
/* Part `part` of `nparts` (<= 65536) of a move without units: the parts write disjoint blocks of the
 * destination and together all of it. */
typedef void (*RtPartFn)(void *dst, const void *src, uint64_t part, uint64_t nparts);
typedef struct RtKernel RtKernel;
/* The JIT-compiled kernel giving every live cell of dst the src element with the same index
 * (pad(zero) cells 0, other cells untouched). With units (dst is then pair(units, part)), it moves
 * one unit's part; without, *part (when part is not NULL) receives its entry for parts of the move. The
 * caller must know that src holds every index dst does (cover_proved). NULL with rt_error set if it cannot
 * be compiled. Kernels are cached by their printed layouts. */
RtMoveFn rt_kernel(RtContext *rt, const Map *dst, const Map *src, const Map *units, ElemType elem, RtPartFn *part);
void rt_kernels_free(RtKernel *k);

/* ---- Tiles (tile.c) ---- */

/* The mapping m with the digit index split out and replaced by LEN values padded with kind (for
 * LEN 1 of a symbol's digit, by 1 # |index|, which no resize truncates); *bufstride receives the
 * buffer positions per step of the digit. NULL with rt_error set if index is not a digit of m. */
const Map *rt_tile_map(RtContext *rt, const Map *m, const Map *index, uint64_t len, PadKind kind, uint64_t *bufstride);

/* ---- Context and tensors ---- */

struct RtContext {
    Prog *prog;
    struct RtTransport *transport;  /* NULL: one process */
    RtConfig cfg;
    RtPool *pool;
    int threads;
    Evaluator *ev;
    Plan *plans;
    Plan *tag_plans;                /* rt_tag_plan's, by mappings */
    RtKernel *kernels;
    RtStats stats;
    char error[512];
    bool out_of_memory;     /* the last failure was a request beyond the memory there is (rt_fail_memory) */
};

struct RtTensor {
    RtContext *rt;
    MemKind mem;
    ElemType elem;
    const Map *maps[4];
    int nmaps;
    TensorUnits units;
    const Map *flat;        /* the layout, pair(UNITS, Element) when there is more than one unit */
    bool *axes;             /* the tensor's axes (naxes flags): digits of the others replicate it */
    void *data;             /* every unit's buffer, unit u's at [u*|Element|, (u+1)*|Element|) */
    size_t alloc;           /* bytes mapped for data */
    bool local;             /* this process's scratch (rt_tensor_make_local) */
    uint64_t elems;
    uint64_t *zero_offset;  /* naxes zeros: the index offset of a whole-tensor view */
    const Map *host;        /* the dense row-major mapping of the logical tensor, made on first use */
};

/* m with every digit of an axis that is not marked in axes replaced by a broadcast of its count: the
 * same positions and padding, cells projected on the tensor's own axes (replicas then hold one index).
 * m itself when nothing changes; NULL with rt_error set when a composite base mixes in such an axis. */
const Map *rt_logical(RtContext *rt, const Map *m, const bool *axes);
/* ---- Chips over processes (chips.c) ---- */

/* The element positions [*lo, *hi) of t's buffer this process writes: its chip's units under a transport
 * (empty when t has no such chip), the whole buffer otherwise and for host and local tensors. */
void rt_own_range(const RtContext *rt, const RtTensor *t, uint64_t *lo, uint64_t *hi);
/* Whether moves into or out of t may cross processes: a transport of more than one process and a device
 * tensor that is not local. */
bool rt_spread(const RtContext *rt, const RtTensor *t);

/* One side of an inter-process move: a tensor's buffer (t set) or process 0's host array (t NULL), from
 * element position off; base is this process's copy at position 0 of the side. */
typedef struct RtSide {
    const RtTensor *t;
    unsigned char *base;
    uint64_t off;
} RtSide;
/* Before a local move by plan p from src into dst: every process sends the source runs it holds to the
 * process holding their destination, and receives into its copy of the source the runs its destination
 * needs from other processes (the same plan on every process decides both). 0, or -1 with rt_error set. */
int rt_chips_exchange(RtContext *rt, const Plan *p, const RtSide *dst, const RtSide *src, size_t es);
/* Host transfers of a whole tensor under a transport: process 0 sends every other chip its unit buffers
 * (scatter; process 0 then gives back the pages of those chips) or receives them (gather, into its
 * copy). 0, or -1 with rt_error set. */
int rt_chips_whole(RtContext *rt, RtTensor *t, bool scatter);
/* Gives back the pages of t's chips that this process does not hold. */
void rt_chips_release(const RtContext *rt, RtTensor *t);
/* The bytes p moves between different processes (chips), for the traffic model. */
uint64_t rt_chips_cross_bytes(const RtContext *rt, const Plan *p, const RtSide *dst, const RtSide *src, size_t es);

/* Whether the view's mapping is pair(UNITS, Element) of its tensor's units. */
bool rt_view_has_units(const RtView *v);


#endif
