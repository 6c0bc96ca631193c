/* cg_gemm_jit.c — JIT compilation of one GEMM kernel signature: its module of generated routines, loaded for the host. */
#include "cg_gemm_impl.h"

enum {
    KERNEL_OPT_LEVEL = 2,   /* the kernels are the hot path; generated unrolled and vectorized, they need only the
                             * cleanup pipeline and -O2 code generation (-O3 measured no faster) */
    PACK_OPT_LEVEL = 2,     /* -O2: a lone packing routine is only compared with the reference (tests) */
};

/* Bytes per source element of a packing conversion. */
static int conv_size(CgPackConv c)
{
    return c == CG_PACK_F32 ? 4 : c == CG_PACK_I8_U8 || c == CG_PACK_I8 || c == CG_PACK_I8_I32 ? 1 : 2;
}

JitModule *cg_gemm_jit(const CgGemmSpec *spec, CgPackConv conv_a, CgPackConv conv_b, bool direct, char **err)
{
    *err = NULL;
    CgUnit u;
    if (!cg_unit_open(&u, "gemm")) {
        *err = cg_message("GEMM", "cannot create an LLVM module");
        return NULL;
    }
    int kg = cg_gemm_kgroup(spec->kind);
    if (!cg_gemm_macro(u.mod, spec, "gemm_macro", false, false, err) ||
        (direct && !cg_gemm_macro(u.mod, spec, "gemm_macro_direct", true, false, err)) ||
        (direct && spec->kind == CG_GEMM_F32 && !cg_gemm_macro(u.mod, spec, "gemm_macro_small", true, true, err)) ||
        !cg_gemm_pack(u.mod, conv_a, spec->mr, kg, "gemm_pack_a", err) ||
        !cg_gemm_pack(u.mod, conv_b, spec->nv * spec->vl, kg, "gemm_pack_b", err) ||
        !cg_gemm_blocks(u.mod, spec, "gemm_blocks", "gemm_macro", direct ? "gemm_macro_direct" : NULL, "gemm_pack_a",
                        "gemm_pack_b", conv_size(conv_a), conv_size(conv_b), err)) {
        cg_unit_close(&u);
        return NULL;
    }
    return cg_unit_jit(&u, &(CgOptions){.opt_level = KERNEL_OPT_LEVEL, .cleanup_only = true}, err); /* consumes the unit */
}

JitModule *cg_gemm_jit_pack(CgPackConv conv, int w, int g, char **err)
{
    *err = NULL;
    CgUnit u;
    if (!cg_unit_open(&u, "gemm_pack")) {
        *err = cg_message("GEMM", "cannot create an LLVM module");
        return NULL;
    }
    if (!cg_gemm_pack(u.mod, conv, w, g, "gemm_pack", err)) {
        cg_unit_close(&u);
        return NULL;
    }
    return cg_unit_jit(&u, &(CgOptions){.opt_level = PACK_OPT_LEVEL}, err); /* consumes the unit */
}
