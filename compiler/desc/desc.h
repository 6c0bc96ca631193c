/* desc.h — tiled and strided layout descriptors (docs/language.md §7): their syntax, validation, conversion to
 * mapping expressions, direct element offsets, and recognition of a mapping as a descriptor. */
#ifndef MAPC_DESC_H
#define MAPC_DESC_H

#include "core/ast.h"
#include "eval/eval.h"

/* Deepest tiled nesting (the seed's MAX_TILED_DEPTH): the outermost layout is level 1. */
#define DESC_MAX_DEPTH 8
/* Most axes a mapping may use for desc_recognize to consider it (its search keeps per-axis arrays). */
#define DESC_MAX_RANK 64

/* ---- Raw syntax, collected by the grammar (desc_syntax.c checks it) ---- */

/* An entry of a bracketed list: an axis name, or a number (a literal or a {CONST}). */
typedef struct DescItem {
    const char *ident;      /* NULL for a number */
    uint64_t num;
    bool ok;                /* false if a {CONST} did not resolve (already diagnosed) */
    Loc loc;
    struct DescItem *next;  /* built newest first */
} DescItem;

typedef enum {
    DESC_V_LIST,    /* [a, b, ...] */
    DESC_V_WORD,    /* row_major, col_major, strided */
    DESC_V_CALL,    /* strided[1, 3] */
    DESC_V_NUM,     /* a numeric tag: 1, 0x01 */
    DESC_V_TILED,   /* tiled![...] (a nested layout) */
} DescValKind;

typedef struct DescField DescField;

typedef struct DescVal {
    DescValKind kind;
    const char *word;       /* WORD, CALL */
    DescItem *items;        /* LIST, CALL: newest first */
    uint64_t num;           /* NUM */
    DescField *fields;      /* TILED: newest first */
    Loc loc;
} DescVal;

struct DescField {
    const char *key;
    DescVal *val;
    Loc loc;
    DescField *next;        /* built newest first */
};

/* ---- Checked descriptors ---- */

/* Orders, numbered like the seed's tags. */
typedef enum { DESC_ROW_MAJOR = 1, DESC_COL_MAJOR = 2, DESC_STRIDED = 3, DESC_NESTED = 4 } DescOrder;

/* One tiled level; the rank is the enclosing descriptor's. */
typedef struct DescLevel {
    uint64_t *tile;             /* extents, each >= 1 */
    DescOrder outer;            /* ROW, COL or STRIDED */
    DescOrder inner;            /* ROW, COL, STRIDED or NESTED */
    uint64_t *outer_strides;    /* outer == STRIDED: in tiles */
    uint64_t *inner_strides;    /* inner == STRIDED: in elements */
    struct DescLevel *nested;   /* inner == NESTED: shape is this level's tile */
} DescLevel;

typedef enum { DESC_KIND_TILED, DESC_KIND_STRIDED } DescKind;

typedef struct Desc {
    DescKind kind;
    int rank;
    int *axes;              /* Prog axis indices, distinct */
    uint64_t *extent;       /* their declared sizes */
    uint64_t *strides;      /* STRIDED: element (x) at sum x_i * strides_i */
    DescLevel *tiled;       /* TILED */
    Loc loc;
} Desc;

/* Checks the fields of a tiled![...] or strided![...] written at `at` against the seed's rules
 * (zero tile extent, unknown tag, strides or nested layout present iff their tag says so, rank
 * mismatch, nesting deeper than DESC_MAX_DEPTH) and the form's own (known, unique, required
 * fields; declared, distinct axes). Every violation is one positioned error in p->diags.
 * Returns the descriptor (in p's arena), or NULL if there was any error. */
const Desc *desc_from_fields(Prog *p, DescKind kind, Loc at, const DescField *fields);

/* ---- Conversion to a mapping (desc_map.c) ---- */

/* The equivalent mapping expression, built in p's arena: the offset of every index is the
 * descriptor's offset (desc_offset), every other position below the size is pad(top).
 * A descriptor no mapping expression can represent (zero, overlapping or interleaved strides,
 * an inner strided layout that spills out of its tile, a size over 64 bits) gets one error
 * at d->loc in `diags` saying why; returns NULL then. */
const Map *desc_to_map(Prog *p, const Desc *d, Diags *diags);

/* ---- Offsets (desc_offset.c) ---- */

/* The descriptor's own formula, independent of any mapping: for a tiled level over extents s
 * with tiles t, T_i = x_i / t_i, e_i = x_i % t_i, g_i = ceil(s_i / t_i),
 * offset = outer(T) * tile_elems + inner(e); outer is row-/column-major over g or sum T_i*os_i;
 * inner is row-/column-major over t, sum e_i*is_i, or the nested level's offset of e over t;
 * tile_elems is prod t_i for a flat inner layout and the nested level's size otherwise.
 * A strided view's offset is sum x_i*strides_i. false if index is outside the shape or a
 * value overflows 64 bits. index has d->rank entries, in shape order. */
bool desc_offset(const Desc *d, const uint64_t *index, uint64_t *offset);

