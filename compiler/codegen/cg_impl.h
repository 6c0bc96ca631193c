/* cg_impl.h — code generation internals shared by codegen/'s files: layout plans, the generator state,
 * LLVM units (context + module), target machines and the JIT loader. */
#ifndef MAPC_CG_IMPL_H
#define MAPC_CG_IMPL_H

#include "codegen.h"
#include "eval/eval.h"

#include <llvm-c/Core.h>
#include <llvm-c/Orc.h>
#include <llvm-c/TargetMachine.h>


/* One term of the structural evaluation (docs/language.md §3), in major-to-minor (pre-order) position. */
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

typedef struct Cg Cg;

/* Builds the plan of m (memoized per node in cg). NULL after a diagnostic (undecided bases,
 * a mapping too large to unfold). */
const CgPlan *cg_plan(Cg *cg, const Map *m);

/* ---- units: one LLVM context and one module (cg_unit.c) ---- */

/* A module being generated, with the thread-safe context that owns its LLVM context. cg_unit_open is
 * the one place mapc creates a context and a module; the unit is then loaded into a JIT
 * (cg_unit_jit), written out (emit.c), or closed. */
typedef struct CgUnit {
    LLVMOrcThreadSafeContextRef tsc;    /* owned; keeps ctx alive */
    LLVMContextRef ctx;                 /* borrowed from tsc */
    LLVMModuleRef mod;                  /* owned until consumed */
} CgUnit;

/* Opens a unit with an empty module called name; false if LLVM cannot make one. */
bool cg_unit_open(CgUnit *u, const char *name);
/* Disposes whatever the unit still owns (the module, the context); safe on a consumed unit. */
void cg_unit_close(CgUnit *u);
/* Verifies the unit's module after generating `what` into it: true, or false with *err (malloc'ed). */
bool cg_unit_verify(CgUnit *u, const char *what, char **err);
/* Optimizes the unit's module at opt->opt_level for opt->cpu (NULL: the host CPU and its features) and
 * loads it into a new LLJIT. Consumes the unit, even on failure. NULL with *err (malloc'ed). */
JitModule *cg_unit_jit(CgUnit *u, const CgOptions *opt, char **err);

/* Writes n bytes to path (replacing it): false after a diagnostic naming the system's reason (a full
 * disk, a directory, no permission), with no partial file left. */
bool cg_write_bytes(const char *path, const void *data, size_t n, Diags *d);

/* Checks that no two statements emit one function (a type's E_cell, E_offset, E_each, a copy's C and C_part, a
 * kernel's entry point, each with the prefix) and, when linkable (an object), that none takes a name a program linking the object with libmapc already has or may get: a C
 * keyword, a name of opt->linked (what libmapc exports or imports, what the C library defines), libmapc's
 * mapc_ namespace, a name C or POSIX reserves for the implementation, or one a library loaded in this process
 * defines (the dynamic linker's answer: libmapc's dependencies). False after an error at each offending
 * declaration. */
bool cg_check_symbols(const Prog *prog, const CgOptions *opt, bool linkable, Diags *d);

/* The cache key of a module: the SHA-256 of the versions of mapc and LLVM, its target ("cpu features -O3")
 * and its IR text (n bytes). */
typedef struct JitCacheKey {
    unsigned char bytes[SHA256_BYTES];
} JitCacheKey;
void jit_cache_key(const char *ir, size_t n, const char *target, JitCacheKey *key);
/* The cached object of key, malloc'ed with its size, or NULL (no cache, no entry, or an entry that is not
 * a regular file of this user, not whole or not signed by this cache's secret: ignored, rebuilt by the
 * caller and counted in jit_cache_stats().rebuilt). */
void *jit_cache_load(const JitCacheKey *key, size_t *size);
/* Stores an object under key (atomically: written to a new file of the directory, then renamed); failures
 * are ignored (the next process compiles again). */
