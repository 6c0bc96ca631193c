/* mapc.h — the public C API of libmapc: compile mapping programs, interpret them, decide equivalence,
 * and JIT-compile their layout functions and relayout kernels. Installed as <mapc/mapc.h>. */
#ifndef MAPC_MAPC_H
#define MAPC_MAPC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Conventions
 * - Every function returns a mapc_status (or a plain value documented as such); nothing prints,
 *   nothing exits. Input errors are diagnostics attached to the program (mapc_diag_*).
 * - Ownership: objects returned through an out-parameter are owned by the caller and freed with
 *   the matching *_free function; strings returned by accessor functions are owned by the object
 *   they come from and stay valid until it is freed (or, for diagnostics, until it is changed).
 * - Thread safety: distinct objects may be used from different threads freely. A mapc_program is
 *   read-only after compilation except for calls marked "mutates" (they append diagnostics);
 *   read-only calls on one program may run concurrently, mutating calls need exclusive access.
 *   A mapc_jit's lookups and the functions they return may be called from any thread.
 */

typedef enum mapc_status {
    MAPC_OK = 0,
    MAPC_ERR_INPUT = 1,     /* the program has errors: read the diagnostics */
    MAPC_ERR_ARGUMENT = 2,  /* a NULL or out-of-range argument */
    MAPC_ERR_NOT_FOUND = 3, /* no type / symbol of that name */
    MAPC_ERR_UNDECIDED = 4, /* a decision exceeded its budget (a diagnostic says which) */
    MAPC_ERR_IO = 5,        /* a file could not be read */
    MAPC_ERR_NOMEM = 6,
    MAPC_ERR_BACKEND = 7,   /* LLVM failed (a diagnostic says why) */
} mapc_status;

/* Cell kinds (SPEC §1); the numbering is the ABI of every generated function. Headers written
 * by `mapc emit --header` define the same enum under the same guard. */
#ifndef MAPC_CELL_KINDS_DEFINED
#define MAPC_CELL_KINDS_DEFINED
enum mapc_cell_kind {
    MAPC_CELL_LIVE = 0,
    MAPC_CELL_PAD_TOP = 1,
    MAPC_CELL_PAD_ZERO = 2,
    MAPC_CELL_PAD_BOTTOM = 3,
    MAPC_CELL_OOB = 4,
    MAPC_CELL_OVERFLOW = 5
};
#endif
typedef enum mapc_cell_kind mapc_cell_kind;

/* The signatures of the JIT-compiled functions (coordinates: one int64_t per axis, in
 * declaration order; mapc_axis_count gives the number). */
typedef int (*mapc_cell_fn)(uint64_t pos, int64_t *coords);          /* kind; coords 0 unless live */
typedef int64_t (*mapc_offset_fn)(const int64_t *coords);            /* smallest live position or -1 */
typedef void (*mapc_visit_fn)(void *ctx, uint64_t pos, int kind, const int64_t *coords);
typedef void (*mapc_each_fn)(mapc_visit_fn visit, void *ctx);        /* every position in order */
typedef void (*mapc_copy_fn)(void *dst, const void *src);            /* a relayout kernel */

typedef struct mapc_program mapc_program;
typedef struct mapc_jit mapc_jit;

/* The library version, "MAJOR.MINOR.PATCH" (static storage). Thread-safe. */
const char *mapc_version(void);
/* A short English description of a status (static storage). Thread-safe. */
const char *mapc_status_string(mapc_status s);

/* ---- programs ---- */

/* Compiles the text (len bytes; it is copied) labelled name in diagnostics. On MAPC_OK or
 * MAPC_ERR_INPUT *out receives a program the caller frees with mapc_program_free (on
 * MAPC_ERR_INPUT it holds the diagnostics); on other statuses *out is NULL. */
mapc_status mapc_compile_string(const char *name, const char *text, size_t len, mapc_program **out);
/* The same, reading the file at path (MAPC_ERR_IO if it cannot be read, *out NULL). */
mapc_status mapc_compile_file(const char *path, mapc_program **out);
/* Frees the program and everything it owns. NULL is allowed. Not concurrently with other calls on it. */
void mapc_program_free(mapc_program *p);

/* Number of diagnostics, and the i-th as "FILE:LINE:COL: error: MESSAGE" plus the source
 * line and a caret (owned by the program; valid until the next mutating call or the free). */
size_t mapc_diag_count(const mapc_program *p);
const char *mapc_diag_text(mapc_program *p, size_t i); /* mutates (formats into the program); NULL if out of range */

/* Axes in declaration order. mapc_axis_count returns -1 for NULL. */
int mapc_axis_count(const mapc_program *p);
mapc_status mapc_axis(const mapc_program *p, int i, const char **name, uint64_t *size);
/* Types in definition order (name owned by the program). */
int mapc_type_count(const mapc_program *p);
mapc_status mapc_type_name(const mapc_program *p, int i, const char **name);
/* |E| of the type (or inline "m![...]", which mutates) named name. */
mapc_status mapc_type_size(mapc_program *p, const char *name, uint64_t *size);

/* ---- the interpreter ---- */

/* The cell of position pos of the mapping name (a type, or an inline "m![...]", which mutates):
 * *kind receives its kind, coords[0..axis_count) its coordinates (0 unless live). */
mapc_status mapc_eval(mapc_program *p, const char *name, uint64_t pos, int *kind, int64_t *coords);

/* Equivalence (SPEC §4) of two mappings (types or inline "m![...]"; inline mutates).
 * *equivalent receives 1 or 0; when 0 and the sizes agree, *pos the smallest position where the
 * cells differ (may be NULL). MAPC_ERR_UNDECIDED if the decision exceeded its budget. */
mapc_status mapc_equiv(mapc_program *p, const char *name1, const char *name2, int *equivalent, uint64_t *pos);

/* ---- the JIT ---- */

typedef struct mapc_jit_options {
    int opt_level;          /* 0..3 (default 2) */
    const char *cpu;        /* NULL: the host CPU with its features */
    const char *prefix;     /* prepended to the generated symbols; lookups take unprefixed names */
} mapc_jit_options;

/* Compiles every type (E_cell, E_offset, E_each) and copy kernel of the program with ORC LLJIT,
 * in its own LLVM context. opts may be NULL (defaults). *out is owned by the caller (mapc_jit_free)
 * and does not borrow the program: the program may be freed first. Mutates p (diagnostics on
 * failure: MAPC_ERR_BACKEND, or MAPC_ERR_INPUT for a program with errors). */
mapc_status mapc_jit_create(mapc_program *p, const mapc_jit_options *opts, mapc_jit **out);
/* The address of a generated function by name ("E_cell", "E_offset", "E_each", or a copy's name);
 * MAPC_ERR_NOT_FOUND if there is none. Thread-safe. */
mapc_status mapc_jit_lookup(mapc_jit *j, const char *symbol, void **fn);
/* Typed lookups of a type's functions. Thread-safe. */
mapc_status mapc_jit_cell(mapc_jit *j, const char *type, mapc_cell_fn *fn);
mapc_status mapc_jit_offset(mapc_jit *j, const char *type, mapc_offset_fn *fn);
mapc_status mapc_jit_each(mapc_jit *j, const char *type, mapc_each_fn *fn);
mapc_status mapc_jit_copy(mapc_jit *j, const char *copy, mapc_copy_fn *fn);
/* Frees the JIT and its code (functions looked up become invalid). NULL is allowed. */
void mapc_jit_free(mapc_jit *j);

#ifdef __cplusplus
}
#endif

#endif
