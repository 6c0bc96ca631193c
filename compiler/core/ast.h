/* ast.h — the mapping-expression AST, the program (axes, names, statements) and the front-end entry points. */
#ifndef MAPC_AST_H
#define MAPC_AST_H

#include "base.h"
#include "target.h"

/* Deepest mapping expression accepted (brackets, operator chains and pair lists all count);
 * deeper input is a diagnosed error, so every recursive pass stays far from the stack limit. */
#define MAPC_MAX_DEPTH 256

/* Node kinds: X(kind, name printed in diagnostics). */
#define MAP_KINDS(X)      \
    X(MAP_SYM, "symbol")  \
    X(MAP_BCAST, "broadcast") \
    X(MAP_PAIR, "pair")   \
    X(MAP_STRIDE, "stride") \
    X(MAP_MOD, "modulo")  \
    X(MAP_RESIZE, "resize") \
    X(MAP_PAD, "padding")

typedef enum {
#define X(k, s) k,
    MAP_KINDS(X)
#undef X
} MapKind;

/* Padding kinds, numbered like the matching cell kinds. */
typedef enum { PAD_TOP = 1, PAD_ZERO = 2, PAD_BOTTOM = 3 } PadKind;

typedef struct Map Map;
struct Map {
    MapKind kind;
    PadKind pad;        /* MAP_PAD */
    int axis;           /* MAP_SYM: index into Prog.axes */
    uint32_t depth;     /* 1 for a leaf */
    uint64_t n;         /* operator argument; MAP_BCAST: the count */
    uint64_t size;      /* |E|, always checked and >= 1 */
    const Map *l, *r;   /* operand; MAP_PAIR: major l, minor r */
    Loc loc;            /* the operator (or atom) in the source */
};

typedef struct Axis {
    const char *name;
    uint64_t size;
    Loc loc;
    bool local;     /* a kernel's tile axis: seen only inside that kernel's body, never in coordinates
                     * that the API, the emitted code or the command line show */
} Axis;

typedef enum { NAME_AXIS, NAME_CONST, NAME_TYPE, NAME_TENSOR, NAME_KERNEL } NameKind;

/* "an axis", "a constant", "a type", "a tensor": for diagnostics. */
const char *name_kind_phrase(NameKind k);

typedef struct Name {
    const char *name;
    NameKind kind;
    int axis;           /* NAME_AXIS */
    uint64_t value;     /* NAME_CONST */
    const Map *map;     /* NAME_TYPE (NULL if its definition had errors) */
    const struct TensorDecl *tensor; /* NAME_TENSOR (NULL if its declaration had errors) */
    Loc loc;
    struct Name *next;
} Name;

/* Element types of relayout kernels (issue 4): X(kind, spelling, bytes). */
#define ELEM_TYPES(X) X(ELEM_F32, "f32", 4) X(ELEM_F64, "f64", 8) X(ELEM_BF16, "bf16", 2) \
    X(ELEM_F16, "f16", 2) X(ELEM_I8, "i8", 1) X(ELEM_I32, "i32", 4)
typedef enum {
#define X(k, s, b) k,
    ELEM_TYPES(X)
#undef X
    ELEM_COUNT
} ElemType;

/* The spelling ("f32") and byte size of an element type (kinds.c). */
const char *elem_type_name(ElemType t);
size_t elem_type_size(ElemType t);
/* Parses a spelling; false if unknown. */
bool elem_type_parse(const char *name, size_t len, ElemType *out);

/* A relayout kernel "copy NAME: SRC -> DST as T;" (checked by sema_copy). */
typedef struct Copy {
    const char *name;
    const Map *src, *dst;
    ElemType elem;
    Loc loc;
    /* Runtime moves only: move gives the kernel the signature
     *     void NAME(void *dst, const void *src, const int64_t *unit_terms)
     * and with units (dst is then the pair (units, part)) it moves one unit's part, at dst, the values of
     * the units' terms at that unit given at run time. Copy statements have neither. */
    bool move;
    const Map *units;
} Copy;

/* Memories of docs/language.md §5 (their rules are in algebra/tensor_rules.c). */
typedef struct Prog Prog;
typedef enum { MEM_HOST, MEM_HBM, MEM_DM } MemKind;

/* "HostTensor", "HbmTensor", "DmTensor"; the number of mappings (1, 2, 4); the name of mapping i (kinds.c). */
const char *mem_kind_tensor(MemKind mem);
int mem_kind_maps(MemKind mem);
const char *mem_kind_dim(MemKind mem, int i);

/* A tensor declaration "tensor NAME: HbmTensor<bf16, CHIP, ELEMENT>;", or with its axes named,
 * "tensor NAME[A, B]: ...;" (digits of other axes in its layout then replicate it, docs/language.md §5). */
typedef struct TensorDecl {
    const char *name;
    MemKind mem;
    ElemType elem;
    const Map *maps[4];
    const bool *axes;   /* named axes: axes_n flags (axes declared later are not the tensor's); NULL: the
                         * axes its layout uses */
    int axes_n;
    Loc loc;
} TensorDecl;

