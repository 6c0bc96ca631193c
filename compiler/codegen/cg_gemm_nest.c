/* cg_gemm_nest.c — the GEMM loop nest: the block loops over one task's share of C, packing and the macro-kernel. */
#include "cg_gemm_ir.h"

#include <stddef.h>
#include <stdlib.h>

/* Loads field `off` (bytes into the argument struct) of type t. */
static LLVMValueRef field(Gen *g, LLVMValueRef args, size_t off, LLVMTypeRef t)
{
    return load_at(g, t, args, ci64(g, (int64_t)off), 4);
}

bool cg_gemm_blocks(LLVMModuleRef mod, const CgGemmSpec *s, const char *name, const char *macro,
                    const char *macro_direct, const char *pack_a, const char *pack_b, int ea, int eb, char **err)
{
    *err = NULL;
    LLVMValueRef fmacro = LLVMGetNamedFunction(mod, macro), fpa = LLVMGetNamedFunction(mod, pack_a);
    LLVMValueRef fpb = LLVMGetNamedFunction(mod, pack_b);
    LLVMValueRef fdirect = macro_direct ? LLVMGetNamedFunction(mod, macro_direct) : NULL;
    if (!fmacro || !fpa || !fpb || (macro_direct && !fdirect)) {
        *err = strdup("the loop nest needs the macro-kernel and packing routines in its module");
        return false;
    }
    if (!cg_gemm_order_valid(s->order)) {
        *err = strdup("the block loops must be a permutation of M, N and K");
        return false;
    }
    const GemmRole *order = s->order;
    if (fdirect && order[2] != GEMM_M) {
        *err = strdup("reading A unpacked needs the M block loop innermost");
        return false;
    }
    Gen gen, *g = &gen;
    cg_gemm_gen_init(g, mod);
    const int mr = s->mr, nr = s->nv * s->vl;
    bool fl = s->kind == CG_GEMM_F32 || s->kind == CG_GEMM_BF16DP; /* float alpha, beta and C */
    LLVMTypeRef argp = g->i8p;
    g->fn = LLVMAddFunction(mod, name, LLVMFunctionType(LLVMVoidTypeInContext(g->ctx), &argp, 1, 0));
    LLVMValueRef args = LLVMGetParam(g->fn, 0);
    g->b = LLVMCreateBuilderInContext(g->ctx); /* owned: disposed below */
    LLVMPositionBuilderAtEnd(g->b, LLVMAppendBasicBlockInContext(g->ctx, g->fn, "entry"));
#define F64(f) field(g, args, offsetof(CgGemmBlocks, f), g->i64)
#define FPTR(f) field(g, args, offsetof(CgGemmBlocks, f), g->i8p)
    LLVMValueRef m0 = F64(m0), m1 = F64(m1), n0 = F64(n0), n1 = F64(n1), k = F64(k);
    LLVMValueRef a = FPTR(a), b = FPTR(b), c = FPTR(c), abuf = FPTR(abuf), bbuf = FPTR(bbuf), colsum = FPTR(colsum);
    LLVMValueRef a_rs = F64(a_rs), a_cs = F64(a_cs), b_rs = F64(b_rs), b_cs = F64(b_cs);
    LLVMValueRef c_rs = F64(c_rs), c_cs = F64(c_cs), mc = F64(mc), kc = F64(kc), nc = F64(nc);
    LLVMValueRef direct = LLVMBuildICmp(g->b, LLVMIntNE, F64(direct), ci64(g, 0), "direct");
    LLVMValueRef alpha = fl ? field(g, args, offsetof(CgGemmBlocks, alpha_f), g->f32)
                            : field(g, args, offsetof(CgGemmBlocks, alpha_i), g->i32);
    LLVMValueRef beta0 = fl ? field(g, args, offsetof(CgGemmBlocks, beta_f), g->f32)
                            : field(g, args, offsetof(CgGemmBlocks, beta_i), g->i32);
    LLVMValueRef one = fl ? LLVMConstReal(g->f32, 1.0) : ci32(g, 1);
    LLVMTypeRef csty = LLVMFunctionType(LLVMVoidTypeInContext(g->ctx),
                                        (LLVMTypeRef[]){g->i8p, g->i64, g->i64, g->i64, g->i64, g->i32, g->i8p}, 7, 0);
    LLVMValueRef csfn = s->kind == CG_GEMM_I8VNNI
                            ? LLVMBuildBitCast(g->b, FPTR(colsum_fn), LLVMPointerType(csty, 0), "colsum_fn")
                            : NULL;
#undef F64
#undef FPTR
    LLVMValueRef cs4 = ci64(g, 4); /* C elements are 4 bytes (f32 or i32) */

    /* the three block loops in the spec's order; each packed block is made as soon as the loops it
     * depends on are open: B(k, n) once k and n are, A(m, k) once m and k are (with direct A, at the
     * innermost level, where it can pack just the partial panel) */
    /* bounds, steps and names of the block loops, indexed by GemmRole */
    LLVMValueRef lo[3] = {m0, n0, ci64(g, 0)}, hi[3] = {m1, n1, k}, step[3] = {mc, nc, kc};
    static const char *const lname[3] = {"ic", "jc", "pc"};
    Loop loops[3];
    LLVMValueRef iv[3] = {0}, blk[3] = {0};
    bool open[3] = {false, false, false}, packed_a = false, packed_b = false;
    LLVMValueRef asrc = NULL;
    for (int d = 0; d < 3; d++) {
        int dim = order[d];
        loops[d] = loop_begin(g, lo[dim], hi[dim], step[dim], lname[dim]);
        iv[dim] = loops[d].iv;
        blk[dim] = imin(g, LLVMBuildSub(g->b, hi[dim], iv[dim], ""), step[dim]);
        open[dim] = true;
        if (!packed_b && open[GEMM_K] && open[GEMM_N]) {
            LLVMValueRef boff = LLVMBuildMul(g->b, LLVMBuildAdd(g->b, LLVMBuildMul(g->b, iv[GEMM_K], b_rs, ""),
                                                                LLVMBuildMul(g->b, iv[GEMM_N], b_cs, ""), ""),
                                             ci64(g, eb), "");
            LLVMValueRef bsrc = LLVMBuildGEP2(g->b, g->i8, b, &boff, 1, "bsrc");
            call_fn(g, fpb, (LLVMValueRef[]){bbuf, bsrc, b_cs, b_rs, blk[GEMM_N], blk[GEMM_K]}, 6);
            if (csfn)
                LLVMBuildCall2(g->b, csty, csfn,
                               (LLVMValueRef[]){bsrc, b_cs, b_rs, blk[GEMM_N], blk[GEMM_K], ci32(g, nr), colsum}, 7,
                               "");
            packed_b = true;
        }
        if (!asrc && open[GEMM_M] && open[GEMM_K]) {
            LLVMValueRef aoff = LLVMBuildMul(g->b, LLVMBuildAdd(g->b, LLVMBuildMul(g->b, iv[GEMM_M], a_rs, ""),
                                                                LLVMBuildMul(g->b, iv[GEMM_K], a_cs, ""), ""),
                                             ci64(g, ea), "");
            asrc = LLVMBuildGEP2(g->b, g->i8, a, &aoff, 1, "asrc");
            if (!fdirect) {
                call_fn(g, fpa, (LLVMValueRef[]){abuf, asrc, a_rs, a_cs, blk[GEMM_M], blk[GEMM_K]}, 6);
                packed_a = true;
            }
        }
    }
    LLVMValueRef mcb = blk[GEMM_M], ncb = blk[GEMM_N], kcb = blk[GEMM_K];
    LLVMValueRef first = LLVMBuildICmp(g->b, LLVMIntEQ, iv[GEMM_K], ci64(g, 0), "");
    LLVMValueRef beta = LLVMBuildSelect(g->b, first, beta0, one, "beta");
    LLVMValueRef coff = LLVMBuildMul(g->b, LLVMBuildAdd(g->b, LLVMBuildMul(g->b, iv[GEMM_M], c_rs, ""),
                                                        LLVMBuildMul(g->b, iv[GEMM_N], c_cs, ""), ""),
                                     cs4, "");
    LLVMValueRef cb = LLVMBuildGEP2(g->b, g->i8, c, &coff, 1, "cb");
    LLVMValueRef rows = mcb; /* rows left for the packed path */
    LLVMBasicBlockRef packed = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "packed");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "next");
    if (fdirect) {
        /* whole micro-panels straight from A, then the partial one packed */
        LLVMBasicBlockRef pre = LLVMGetInsertBlock(g->b);
        LLVMBasicBlockRef dir = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "direct");
        LLVMBasicBlockRef dcall = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "dcall");
        LLVMBasicBlockRef drest = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "drest");
        LLVMBasicBlockRef prep = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "prep");
        LLVMBuildCondBr(g->b, direct, dir, prep);
        LLVMPositionBuilderAtEnd(g->b, dir);
        LLVMValueRef mfull = LLVMBuildMul(g->b, LLVMBuildSDiv(g->b, mcb, ci64(g, mr), ""), ci64(g, mr), "mfull");
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSGT, mfull, ci64(g, 0), ""), dcall, drest);
        LLVMPositionBuilderAtEnd(g->b, dcall);
        call_fn(g, fdirect,
                   (LLVMValueRef[]){mfull, ncb, kcb, asrc, bbuf, cb, c_rs, c_cs, alpha, beta, LLVMConstNull(g->i8p),
                                    LLVMBuildMul(g->b, a_rs, ci64(g, ea), "")},
                   12);
        LLVMBuildBr(g->b, drest);
        LLVMPositionBuilderAtEnd(g->b, drest);
        LLVMValueRef rest = LLVMBuildSub(g->b, mcb, mfull, "rest");
        LLVMValueRef asrc2 = LLVMBuildGEP2(g->b, g->i8, asrc,
                                           (LLVMValueRef[]){LLVMBuildMul(g->b, LLVMBuildMul(g->b, mfull, a_rs, ""),
                                                                         ci64(g, ea), "")},
                                           1, "");
        LLVMValueRef cskip = LLVMBuildMul(g->b, LLVMBuildMul(g->b, mfull, c_rs, ""), cs4, "");
        LLVMValueRef cb2 = LLVMBuildGEP2(g->b, g->i8, cb, &cskip, 1, "");
        LLVMBasicBlockRef drest_end = LLVMGetInsertBlock(g->b);
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSGT, rest, ci64(g, 0), ""), prep, next);
        LLVMPositionBuilderAtEnd(g->b, prep);
        LLVMValueRef prows = LLVMBuildPhi(g->b, g->i64, "rows");
        LLVMValueRef pa = LLVMBuildPhi(g->b, g->i8p, "asrc");
        LLVMValueRef pc = LLVMBuildPhi(g->b, g->i8p, "cb");
        LLVMAddIncoming(prows, (LLVMValueRef[]){mcb, rest}, (LLVMBasicBlockRef[]){pre, drest_end}, 2);
        LLVMAddIncoming(pa, (LLVMValueRef[]){asrc, asrc2}, (LLVMBasicBlockRef[]){pre, drest_end}, 2);
        LLVMAddIncoming(pc, (LLVMValueRef[]){cb, cb2}, (LLVMBasicBlockRef[]){pre, drest_end}, 2);
        rows = prows;
        asrc = pa;
        cb = pc;
    }
    LLVMBuildBr(g->b, packed);
    LLVMPositionBuilderAtEnd(g->b, packed);
    if (!packed_a)
        call_fn(g, fpa, (LLVMValueRef[]){abuf, asrc, a_rs, a_cs, rows, kcb}, 6);
    call_fn(g, fmacro, (LLVMValueRef[]){rows, ncb, kcb, abuf, bbuf, cb, c_rs, c_cs, alpha, beta, colsum}, 11);
    LLVMBuildBr(g->b, next);
    LLVMPositionBuilderAtEnd(g->b, next);
    for (int d = 2; d >= 0; d--)
        loop_end(g, &loops[d]);
    LLVMBuildRetVoid(g->b);
    LLVMDisposeBuilder(g->b);
    return cg_gemm_verified(mod, "loop nest", err);
}
