/* cg_gemm_ir.c — what every GEMM generator uses: its scalar types, the verify step, and the facts of a spec. */
#include "cg_gemm_ir.h"

#include <llvm-c/Analysis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cg_gemm_gen_init(Gen *g, LLVMModuleRef mod)
{
    *g = (Gen){.ctx = LLVMGetModuleContext(mod), .mod = mod};
    g->i1 = LLVMInt1TypeInContext(g->ctx);
    g->i8 = LLVMInt8TypeInContext(g->ctx);
    g->i16 = LLVMInt16TypeInContext(g->ctx);
    g->i32 = LLVMInt32TypeInContext(g->ctx);
    g->i64 = LLVMInt64TypeInContext(g->ctx);
    g->f32 = LLVMFloatTypeInContext(g->ctx);
    g->i8p = LLVMPointerType(g->i8, 0);
}

bool cg_gemm_verified(LLVMModuleRef mod, const char *what, char **err)
{
    char *msg = NULL;
    bool bad = LLVMVerifyModule(mod, LLVMReturnStatusAction, &msg);
    if (bad) {
        size_t n = strlen(msg) + strlen(what) + 32;
        *err = malloc(n);
        if (*err)
            snprintf(*err, n, "the GEMM %s does not verify: %s", what, msg);
    }
    LLVMDisposeMessage(msg);
    return !bad;
}

bool cg_gemm_order_valid(const GemmRole order[3])
{
    bool seen[3] = {false, false, false};
    for (int d = 0; d < 3; d++) {
        int r = order[d]; /* an int: the check holds whatever the enum's underlying type */
        if (r < GEMM_M || r > GEMM_K || seen[r])
            return false;
        seen[r] = true;
    }
    return true;
}

int cg_gemm_kgroup(CgGemmKind kind)
{
    return kind == CG_GEMM_BF16DP ? 2 : kind == CG_GEMM_I8VNNI ? 4 : 1;
}

int cg_gemm_packed_size(CgGemmKind kind)
{
    return kind == CG_GEMM_BF16DP ? 2 : kind == CG_GEMM_I8VNNI ? 1 : 4;
}

void cg_gemm_spec_for(const TargetInfo *ti, TargetOp op, TargetInput in, int mr, int nr, const GemmRole order[3],
                      CgGemmSpec *spec, CgPackConv *conv_a, CgPackConv *conv_b)
{
    *spec = (CgGemmSpec){0};
    switch (op) {
    case TARGET_OP_FMA:
    case TARGET_OP_MULADD:
        spec->kind = CG_GEMM_F32;
        *conv_a = *conv_b = in == TARGET_IN_BF16 ? CG_PACK_BF16_F32 : in == TARGET_IN_F16 ? CG_PACK_F16_F32 : CG_PACK_F32;
        break;
    case TARGET_OP_DPBF16:
        spec->kind = CG_GEMM_BF16DP;
        *conv_a = *conv_b = CG_PACK_BF16;
        break;
    case TARGET_OP_VNNI:
        spec->kind = CG_GEMM_I8VNNI;
        *conv_a = CG_PACK_I8_U8;
        *conv_b = CG_PACK_I8;
        break;
    case TARGET_OP_I32_MULADD:
        spec->kind = CG_GEMM_I32;
        *conv_a = *conv_b = CG_PACK_I8_I32;
        break;
    }
    spec->vl = ti->lanes;
    spec->fused = ti->fma && (spec->kind == CG_GEMM_F32 || spec->kind == CG_GEMM_BF16DP);
    spec->a_outer = true; /* an A micro-panel stays in L1 while the B block streams from L2 */
    spec->mr = mr;
    spec->nv = nr / ti->lanes;
    memcpy(spec->order, order, sizeof spec->order);
}
