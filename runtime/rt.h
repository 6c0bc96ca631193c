/* rt.h — the mapc runtime: host, HBM and DM tensors laid out by mapping expressions, tile views, DMA
 * between layouts, and a thread pool that spreads moves over slices (docs/language.md §5). */
#ifndef MAPC_RT_H
#define MAPC_RT_H

#include "algebra/algebra.h"
#include "core/ast.h"
#include "eval/eval.h"

#include <stddef.h>
#include <stdint.h>

/* ---- Context ---- */

typedef struct RtConfig {
    TensorLimits limits;        /* capacities (docs/language.md §5); tensor_default_limits() */
    int threads;                /* worker threads; 0: one per core */
    /* The job's processes, one chip each (process r holds and computes chip r of every device tensor,
     * moves between chips go through it); NULL: this process holds every chip, each a group of threads.
     * Not owned: it must outlive the context. */
    struct RtTransport *transport;
} RtConfig;

/* The defaults of docs/language.md §5. */
RtConfig rt_default_config(void);

typedef struct RtContext RtContext;

/* Creates a runtime over a checked program (tensor mappings are Maps of prog; the runtime adds the
 * mappings it derives, such as tile views, to prog's arena, so prog must outlive the context and must
 * not be used from another thread meanwhile). Returns NULL only when memory or threads run out. */
