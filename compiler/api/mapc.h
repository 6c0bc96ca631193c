/* mapc.h — the public C API of libmapc: compile mapping programs, interpret them, decide equivalence,
 * and JIT-compile their layout functions and relayout kernels. Installed as <mapc/mapc.h>. */
#ifndef MAPC_MAPC_H
#define MAPC_MAPC_H

#include "mapc_version.h" /* MAPC_VERSION_STRING, MAPC_VERSION_MAJOR, _MINOR, _PATCH: the version compiled against */

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
 *   mapc_jit_create mutates only when it fails, so threads may create JITs of one program at once
 *   when it compiled without errors. A mapc_jit's lookups and the functions they return may be
 *   called from any thread. A mapc_gemm, a mapc_kernel and a mapc_runtime (with its tensors and
 *   views) take one call at a time: give each thread its own; a kernel or runtime also borrows its
 *   program, which no other thread may use meanwhile. What is process-wide is locked: the cache of
 *   compiled GEMM kernels (threads compiling the same kernel at once get one copy) and the on-disk
 *   cache of JIT code (entries are written whole, so threads and processes may share a directory).
 *   Emitted kernels (mapc_aot_run) may run from any thread. Only mapc_release_caches needs every other
 *   thread to be done with engines and kernels.
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

/* Cell kinds (docs/language.md §1); the numbering is the ABI of every generated function. Headers written
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
/* Removes the diagnostics later calls appended (a failed inline query, a failed JIT), keeping the
 * compilation's own; texts returned before become invalid. Only the compilation's errors make a program
 * unusable: a failed query never blocks later calls. */
void mapc_diag_clear(mapc_program *p);

/* The axes of axes![...] in declaration order (not the tile axes kernel declarations add): the coordinates of
 * mapc_eval and of the generated functions are indexed this way. mapc_axis_count returns -1 for NULL. */
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

/* Equivalence (docs/language.md §4) of two mappings (types or inline "m![...]"; inline mutates).
 * *equivalent receives 1 or 0; when 0 and the sizes agree, *pos the smallest position where the
 * cells differ (may be NULL). MAPC_ERR_UNDECIDED if the decision exceeded its budget. */
mapc_status mapc_equiv(mapc_program *p, const char *name1, const char *name2, int *equivalent, uint64_t *pos);

/* The normal form of the mapping name (a type, or an inline "m![...]", which mutates) as a valid m![...] line:
 * equivalent to it, and the same for every equivalent mapping. *out is malloc'ed (the caller frees it with
 * free()); NULL unless MAPC_OK. */
mapc_status mapc_norm(mapc_program *p, const char *name, char **out);

/* The mapping name (a type, or an inline "m![...]", which mutates) as a valid m![...] line, as written (a type's
 * definition with the names it uses resolved). *out is malloc'ed (free() it); NULL unless MAPC_OK. */
mapc_status mapc_map_text(mapc_program *p, const char *name, char **out);

/* The cells of n positions of the mapping name (a type, or an inline "m![...]", which mutates) in one call:
 * kinds[i] receives the kind of position pos[i], coords[i * axis_count .. (i + 1) * axis_count) its coordinates
 * (0 unless live; coords may be NULL when the program has no axes). MAPC_ERR_UNDECIDED at the first position
 * the interpreter cannot decide (the entries before it are filled). */
mapc_status mapc_eval_many(mapc_program *p, const char *name, const uint64_t *pos, size_t n, int *kinds,
                           int64_t *coords);

/* ---- layouts of other systems (docs/interop.md) ---- */

/* How format "triton" splits the positions: the top bits are the blocks, then the warps, then the lanes (powers of
 * two; 0 or 1: none), the rest the registers. */
typedef struct mapc_export_options {
    uint64_t lanes, warps, blocks;
} mapc_export_options;

/* The mapping name (a type, or an inline "m![...]", "cute![...]", "triton![...]", ..., which mutates) in the
 * syntax of another system, one line as `mapc export` prints it: format is "cute", "cute-tiler", "triton",
 * "affine", "strided" or "index-map"; opts may be NULL. *out is malloc'ed (free() it); NULL unless MAPC_OK.
 * MAPC_ERR_ARGUMENT for an unknown format or options; MAPC_ERR_INPUT when the mapping has no such form, with
 * the diagnostic "no NOUN: REASON". The literals (cute![...] and the others) read such text back. */