void jit_cache_store(const JitCacheKey *key, const void *data, size_t size);

/* ---- the entries' bytes (jit_entry.c) ----
 * An entry is a header (the magic "MAPCJIT2", the object's size as 8 little-endian bytes, the key), the
 * object, and HMAC-SHA-256 under the cache's secret over the header and the object. */
enum { JIT_SECRET_BYTES = 32, JIT_ENTRY_NAME_BYTES = 2 * SHA256_BYTES + 3 };
#define JIT_ENTRY_MAX_OBJECT ((size_t)1 << 31) /* no module's object comes near */
/* The entry's file name in the cache directory: the key in hex, then ".o" (NUL-terminated). */
void jit_cache_entry_name(const JitCacheKey *key, char name[JIT_ENTRY_NAME_BYTES]);
/* The entry holding obj (size bytes, 1 to JIT_ENTRY_MAX_OBJECT) under key and secret, malloc'ed with its
 * length in *n; NULL when out of memory or size is out of range. */
unsigned char *jit_cache_entry_make(const JitCacheKey *key, const unsigned char secret[JIT_SECRET_BYTES],
                                    const void *obj, size_t size, size_t *n);
/* Whether the n bytes e are an entry of key signed under secret; then the object is the size bytes at
 * e + *offset. Any other bytes (another key's entry, a truncated or extended one, one signed under another
 * secret) are refused. */
bool jit_cache_entry_check(const unsigned char *e, size_t n, const JitCacheKey *key,
                           const unsigned char secret[JIT_SECRET_BYTES], size_t *offset, size_t *size);

/* Generates every type's functions and every copy kernel of prog (and with opt->kernels every declared
 * kernel) into the unit's module. false after
 * appending diagnostics to d. The module is verified. */
bool cg_program(const Prog *prog, CgUnit *u, const CgOptions *opt, Diags *d);

/* Generates only the relayout kernel c (named c->name with the prefix) into the unit's module, for
 * kernels the runtime makes on the fly (DMA between views). false after diagnostics. */
bool cg_copy_only(const Prog *prog, CgUnit *u, const Copy *c, const CgOptions *opt, Diags *d);

/* ---- internals shared by cg_*.c ---- */

struct Cg {
    const Prog *prog;
    Diags *diags;
    Evaluator *ev;
    Arena arena;            /* plans */
    LLVMContextRef ctx;     /* borrowed */
    LLVMModuleRef mod;      /* borrowed from the unit being generated */
    LLVMBuilderRef b;       /* owned; disposed when generation ends */
    LLVMTypeRef i1, i8, i16, i32, i64, vptr, i64ptr;
    LLVMTypeRef cell_ty, offset_ty, visit_ty, each_ty, copy_ty, move_ty, part_ty;
    const char *prefix;
    struct CgMemo { const Map *map; const CgPlan *plan; LLVMValueRef cell, offset; } *memo;
    int nmemo, memo_cap;
    int nfn;                /* counter for internal function names */
    bool failed;
    TargetIsa isa;          /* the vector ISA of relayout kernels (never TARGET_ISA_HOST) */
    bool isa_features;      /* relayout kernels carry isa's target features (else the module's CPU decides) */
    TargetCaches caches;    /* the caches relayout kernels block for */
};

/* The per-map memo entry (created on first use). */
struct CgMemo *cg_memo(Cg *cg, const Map *m);

/* The internal cell function of m: i32 (i64 pos, i64 *coords); NULL on error. */
LLVMValueRef cg_cell_fn(Cg *cg, const Map *m);
/* The internal offset function of m: i64 (i64 *coords). */
LLVMValueRef cg_offset_fn(Cg *cg, const Map *m);

/* Finalization (docs/language.md §3) over a plan's terms: vals[t] the value of term t, present[t] an i1
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
/* The body of E_each: every position of m in order, visit(ctx, pos, kind, coords) called with the public
 * coordinates; for a digit-exact m each coordinate is stored only where a loop of its axis advances (the
 * visitor must not write them), padding cells get an array of zeros. */