RtContext *rt_new(Prog *prog, const RtConfig *cfg);
/* Frees the context, its thread pool and its cached moves (not the tensors). */
void rt_free(RtContext *rt);
/* The message of the last failed call on rt (owned by rt, valid until the next call). */
const char *rt_error(const RtContext *rt);
/* Sets the message rt_error reports (printf-style) and returns -1: for the layers built on the runtime. */
int rt_fail(RtContext *rt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* rt_fail for a request beyond the memory the process can have (or an allocation that failed). */
int rt_fail_memory(RtContext *rt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether the last failed call on rt failed for memory (rt_fail_memory) rather than for its input. */
bool rt_out_of_memory(const RtContext *rt);
int rt_threads(const RtContext *rt);
/* The program the context was made over. */
Prog *rt_prog(const RtContext *rt);
/* The chip this process holds (its rank) and the job's processes; -1 and 1 without a transport, where
 * this process holds every chip. */
int rt_chip(const RtContext *rt);
int rt_procs(const RtContext *rt);
/* The context's transport (NULL in one process). */
struct RtTransport *rt_transport(const RtContext *rt);
/* Whether this process holds chip c of a device tensor (always without a transport). */
bool rt_holds_chip(const RtContext *rt, uint64_t c);

/* ---- Tensors ---- */

typedef struct RtTensor RtTensor;

/* Creates a zero-filled tensor. maps are, by memory: MEM_HOST {Element}; MEM_HBM {Chip, Element};
 * MEM_DM {Chip, Cluster, Slice, Element}. Together they form the tensor's layout
 * m![{Chip}, {Cluster}, {Slice}, {Element}] (tensor_layout): unit (chip c, cluster l, slice s) holds at
 * element position p the cell of the layout at ((c*|Cluster| + l)*|Slice| + s)*|Element| + p, so the
 * partial indices of the mappings add and an axis may be split across them. The tensor's axes are the
 * axes its layout uses; rt_tensor_new_axes names them instead (axes: naxes flags), and digits of other
 * axes then replicate it. The rules of docs/language.md §5 are checked under the context's limits (tensor_check:
 * capacities, no overlap, every index held). Each unit has a buffer of |Element| elements; they are
 * consecutive in one 64-byte aligned, zero-filled allocation. NULL with rt_error set. */
RtTensor *rt_tensor_new(RtContext *rt, MemKind mem, ElemType elem, const Map *const *maps, int nmaps);
RtTensor *rt_tensor_new_axes(RtContext *rt, MemKind mem, ElemType elem, const Map *const *maps, int nmaps,
                             const bool *axes);
/* Creates the tensor a `tensor NAME: ...;` declaration of the program describes (checked again
 * against the context's limits). NULL with rt_error set if there is no such tensor. */
RtTensor *rt_tensor_declared(RtContext *rt, const char *name);
void rt_tensor_free(RtTensor *t);
/* Makes t this process's scratch (as a host tensor): under a transport every process has all of it, moves
 * into it read only the source's chips this process holds, moves out of it write only those chips. */
void rt_tensor_make_local(RtTensor *t);
void *rt_tensor_data(const RtTensor *t);        /* every unit's buffer, in unit order */
uint64_t rt_tensor_elems(const RtTensor *t);     /* positions of the layout: units x |Element| */
ElemType rt_tensor_elem(const RtTensor *t);
MemKind rt_tensor_mem(const RtTensor *t);
const Map *rt_tensor_map(const RtTensor *t);     /* the layout */
/* The tensor's units (chips x clusters x slices of |Element| positions each) and the buffer of one unit,
 * NULL when a coordinate is out of range. */
TensorUnits rt_tensor_units(const RtTensor *t);
void *rt_tensor_unit(const RtTensor *t, uint64_t chip, uint64_t cluster, uint64_t slice);

/* The logical tensor: its axes, in declaration order. Returns their count and fills axes (at most
 * prog->naxes entries). The dense host array of the tensor is row-major over these axes with their
 * declared sizes. */
int rt_tensor_axes(const RtTensor *t, int *axes);

/* ---- Views and tiles ---- */

/* A view: the tensor's mappings (some tiled) over its buffers, starting at element pos_offset of the
 * layout; its indices are relative to index_offset (one entry per axis of the program) in the tensor's
 * index space. */
typedef struct RtView {
    RtTensor *tensor;
    const Map *map;                 /* the view's layout, tensor_layout(dims) */
    const Map *dims[4];             /* the view's Chip, Cluster, Slice and Element mappings, as the tensor's */
    uint64_t pos_offset;
    const uint64_t *index_offset;   /* owned by the context */
    bool writable;                  /* a write view: bottom padding outside the tile */
} RtView;

/* The whole tensor as a view. */
RtView rt_view(RtTensor *t, bool writable);

/* tile(view, I, LEN, start) of docs/language.md §5: LEN consecutive values of the digit I (a digit of the view's
 * mapping, split out first if needed) from coordinate start. The tile's mapping replaces I by
 * I = LEN # |I| (read views: outside cells read as pad(top)) or I = LEN #{!} |I| (write views: a
 * write never escapes). If expect is not NULL it must be equivalent to that mapping. Errors (I not a
 * digit, start or LEN out of range, start on padding, a mismatching expect, which is named) return -1
 * with rt_error set; 0 on success. */
int rt_tile(RtContext *rt, const RtView *v, const Map *index, uint64_t len, uint64_t start, const Map *expect,
            RtView *out);

/* chip_tile, cluster_tile and slice_tile of docs/language.md §5: rt_tile applied to the view's Chip (dim 0),
 * Cluster (1) or Slice (2) mapping only (a DM tensor has all three, an HBM tensor only Chip): the units
 * holding LEN values of the digit index from start, as a view. expect, if given, must be equivalent to
 * the tiled unit mapping. Errors as rt_tile's, and a digit that is not in that mapping. */
int rt_unit_tile(RtContext *rt, const RtView *v, int dim, const Map *index, uint64_t len, uint64_t start,
                 const Map *expect, RtView *out);

/* ---- Moves ---- */

/* What the moves of a context ran on: JIT-compiled kernels (and how many were compiled), or plans
 * interpreted element run by element run (moves whose coverage needs the interpreter to check). */
typedef struct RtStats {
    uint64_t jit_moves, plan_moves;     /* DMAs by kernel, by plan */
    uint64_t host_moves;                /* host transfers (by kernel when they can be, else by plan) */
    uint64_t kernels_compiled;          /* kernels of DMAs and host transfers */
    uint64_t chip_bytes_sent, chip_bytes_received;  /* this process's bytes to and from other chips' processes */
} RtStats;
RtStats rt_stats(const RtContext *rt);

/* Under a transport, host arrays are process 0's: rt_from_host sends each process the part its chip holds
 * (other processes pass NULL or any array, which is not read), rt_to_host gathers the view into process
 * 0's array (other processes' host may be NULL), rt_dma moves between chips the bytes the destination's
 * chip needs from each other chip. Every process makes the same calls in the same order.
 *
 * Writes a dense row-major host array of the logical tensor into the view: every live cell gets its
 * element (every replica: each unit holding an index gets it), pad(zero) cells get 0, pad(top) cells are
 * left, pad(bottom) cells are never touched. */
int rt_from_host(RtContext *rt, const RtView *dst, const void *host);
/* Reads the view back into a dense row-major host array (one replica of each index; indices the view
 * does not hold are left). */
int rt_to_host(RtContext *rt, const RtView *src, void *host);
/* DMA: moves src into dst, which must hold the same logical tensor (the same axes; every live
 * destination index must have a source position), whatever the two distributions: every live
 * destination cell, replicas included, receives the element of the same index (relative to each
 * view), with the padding semantics of rt_from_host; never reads outside the source's live cells.
 * HBM<->DM transfers need 8-byte aligned views. Each destination unit's part is one task on the thread
 * pool, through one JIT-compiled kernel parametrized by the unit (cached by the layouts). */
int rt_dma(RtContext *rt, const RtView *dst, const RtView *src);

/* The traffic model of rt_dma between chips: the bytes the move sends from one chip to another when each
 * chip is a process, from the two layouts (the move's plan: each destination chip's live cells whose source
 * element lies on another chip; 0 when the source is replicated on every chip, so each chip reads its own,
 * or either side is a host or local tensor). The same with or without a transport. 0, or -1 with rt_error
 * set. */
int rt_dma_chip_bytes(RtContext *rt, const RtView *dst, const RtView *src, uint64_t *bytes);

/* The NPU DMA command rt_dma's move corresponds to (npu.c): what mapc dma derives for the two views'
 * distributions over the destination's own stream (with fit, its packet narrowed as mapc dma --stream fit does),
 * with its tails, alignment and cycles (docs/movement.md). 0, or -1 with rt_error set and the reason in *d (HBM
 * and DM views only). */
struct MvDma;
struct MvDiag;
int rt_dma_npu(RtContext *rt, const RtView *dst, const RtView *src, bool fit, struct MvDma *out, struct MvDiag *d);

#endif
