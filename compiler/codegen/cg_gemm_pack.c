/* cg_gemm_pack.c — the GEMM packing routines: operand blocks into k-grouped panels, converted to the kernel's type. */
#include "cg_gemm_ir.h"

#include <stdlib.h>

/* The source and packed element types of a conversion, and the converted zero. */
static void pack_types(Gen *g, CgPackConv conv, LLVMTypeRef *st, LLVMTypeRef *dt, LLVMValueRef *zero)
{
    *st = *dt = g->f32; /* CG_PACK_F32, and what an enumerator outside the list would get */
    switch (conv) {
    case CG_PACK_F32: break;
    case CG_PACK_BF16_F32: case CG_PACK_F16_F32: *st = g->i16; *dt = g->f32; break;
    case CG_PACK_BF16: *st = g->i16; *dt = g->i16; break;
    case CG_PACK_I8_U8: case CG_PACK_I8: *st = g->i8; *dt = g->i8; break;
    case CG_PACK_I8_I32: *st = g->i8; *dt = g->i32; break;
    }
    *zero = conv == CG_PACK_I8_U8 ? LLVMConstInt(g->i8, 0x80, 0) : LLVMConstNull(*dt);
}

/* Converts x (a scalar or vector of the source type) to the packed type. */
static LLVMValueRef pack_convert(Gen *g, CgPackConv conv, LLVMValueRef x)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    bool vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
    unsigned n = vec ? LLVMGetVectorSize(t) : 0;
#define SHAPE(ty) (vec ? LLVMVectorType((ty), n) : (ty))
    switch (conv) {
    case CG_PACK_F32: case CG_PACK_BF16: case CG_PACK_I8:
        return x;
    case CG_PACK_BF16_F32: {
        LLVMValueRef w = LLVMBuildZExt(g->b, x, SHAPE(g->i32), "");
        LLVMValueRef sh = vec ? splat(g, SHAPE(g->i32), ci32(g, 16)) : ci32(g, 16);
        return LLVMBuildBitCast(g->b, LLVMBuildShl(g->b, w, sh, ""), SHAPE(g->f32), "");
    }
    case CG_PACK_F16_F32:
        return LLVMBuildFPExt(g->b, LLVMBuildBitCast(g->b, x, SHAPE(LLVMHalfTypeInContext(g->ctx)), ""), SHAPE(g->f32),
                              "");
    case CG_PACK_I8_U8: {
        LLVMValueRef k = LLVMConstInt(g->i8, 0x80, 0);
        return LLVMBuildXor(g->b, x, vec ? splat(g, t, k) : k, "");
    }
    case CG_PACK_I8_I32:
        return LLVMBuildSExt(g->b, x, SHAPE(g->i32), "");
    }
#undef SHAPE
    return x;
}

/* A constant shuffle mask. */
static LLVMValueRef mask(Gen *g, const int *idx, int n)
{
    LLVMValueRef v[CG_GEMM_MAX_SHUFFLE];
    for (int i = 0; i < n; i++)
        v[i] = ci32(g, idx[i]);
    return LLVMConstVector(v, (unsigned)n);
}

/* Interleaves g vectors of w lanes: result lane r*g + e is lane r of v[e] (g is 1, 2 or 4). */
static LLVMValueRef interleave(Gen *g, LLVMValueRef *v, int w, int kg)
{
    if (kg == 1)
        return v[0];
    int idx[CG_GEMM_MAX_SHUFFLE];
    if (kg == 4) {
        for (int i = 0; i < 2 * w; i++)
            idx[i] = i;
        LLVMValueRef m2 = mask(g, idx, 2 * w);
        LLVMValueRef lo = LLVMBuildShuffleVector(g->b, v[0], v[1], m2, "");
        LLVMValueRef hi = LLVMBuildShuffleVector(g->b, v[2], v[3], m2, "");
        for (int r = 0; r < w; r++)
            for (int e = 0; e < kg; e++)
                idx[r * kg + e] = e * w + r;
        return LLVMBuildShuffleVector(g->b, lo, hi, mask(g, idx, kg * w), "");
    }
    for (int r = 0; r < w; r++)
        for (int e = 0; e < kg; e++)
            idx[r * kg + e] = e * w + r;
    return LLVMBuildShuffleVector(g->b, v[0], v[1], mask(g, idx, kg * w), "");
}

/* The k-group loop over kfull whole groups of one panel when K is contiguous (sk == 1, g > 1): per group and
 * row one load of g consecutive source values (gt, the integer of g source elements); a whole panel gathers
 * the w loads into one vector store, a partial one (live < w rows) stores each live row and the converted zero
 * in the others. Leaves the builder after the loop. */