mapc_status mapc_export(mapc_program *p, const char *name, const char *format, const mapc_export_options *opts,
                        char **out);

/* A unit and element position of a tensor: chip, cluster and slice (DmTensor), chip (HbmTensor; cluster and
 * slice 0), or none (HostTensor: all three 0); element is the position within the unit. */
typedef struct mapc_place {
    uint64_t chip, cluster, slice, element;
} mapc_place;

/* Where the declared tensor holds index (an "i![...]" literal; omitted axes are 0): every unit and element
 * position, in layout order (replicas included). *count receives their number (0: nowhere), places[0..cap)
 * the first min(count, cap) of them (places may be NULL when cap is 0). Mutates (diagnostics): MAPC_ERR_INPUT
 * for an index with errors, MAPC_ERR_ARGUMENT for a padding cell or a coordinate on an axis the tensor does
 * not have, MAPC_ERR_UNDECIDED; MAPC_ERR_NOT_FOUND when no tensor has that name. Decided symbolically. */
mapc_status mapc_where(mapc_program *p, const char *tensor, const char *index, mapc_place *places, size_t cap,
                       size_t *count);

/* ---- the JIT ---- */

typedef struct mapc_jit_options {
    int opt_level;          /* 1..3; 0 the default (2); -1 no optimization */
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

/* ---- the on-disk cache of JIT code ----
 *
 * What the library compiles (mapc_jit_create, declared kernels, the GEMM engine, the runtime's moves) is
 * kept in a process-wide cache on disk, the one the mapc command uses: one entry per compiled module,
 * keyed by its code, target and the versions of mapc and LLVM, so that a second process compiles nothing.
 * By default the library takes the directory the command takes: $MAPC_CACHE_DIR (set but empty: no
 * cache), else $XDG_CACHE_HOME/mapc, else $HOME/.cache/mapc, read at the first compilation. A directory is
 * created with mode 0700 and used only if it belongs to this user and neither its group nor others may
 * write it; each entry is signed (HMAC-SHA-256) with a secret key of this user kept in the directory (the
 * file "key", mode 0600), and an entry that is not a regular file of this user signed with that key is
 * ignored and compiled again. */

/* Chooses the cache directory: dir, "" for no cache, or NULL for the environment's choice above. The
 * directory (and its key) is created and checked now: MAPC_OK when it is used or there is none; MAPC_ERR_IO
 * when it is refused (nothing is cached; mapc_jit_cache_warning says why); MAPC_ERR_NOMEM. Thread-safe:
 * compilations under way finish with the directory they began with. */
mapc_status mapc_jit_cache_dir(const char *dir);
/* Why the cache directory was refused (the directory or its key, with its mode or owner), into buf[cap]
 * (truncated, NUL-terminated; buf may be NULL when cap is 0). Returns the message's full length: 0 when the
 * cache is in use, off, or not yet opened (the default directory is opened at the first compilation).
 * Thread-safe. */
size_t mapc_jit_cache_warning(char *buf, size_t cap);
/* Counts since the process began, over all threads. */
typedef struct mapc_jit_cache_stats {
    uint64_t hits;      /* compiled modules loaded from the cache */
    uint64_t compiled;  /* modules compiled (and stored, when there is a cache) */
    uint64_t rejected;  /* entries refused (not a regular file of this user, not whole, or not signed with
                         * this cache's key): ignored and compiled again */
} mapc_jit_cache_stats;
/* Fills *out (MAPC_ERR_ARGUMENT when NULL). Thread-safe. */
mapc_status mapc_jit_cache_counts(mapc_jit_cache_stats *out);

/* ---- declared GEMM kernels ---- */

/* A declared `kernel` of a program, JIT-compiled for this machine with its operands' layouts. */
typedef struct mapc_kernel mapc_kernel;

typedef struct mapc_kernel_options {
    int threads;            /* worker threads (0: 1); the product is spread over them by the kernel's grid */
} mapc_kernel_options;

/* Compiles the kernel called name of the program for the ISA it was checked for (the host's best): its
 * loop nest, packing routines and micro-kernel, and the relayout kernels of operands that are staged.
 * opts may be NULL. *out borrows the program, which must outlive it and must not be used from another
 * thread while the kernel is created or run. MAPC_ERR_NOT_FOUND (no such kernel), MAPC_ERR_INPUT (the
 * program has errors), MAPC_ERR_ARGUMENT (threads < 0 or over 1024; a diagnostic), MAPC_ERR_BACKEND (the host
 * lacks the kernel's ISA, or LLVM failed; a diagnostic), MAPC_ERR_NOMEM. */
mapc_status mapc_kernel_create(mapc_program *p, const char *name, const mapc_kernel_options *opts,
                               mapc_kernel **out);
/* The bytes of operand 0 (A), 1 (B) or 2 (C): its declared HBM tensor's buffer, chip after chip, element
 * position by element position (0 for another operand number). */
size_t mapc_kernel_operand_bytes(const mapc_kernel *k, int operand);
/* C <- alpha*A*B + beta*C on caller-owned buffers laid out as the operands' declarations say, each
 * holding mapc_kernel_operand_bytes of its operand (C is read only when beta != 0), in place: operands whose
 * layouts are strided are read (C written) where they are, the others staged through the kernel's own
 * buffers by its relayout kernels; cells of C's layout that are padding keep what the caller left, except
 * pad(zero) cells of a staged C, which become 0. alpha and beta must be
 * finite and within f32 (32-bit integers for an i8 kernel). MAPC_ERR_ARGUMENT (with the message in
 * mapc_kernel_error) for NULL buffers or bad scalars; MAPC_ERR_BACKEND if the run fails. One call at a
 * time per kernel. */
mapc_status mapc_kernel_run(mapc_kernel *k, const void *a, const void *b, void *c, double alpha, double beta);
/* The message of the kernel's last failed call ("" after a success; owned by the kernel). */
const char *mapc_kernel_error(const mapc_kernel *k);
/* Frees the kernel (NULL is allowed). */
void mapc_kernel_free(mapc_kernel *k);

/* ---- GEMM over strided views ---- */

typedef enum mapc_type { MAPC_F32, MAPC_BF16, MAPC_F16, MAPC_I8, MAPC_I32 } mapc_type;

/* A matrix view: element (i, j) at data[i*rs + j*cs] (strides in elements), len elements available
 * from data. Row-major is (rs = cols, cs = 1), column-major (1, rows); a transpose swaps the strides,
 * a sub-matrix keeps its parent's strides, a broadcast uses stride 0 (A and B only). bf16 and f16 are
 * their bit patterns in uint16_t. */
typedef struct mapc_matrix {
    void *data;
    uint64_t len;
    uint64_t rows, cols;
    int64_t rs, cs;
    mapc_type type;
} mapc_matrix;

/* A GEMM engine: its threads and packing buffers; the kernels it compiles are shared process-wide. */
typedef struct mapc_gemm mapc_gemm;

typedef struct mapc_gemm_options {
    int threads;            /* worker threads (0: 1) */
    const char *isa;        /* NULL or "": the host's best; "avx512", "avx2" or "portable" */
} mapc_gemm_options;

/* opts may be NULL (1 thread, the host's best ISA). MAPC_ERR_ARGUMENT for an unknown ISA, one the host
 * cannot run, or threads < 0 or over 1024; MAPC_ERR_NOMEM. */
mapc_status mapc_gemm_create(const mapc_gemm_options *opts, mapc_gemm **out);
void mapc_gemm_free(mapc_gemm *g);
/* C <- alpha*A*B + beta*C: f32, bf16 or f16 inputs with f32 C (mapc_gemm_f32), i8 inputs with i32 C
 * (mapc_gemm_i8, exact modulo 2^32). Before any arithmetic the views are validated; the first failure is
 * returned as MAPC_ERR_ARGUMENT with its message in mapc_gemm_error, word for word:
 *   "A.cols (3) != B.rows (4)", "A.rows (5) != C.rows (6)", "B.cols (5) != C.cols (6)",
 *   "A view of 3x4 (strides 4,1) needs 12 elements but slice has 8",
 *   "A view of 3x4 (strides -4,1) has negative strides or is too large to address",
 *   "C view aliases itself (3x5, strides 0,1); C must address each (i,j) uniquely", "C aliases A or B",
 *   "unsupported element types ...", "mapc_gemm_f32 cannot run i8 x i8 -> i32; use mapc_gemm_i8".
 * m = 0 or n = 0 does nothing; k = 0 or alpha = 0 computes C <- beta*C; beta = 0 overwrites C (NaN too).
 * Nothing is printed. One call at a time per engine. */
mapc_status mapc_gemm_f32(mapc_gemm *g, float alpha, const mapc_matrix *a, const mapc_matrix *b, float beta,
                          const mapc_matrix *c);
mapc_status mapc_gemm_i8(mapc_gemm *g, int32_t alpha, const mapc_matrix *a, const mapc_matrix *b, int32_t beta,
                         const mapc_matrix *c);
/* The message of the engine's last failed call ("" after a success; owned by the engine). */
const char *mapc_gemm_error(const mapc_gemm *g);
/* Views over contiguous row-major and column-major matrices of rows x cols elements. */
mapc_matrix mapc_row_major(void *data, uint64_t rows, uint64_t cols, mapc_type type);
mapc_matrix mapc_col_major(void *data, uint64_t rows, uint64_t cols, mapc_type type);

/* Frees the process-wide cache of JIT-compiled GEMM kernels that engines and declared kernels share (they
 * stay compiled until then, for the next engine or kernel of the same signature) and the engines that
 * mapc_aot_run keeps per emitted kernel, so that a host program can end with nothing allocated. Call it
 * only when no mapc_gemm and no mapc_kernel exists and no mapc_aot_run is under way in any thread (as
 * before exit); later engines, kernels and runs set themselves up again. */
void mapc_release_caches(void);

/* ---- device tensors ---- */

/* A runtime over a program: a thread pool, the JIT-compiled moves it has made, and the tensors
 * created in it. It borrows the program (which must outlive it and not be used from another thread
 * while the runtime works). */
typedef struct mapc_runtime mapc_runtime;
/* A tensor in host, HBM or DM memory, laid out by its mappings over units (chips, clusters, slices). */
typedef struct mapc_tensor mapc_tensor;
/* A view of a tensor (the whole of it, or a tile): what moves read and write. */
typedef struct mapc_view mapc_view;

/* threads: 0 for one per core. MAPC_ERR_INPUT for a program with errors. */
mapc_status mapc_runtime_create(mapc_program *p, int threads, mapc_runtime **out);
/* Frees the runtime and every tensor and view made in it. NULL is allowed. */
void mapc_runtime_free(mapc_runtime *rt);
/* The message of the runtime's last failed call (owned by the runtime). */
const char *mapc_runtime_error(const mapc_runtime *rt);

/* The tensor a `tensor NAME: ...;` declaration describes, zero-filled (MAPC_ERR_NOT_FOUND if there is
 * none; MAPC_ERR_INPUT if it breaks a rule under the runtime's limits; MAPC_ERR_NOMEM if its buffer is
 * larger than the memory the process can have, "a tensor of N f32 elements needs B bytes, more than the
 * M bytes of memory this process can have", or cannot be allocated). A runtime call that fails for
 * memory returns MAPC_ERR_NOMEM with its message in mapc_runtime_error. */
mapc_status mapc_tensor_create(mapc_runtime *rt, const char *name, mapc_tensor **out);
/* Its buffer (every unit's, in unit order) and that buffer's size in bytes. */
void *mapc_tensor_data(const mapc_tensor *t);
size_t mapc_tensor_bytes(const mapc_tensor *t);
/* The dense host array of the logical tensor: elements, row-major over its axes in declaration order. */
uint64_t mapc_tensor_host_elems(const mapc_tensor *t);

/* A view of the whole tensor, for reading (writable 0) or writing (1). Tensors and views belong to their
 * runtime and are freed with it. */
mapc_status mapc_tensor_view(mapc_runtime *rt, mapc_tensor *t, int writable, mapc_view **out);
/* The tile of a view along the digit index (an "m![...]" of the view's mapping, as "m![A / 4]"): len
 * consecutive values from start. unit: -1 for the whole layout, 0, 1 or 2 for the Chip, Cluster or Slice
 * mapping only (the units holding those values). MAPC_ERR_ARGUMENT with the runtime's message when index is
 * not a digit, the range does not fit, or start lands on padding. */
mapc_status mapc_view_tile(mapc_runtime *rt, const mapc_view *v, int unit, const char *index, uint64_t len,
                           uint64_t start, mapc_view **out);
/* Writes a dense host array of the logical tensor into a write view (every replica), or reads a view
 * into one (one replica). The array holds mapc_tensor_host_elems elements of the tensor's type. */
mapc_status mapc_view_write(mapc_runtime *rt, const mapc_view *dst, const void *host);
mapc_status mapc_view_read(mapc_runtime *rt, const mapc_view *src, void *host);
/* DMA between two views of one logical tensor, whatever their distributions, by JIT-compiled relayout
 * kernels, one task per destination unit. */
mapc_status mapc_dma(mapc_runtime *rt, const mapc_view *dst, const mapc_view *src);

/* ---- kernels compiled ahead of time by `mapc emit` ----
 *
 * An object written by `mapc emit` holds, per declared kernel, a function
 *     int PREFIX<kernel>(const void *a, const void *b, void *c, double alpha, double beta, int threads);
 * (declared in the header emit writes) with the contract of mapc_kernel_run: the buffers are laid out as
 * the operands' declarations say (PREFIX<kernel>_A_BYTES etc.), C is read only when beta != 0, threads 0
 * means one. It returns a mapc_status; the routines run only on a host with the ISA the kernel was
 * checked for at emit time (else MAPC_ERR_BACKEND with a message). Such objects link with libmapc, whose
 * runner below they call; programs rarely call it themselves. */

/* Runs the kernel of an emitted descriptor (what the emitted function passes). Calls on one kernel with one
 * thread count are serialized; different kernels run concurrently. */
mapc_status mapc_aot_run(const void *descriptor, const void *a, const void *b, void *c, double alpha, double beta,
                         int threads);
/* The message of this thread's last failed mapc_aot_run ("" after a success). */
const char *mapc_aot_error(void);

/* ---- pictures of layouts ---- */

typedef enum mapc_draw_format { MAPC_DRAW_SVG, MAPC_DRAW_PNG, MAPC_DRAW_HTML } mapc_draw_format;

/* What the grid of a picture shows: AUTO the index view for a layout over two axes or more, else the buffer view;
 * BUFFER a cell per buffer position with the index it holds; INDEX the tensor's coordinates, each index with the
 * position that holds it and the tiles of the layout's digit structure outlined. */
typedef enum mapc_draw_view { MAPC_DRAW_AUTO, MAPC_DRAW_BUFFER, MAPC_DRAW_INDEX } mapc_draw_view;

typedef struct mapc_draw_options {
    mapc_draw_format format;
    const char *color;  /* the colour key: an axis, a digit "M / 8" (AXIS / D % M, or of `position`), "tile", "padding"
                         * or "unit" (tensors); NULL: the view's default */
    int64_t rows;       /* buffer view: rows of the picture (of each unit's panel for a tensor); 0: the mapping's own split */
    mapc_draw_view view;
    const char *axes;   /* index view: "M,N" the axes of rows and columns; NULL: the first two the layout uses */
} mapc_draw_options;

/* A picture of the type, inline "m![...]" (mutates) or declared tensor called name, in the options' view (see
 * mapc_draw_view). The buffer view has one cell per buffer position showing the position and its cell (from the
 * interpreter), coloured by the option's key, the padding kinds and oob in shades of their own; a tensor is drawn
 * as one panel per unit; its rows are the mapping's major factors and the columns its minor ones (at most 16),
 * unless opts->rows says otherwise. opts may be NULL (SVG, default
 * colour and split). *out receives len bytes (SVG or HTML text, or a PNG file), malloc'ed: the caller frees it
 * with free(). Pictures of more than 262144 cells are refused. MAPC_ERR_NOT_FOUND (no such type or tensor),
 * MAPC_ERR_INPUT (a program with errors, or an inline mapping with errors: diagnostics), MAPC_ERR_ARGUMENT (NULL
 * pointers, a bad format or rows, an unknown colour, too many cells, PNG in a build without cairo: a diagnostic
 * says which; mutates), MAPC_ERR_NOMEM. */
mapc_status mapc_draw(mapc_program *p, const char *name, const mapc_draw_options *opts, unsigned char **out,
                      size_t *len);

#ifdef __cplusplus
}
#endif

#endif
