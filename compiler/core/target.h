/* target.h — the facts of each target ISA that the kernel checker, the GEMM engine and its code generator share. */
#ifndef MAPC_TARGET_H
#define MAPC_TARGET_H

#include <stdbool.h>
#include <stdint.h>

/* The roles of a GEMM's three axes, C[M, N] = A[M, K] * B[K, N]; also the dimensions of its block loops. */
typedef enum { GEMM_M, GEMM_N, GEMM_K } GemmRole;

/* The instruction sets GEMM kernels are generated for. TARGET_ISA_HOST stands for the host's best
 * (target_host_isa); it is what a zero-initialized option or program means. */
typedef enum TargetIsa { TARGET_ISA_HOST, TARGET_ISA_AVX512, TARGET_ISA_AVX2, TARGET_ISA_PORTABLE } TargetIsa;

/* The input element types of a GEMM (C holds f32, or i32 for i8 inputs). */
typedef enum TargetInput { TARGET_IN_F32, TARGET_IN_BF16, TARGET_IN_F16, TARGET_IN_I8, TARGET_IN_COUNT } TargetInput;

/* The multiply-add a micro-kernel computes one K group with. */
typedef enum TargetOp {
    TARGET_OP_FMA,        /* f32 fused multiply-add (vfmadd231ps); bf16 and f16 widened to f32 when packed */
    TARGET_OP_MULADD,     /* f32 multiply-add, fused where the host can (llvm.fmuladd) */
    TARGET_OP_DPBF16,     /* bf16 pairs dot-multiplied into f32 (vdpbf16ps, avx512_bf16) */
    TARGET_OP_VNNI,       /* u8 x s8 quads dot-multiplied into i32 (vpdpbusd, avx512_vnni) */
    TARGET_OP_I32_MULADD, /* i8 sign-extended to i32 when packed, then vector multiply and add */
} TargetOp;

/* One K group an input type may take: g consecutive k values per packed element group. */
typedef struct TargetGroup {
    int g;
    TargetOp op;
    const char *phrase;     /* what the group means in diagnostics ("widened to f32"); NULL: nothing to say */
} TargetGroup;

/* At most two groups per input type (bf16: 1 or 2; i8: 1 or 4). */
enum { TARGET_MAX_GROUPS = 2 };

typedef struct TargetGroups {
    TargetGroup group[TARGET_MAX_GROUPS];   /* by increasing g */
    int count;
    int preferred;          /* index of the group declarations default to */
} TargetGroups;

/* One ISA's table (as QBE's Target and BLIS's per-architecture configurations). A micro-tile is mr
 * rows of A by nr columns of B: mr * nr/lanes accumulator vectors, nr/lanes vectors of one row of B
 * and one broadcast of A, all in vector registers. */
typedef struct TargetInfo {
    TargetIsa isa;
    const char *name;       /* "avx512", "avx2", "portable": options and engine messages */
    const char *label;      /* "AVX-512", "AVX2", "the portable target": diagnostics */
    int vec_regs;           /* vector registers */
    int lanes;              /* f32 lanes per vector */
    bool fma;               /* float multiply-adds are fused (llvm.fma); else llvm.fmuladd */
    int max_mr;             /* micro-tile rows: 1 to max_mr */
    int max_nv;             /* micro-tile columns: nr = v * lanes for v in 1 to max_nv */
    int default_mr, default_nr;
    GemmRole order[3];      /* the default block loops, outermost first */
    TargetGroups inputs[TARGET_IN_COUNT];
} TargetInfo;

/* Bounds over every table, for the code generator's unrolled arrays. */
enum {
    TARGET_MAX_VEC_REGS = 32,   /* the largest register file (AVX-512) */
    TARGET_MAX_LANES = 16,      /* the widest vector in f32 lanes (AVX-512) */
    TARGET_MAX_NV = 4,          /* the most vectors in a micro-tile row */
    TARGET_MAX_PANEL = 64,      /* the most rows (mr) or columns (nr) of a packed panel */
    TARGET_MAX_KGROUP = 4,      /* the largest K group (VNNI) */
};

/* The table of isa (TARGET_ISA_HOST: of the host's best). */
const TargetInfo *target_info(TargetIsa isa);

