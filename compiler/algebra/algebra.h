/* algebra.h — the algebra layer: the normal form and the equivalence decision (docs/language.md §4), and what is
 * decided with them: coverage of one mapping by another, the rules of tensors, GEMM panel layouts. */
#ifndef MAPC_ALGEBRA_H
#define MAPC_ALGEBRA_H

#include "core/ast.h"
#include "eval/eval.h"

/* ---- Normal form (norm.c) ---- */

/* norm(E): a mapping equivalent to e, built from sound local rewrites applied to a fixpoint
 * (pair flattening, broadcast merging, chain folding, identity dropping, merging of adjacent
 * digits of one base, merging of same-kind paddings), with new nodes allocated in `a`.
 * Idempotent: norm(norm(E)) is structurally equal to norm(E), and map_format of it parses
 * back to a structurally equal mapping. Never fails (sizes only shrink or stay). */
const Map *norm_map(Arena *a, const Map *e);

/* Structural equality of two mappings (same tree, same numbers; axes compared by index). */
bool norm_equal(const Map *a, const Map *b);

/* True when e lies in the fragment on which norm is canonical (see norm.c): only symbols,
 * broadcasts, pairs, / and % chains on symbols, and identity resizes/paddings, with the digits
 * of each axis covering pairwise disjoint stride ranges. Two equivalent mappings of this
 * fragment get structurally equal normal forms. */
bool norm_in_fragment(const Map *e);

/* ---- Equivalence decision (equiv.c) ---- */

/* A decision context over one program: an isl context, memoized cell relations of the
 * mappings met, memoized base comparisons, and an interpreter whose composite-base
 * comparison is this decision procedure. Not thread-safe. */
typedef struct Eqv Eqv;

/* Creates a context for prog (which must outlive it); never NULL: when memory (the heap, or isl's) is
 * exhausted it unwinds to the calling thread's guard (core/base.h). */
Eqv *eqv_new(const Prog *prog);
void eqv_free(Eqv *q);

/* The context's interpreter (owned by q): composite bases are identified up to equivalence
 * at any size. */
Evaluator *eqv_evaluator(Eqv *q);

/* A stand-alone interpreter whose composite-base comparison is this decision procedure (for
 * library code that only evaluates; never NULL, as eqv_new); free it with eqv_evaluator_free, never
 * eval_free. */
Evaluator *eqv_evaluator_new(const Prog *prog);
void eqv_evaluator_free(Evaluator *ev);

/* Budget: isl elementary operations per top-level decision (default EQV_DEFAULT_MAX_OPS) and
 * structural items per mapping (default EQV_DEFAULT_MAX_ITEMS); past either, the answer is
 * EQV_UNKNOWN with a reason in eqv_error. */
#define EQV_DEFAULT_MAX_OPS 20000000UL
#define EQV_DEFAULT_MAX_ITEMS 512
void eqv_set_budget(Eqv *q, unsigned long max_ops, int max_items);

/* Fast paths (both on by default): identical normal forms answer "equivalent"; a probe of
 * the first positions through the interpreter answers "not equivalent" when a difference is
 * found there (all earlier positions agree, so it is the smallest). Tests turn them off to
 * exercise the symbolic procedure alone. */
void eqv_set_fast_paths(Eqv *q, bool use_norm, int probe_positions);

/* Decides e1 ≡ e2 (docs/language.md §4) into r: EQV_EQUIVALENT, EQV_SIZES_DIFFER, EQV_CELLS_DIFFER with the
 * smallest differing position and both cells (r->c1.coord, r->c2.coord must hold naxes
 * entries), or EQV_UNKNOWN when the budget is exceeded (reason in eqv_error). Never wrong. */
void eqv_decide(Eqv *q, const Map *e1, const Map *e2, EqvResult *r);

/* Whether x and y are equivalent: 1 yes, 0 no, -1 unknown (reason in eqv_error). */
int eqv_same(Eqv *q, const Map *x, const Map *y);

/* Why the last call answered unknown. */
const char *eqv_error(const Eqv *q);

/* Statistics of the context since its creation (for the benchmark and the tests). */
typedef struct EqvStats {
    unsigned long decisions, by_pointer, by_norm, by_probe, by_isl, unknown;
} EqvStats;
EqvStats eqv_stats(const Eqv *q);

/* ---- Layout queries (layout.c): decided from the cell function, for any size ---- */

/* The smallest position of m whose cell has kind k: 1 with *pos, 0 if there is none, -1 undecided
 * (eqv_error says why). */
int layout_first_kind(Eqv *q, const Map *m, CellKind k, uint64_t *pos);
/* The smallest index that no live cell of m holds, in lexicographic order over the axes marked in
 * axes[] (naxes flags, declaration order; the other coordinates are ignored: their digits only
 * replicate): 1 with idx[naxes] (0 on unmarked axes), 0 if m holds every index of the marked axes,
 * -1 undecided. */
int layout_missing_index(Eqv *q, const Map *m, const bool *axes, uint64_t *idx);
/* The positions of m whose cell is live with index idx on the marked axes (the others ignored): their
 * number, and the first min(number, cap) of them in increasing order in out; -1 undecided. */
int64_t layout_positions(Eqv *q, const Map *m, const bool *axes, const uint64_t *idx, uint64_t *out, size_t cap);
/* Over the live cells among positions [lo, hi) of m (lo < hi <= |m|): their number in *live and, per
 * axis, the smallest and largest coordinate in min[naxes] and max[naxes]. 1, or 0 when none is live,
 * -1 undecided. */