static void rowvec_loop(Gen *g, CgPackConv conv, int w, int kg, LLVMValueRef ps, LLVMValueRef pd, LLVMValueRef kfull,
                        LLVMValueRef sr_b, LLVMValueRef sk_b, LLVMValueRef live, LLVMValueRef zero, bool partial)
{
    LLVMTypeRef st, dt;
    LLVMValueRef z;
    pack_types(g, conv, &st, &dt, &z);
    int64_t ss = st == g->f32 ? 4 : st == g->i8 ? 1 : 2;
    int64_t ds = dt == g->f32 || dt == g->i32 ? 4 : dt == g->i8 ? 1 : 2;
    LLVMTypeRef gt = LLVMIntTypeInContext(g->ctx, (unsigned)(kg * ss * 8)); /* g source values */
    Loop lv = loop_begin(g, ci64(g, 0), kfull, ci64(g, 1), partial ? "kp" : "kv");
    LLVMValueRef kb = LLVMBuildMul(g->b, LLVMBuildMul(g->b, lv.iv, ci64(g, kg), ""), sk_b, "");
    LLVMValueRef gb = LLVMBuildMul(g->b, lv.iv, ci64(g, (int64_t)w * kg * ds), "");
    if (!partial) {
        LLVMValueRef rv = LLVMGetUndef(LLVMVectorType(gt, (unsigned)w));
        for (int r = 0; r < w; r++) {
            LLVMValueRef off = LLVMBuildAdd(g->b, kb, LLVMBuildMul(g->b, ci64(g, r), sr_b, ""), "");
            rv = LLVMBuildInsertElement(g->b, rv, load_at(g, gt, ps, off, (unsigned)ss), ci32(g, r), "");
        }
        LLVMValueRef sv = LLVMBuildBitCast(g->b, rv, LLVMVectorType(st, (unsigned)(w * kg)), "");
        store_at(g, pack_convert(g, conv, sv), pd, gb, (unsigned)ds);
    } else {
        /* rows [0, live) loaded, the rest zeros: a loop over the rows of the group */
        Loop lr = loop_begin(g, ci64(g, 0), ci64(g, w), ci64(g, 1), "rp");
        LLVMValueRef in = LLVMBuildICmp(g->b, LLVMIntSLT, lr.iv, live, "");
        LLVMValueRef off = LLVMBuildAdd(g->b, kb, LLVMBuildMul(g->b, imin(g, lr.iv, LLVMBuildSub(g->b, live,
                                                                                              ci64(g, 1), "")),
                                                                  sr_b, ""), "");
        LLVMValueRef sv = LLVMBuildBitCast(g->b, load_at(g, gt, ps, off, (unsigned)ss),
                                           LLVMVectorType(st, (unsigned)kg), "");
        LLVMValueRef cv = LLVMBuildSelect(g->b, in, pack_convert(g, conv, sv),
                                          splat(g, LLVMVectorType(dt, (unsigned)kg), zero), "");
        store_at(g, cv, pd, LLVMBuildAdd(g->b, gb, LLVMBuildMul(g->b, lr.iv, ci64(g, (int64_t)kg * ds), ""), ""),
                 (unsigned)ds);
        loop_end(g, &lr);
    }
    loop_end(g, &lv);
}

