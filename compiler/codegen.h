/* codegen.h — the LLVM code-generation layer: layout plans, generated functions, JIT and object emission. */
#ifndef MAPC_CODEGEN_H
#define MAPC_CODEGEN_H

#include "ast.h"
#include "eval.h"

#include <llvm-c/Core.h>
#include <llvm-c/Orc.h>
#include <llvm-c/TargetMachine.h>

/*
 * What is generated, per `type E` (symbols prefixed by CgOptions.prefix):
 *   int     E_cell(uint64_t pos, int64_t *coords)   SPEC §3 cell kind (0..5); coords[naxes] written,
 *                                                    all 0 unless the cell is live
 *   int64_t E_offset(const int64_t *coords)          smallest live position with exactly these
 *                                                    coordinates, or -1
 *   void    E_each(void (*visit)(void *ctx, uint64_t pos, int kind, const int64_t *coords), void *ctx)
 *                                                    every position in order, coordinates maintained
 *                                                    incrementally (loops over digits, no division)
 * and per `copy NAME: SRC -> DST as T;`:
 *   void    NAME(void *dst, const void *src)         the relayout kernel
 *
 * The seam for the normal form: every generator reads a mapping only through a CgPlan
 * (cg_plan). Today the plan is built from the AST as written; when norm_ lands, cg_plan will
 * plan norm(E) instead (equivalent, so every generated function keeps its meaning) and the
 * digit-exact fast paths will cover more mappings.
 */

/* One term of the structural evaluation (SPEC §3), in major-to-minor (pre-order) position. */
typedef struct CgTerm {
    const Map *node;        /* the symbol or the top of a / % chain */
    const Map *base;        /* its base: a MAP_SYM, or a composite */
    uint64_t stride, count; /* the digit */
    uint64_t weight;        /* position weight of the node's local position in E */
    int slot;               /* pre-order index among terms and paddings */
    int cls;                /* index into CgPlan.cls */
    int pad;                /* innermost enclosing padding (index into CgPlan.pads), or -1 */
} CgTerm;

typedef struct CgPad {
    const Map *node;
    uint64_t weight;
    int slot, parent;       /* enclosing padding or -1 */
} CgPad;

/* A base class: terms with the same base (resolved at compile time: sharing does not depend on
 * the position). Its place is its first term's slot. */
typedef struct CgClass {
    const Map *base;        /* the representative base (the first term's) */
    int first;              /* first term */
    int axis;               /* the axis for a symbol base, -1 for a composite */
} CgClass;

typedef struct CgPlan {
    const Map *map;
    CgTerm *terms;
    int nterms;
    CgPad *pads;
    int npads;
    CgClass *cls;
    int ncls;
    /* Digit-exact: every base a symbol, and the digits of each axis disjoint (s·m <= next s),
     * so a live cell's digits are determined by its coordinates. */
    bool exact;
    /* Tile-exact: exact, no truncating resize, and every axis of size > 1 is tiled by its
     * digits (strides 1, m1, m1·m2, ... up to the axis size): every coordinate has a position. */
    bool tiled;
    bool truncated;         /* a resize cuts a mapping short somewhere (outside digit bases) */
    /* Invertible: within each class the digits are disjoint, every composite base is
     * injective, and the classes mention disjoint sets of axes; so the class coordinates of a
     * live cell follow from its axis coordinates (exact implies invertible). */
    bool invertible;
    bool injective;         /* invertible without broadcasts > 1: one position per live cell */
    bool **cls_axes;        /* per class: the axes it mentions (naxes flags) */
} CgPlan;

typedef struct CgOptions {
    const char *prefix;     /* prepended to every exported symbol ("" or NULL: none) */
    int opt_level;          /* 0..3 */
    const char *cpu;        /* NULL: the host CPU (JIT) or CG_DEFAULT_CPU (objects) */
    const char *features;   /* NULL: the host's features with a host CPU, else none */
} CgOptions;

/* The portable default target CPU of `mapc emit` (x86-64 with SSE4.2/POPCNT, 2009 onward). */
#define CG_DEFAULT_CPU "x86-64-v2"

typedef struct Cg Cg;

/* Builds the plan of m (memoized per node in cg). NULL after a diagnostic (undecided bases,
 * a mapping too large to unfold). */
const CgPlan *cg_plan(Cg *cg, const Map *m);

/* Generates every type's functions and every copy kernel of prog into a new module owned by
 * ctx (the caller owns the returned module; dispose it or hand it to the JIT). Returns NULL
 * after appending diagnostics to d. The module is verified. */
LLVMModuleRef cg_module(const Prog *prog, LLVMContextRef ctx, const CgOptions *opt, Diags *d);

/* A module holding only the relayout kernel c (named c->name with the prefix), for kernels the
 * runtime makes on the fly (DMA between views). NULL after diagnostics. */
LLVMModuleRef cg_copy_module(const Prog *prog, LLVMContextRef ctx, const Copy *c, const CgOptions *opt, Diags *d);

/* ---- internals shared by cg_*.c ---- */

struct Cg {
    const Prog *prog;
    Diags *diags;
    Evaluator *ev;
    Arena arena;            /* plans */
    LLVMContextRef ctx;     /* borrowed */
    LLVMModuleRef mod;      /* owned until cg_module returns it */
    LLVMBuilderRef b;       /* owned; disposed by cg_module */
    LLVMTypeRef i1, i8, i16, i32, i64, vptr, i64ptr;
    LLVMTypeRef cell_ty, offset_ty, visit_ty, each_ty, copy_ty;
    const char *prefix;
    struct CgMemo { const Map *map; const CgPlan *plan; LLVMValueRef cell, offset; } *memo;
    int nmemo, memo_cap;
    int nfn;                /* counter for internal function names */
    bool failed;
};

