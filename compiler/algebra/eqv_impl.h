/* eqv_impl.h — internals shared by the two halves of the equivalence decision: the context
 * (equiv.c) and the isl encoding of cell functions (eqv_build.c). Not part of the algebra API. */
#ifndef MAPC_EQV_IMPL_H
#define MAPC_EQV_IMPL_H

#include "algebra.h"

#include <isl/aff.h>
#include <isl/ctx.h>
#include <isl/ilp.h>
#include <isl/local_space.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>

/* Positions tried by the concrete witness before two bases are compared symbolically. */
#define EQV_WITNESS_POSITIONS 32

typedef struct Item {
    bool is_pad;
    PadKind pad;
    const Map *base;
    uint64_t stride, count;
    isl_aff *value;     /* terms only */
    isl_set *pres;      /* where the item is met */
    int cls;            /* terms: index of the first term of its same-base class */
    int pres_id;        /* items with the same id have the same presence (0: everywhere) */
} Item;

typedef struct Items {
    Item *v;
    int n, cap;
    int next_id;        /* presence ids handed out so far */
    bool over;          /* more than the item budget */
} Items;

/* The cell function of a mapping: 1 + naxes quasi-affine piecewise functions of the position
 * (the kind, then one coordinate per axis, 0 unless live), all defined on [0, |E|). */
typedef struct Fn {
    isl_pw_aff **o;
} Fn;

/* A distinct normal form met: its cell function (built lazily) and its equivalence class
 * (union-find over forms found equivalent). */
typedef struct Form {
    const Map *n;
    uint64_t hash;
    Fn fn;
    bool built;
    int parent;
} Form;

/* Pointer -> form index, open addressing. */
typedef struct PtrSlot {
    const Map *m;
    int form;
} PtrSlot;

typedef struct DiffPair {
    int a, b;           /* forms known not equivalent */
} DiffPair;


struct Eqv {
    const Prog *prog;
    int naxes;
    isl_ctx *ctx;
    Evaluator *ev;
    Form *forms;
    int nforms, capforms;
    PtrSlot *slots;
    size_t nslots, capslots;   /* capslots: a power of two */
    DiffPair *diff;
    size_t ndiff, capdiff;
    unsigned long max_ops;
    int max_items;
    bool use_norm;
    int probe;
    int top_depth;      /* nesting of eqv_same calls (the budget is reset at the outermost) */
    Arena scratch;      /* normal forms for the fast path */
    EqvStats stats;
    char error[256];
};


/* isl helpers (they take their isl arguments, like isl itself). */
isl_val *eqv_val(isl_ctx *ctx, uint64_t v);
/* The space [p] of positions. */
isl_space *eqv_pos_space(Eqv *q);
/* The constant v as an affine function of p. */
isl_aff *eqv_aff_const(Eqv *q, uint64_t v);
/* { [p] : 0 <= p < n } */
isl_set *eqv_range_set(Eqv *q, uint64_t n);

/* Cell functions: copies, validity (no NULL part), freeing. */
Fn eqv_fn_copy(Eqv *q, Fn f);
bool eqv_fn_ok(Eqv *q, Fn f);
void eqv_fn_free(Eqv *q, Fn f);
/* The cell function of e built from scratch (eqv_build.c), and memoized per normal form (equiv.c). */
Fn eqv_build(Eqv *q, const Map *e);
Fn eqv_fn_of(Eqv *q, const Map *e);
/* The positions where f and g (kept) differ. */
isl_set *eqv_diff_set(Eqv *q, isl_pw_aff *f, isl_pw_aff *g);
/* The smallest position of d (taken): 1 with *pos, 0 if d is empty, -1 undecided (q->error set). */
int eqv_set_min(Eqv *q, isl_set *d, uint64_t *pos);
/* Starts and ends a top-level decision (the operation budget is reset at the outermost). */
void eqv_enter(Eqv *q);
void eqv_leave(Eqv *q);
/* Records in q->error why isl returned NULL (the operation budget, or another isl error). */
void eqv_quota_error(Eqv *q);

#endif