/* A GEMM kernel declaration (docs/language.md §6; checked by sema_kernel):
 *
 *   kernel NAME: C[M, N] = A[M, K] * B[K, N] {
 *       tile M = 96, N = 384, K = 256;     -- required: block sizes along the three axes
 *       pack A = m![M / 12, K, M % 12];     -- optional: DM layout of an A tile, over the tile axes
 *       pack B = m![N / 32, K, N % 32];     -- optional: DM layout of a B tile, over the tile axes
 *       order N, K, M;                      -- optional: block loops, outermost first
 *       split M;                            -- optional: the axis whose tiles are spread over slices
 *       grid chip = m![N / 512], slice = m![M / 32, N % 512 / 32];   -- optional, instead of split: the
 *                                              units (chips, clusters, slices) that compute blocks of C
 *   }
 *
 * C <- alpha*A*B + beta*C, alpha and beta given at run time. A, B and C name HbmTensor
 * declarations; their element types are f32 x f32 -> f32, bf16 x bf16 -> f32, f16 x f16 -> f32
 * or i8 x i8 -> i32. Inside `pack` mappings M, N and K denote the kernel's tile axes (sizes are
 * the tile sizes). A pack layout is a panel format the micro-kernel reads:
 *     A: m![M / mr, K / g, M % mr, K % g]     B: m![N / nr, K / g, N % nr, K % g]
 * (M padded to a multiple of mr, N of nr, K of g where needed; any equivalent mapping is accepted).
 * The axes' roles are GemmRole (target.h); the micro-tile and K groups are checked against the table
 * of the program's target ISA (Prog.target), whose kernels then run the declaration.
 */
typedef struct KernelDecl {
    const char *name;
    Loc loc;
    const TensorDecl *a, *b, *c;    /* the HBM operands */
    int axis[3];                    /* Prog axes of M, N, K (indexed by GemmRole) */
    uint64_t tile[3];               /* tile sizes along M, N, K */
    int tile_axis[3];               /* the tile axes (Prog axes named like M, N, K, sized like the tiles;
                                     * not in the name table, so never resolvable outside the kernel) */
    const Map *pack_a, *pack_b;     /* DM tile layouts over the tile axes (defaults filled in) */
    int pack_mr, pack_nr, pack_kgroup; /* the panel geometry of pack_a and pack_b (the DM tiles' layouts) */
    TargetIsa pack_isa;             /* an ISA whose micro-kernel reads those panels as they are: isa when it does */
    int mr, nr, kgroup;             /* the micro-tile and K group isa's micro-kernel computes with: the DM panels'
                                     * when pack_isa is isa, else isa's defaults (the tiles are repacked for it) */
    GemmRole order[3];              /* block loops, outermost first (default N, K, M) */
    GemmRole split;                 /* the axis a split clause (or the default) spreads over slices */
    /* The spread of the work (docs/language.md §6): mappings over the top digits of M and N (and, for chips, of K)
     * whose positions are the
     * units computing C — grid[0] its chips, grid[1] the clusters of a chip, grid[2] the slices of a
     * cluster (m![1]: one). Unit (c, l, s) computes the block of C whose origin is the cell of the
     * grid layout m![{grid[0]}, {grid[1]}, {grid[2]}] at ((c*|grid[1]| + l)*|grid[2]| + s), block[0] rows
     * by block[1] columns (cut at C's edge); a unit whose cell is padding is idle. The chip grid is C's
     * Chip mapping unless given; `split R` is a slice grid over R's tiles. A chip grid over digits of K
     * gives each chip block[2] values of K: its partial products are summed over the chips, in chip order. */
    const Map *grid[3];
    uint64_t block[3];              /* rows (M), columns (N) of C and values of K per unit */
    TargetIsa isa;                  /* the ISA the geometry was checked for (never TARGET_ISA_HOST) */
    uint64_t dm_bytes;              /* bytes of one A tile plus one B tile in DM (per slice) */
    bool tile_from_model;           /* no tile clause: tile is model_tile */
    uint64_t model_tile[3];         /* the tiles the cache model gives the kernel's micro-tile on the program's
                                     * caches (Prog.caches) */
} KernelDecl;

typedef struct Prog {
    Arena arena;        /* owns everything below */
    Diags diags;
    Axis *axes;
    int naxes, axes_cap;
    Name *names;        /* newest first */
    const Name **name_slots;    /* the name table: open addressing over names, name_cap a power of two */
    size_t name_cap, nnames;
    int ntypes;
    const Name **types; /* in definition order, for listing */
    int types_cap;
    int nasserts, nasserts_failed;
    const Copy **copies;    /* relayout kernels, in definition order */
    int ncopies, copies_cap;
    const TensorDecl **tensors; /* tensor declarations, in definition order */
    int ntensors, tensors_cap;
    const KernelDecl **kernels; /* GEMM kernels, in definition order */
    int nkernels, kernels_cap;
    const struct AxisOverride *overrides; /* sizes that replace declared ones (prog_override_axis) */
    TargetIsa target;   /* the ISA kernels are checked for (prog_set_target); TARGET_ISA_HOST: the host's best */
    TargetCaches caches; /* the caches kernel tiles are modelled for (prog_set_caches); l1d 0: the host's, read
                          * when a kernel first needs them (prog_caches) */
    double check_budget; /* CPU seconds all the assertions may take (prog_set_check_budget); 0: the default */
    double check_spent;  /* CPU seconds the assertions checked so far took */
    int nasserts_skipped; /* assertions not checked: the budget was used up before them */
} Prog;

