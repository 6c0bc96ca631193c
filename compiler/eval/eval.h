/* eval.h — cells and the reference interpreter of docs/language.md §3 (the oracle), plus exhaustive equivalence. */
#ifndef MAPC_EVAL_H
#define MAPC_EVAL_H

#include "core/ast.h"

/* Cell kinds; the numbering is also the ABI of generated code. */
typedef enum {
    CELL_LIVE = 0,
    CELL_PAD_TOP = 1,
    CELL_PAD_ZERO = 2,
    CELL_PAD_BOTTOM = 3,
    CELL_OOB = 4,
    CELL_OVERFLOW = 5,
} CellKind;

/* A cell: coord has prog->naxes entries, meaningful only when kind == CELL_LIVE. */
typedef struct Cell {
    CellKind kind;
    uint64_t *coord;
} Cell;

/* An index-literal entry "E: v" (docs/language.md §3). */
typedef struct IndexTerm {
    const Map *map;
    uint64_t value;
} IndexTerm;

typedef enum { EVAL_OK = 0, EVAL_UNDECIDED = 1 } EvalStatus;

/* How two composite bases are compared: the default is memoized exhaustive comparison;
 * the equivalence module installs its decision procedure through eval_set_base_equiv. */
typedef struct Evaluator Evaluator;
typedef int (*BaseEquivFn)(Evaluator *ev, const Map *x, const Map *y, void *ctx); /* 1 yes, 0 no, -1 undecided */

/* Creates an interpreter over prog's axes. Not thread-safe; one per thread. */
Evaluator *eval_new(const Prog *prog);
void eval_free(Evaluator *ev);
void eval_set_base_equiv(Evaluator *ev, BaseEquivFn fn, void *ctx);
/* The ctx given to eval_set_base_equiv (NULL by default). */
void *eval_base_equiv_ctx(const Evaluator *ev);
/* Sets the reason eval_error reports (for a base comparison that answers undecided). */
void eval_set_error(Evaluator *ev, const char *msg);
/* Positions compared at most when the default base comparison decides two composite bases. */
void eval_set_budget(Evaluator *ev, uint64_t positions);
/* Why the last call returned EVAL_UNDECIDED (owned by ev). */
const char *eval_error(const Evaluator *ev);

/* cell(E, pos) of docs/language.md §3 into *out (out->coord must hold naxes entries). */
EvalStatus eval_cell(Evaluator *ev, const Map *e, uint64_t pos, Cell *out);
/* The cell an index literal denotes (each value must be < |map|). */
EvalStatus eval_index(Evaluator *ev, const IndexTerm *terms, int n, Cell *out);

/* Whether two bases are the same base (docs/language.md §3 step 1), through the installed comparison:
 * 1 yes, 0 no, -1 undecided (eval_error says why). Code generation resolves bases with it. */
int eval_same_base(Evaluator *ev, const Map *x, const Map *y);

/* The values of the terms of e's structural evaluation at pos (docs/language.md §3), in pre-order, into values:
 * their number, or -1 when pos is out of range, meets a padding, or there are more than cap. At a live
 * position every term node of e is met once, in the order code generation numbers them. */
int eval_terms(const Map *e, uint64_t pos, uint64_t *values, int cap);

bool cell_equal(const Cell *a, const Cell *b, int naxes);
/* Prints as in docs/language.md §1 ("{A:1, B:7}", "pad(top)", "oob", ...); snprintf-like. */
size_t cell_format(const Prog *p, const Cell *c, char *buf, size_t size);
const char *cell_kind_name(CellKind k);

typedef enum { EQV_EQUIVALENT, EQV_SIZES_DIFFER, EQV_CELLS_DIFFER, EQV_UNKNOWN } EqvVerdict;

typedef struct EqvResult {
    EqvVerdict verdict;
    uint64_t pos;       /* EQV_CELLS_DIFFER: the smallest differing position */
    Cell c1, c2;        /* its cells (coord arrays owned by the caller, naxes entries each) */
} EqvResult;

/* Decides E1 ≡ E2 by comparing every position, when |E| <= budget; otherwise EQV_UNKNOWN.
 * r->c1.coord and r->c2.coord must point at naxes entries each. */
EvalStatus eqv_exhaustive(Evaluator *ev, const Map *e1, const Map *e2, uint64_t budget, EqvResult *r);

/* Default exhaustive budget (positions) for equivalence assertions and composite bases. */
#define MAPC_EXHAUSTIVE_BUDGET (UINT64_C(1) << 22)

#endif