/* The host's best ISA (never TARGET_ISA_HOST), from the CPU's features without LLVM: AVX512 with
 * AVX-512F/BW/VL, else AVX2 with AVX2 and FMA, else PORTABLE (always, and on every other CPU). */
TargetIsa target_host_isa(void);
/* Whether the host CPU can run isa's kernels (TARGET_ISA_HOST and PORTABLE: always). */
bool target_host_supports(TargetIsa isa);
/* isa, or the host's best for TARGET_ISA_HOST. */
TargetIsa target_resolve(TargetIsa isa);

/* "avx512", "avx2", "portable" ("host" for TARGET_ISA_HOST); parses one of the three (false otherwise). */
const char *target_isa_name(TargetIsa isa);
bool target_isa_parse(const char *name, TargetIsa *out);

/* The instruction of a dot-product group ("vdpbf16ps", "vpdpbusd") and the CPU feature it needs beyond its
 * ISA ("avx512_bf16", "avx512_vnni"); NULL for the multiply-adds every host of the ISA has. */
const char *target_op_insn(TargetOp op);
const char *target_op_feature(TargetOp op);

/* Whether nr columns are a micro-tile width of t (a multiple of the lanes, at most max_nv vectors). */
bool target_nr_ok(const TargetInfo *t, int nr);
/* The vector registers an mr x nr micro-tile needs (nr a multiple of the lanes). */
int target_regs_needed(const TargetInfo *t, int mr, int nr);
/* The largest mr whose micro-tile with nr columns fits the registers (and max_mr); nr must be target_nr_ok. */
int target_max_mr(const TargetInfo *t, int nr);
/* Whether an mr x nr micro-tile is one t's kernels take. */
bool target_tile_ok(const TargetInfo *t, int mr, int nr);
/* The group g of input type in on t, or NULL if in cannot group K by g there. */
const TargetGroup *target_group(const TargetInfo *t, TargetInput in, int g);

/* The data caches of one core, in bytes (a cache shared by several cores counts its share). */
typedef struct TargetCaches {
    uint64_t l1d, l2;
    const char *source;     /* where they were read: "sysfs", "cpuid", "MAPC_CACHES" or "assumed" (32 KiB, 1 MiB) */
} TargetCaches;
/* Bounds of the cache model: the smallest caches it takes, the largest, and its largest blocks. */
enum {
    TARGET_MIN_L1D = 4 << 10,
    TARGET_MIN_L2 = 64 << 10,
    TARGET_MAX_CACHE = 1 << 30,
    TARGET_MAX_KC = 4096,
    TARGET_MAX_BLOCK = 8192,
};
/* The host's caches, read at run time (once per process; thread-safe): Linux's sysfs, else CPUID's cache
 * leaves, else the assumed sizes. */
TargetCaches target_host_caches(void);
/* Parses a size such as "48K", "2M", "2MiB" or "65536" (bytes); false if it is not one, or 0. */
bool target_cache_size_parse(const char *s, uint64_t *out);
/* Parses "L1D,L2" (each as target_cache_size_parse, within the model's bounds); source becomes "MAPC_CACHES". */
bool target_caches_parse(const char *s, TargetCaches *out);
/* Cache blocks of the GEMM loops, in elements: kc a multiple of 8 K groups (or a short K rounded up to its
 * group), mc a multiple of mr, nc of nr. */
typedef struct TargetBlocks {
    uint64_t mc, nc, kc;
} TargetBlocks;
/* The cache model: the blocks an mr x nr micro-tile with K groups of g and e-byte packed elements takes on
 * caches c, for micro-kernels that sweep each A micro-panel across the B block (CgGemmSpec.a_outer). The A
 * micro-panel (mr x kc) fills a quarter of L1d; the B block (kc x nc) half of L2, and the A block (mc x kc) half
 * of it too (A is not reused from L2). With shape (M, N, K sizes; may be NULL) no block exceeds its axis rounded
 * up to its multiple, and a short K frees L2 for wider M and N blocks. */
TargetBlocks target_cache_blocks(const TargetCaches *c, int mr, int nr, int g, uint64_t e, const uint64_t *shape);
/* The M and N blocks of the model for a given K block kc (no shape): what target_cache_blocks gives once it has
 * chosen kc. */
TargetBlocks target_cache_blocks_kc(const TargetCaches *c, int mr, int nr, uint64_t kc, uint64_t e);
#endif
