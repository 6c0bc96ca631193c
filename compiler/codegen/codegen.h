/* codegen.h — the code-generation boundary: what the rest of mapc asks of LLVM, in LLVM-free types.
 * Objects, assembly and IR files with their C header (emit.c, header.c); JIT-compiled programs and
 * relayout kernels (jit.c). Only codegen/ includes LLVM headers (cg_impl.h). */
#ifndef MAPC_CODEGEN_H
#define MAPC_CODEGEN_H

#include "core/ast.h"

#include <stdbool.h>

/*
 * What is generated, per `type E` (symbols prefixed by CgOptions.prefix):
 *   int     E_cell(uint64_t pos, int64_t *coords)   docs/language.md §3 cell kind (0..5); coords[naxes] written,
 *                                                    all 0 unless the cell is live
 *   int64_t E_offset(const int64_t *coords)          smallest live position with exactly these
 *                                                    coordinates, or -1
 *   void    E_each(void (*visit)(void *ctx, uint64_t pos, int kind, const int64_t *coords), void *ctx)
 *                                                    every position in order, coordinates maintained
 *                                                    incrementally (loops over digits, no division)
 * and per `copy NAME: SRC -> DST as T;`:
 *   void    NAME(void *dst, const void *src)         the relayout kernel
 *   void    NAME_part(void *dst, const void *src, uint64_t part, uint64_t nparts)
 *                                                    part `part` of `nparts` (nparts <= 65536) of it: the parts
 *                                                    write disjoint blocks of the destination and together all
 *                                                    of it, so threads may run them at once (part >= nparts:
 *                                                    nothing)
 */

/* Names a program linking libmapc already has, which no emitted symbol may take (mapc emit's table is generated
 * at build time from the built libmapc and the C library, compiler/driver/linked_names.py). */
enum { CG_LINKED_EXPORT, CG_LINKED_IMPORT, CG_LINKED_LIBC };
typedef struct CgNameTable {
    const char *const *names;   /* sorted by strcmp */
    const unsigned char *kinds; /* per name: libmapc exports it, libmapc imports it, the C library defines it */
    size_t n;
} CgNameTable;

typedef struct CgOptions {
    const char *prefix;     /* prepended to every exported symbol ("" or NULL: none) */
    int opt_level;          /* 0..3 */
    const char *cpu;        /* NULL: the host CPU (JIT) or CG_DEFAULT_CPU (objects) */
    const char *features;   /* NULL: the host's features with a host CPU, else none */
    bool kernels;           /* also compile the declared kernels ahead of time (objects, see gemm_codegen.h) */
    bool object;            /* the code is for an object, not the JIT: relayout kernels take the vectors of the
                             * program's named ISA (prog_set_target) with its target features, or without one
                             * the portable ISA's for the object's CPU */
    const CgNameTable *linked; /* objects: names no emitted symbol may take besides C's and POSIX's reserved ones
                                * and those the process's libraries define (NULL: only those) */
    bool cleanup_only;      /* the code is generated unrolled and vectorized (GEMM routines): run only a cleanup
                             * pipeline (SROA, CSE, instcombine, LICM, GVN) instead of -O<n>'s, which costs a
                             * fraction of the compile time for the same machine code speed */
} CgOptions;

/* The portable default target CPU of `mapc emit` (x86-64 with SSE4.2/POPCNT, 2009 onward). */
#define CG_DEFAULT_CPU "x86-64-v2"

/* Whether LLVM can compile for the CPU name (NULL and "native" mean the host): on x86-64, the
 * processors of LLVM's X86 backend that run 64-bit code. */
bool cg_cpu_known(const char *cpu);
/* The LLVM version mapc was built with ("14.0.6"). */
const char *cg_llvm_version(void);
/* The host CPU as LLVM names it, then its feature list ("sapphirerapids +avx512f,+fma,..."), malloc'ed;
 * NULL if out of memory. The JIT compiles for exactly this. */
char *cg_host_signature(void);

typedef enum { CG_EMIT_OBJ, CG_EMIT_ASM, CG_EMIT_LLVM } CgEmitKind;
/* Compiles prog and writes an object, assembly or IR file to path; false after diagnostics. */
bool cg_emit_file(const Prog *prog, const CgOptions *opt, CgEmitKind kind, const char *path, Diags *d);
/* The relayout plan of copy c when compiled with opt (malloc'ed lines, each starting with two spaces: the
 * ISA, vectors and caches, each box of the destination with its vector mode, tiles, blocks and loop order,
 * the stores, the contiguous width). NULL after a diagnostic in d. */