void cg_enumerate_each(Cg *cg, const Map *m, LLVMValueRef visit, LLVMValueRef ctx);
/* A sub-mapping whose term values are given at run time instead of enumerated: node (a node of the
 * enumerated mapping, met at a live position) has its terms' values, in pre-order, at values[0..]
 * (an i64 pointer), and contributes nothing to the position (the caller offsets the buffers). */
typedef struct CgGiven {
    const Map *node;
    LLVMValueRef values;
} CgGiven;
/* The same with the given sub-mapping's terms read at run time (given NULL: none); false (nothing generated)
 * when a given part meets more bodies than the loops generate (the flat fallback cannot take it). */
bool cg_enumerate_given(Cg *cg, const Map *m, const CgGiven *given, CgBodyFn body, void *user);

/* One loop of a region: its value runs over start .. start + count - 1, adding value · weight to the
 * position; term is the plan term whose value it is (-1: a broadcast, or a run of padding positions). */
typedef struct CgRegionLoop {
    uint64_t count, start, weight;
    int term;
} CgRegionLoop;
/* Positions of one cell kind that the enumeration visits with the same loops: pos + the loops' sums
 * (loops outer to inner, in enumeration order). The terms no loop iterates hold vals[t] (0 for a given
 * node's); present[t] is false under a taken padding. Arrays in cg's arena. */
typedef struct CgRegion {
    int kind;
    uint64_t pos;
    CgRegionLoop *loops;
    int nloops;
    uint64_t *vals;
    bool *present;
} CgRegion;
/* The positions of a digit-exact mapping m as the enumeration's regions, in order (given: as in
 * cg_enumerate_given, its terms left out); false (nothing recorded) when m is not digit-exact or has
 * more regions than the enumeration generates bodies for. */
bool cg_enum_regions(Cg *cg, const Map *m, const CgGiven *given, CgRegion **regions, int *nregions);

/* Emits the exported functions of a type / a copy kernel into cg->mod. */
void cg_emit_type(Cg *cg, const char *name, const Map *m);
void cg_emit_copy(Cg *cg, const Copy *c);
/* The plan cg_emit_copy follows for c, in words (lines starting with two spaces); snprintf-like, 0 after a
 * diagnostic. */
size_t cg_describe_copy(Cg *cg, const Copy *c, char *buf, size_t cap);
/* Gives fn cg->isa's target features (relayout kernels of objects compiled for a named ISA, and JIT kernels
 * for an ISA below the host's). */
void cg_isa_attribute(Cg *cg, LLVMValueRef fn);
/* Emits declared kernel k compiled ahead of time (cg_kernel_aot.c; see gemm_codegen.h): its routines, staging
 * kernels and descriptor (internal) and the exported entry point PREFIX<name>; cg->failed after a diagnostic. */
void cg_emit_kernel(Cg *cg, const KernelDecl *k);

/* ---- targets (cg_target.c) ---- */

/* A target machine for opt->cpu/features at opt->opt_level: the host CPU and its features when cpu is
 * NULL and jit is set (or cpu is "native"), else CG_DEFAULT_CPU. NULL with *err set (malloc'ed) on
 * failure. The caller owns the machine (LLVMDisposeTargetMachine). */
LLVMTargetMachineRef cg_target_machine(const CgOptions *opt, bool jit, char **err);
/* Runs the -O<n> pipeline (LLVMRunPasses "default<On>") on mod for tm, or with cleanup_only (see CgOptions)
 * the cleanup pipeline; false with *err. */
bool cg_optimize(LLVMModuleRef mod, LLVMTargetMachineRef tm, int opt_level, bool cleanup_only, char **err);
/* "what: msg" in malloc'ed memory (NULL if out of memory). */
char *cg_message(const char *what, const char *msg);

#endif