int layout_live_bounds(Eqv *q, const Map *m, uint64_t lo, uint64_t hi, uint64_t *min, uint64_t *max, uint64_t *live);

/* ---- Coverage (cover.c) ---- */

/* Static proof that every live cell of dst has a source position in src: src's digits of every axis
 * dst mentions tile that axis far enough. false means "not proved", not "missing". */
bool cover_proved(const Prog *p, const Map *src, const Map *dst);

/* Static proof that no position of m is overflow: m is made of digits of symbols (or of padded symbols), and
 * the digits of each axis are of one base and cover disjoint value ranges, so their values never add up
 * to the base's size. false means "not proved". */
bool cover_no_overflow(const Prog *p, const Map *m);

/* ---- Tensor rules (tensor_rules.c, docs/language.md §5) ---- */

/* Capacities: the hardware a tensor may span. A tensor may occupy fewer units than these. */
typedef struct TensorLimits {
    uint64_t hbm_chip_bytes;    /* HBM per chip (default 48 GiB) */
    uint64_t dm_slice_bytes;    /* DM per slice (default 512 KiB) */
    uint64_t max_clusters;      /* clusters per chip (default 2) */
    uint64_t max_slices;        /* slices per cluster (default 256) */
} TensorLimits;

TensorLimits tensor_default_limits(void);

/* The units of a tensor: chips x clusters x slices, each holding `elements` positions (|Element|). */
typedef struct TensorUnits {
    uint64_t chips, clusters, slices, elements;
} TensorUnits;
TensorUnits tensor_units(MemKind mem, const Map *const *maps);

/* The tensor's layout m![{Chip}, {Cluster}, {Slice}, {Element}] (mem_kind_maps(mem) mappings): unit
 * (c, l, s) holds at element p the cell of position ((c*|Cluster| + l)*|Slice| + s)*|Element| + p. Built
 * in a as pair(UNITS, Element), UNITS the pair of the unit mappings of more than one unit (the layout is
 * Element alone when there is one unit). NULL with why when the size overflows. */
const Map *tensor_layout(Arena *a, MemKind mem, const Map *const *maps, MapWhy why);

/* Checks a tensor's mappings (all non-NULL) against docs/language.md §5, in this order: the capacities of lim; no
 * overlap (no position of the layout is overflow: the first one is named as a unit and element, with
 * what each mapping contributes there); whole (the tensor holds every index of its axes: the smallest
 * index held nowhere is named). Its axes are the marked ones of axes[naxes], or (axes NULL) every axis
 * its layout uses; digits of other axes replicate the tensor. false with the message in why. */
bool tensor_check(const Prog *p, MemKind mem, ElemType elem, const Map *const *maps, const bool *axes,
                  const TensorLimits *lim, char *why, size_t size);

/* ---- Where a declared tensor holds an index (tensor_where.c) ---- */

/* The tensor's axes as naxes flags in p's arena: its named axes, else those its layout uses. */
bool *tensor_axis_flags(Prog *p, const TensorDecl *t, const Map *layout);
/* The layout positions of tensor_layout(t) holding the index idx[naxes] (a live cell's coordinates), in
 * increasing order: their number, and the first min(number, cap) of them in out; with the reason in why[size],
 * -1 when a coordinate of an axis that is not the tensor's is not 0, -2 when the question is undecided. */
int64_t tensor_where(Prog *p, const TensorDecl *t, const uint64_t *idx, uint64_t *out, size_t cap, char *why,
                     size_t size);

/* ---- GEMM panel layouts (panel.c): the DM formats in which the micro-kernel reads packed tiles ---- */

/* Widest panel (rows of a panel) and the K groups panel_recognize tries. */
#define PANEL_MAX_WIDTH 64

/* |m![R / w, K / g, R % w, K % g]| with R padded to a multiple of w and K of g (rows·depth rounded up) in
 * *size; false if that overflows 64 bits. */
bool panel_size(uint64_t rows, uint64_t depth, int w, int g, uint64_t *size);

/* The panel layout m![R / w, K / g, R % w, K % g] over the tile axes r (rows, size from p->axes) and k,
 * with R padded to a multiple of w (`#` padding, top kind) and K to a multiple of g where they do not divide,
 * built in p's arena (for g = 1 without the K / 1 and K % 1 digits). Element (r, k) is at
 * (r/w)·w·Kp + (k/g)·w·g + (r%w)·g + k%g, Kp = K rounded up to g. NULL only if the sizes overflow. */
const Map *panel_map(Prog *p, int r_axis, int k_axis, int w, int g, Loc loc);

/* Whether m is (equivalent to) the panel layout of geometry (w, g) over r and k; sizes are compared before
 * the equivalence decision, and an undecided comparison counts as "no". */
bool panel_is(Prog *p, const Map *m, int r_axis, int k_axis, int w, int g);

/* Whether m is (equivalent to) a panel layout over r and k for some w in 1..PANEL_MAX_WIDTH and g in
 * {1, 2, 4}; true with *w and *g. Candidates are filtered by size before the equivalence decision (eqv_new /
 * eqv_same); an undecided comparison counts as "no". Several geometries may describe m (panels of one row
 * take any g, a K tile of one group any w that pads R alike): the group *g holds on entry is tried first,
 * and in each group the width *w holds. */
bool panel_recognize(Prog *p, const Map *m, int r_axis, int k_axis, int *w, int *g);

#endif