/* The CPU time all the assertions of a program may take unless prog_set_check_budget says otherwise: each
 * assertion also has its own budget (the decision's isl operations), this bounds their sum. */
#define MAPC_CHECK_BUDGET_SECONDS 60.0

/* A size that replaces the declared one of an axis (prog_override_axis), in the program's arena. */
typedef struct AxisOverride {
    const char *name;
    uint64_t size;
    const struct AxisOverride *next;    /* newest first */
} AxisOverride;

/* Checked construction of single nodes (build.c): each applies its static rule of docs/language.md §2 and the
 * nesting limit to operands that are already checked; on a violation it returns NULL and writes a
 * message naming the numbers ("stride 3 does not divide size 8") into why. Nodes live in the arena. */
#define MAP_WHY_SIZE 160
typedef char MapWhy[MAP_WHY_SIZE];
const Map *map_make_sym(Arena *a, int axis, uint64_t axis_size, Loc loc, MapWhy why);
const Map *map_make_bcast(Arena *a, uint64_t n, Loc loc, MapWhy why);
const Map *map_make_pair(Arena *a, const Map *l, const Map *r, Loc loc, MapWhy why);
/* kind is MAP_STRIDE, MAP_MOD, MAP_RESIZE or MAP_PAD (pad names the padding kind). */
const Map *map_make_op(Arena *a, MapKind kind, PadKind pad, const Map *l, uint64_t n, Loc loc, MapWhy why);

/* The digit a chain of / and % denotes (docs/language.md §3 root): returns its base (a symbol, or a mapping
 * whose top operator is neither / nor %) and stores its stride; a non-chain is its own base, stride 1. */
const Map *map_digit_root(const Map *e, uint64_t *stride);

/* Marks in used[] (one entry per axis) every axis m mentions, through composite bases too: the
 * only coordinates its cells can make non-zero. */
void map_mark_axes(const Map *m, bool *used);

/* Creates an empty program (prog.c); free with prog_free. NULL if out of memory. */
Prog *prog_new(void);
void prog_free(Prog *p);

/* Makes a later `axes![NAME = n]` declaration of p take the size `size` instead (mapc run --m/--n/--k).
 * Call before prog_parse. */
void prog_override_axis(Prog *p, const char *name, uint64_t size);

/* Makes p's kernel declarations be checked for (and run on) isa: their default micro-tile and panels,
 * the K groups and register budget of that ISA's table. Call before prog_parse. */
void prog_set_target(Prog *p, TargetIsa isa);

/* Makes the assertions of p share a budget of seconds of CPU time (mapc's MAPC_CHECK_BUDGET; > 0) instead of
 * MAPC_CHECK_BUDGET_SECONDS: those after it is used up are not checked (each is counted as failed, the first
 * reported). Call before prog_parse. */
void prog_set_check_budget(Prog *p, double seconds);

/* Makes p's kernels without a tile clause take the cache model's tiles for caches c instead of the host's
 * (mapc's MAPC_CACHES). Call before prog_parse. The caches p uses (the host's unless set): prog_caches. */
void prog_set_caches(Prog *p, const TargetCaches *c);
const TargetCaches *prog_caches(Prog *p);

/* Looks a name up (len bytes of name, or the whole NUL-terminated name); NULL if undeclared. Constant time. */
const Name *prog_lookup(const Prog *p, const char *name);
const Name *prog_lookup_n(const Prog *p, const char *name, size_t len);
/* The defined name closest to word (len bytes) among the kinds in the mask (NAME_BIT(k) | ...), or NULL when
 * none is close (suggest_offer's rule). prog_did_you_mean: "; did you mean 'NAME'?" in p's arena, or "". */
#define NAME_BIT(k) (1u << (k))
const char *prog_suggest(const Prog *p, const char *word, size_t len, unsigned kinds);
const char *prog_did_you_mean(Prog *p, const char *word, size_t len, unsigned kinds);
/* Enters n (whose name is in p's arena and not yet declared) into p's names. */
void prog_add_name(Prog *p, Name *n);

/* The program's public axes (those of axes![...], not the kernels' tile axes): their number, and the
 * index of axis a among them (-1 for a tile axis). Coordinates outside mapc are indexed this way. */
int prog_public_axes(const Prog *p);
int prog_public_index(const Prog *p, int axis);

/* Appends the mapping as valid m![...] source text to buf (truncating; returns needed length). */
size_t map_format(const Prog *p, const Map *m, char *buf, size_t size);

#endif