bool cg_gemm_pack(LLVMModuleRef mod, CgPackConv conv, int w, int kg, const char *name, char **err)
{
    *err = NULL;
    if (w < 1 || w > CG_GEMM_MAX_PANEL || (kg != 1 && kg != 2 && kg != 4) || w * kg > CG_GEMM_MAX_SHUFFLE) {
        *err = strdup("invalid packing panel");
        return false;
    }
    Gen gen, *g = &gen;
    cg_gemm_gen_init(g, mod);
    LLVMTypeRef st = g->f32, dt = g->f32;
    LLVMValueRef zero;
    pack_types(g, conv, &st, &dt, &zero);
    int64_t ss = st == g->f32 ? 4 : st == g->i8 ? 1 : 2;
    int64_t ds = dt == g->f32 || dt == g->i32 ? 4 : dt == g->i8 ? 1 : 2;
    LLVMTypeRef params[6] = {g->i8p, g->i8p, g->i64, g->i64, g->i64, g->i64};
    g->fn = LLVMAddFunction(mod, name, LLVMFunctionType(LLVMVoidTypeInContext(g->ctx), params, 6, 0));
    LLVMValueRef dst = LLVMGetParam(g->fn, 0), src = LLVMGetParam(g->fn, 1), sr = LLVMGetParam(g->fn, 2);
    LLVMValueRef sk = LLVMGetParam(g->fn, 3), R = LLVMGetParam(g->fn, 4), K = LLVMGetParam(g->fn, 5);
    g->b = LLVMCreateBuilderInContext(g->ctx); /* owned: disposed below */
    LLVMPositionBuilderAtEnd(g->b, LLVMAppendBasicBlockInContext(g->ctx, g->fn, "entry"));
    LLVMValueRef kfull = LLVMBuildSDiv(g->b, K, ci64(g, kg), "kfull");
    LLVMValueRef kf_el = LLVMBuildMul(g->b, kfull, ci64(g, kg), "");
    LLVMValueRef kgroups = LLVMBuildSDiv(g->b, LLVMBuildAdd(g->b, K, ci64(g, kg - 1), ""), ci64(g, kg), "");
    LLVMValueRef kcp = LLVMBuildMul(g->b, kgroups, ci64(g, kg), "kcp");
    LLVMValueRef np = LLVMBuildSDiv(g->b, LLVMBuildAdd(g->b, R, ci64(g, w - 1), ""), ci64(g, w), "np");
    LLVMValueRef sr_b = LLVMBuildMul(g->b, sr, ci64(g, ss), ""), sk_b = LLVMBuildMul(g->b, sk, ci64(g, ss), "");
    LLVMTypeRef vst = LLVMVectorType(st, (unsigned)w), vout = LLVMVectorType(dt, (unsigned)(w * kg));

    Loop lp = loop_begin(g, ci64(g, 0), np, ci64(g, 1), "p");
    LLVMValueRef r0 = LLVMBuildMul(g->b, lp.iv, ci64(g, w), "r0");
    LLVMValueRef live = LLVMBuildSub(g->b, R, r0, "live");
    LLVMValueRef pd = LLVMBuildGEP2(g->b, g->i8, dst,
                                    (LLVMValueRef[]){LLVMBuildMul(g->b, LLVMBuildMul(g->b, lp.iv, kcp, ""),
                                                                  ci64(g, (int64_t)w * ds), "")},
                                    1, "pd");
    LLVMValueRef ps = LLVMBuildGEP2(g->b, g->i8, src, (LLVMValueRef[]){LLVMBuildMul(g->b, r0, sr_b, "")}, 1, "ps");
    LLVMBasicBlockRef whole = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "whole");
    LLVMBasicBlockRef contig = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "contig");
    LLVMBasicBlockRef gather = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "gather");
    LLVMBasicBlockRef tail = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "tail");
    LLVMBasicBlockRef partial = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "partial");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSGE, live, ci64(g, w), ""), whole, partial);
    /* a partial panel: with g > 1 and sk == 1 the whole k groups row by row, else all of it in the tail */
    LLVMPositionBuilderAtEnd(g->b, partial);
    LLVMBasicBlockRef here = partial, partial_end = NULL;
    if (kg > 1) {
        LLVMBasicBlockRef prow = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "prow");
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, sk, ci64(g, 1), ""), prow, tail);
        LLVMPositionBuilderAtEnd(g->b, prow);
        rowvec_loop(g, conv, w, kg, ps, pd, kfull, sr_b, sk_b, live, zero, true);
        partial_end = LLVMGetInsertBlock(g->b);
    }
    LLVMBuildBr(g->b, tail);
    LLVMPositionBuilderAtEnd(g->b, whole);
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, sr, ci64(g, 1), ""), contig, gather);

    /* whole panel, contiguous along r: g vector loads per k group, interleaved */
    LLVMPositionBuilderAtEnd(g->b, contig);
    Loop lc = loop_begin(g, ci64(g, 0), kfull, ci64(g, 1), "kc");
    LLVMValueRef v[4];
    for (int e = 0; e < kg; e++) {
        LLVMValueRef k = LLVMBuildAdd(g->b, LLVMBuildMul(g->b, lc.iv, ci64(g, kg), ""), ci64(g, e), "");
        v[e] = pack_convert(g, conv, load_at(g, vst, ps, LLVMBuildMul(g->b, k, sk_b, ""), (unsigned)ss));
    }
    store_at(g, interleave(g, v, w, kg), pd, LLVMBuildMul(g->b, lc.iv, ci64(g, (int64_t)w * kg * ds), ""),
             (unsigned)ds);
    loop_end(g, &lc);
    LLVMBasicBlockRef contig_end = LLVMGetInsertBlock(g->b);
    LLVMBuildBr(g->b, tail);

    /* whole panel, strided along r: per k group, w*g scalar loads (or, with g > 1 and sk == 1, w
     * loads of g consecutive values) and one vector store */
    LLVMPositionBuilderAtEnd(g->b, gather);
    LLVMBasicBlockRef gather_end, rowvec_end = NULL;
    if (kg > 1) {
        LLVMBasicBlockRef rowvec = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "rowvec");
        LLVMBasicBlockRef scalar = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "scalar");
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, sk, ci64(g, 1), ""), rowvec, scalar);
        LLVMPositionBuilderAtEnd(g->b, rowvec);
        rowvec_loop(g, conv, w, kg, ps, pd, kfull, sr_b, sk_b, live, zero, false);
        rowvec_end = LLVMGetInsertBlock(g->b);
        LLVMBuildBr(g->b, tail);
        LLVMPositionBuilderAtEnd(g->b, scalar);
    }
    Loop lg = loop_begin(g, ci64(g, 0), kfull, ci64(g, 1), "kg");
    LLVMValueRef vec = LLVMGetUndef(vout);
    for (int e = 0; e < kg; e++) {
        LLVMValueRef k = LLVMBuildAdd(g->b, LLVMBuildMul(g->b, lg.iv, ci64(g, kg), ""), ci64(g, e), "");
        LLVMValueRef kb = LLVMBuildMul(g->b, k, sk_b, "");
        for (int r = 0; r < w; r++) {
            LLVMValueRef off = LLVMBuildAdd(g->b, kb, LLVMBuildMul(g->b, ci64(g, r), sr_b, ""), "");
            LLVMValueRef x = pack_convert(g, conv, load_at(g, st, ps, off, (unsigned)ss));
            vec = LLVMBuildInsertElement(g->b, vec, x, ci32(g, r * kg + e), "");
        }
    }
    store_at(g, vec, pd, LLVMBuildMul(g->b, lg.iv, ci64(g, (int64_t)w * kg * ds), ""), (unsigned)ds);
    loop_end(g, &lg);
    gather_end = LLVMGetInsertBlock(g->b);
    LLVMBuildBr(g->b, tail);

    /* the rest, element by element: k from kstart (0 for a partial panel the row loop did not take) to kcp,
     * all w rows */
    LLVMPositionBuilderAtEnd(g->b, tail);
    LLVMValueRef kstart = LLVMBuildPhi(g->b, g->i64, "kstart");
    LLVMValueRef z64 = ci64(g, 0);
    LLVMAddIncoming(kstart, &z64, &here, 1);
    LLVMAddIncoming(kstart, &kf_el, &contig_end, 1);
    LLVMAddIncoming(kstart, &kf_el, &gather_end, 1);
    if (rowvec_end)
        LLVMAddIncoming(kstart, &kf_el, &rowvec_end, 1);
    if (partial_end)
        LLVMAddIncoming(kstart, &kf_el, &partial_end, 1);
    LLVMValueRef rl = imin(g, live, ci64(g, w));
    Loop lk = loop_begin(g, kstart, kcp, ci64(g, 1), "kt");
    Loop lr = loop_begin(g, ci64(g, 0), ci64(g, w), ci64(g, 1), "rt");
    LLVMValueRef in = LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, lr.iv, rl, ""),
                                   LLVMBuildICmp(g->b, LLVMIntSLT, lk.iv, K, ""), "");
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(g->b);
    LLVMBasicBlockRef ld = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "ld");
    LLVMBasicBlockRef st_bb = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "st");
    LLVMBuildCondBr(g->b, in, ld, st_bb);
    LLVMPositionBuilderAtEnd(g->b, ld);
    LLVMValueRef off = LLVMBuildAdd(g->b, LLVMBuildMul(g->b, lr.iv, sr_b, ""), LLVMBuildMul(g->b, lk.iv, sk_b, ""), "");
    LLVMValueRef x = pack_convert(g, conv, load_at(g, st, ps, off, (unsigned)ss));
    LLVMBasicBlockRef ld_end = LLVMGetInsertBlock(g->b);
    LLVMBuildBr(g->b, st_bb);
    LLVMPositionBuilderAtEnd(g->b, st_bb);
    LLVMValueRef val = LLVMBuildPhi(g->b, dt, "");
    LLVMAddIncoming(val, &zero, &pre, 1);
    LLVMAddIncoming(val, &x, &ld_end, 1);
    LLVMValueRef grp = LLVMBuildUDiv(g->b, lk.iv, ci64(g, kg), ""), rem = LLVMBuildURem(g->b, lk.iv, ci64(g, kg), "");
    LLVMValueRef di = LLVMBuildAdd(g->b,
                                   LLVMBuildAdd(g->b, LLVMBuildMul(g->b, grp, ci64(g, (int64_t)w * kg), ""),
                                                LLVMBuildMul(g->b, lr.iv, ci64(g, kg), ""), ""),
                                   rem, "");
    store_at(g, val, pd, LLVMBuildMul(g->b, di, ci64(g, ds), ""), (unsigned)ds);
    loop_end(g, &lr);
    loop_end(g, &lk);
    loop_end(g, &lp);
    LLVMBuildRetVoid(g->b);
    LLVMDisposeBuilder(g->b);
    return cg_gemm_verified(mod, "packing routine", err);
}