/* The per-map memo entry (created on first use). */
struct CgMemo *cg_memo(Cg *cg, const Map *m);

/* The internal cell function of m: i32 (i64 pos, i64 *coords); NULL on error. */
LLVMValueRef cg_cell_fn(Cg *cg, const Map *m);
/* The internal offset function of m: i64 (i64 *coords). */
LLVMValueRef cg_offset_fn(Cg *cg, const Map *m);

/* Finalization (SPEC §3) over a plan's terms: vals[t] the value of term t, present[t] an i1
 * or NULL (always present), taken[k] an i1 or NULL (never taken). Emits the cell kind (i32)
 * and fills sub[naxes] with the coordinates (0 unless live). Needs a function being built. */
LLVMValueRef cg_finalize(Cg *cg, const CgPlan *pl, LLVMValueRef *vals, LLVMValueRef *present, LLVMValueRef *taken,
                         LLVMValueRef *sub);

/* An alloca of n values of type t in the current function's entry block. */
LLVMValueRef cg_alloca(Cg *cg, LLVMTypeRef t, unsigned n, const char *name);
LLVMValueRef cg_const(Cg *cg, uint64_t v);
/* x + y saturating at UINT64_MAX (the interpreter's u64_sat_add). */
LLVMValueRef cg_sat_add(Cg *cg, LLVMValueRef x, LLVMValueRef y);
/* x * w for a constant w, saturating. */
LLVMValueRef cg_sat_mulc(Cg *cg, LLVMValueRef x, uint64_t w);

/* The enumeration loop: calls body once per position of m in order, inside generated loops
 * whose counters are the digits. vals[t] are the term values (loop counters or constants),
 * kind and sub[] the finalized cell, pos the position. */
typedef void (*CgBodyFn)(Cg *cg, void *user, LLVMValueRef pos, LLVMValueRef kind, LLVMValueRef *sub,
                         LLVMValueRef *vals, const bool *present);
void cg_enumerate(Cg *cg, const Map *m, CgBodyFn body, void *user);
/* The same with term t's loop advancing step[t] values at a time (the body handles the run).
 * Generates nothing and returns false when a stepped term is somewhere fixed or truncated to a
 * count the step does not divide. */
/* Loop blocking for locality: the inner term's range is cut into blocks of `block` values, and
 * the loop over blocks is opened just outside the outer term's loop (a legal reordering for
 * kernels whose positions are independent, such as copies). */
typedef struct CgHoist {
    int outer, inner;       /* terms; outer comes first in pre-order */
    uint64_t block;         /* divides the inner term's count; a multiple of its step */
} CgHoist;
bool cg_enumerate_stepped(Cg *cg, const Map *m, const uint64_t *step, const CgHoist *hoist, CgBodyFn body,
                          void *user);

/* Emits the exported functions of a type / a copy kernel into cg->mod. */
void cg_emit_type(Cg *cg, const char *name, const Map *m);
void cg_emit_copy(Cg *cg, const Copy *c);

/* ---- back ends (emit.c, jit.c) ---- */

/* A target machine for cpu/features (NULL: host) at opt level; NULL with *err set (malloc'ed)
 * on failure. The caller owns the machine (LLVMDisposeTargetMachine). */
LLVMTargetMachineRef cg_target_machine(const CgOptions *opt, bool jit, char **err);
/* Runs the -O<n> pipeline (LLVMRunPasses "default<On>") on mod for tm; false with *err. */
bool cg_optimize(LLVMModuleRef mod, LLVMTargetMachineRef tm, int opt_level, char **err);

typedef enum { CG_EMIT_OBJ, CG_EMIT_ASM, CG_EMIT_LLVM } CgEmitKind;
/* Compiles prog and writes an object, assembly or IR file to path; false after diagnostics. */
bool cg_emit_file(const Prog *prog, const CgOptions *opt, CgEmitKind kind, const char *path, Diags *d);
/* Writes a C header declaring every emitted symbol, the sizes and the cell-kind enum. */
bool cg_write_header(const Prog *prog, const CgOptions *opt, const char *path, const char *guard, Diags *d);

typedef struct JitModule JitModule;
/* Optimizes mod for tm (cg_optimize at opt_level) and loads it into a new LLJIT. Takes mod (its
 * context must be tsc's), tm, and the caller's reference to tsc, even on failure. NULL with *err
 * (malloc'ed) on failure. Lookups on the result are thread-safe. */
JitModule *jit_module_new(LLVMOrcThreadSafeContextRef tsc, LLVMModuleRef mod, LLVMTargetMachineRef tm, int opt_level,
                          char **err);
/* The address of a symbol of the module (compiled on first lookup), or NULL. */
void *jit_module_lookup(JitModule *j, const char *symbol);
void jit_module_free(JitModule *j);

typedef struct Jit Jit;
/* Compiles prog (all types and copies) and loads it into a new ORC LLJIT with its own
 * thread-safe context. NULL after diagnostics. Lookups on the result are thread-safe. */
Jit *jit_new(const Prog *prog, const CgOptions *opt, Diags *d);
/* The address of an exported symbol, named without the prefix given at creation, or NULL. */
void *jit_lookup(Jit *j, const char *symbol);
void jit_free(Jit *j);

#endif
