/* cg_gemm_ir.c — what every GEMM generator uses: its scalar types, the verify step, and the facts of a spec. */
#include "cg_gemm_ir.h"

#include <llvm-c/Analysis.h>
#include <stdio.h>
#include <stdlib.h>

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