char *cg_copy_plan(const Prog *prog, const Copy *c, const CgOptions *opt, Diags *d);
/* Writes a C header declaring every emitted symbol, the sizes and the cell-kind enum. */
bool cg_write_header(const Prog *prog, const CgOptions *opt, const char *path, const char *guard, Diags *d);

/* Code loaded into its own ORC LLJIT (the relayout kernels of the runtime, GEMM kernels). Lookups are
 * thread-safe. */
typedef struct JitModule JitModule;
/* The address of a symbol of the module, or NULL. */
void *jit_module_lookup(JitModule *j, const char *symbol);
void jit_module_free(JitModule *j);

/* Compiles the relayout kernel c (named c->name, no prefix) for the host CPU at opt_level into its own
 * JIT. NULL after appending a diagnostic to d. */
JitModule *jit_copy_kernel(const Prog *prog, const Copy *c, int opt_level, Diags *d);

/* A sequencer config (count entries n[i]:stride[i], outermost first; docs/movement.md) compiled into its address
 * generator (cg_seq.c): void mapc_seq_walk(int64_t *out, int64_t base) stores base plus the buffer position of
 * every stream position, in stream order, into out (the product of the n[i] slots). NULL after a diagnostic. */
JitModule *jit_seq_walk(const uint64_t *n, const int64_t *stride, int count, int opt_level, Diags *d);

/* The on-disk cache of compiled JIT code (process-wide, thread-safe): every JIT compilation first
 * looks for its object under dir, keyed by its IR, target and versions, and stores what it compiles.
 * NULL or "" turns the cache off (the default). Nothing is touched until the first compilation (or
 * jit_cache_open): the directory is then created (0700, with its missing parents) and used only if it
 * belongs to this user and neither its group nor others may write it, with a secret key of this user
 * (its file "key", created 0600 on first use) that signs every entry; a directory or key that fails the
 * checks turns the cache off with a warning (jit_cache_warning). false if out of memory. */
bool jit_cache_set_dir(const char *dir);
/* jit_cache_set_dir from the environment: $MAPC_CACHE_DIR (set but empty: no cache), else
 * $XDG_CACHE_HOME/mapc (an absolute XDG_CACHE_HOME), else $HOME/.cache/mapc, else none. With unless_set,
 * nothing changes when a directory was chosen already (jit_cache_set_dir or this). false if out of memory. */
bool jit_cache_use_environment(bool unless_set);
/* What the cache is after opening it now (creating the directory and the key if need be). */
typedef enum JitCacheState { JIT_CACHE_OFF, JIT_CACHE_ON, JIT_CACHE_REFUSED } JitCacheState;
JitCacheState jit_cache_open(void);
/* The warning of a refused directory or key into buf[cap] (truncated; "" when none): "the JIT cache DIR is not
 * used: it is writable by others (mode 0777); compiled code is not cached". Returns its full length, 0 when
 * there is none. With take, only the first call after the refusal returns it (the driver prints it once). */
size_t jit_cache_warning(char *buf, size_t cap, bool take);
/* Makes every later JIT report its code to perf's JIT interface (process-wide; off by default): LLVM writes a
 * jitdump file (under $JITDUMPDIR, else ~/.debug/jit) that `perf inject --jit` merges into a profile
 * recorded with `perf record -k 1`, so that the generated kernels appear by name. */
void jit_set_perf_events(bool on);
/* Counts since the process began: objects loaded from the cache, compiled, and entries refused (not a
 * regular file of this user, not whole, or not signed with this cache's key: ignored and rebuilt). */
typedef struct JitCacheStats {
    unsigned long hits, compiled, rebuilt;
} JitCacheStats;
JitCacheStats jit_cache_stats(void);

typedef struct Jit Jit;
/* Compiles prog (all types and copies) and loads it into a new ORC LLJIT with its own
 * thread-safe context. NULL after diagnostics. Lookups on the result are thread-safe. */
Jit *jit_new(const Prog *prog, const CgOptions *opt, Diags *d);
/* The address of an exported symbol, named without the prefix given at creation, or NULL. */
void *jit_lookup(Jit *j, const char *symbol);
void jit_free(Jit *j);

#endif
