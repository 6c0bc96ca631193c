/* target.c — the per-ISA tables of GEMM micro-kernel facts and host ISA detection (no LLVM). */
#include "target.h"

#include <stddef.h>
#include <string.h>

/* 16 registers at one accumulator per row (nr = 8) leave 16 - 1 - 1 = 14 rows. */
enum { MAX_MR_16_REGS = 14 };

static const TargetInfo tables[] = {
    [TARGET_ISA_AVX512] = {
        .isa = TARGET_ISA_AVX512, .name = "avx512", .label = "AVX-512",
        .vec_regs = 32,     /* zmm0 to zmm31 */
        .lanes = 16,        /* 512-bit vectors */
        .fma = true,
        .max_mr = 32,       /* the register budget allows 30 at nr = 16; 32 bounds the unrolled kernel */
        .max_nv = 4,        /* nr up to 64; wider B panels leave too few registers for rows (5 at 64) */
        .default_mr = 12,   /* 12 x 32: 24 accumulators + 2 B vectors + 1 broadcast = 27 of 32 registers, */
        .default_nr = 32,   /* 24 independent FMAs per k step, enough to cover two ports' latency */
        .order = {GEMM_N, GEMM_K, GEMM_M}, /* BLIS: the B block is reused across the M blocks */
        .inputs = {
            [TARGET_IN_F32] = {{{1, TARGET_OP_FMA, NULL}}, 1, 0},
            [TARGET_IN_BF16] = {{{1, TARGET_OP_FMA, "widened to f32"},
                                 {2, TARGET_OP_DPBF16, "vdpbf16ps dot products"}}, 2, 0},
            [TARGET_IN_F16] = {{{1, TARGET_OP_FMA, NULL}}, 1, 0},
            [TARGET_IN_I8] = {{{1, TARGET_OP_I32_MULADD, "i32 multiply-add"},
                               {4, TARGET_OP_VNNI, "VNNI"}}, 2, 1},
        },
    },
    [TARGET_ISA_AVX2] = {
        .isa = TARGET_ISA_AVX2, .name = "avx2", .label = "AVX2",
        .vec_regs = 16,     /* ymm0 to ymm15 */
        .lanes = 8,         /* 256-bit vectors */
        .fma = true,
        .max_mr = MAX_MR_16_REGS,
        .max_nv = 4,        /* nr up to 32; at 32 two rows fit (2 * 4 + 4 + 1 = 13 registers) */
        .default_mr = 6,    /* 6 x 16: 12 accumulators + 2 B vectors + 1 broadcast = 15 of 16 registers */
        .default_nr = 16,   /* (BLIS's Haswell micro-tile) */
        .order = {GEMM_N, GEMM_K, GEMM_M},
        .inputs = {
            [TARGET_IN_F32] = {{{1, TARGET_OP_FMA, NULL}}, 1, 0},
            [TARGET_IN_BF16] = {{{1, TARGET_OP_FMA, "widened to f32"}}, 1, 0},
            [TARGET_IN_F16] = {{{1, TARGET_OP_FMA, NULL}}, 1, 0},
            [TARGET_IN_I8] = {{{1, TARGET_OP_I32_MULADD, "i32 multiply-add"}}, 1, 0},
        },
    },
    [TARGET_ISA_PORTABLE] = {
        .isa = TARGET_ISA_PORTABLE, .name = "portable", .label = "the portable target",
        .vec_regs = 16,     /* what SSE2 has, and NEON in pairs of 128-bit registers */
        .lanes = 8,         /* 8-lane LLVM vectors, split into what the host has */
        .fma = false,
        .max_mr = MAX_MR_16_REGS,
        .max_nv = 4,        /* as AVX2 */
        .default_mr = 4,    /* 4 x 16: 8 accumulators, leaving registers for the separate multiplies and */
        .default_nr = 16,   /* adds of a host without FMA */
        .order = {GEMM_N, GEMM_K, GEMM_M},
        .inputs = {
            [TARGET_IN_F32] = {{{1, TARGET_OP_MULADD, NULL}}, 1, 0},
            [TARGET_IN_BF16] = {{{1, TARGET_OP_MULADD, "widened to f32"}}, 1, 0},
            [TARGET_IN_F16] = {{{1, TARGET_OP_MULADD, NULL}}, 1, 0},
            [TARGET_IN_I8] = {{{1, TARGET_OP_I32_MULADD, "i32 multiply-add"}}, 1, 0},
        },
    },
};

TargetIsa target_host_isa(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
        return TARGET_ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return TARGET_ISA_AVX2;
#endif
    return TARGET_ISA_PORTABLE;
}

bool target_host_supports(TargetIsa isa)
{
    TargetIsa host = target_host_isa();
    switch (isa) {
    case TARGET_ISA_HOST:
    case TARGET_ISA_PORTABLE: return true;
    case TARGET_ISA_AVX2: return host == TARGET_ISA_AVX2 || host == TARGET_ISA_AVX512;
    case TARGET_ISA_AVX512: return host == TARGET_ISA_AVX512;
    }
    return false;
}

TargetIsa target_resolve(TargetIsa isa)
{
    return isa == TARGET_ISA_HOST ? target_host_isa() : isa;
}

const TargetInfo *target_info(TargetIsa isa)
{
    return &tables[target_resolve(isa)];
}

const char *target_isa_name(TargetIsa isa)
{
    int v = (int)isa; /* an int: a caller's out-of-range value reads no table */
    return v == TARGET_ISA_HOST ? "host" : v > TARGET_ISA_HOST && v <= TARGET_ISA_PORTABLE ? tables[v].name : "?";
}

bool target_isa_parse(const char *name, TargetIsa *out)
{
    static const TargetIsa all[] = {TARGET_ISA_AVX512, TARGET_ISA_AVX2, TARGET_ISA_PORTABLE};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (strcmp(name, tables[all[i]].name) == 0) {
            *out = all[i];
            return true;
        }
    return false;
}

const char *target_op_insn(TargetOp op)
{
    return op == TARGET_OP_DPBF16 ? "vdpbf16ps" : op == TARGET_OP_VNNI ? "vpdpbusd" : NULL;
}

const char *target_op_feature(TargetOp op)
{
    return op == TARGET_OP_DPBF16 ? "avx512_bf16" : op == TARGET_OP_VNNI ? "avx512_vnni" : NULL;
}

bool target_nr_ok(const TargetInfo *t, int nr)
{
    return nr >= t->lanes && nr % t->lanes == 0 && nr / t->lanes <= t->max_nv;
}

int target_regs_needed(const TargetInfo *t, int mr, int nr)
{
    int vn = nr / t->lanes;
    return mr * vn + vn + 1;
}

int target_max_mr(const TargetInfo *t, int nr)
{
    int vn = nr / t->lanes, mr = (t->vec_regs - 1 - vn) / vn;
    return mr < t->max_mr ? mr : t->max_mr;
}

bool target_tile_ok(const TargetInfo *t, int mr, int nr)
{
    return target_nr_ok(t, nr) && mr >= 1 && mr <= target_max_mr(t, nr);
}

const TargetGroup *target_group(const TargetInfo *t, TargetInput in, int g)
{
    const TargetGroups *gs = &t->inputs[in];
    for (int i = 0; i < gs->count; i++)
        if (gs->group[i].g == g)
            return &gs->group[i];
    return NULL;
}