/* The size of the descriptor's buffer: the number of positions of its mapping
 * (outer span * tile_elems for tiled layouts, the strides' footprint for strided views).
 * false on 64-bit overflow. */
bool desc_size(const Desc *d, uint64_t *size);

/* element_offset through the mapping: the smallest position of m whose cell is live with the
 * descriptor's index (coordinates on d's axes, 0 elsewhere), found by scanning the positions with
 * the reference interpreter — the oracle for the generated inverse (E_offset, codegen.h).
 * Returns 1 found, 0 no such position, -1 the interpreter could not decide (eval_error). */
int desc_element_offset(const Prog *p, Evaluator *ev, const Desc *d, const Map *m, const uint64_t *index,
                        uint64_t *pos);

/* ---- Printing and recognition (desc_print.c, desc_recog.c) ---- */

/* Appends the descriptor in the language's syntax (tiled![...] / strided![...]) to buf,
 * snprintf-like: returns the length the whole text needs. */
size_t desc_format(const Prog *p, const Desc *d, char *buf, size_t size);

/* Recognizes m as a strided view (row-major and column-major included) or a (recursively)
 * tiled layout with any orders: candidates are synthesized from the positions of m's unit
 * indices (the strided view) and from m's digits grouped into tile levels (strides of strided
 * groups from the digits' position weights), and one is accepted only if its mapping is
 * equivalent to m (the decision procedure of algebra.h). Returns the descriptor (in p's arena) and, in *note,
 * "row-major", "column-major" or NULL; otherwise NULL with the reason in *why (arena text).
 * Not recognized although tiled: levels of pure padding (a nested tile larger than its parent's
 * on some axis), padded axes of extent 1, and mappings over MAPC_EXHAUSTIVE_BUDGET positions. */
const Desc *desc_recognize(Prog *p, const Map *m, const char **note, const char **why);

/* d (a descriptor of m, as desc_recognize returns) with its shape listed in the order of axes[0..n):
 * extents, strides and tile extents move with their axes; row- and column-major orders swap when the
 * order is reversed and become explicit strides under any other permutation. The result (in p's
 * arena) is verified equivalent to m, and *note is updated for a strided view ("row-major",
 * "column-major" or NULL). Returns d itself (and leaves *note) when it already has that order, when
 * axes is not a permutation of d's axes, or when the reordered descriptor would not verify. */
const Desc *desc_reorder(Prog *p, const Map *m, const Desc *d, const int *axes, int n, const char **note);

/* ---- Declared GEMM kernels: operand access and the grid's blocks (kernel_plan.c) ---- */

/* How a kernel reaches an operand. A layout whose live cells sit at i*rs + j*cs of the tensor's buffer
 * (row-major, column-major, a leading dimension, a transpose; decided by the equivalence procedure
 * against the strided mapping) is read and written in place. Any other layout (blocked, tiled, padded,
 * split over chips) is staged through a row-major buffer, whose strides are given (rs = columns, cs = 1). */
typedef struct KernelAccess {
    bool strided;           /* in place; else staged through a row-major buffer */
    int64_t rs, cs;         /* element (i, j) at base + i*rs + j*cs (of the staging buffer when staged) */
    uint64_t base;
} KernelAccess;

/* A block of C computed by one unit of the grid: rows [m0, m0 + rows), columns [n0, n0 + cols), over the K
 * values [k0, k0 + depth) of its part of K (a chip grid over K digits splits it; else k0 0, depth K, part 0),
 * on chip `chip` of the grid. */
typedef struct KernelBlock {
    uint64_t m0, n0, rows, cols;
    uint64_t k0, depth, chip;
    int part;
} KernelBlock;

typedef struct KernelPlan {
    KernelAccess acc[3];    /* A, B, C */
    KernelBlock *blocks;    /* owned (malloc): each block of C once, in the grid's order, over all of K */
    size_t nblocks;
    /* owned: the units' blocks per part of K (each (part, block) once; by part, then in the grid's order),
     * the partial products a chip grid over K sums; with one part, blocks with their chips */
    KernelBlock *part_blocks;
    size_t npart_blocks;
    int nparts;
    uint64_t grid_units;    /* positions of the grid (live, idle and replicated units) */
} KernelPlan;

/* The axes of operand 0 (A: M, K), 1 (B: K, N) or 2 (C: M, N) of k, as rows and columns. */
void kernel_operand_axes(const KernelDecl *k, int operand, int *rows, int *cols);
/* The plan of kernel k whose operands have the flat layouts layout[0..2] (the tensors' whole buffers).
 * 0, or -1 with err ("its grid leaves 2 of 8 blocks of C to no unit", "out of memory"). */
int kernel_plan(Prog *p, const KernelDecl *k, const Map *const layout[3], KernelPlan *out, char *err, size_t cap);
void kernel_plan_free(KernelPlan *pl);
/* The row-major layout m![X, Y] of operand i's staging buffer; NULL with why. */
const Map *kernel_staging_layout(Prog *p, const KernelDecl *k, int operand, MapWhy why);

#endif
