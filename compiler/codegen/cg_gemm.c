/* cg_gemm.c — LLVM IR for GEMM: register-blocked macro-kernels, packing routines and the BLIS loop nest. */
#include "cg_gemm_impl.h"

#include <llvm-c/Analysis.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_ACC = 32 };

typedef struct Gen {
    const CgGemmSpec *s;
    LLVMContextRef ctx;
    LLVMModuleRef mod;   /* borrowed */
    LLVMBuilderRef b;    /* owned: disposed by the generator that created it */
    LLVMValueRef fn;
    LLVMTypeRef i1, i8, i32, i64, f32, i8p;
    LLVMTypeRef et;      /* accumulator element: f32 or i32 */
    LLVMTypeRef vt;      /* accumulator vector <vl x et> */
    LLVMTypeRef bvt;     /* B load vector: <vl x f32> (F32) or <vl x i32> */
    LLVMTypeRef at;      /* A scalar load: f32 (F32) or i32 (a group of g packed values) */
    LLVMValueRef op;     /* the multiply-add intrinsic (NULL for I32) */
    LLVMTypeRef op_ty;
    LLVMValueRef sfma;   /* scalar fma / fmuladd for f32 write-back */
    LLVMTypeRef sfma_ty;
} Gen;

bool cg_gemm_order_valid(const int order[3])
{
    bool seen[3] = {false, false, false};
    for (int d = 0; d < 3; d++) {
        if (order[d] < CG_DIM_M || order[d] > CG_DIM_K || seen[order[d]])
            return false;
        seen[order[d]] = true;
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

/* Verifies mod after generating `what` into it: true, or false with *err (malloc'ed) saying why. */
static bool verified(LLVMModuleRef mod, const char *what, char **err)
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

static LLVMValueRef ci64(Gen *g, int64_t v) { return LLVMConstInt(g->i64, (unsigned long long)v, 1); }
static LLVMValueRef ci32(Gen *g, int32_t v) { return LLVMConstInt(g->i32, (unsigned long long)(int64_t)v, 1); }

/* A pointer to t at base + byte offset off (base an i8*). */
static LLVMValueRef gep_as(Gen *g, LLVMValueRef base, LLVMValueRef off, LLVMTypeRef t)
{
    LLVMValueRef p = LLVMBuildGEP2(g->b, g->i8, base, &off, 1, "");
    return LLVMBuildBitCast(g->b, p, LLVMPointerType(t, 0), "");
}

static LLVMValueRef load_at(Gen *g, LLVMTypeRef t, LLVMValueRef base, LLVMValueRef off, unsigned align)
{
    LLVMValueRef v = LLVMBuildLoad2(g->b, t, gep_as(g, base, off, t), "");
    LLVMSetAlignment(v, align);
    return v;
}

static void store_at(Gen *g, LLVMValueRef v, LLVMValueRef base, LLVMValueRef off, unsigned align)
{
    LLVMValueRef st = LLVMBuildStore(g->b, v, gep_as(g, base, off, LLVMTypeOf(v)));
    LLVMSetAlignment(st, align);
}

/* A vector of vl copies of the scalar x (of type LLVMGetElementType(t)). */
static LLVMValueRef splat(Gen *g, LLVMTypeRef t, LLVMValueRef x)
{
    LLVMValueRef v = LLVMBuildInsertElement(g->b, LLVMGetUndef(t), x, ci32(g, 0), "");
    LLVMTypeRef mt = LLVMVectorType(g->i32, LLVMGetVectorSize(t));
    return LLVMBuildShuffleVector(g->b, v, LLVMGetUndef(t), LLVMConstNull(mt), "");
}

static LLVMValueRef intrinsic(Gen *g, const char *name, LLVMTypeRef *over, unsigned nover, LLVMTypeRef *fty)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    if (!id)
        return NULL;
    *fty = LLVMIntrinsicGetType(g->ctx, id, over, nover);
    return LLVMGetIntrinsicDeclaration(g->mod, id, over, nover);
}

/* A counted loop: `for (iv = start; iv < end; iv += step)`. loop_begin leaves the builder in the
 * body; loop_end closes it and leaves the builder after the loop. */
typedef struct Loop {
    LLVMBasicBlockRef head, exit;
    LLVMValueRef iv, step;
} Loop;

static Loop loop_begin(Gen *g, LLVMValueRef start, LLVMValueRef end, LLVMValueRef step, const char *name)
{
    Loop l;
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(g->b);
    l.head = LLVMAppendBasicBlockInContext(g->ctx, g->fn, name);
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "body");
    l.exit = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "exit");
    LLVMBuildBr(g->b, l.head);
    LLVMPositionBuilderAtEnd(g->b, l.head);
    l.iv = LLVMBuildPhi(g->b, g->i64, name);
    LLVMAddIncoming(l.iv, &start, &pre, 1);
    l.step = step;
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, l.iv, end, ""), body, l.exit);
    LLVMPositionBuilderAtEnd(g->b, body);
    return l;
}

static void loop_end(Gen *g, Loop *l)
{
    LLVMValueRef next = LLVMBuildAdd(g->b, l->iv, l->step, "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(g->b);
    LLVMBuildBr(g->b, l->head);
    LLVMAddIncoming(l->iv, &next, &latch, 1);
    LLVMPositionBuilderAtEnd(g->b, l->exit);
}

static LLVMValueRef imin(Gen *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, a, b, ""), a, b, "");
}

/* acc + a*b (or the dot-product step) for one accumulator vector. */
static LLVMValueRef mac(Gen *g, LLVMValueRef acc, LLVMValueRef a, LLVMValueRef b)
{
    switch (g->s->kind) {
    case CG_GEMM_F32: {
        LLVMValueRef args[3] = {a, b, acc};
        return LLVMBuildCall2(g->b, g->op_ty, g->op, args, 3, "");
    }
    case CG_GEMM_BF16DP:
    case CG_GEMM_I8VNNI: {
        LLVMValueRef args[3] = {acc, a, b};
        return LLVMBuildCall2(g->b, g->op_ty, g->op, args, 3, "");
    }
    case CG_GEMM_I32:
        return LLVMBuildAdd(g->b, acc, LLVMBuildMul(g->b, a, b, ""), "");
    }
    return acc;
}

/* The value written to C: alpha*acc + beta*c, or alpha*acc when beta is 0 (C not used then). */
static LLVMValueRef combine(Gen *g, LLVMValueRef out, LLVMValueRef c, LLVMValueRef beta, LLVMValueRef bz,
                            LLVMValueRef fma, LLVMTypeRef fma_ty)
{
    if (g->s->kind == CG_GEMM_I8VNNI || g->s->kind == CG_GEMM_I32)
        return LLVMBuildAdd(g->b, out, LLVMBuildMul(g->b, beta, c, ""), "");
    LLVMValueRef args[3] = {beta, c, out};
    LLVMValueRef r = LLVMBuildCall2(g->b, fma_ty, fma, args, 3, "");
    return LLVMBuildSelect(g->b, bz, out, r, "");
}

/* Fills g's types and intrinsics for its spec; false with *err when the kind has no intrinsic for
 * the vector length (bf16 and VNNI need 16 lanes). */
static bool setup(Gen *g, char **err)
{
    const CgGemmSpec *s = g->s;
    g->i1 = LLVMInt1TypeInContext(g->ctx);
    g->i8 = LLVMInt8TypeInContext(g->ctx);
    g->i32 = LLVMInt32TypeInContext(g->ctx);
    g->i64 = LLVMInt64TypeInContext(g->ctx);
    g->f32 = LLVMFloatTypeInContext(g->ctx);
    g->i8p = LLVMPointerType(g->i8, 0);
    bool fl = s->kind == CG_GEMM_F32 || s->kind == CG_GEMM_BF16DP;
    g->et = fl ? g->f32 : g->i32;
    g->vt = LLVMVectorType(g->et, (unsigned)s->vl);
    g->bvt = s->kind == CG_GEMM_F32 ? g->vt : LLVMVectorType(g->i32, (unsigned)s->vl);
    g->at = s->kind == CG_GEMM_F32 ? g->f32 : g->i32;
    const char *fname = s->fused ? "llvm.fma" : "llvm.fmuladd";
    if (s->kind == CG_GEMM_F32)
        g->op = intrinsic(g, fname, &g->vt, 1, &g->op_ty);
    else if (s->kind == CG_GEMM_BF16DP)
        g->op = s->vl == 16 ? intrinsic(g, "llvm.x86.avx512bf16.dpbf16ps.512", NULL, 0, &g->op_ty) : NULL;
    else if (s->kind == CG_GEMM_I8VNNI)
        g->op = s->vl == 16 ? intrinsic(g, "llvm.x86.avx512.vpdpbusd.512", NULL, 0, &g->op_ty) : NULL;
    if (s->kind != CG_GEMM_I32 && !g->op) {
        *err = strdup("no multiply-add intrinsic for this kernel kind and vector length");
        return false;
    }
    if (fl) {
        LLVMTypeRef sf = g->f32;
        g->sfma = intrinsic(g, fname, &sf, 1, &g->sfma_ty);
    }
    return true;
}

bool cg_gemm_macro(LLVMModuleRef mod, const CgGemmSpec *s, const char *name, bool direct_a, char **err)
{
    *err = NULL;
    if (direct_a && s->kind != CG_GEMM_F32) {
        *err = strdup("a direct A operand needs the f32 kernel");
        return false;
    }
    if (s->mr < 1 || s->nv < 1 || s->vl < 1 || s->mr * s->nv > MAX_ACC || s->nv > 8 || s->vl > 64) {
        *err = strdup("invalid micro-tile");
        return false;
    }
    Gen gen = {.s = s, .ctx = LLVMGetModuleContext(mod), .mod = mod};
    Gen *g = &gen;
    if (!setup(g, err))
        return false;
    const int mr = s->mr, nv = s->nv, vl = s->vl, nr = nv * vl, kg = cg_gemm_kgroup(s->kind);
    const int ps = cg_gemm_packed_size(s->kind);
    LLVMTypeRef params[12] = {g->i64, g->i64, g->i64, g->i8p, g->i8p, g->i8p, g->i64, g->i64, g->et, g->et, g->i8p,
                              g->i64};
    LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(g->ctx), params, direct_a ? 12 : 11, 0);
    g->fn = LLVMAddFunction(mod, name, fty);
    LLVMValueRef mc = LLVMGetParam(g->fn, 0), nc = LLVMGetParam(g->fn, 1), kc = LLVMGetParam(g->fn, 2);
    LLVMValueRef ap0 = LLVMGetParam(g->fn, 3), bp0 = LLVMGetParam(g->fn, 4), cp = LLVMGetParam(g->fn, 5);
    LLVMValueRef rs = LLVMGetParam(g->fn, 6), cs = LLVMGetParam(g->fn, 7);
    LLVMValueRef alpha = LLVMGetParam(g->fn, 8), beta = LLVMGetParam(g->fn, 9), colsum = LLVMGetParam(g->fn, 10);
    LLVMValueRef a_rs = direct_a ? LLVMGetParam(g->fn, 11) : NULL; /* bytes between rows of a direct A */
    for (unsigned i = 3; i <= 5; i++)
        LLVMAddAttributeAtIndex(g->fn, i + 1,
                                LLVMCreateEnumAttribute(g->ctx, LLVMGetEnumAttributeKindForName("noalias", 7), 0));

    g->b = LLVMCreateBuilderInContext(g->ctx); /* owned: disposed below */
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "entry");
    LLVMPositionBuilderAtEnd(g->b, entry);
    LLVMValueRef tile = LLVMBuildArrayAlloca(g->b, g->et, ci32(g, mr * nr), "tile");
    LLVMSetAlignment(tile, 64);
    LLVMValueRef tile8 = LLVMBuildBitCast(g->b, tile, g->i8p, "");
    /* kcp = kc rounded up to the k group; the groups and the panel sizes in bytes */
    LLVMValueRef kgroups = LLVMBuildSDiv(g->b, LLVMBuildAdd(g->b, kc, ci64(g, kg - 1), ""), ci64(g, kg), "");
    LLVMValueRef kcp = LLVMBuildMul(g->b, kgroups, ci64(g, kg), "kcp");
    LLVMValueRef ngroups = LLVMBuildSDiv(g->b, kcp, ci64(g, kg), "ngroups");
    LLVMValueRef a_panel = direct_a ? LLVMBuildMul(g->b, a_rs, ci64(g, mr), "")
                                    : LLVMBuildMul(g->b, kcp, ci64(g, (int64_t)mr * ps), "");
    LLVMValueRef b_panel = LLVMBuildMul(g->b, kcp, ci64(g, (int64_t)nr * ps), "");
    LLVMValueRef valpha = splat(g, g->vt, alpha), vbeta = splat(g, g->vt, beta);
    bool fl = g->et == g->f32;
    LLVMValueRef bz = fl ? LLVMBuildFCmp(g->b, LLVMRealOEQ, beta, LLVMConstReal(g->f32, 0.0), "bz")
                         : LLVMBuildICmp(g->b, LLVMIntEQ, beta, ci32(g, 0), "bz");
    LLVMValueRef vbz = fl ? splat(g, LLVMVectorType(g->i1, (unsigned)vl), bz) : NULL;
    LLVMValueRef vfma = NULL;
    LLVMTypeRef vfma_ty = NULL;
    if (fl)
        vfma = intrinsic(g, s->fused ? "llvm.fma" : "llvm.fmuladd", &g->vt, 1, &vfma_ty);
    LLVMValueRef esz = ci64(g, 4); /* C elements are 4 bytes (f32 or i32) */

    /* the micro-tile loops: A panels outer (an A micro-panel stays in L1 while the B block streams
     * from L2) or B panels outer */
    Loop jr, ir;
    if (s->a_outer) {
        ir = loop_begin(g, ci64(g, 0), mc, ci64(g, mr), "ir");
        jr = loop_begin(g, ci64(g, 0), nc, ci64(g, nr), "jr");
    } else {
        jr = loop_begin(g, ci64(g, 0), nc, ci64(g, nr), "jr");
        ir = loop_begin(g, ci64(g, 0), mc, ci64(g, mr), "ir");
    }
    LLVMValueRef q = LLVMBuildSDiv(g->b, jr.iv, ci64(g, nr), "");
    LLVMValueRef bp = LLVMBuildGEP2(g->b, g->i8, bp0, (LLVMValueRef[]){LLVMBuildMul(g->b, q, b_panel, "")}, 1, "bp");
    LLVMValueRef p = LLVMBuildSDiv(g->b, ir.iv, ci64(g, mr), "");
    LLVMValueRef ap = LLVMBuildGEP2(g->b, g->i8, ap0, (LLVMValueRef[]){LLVMBuildMul(g->b, p, a_panel, "")}, 1, "ap");

    /* the k loop: mr*nv accumulators carried in phis */
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(g->b);
    LLVMBasicBlockRef khead = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "k");
    LLVMBasicBlockRef kbody = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "kbody");
    LLVMBasicBlockRef kexit = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "kexit");
    LLVMBuildBr(g->b, khead);
    LLVMPositionBuilderAtEnd(g->b, khead);
    LLVMValueRef kiv = LLVMBuildPhi(g->b, g->i64, "kg");
    LLVMValueRef zero64 = ci64(g, 0);
    LLVMAddIncoming(kiv, &zero64, &pre, 1);
    LLVMValueRef acc[MAX_ACC], zacc = LLVMConstNull(g->vt);
    for (int i = 0; i < mr * nv; i++) {
        acc[i] = LLVMBuildPhi(g->b, g->vt, "acc");
        LLVMAddIncoming(acc[i], &zacc, &pre, 1);
    }
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, kiv, ngroups, ""), kbody, kexit);
    LLVMPositionBuilderAtEnd(g->b, kbody);
    LLVMValueRef bvec[8];
    LLVMValueRef boff = LLVMBuildMul(g->b, kiv, ci64(g, (int64_t)nr * kg * ps), "");
    for (int v = 0; v < nv; v++)
        bvec[v] = load_at(g, g->bvt, bp, LLVMBuildAdd(g->b, boff, ci64(g, (int64_t)v * vl * kg * ps), ""), 64);
    LLVMValueRef aoff = LLVMBuildMul(g->b, kiv, ci64(g, direct_a ? 4 : (int64_t)mr * kg * ps), "");
    LLVMValueRef next[MAX_ACC];
    for (int i = 0; i < mr; i++) {
        LLVMValueRef roff = direct_a ? LLVMBuildMul(g->b, a_rs, ci64(g, i), "") : ci64(g, (int64_t)i * kg * ps);
        LLVMValueRef a = load_at(g, g->at, ap, LLVMBuildAdd(g->b, aoff, roff, ""), 4);
        LLVMValueRef va = splat(g, g->bvt, a);
        for (int v = 0; v < nv; v++)
            next[i * nv + v] = mac(g, acc[i * nv + v], va, bvec[v]);
    }
    LLVMValueRef knext = LLVMBuildAdd(g->b, kiv, ci64(g, 1), "");
    LLVMBasicBlockRef klatch = LLVMGetInsertBlock(g->b);
    LLVMBuildBr(g->b, khead);
    LLVMAddIncoming(kiv, &knext, &klatch, 1);
    for (int i = 0; i < mr * nv; i++)
        LLVMAddIncoming(acc[i], &next[i], &klatch, 1);
    LLVMPositionBuilderAtEnd(g->b, kexit);

    /* alpha * acc (VNNI: minus 128 * the column sums first) */
    LLVMValueRef out[MAX_ACC];
    for (int v = 0; v < nv; v++) {
        LLVMValueRef corr = NULL;
        if (s->kind == CG_GEMM_I8VNNI) {
            LLVMValueRef off = LLVMBuildMul(g->b, LLVMBuildAdd(g->b, jr.iv, ci64(g, (int64_t)v * vl), ""), esz, "");
            corr = LLVMBuildShl(g->b, load_at(g, g->vt, colsum, off, 4), splat(g, g->vt, ci32(g, 7)), "");
        }
        for (int i = 0; i < mr; i++) {
            LLVMValueRef x = acc[i * nv + v];
            if (corr)
                x = LLVMBuildSub(g->b, x, corr, "");
            out[i * nv + v] = fl ? LLVMBuildFMul(g->b, valpha, x, "") : LLVMBuildMul(g->b, valpha, x, "");
        }
    }
    LLVMValueRef mleft = LLVMBuildSub(g->b, mc, ir.iv, ""), nleft = LLVMBuildSub(g->b, nc, jr.iv, "");
    LLVMValueRef full = LLVMBuildAnd(
        g->b,
        LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntSGE, mleft, ci64(g, mr), ""),
                     LLVMBuildICmp(g->b, LLVMIntSGE, nleft, ci64(g, nr), ""), ""),
        LLVMBuildICmp(g->b, LLVMIntEQ, cs, ci64(g, 1), ""), "full");
    LLVMBasicBlockRef fast = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "fast");
    LLVMBasicBlockRef slow = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "slow");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "done");
    LLVMBasicBlockRef notfull = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "notfull");
    LLVMBasicBlockRef masked = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "masked");
    LLVMBuildCondBr(g->b, full, fast, notfull);
    LLVMPositionBuilderAtEnd(g->b, notfull);
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, cs, ci64(g, 1), ""), masked, slow);

    /* edge tile, unit column stride: masked vector read-modify-write (rows past mc and columns past
     * nc masked off, so nothing outside C is touched) */
    LLVMPositionBuilderAtEnd(g->b, masked);
    {
        LLVMTypeRef vp = LLVMPointerType(g->vt, 0), mt = LLVMVectorType(g->i1, (unsigned)vl);
        LLVMTypeRef lty, sty;
        LLVMValueRef mload = intrinsic(g, "llvm.masked.load", (LLVMTypeRef[]){g->vt, vp}, 2, &lty);
        LLVMValueRef mstore = intrinsic(g, "llvm.masked.store", (LLVMTypeRef[]){g->vt, vp}, 2, &sty);
        LLVMValueRef lanes[64];
        for (int l = 0; l < vl; l++)
            lanes[l] = ci64(g, l);
        LLVMValueRef iota = LLVMConstVector(lanes, (unsigned)vl);
        LLVMValueRef mm = imin(g, mleft, ci64(g, mr));
        LLVMValueRef align4 = ci32(g, 4);
        for (int v = 0; v < nv; v++) {
            /* lanes of this vector inside C: lane < nleft - v*vl */
            LLVMValueRef left = LLVMBuildSub(g->b, nleft, ci64(g, (int64_t)v * vl), "");
            LLVMValueRef vleft = splat(g, LLVMVectorType(g->i64, (unsigned)vl), left);
            LLVMValueRef cm = LLVMBuildICmp(g->b, LLVMIntSLT, iota, vleft, "");
            for (int i = 0; i < mr; i++) {
                LLVMValueRef rowin = LLVMBuildICmp(g->b, LLVMIntSLT, ci64(g, i), mm, "");
                LLVMValueRef m = LLVMBuildAnd(g->b, cm, splat(g, mt, rowin), "");
                LLVMValueRef row = LLVMBuildMul(g->b, LLVMBuildAdd(g->b, ir.iv, ci64(g, i), ""), rs, "");
                LLVMValueRef e = LLVMBuildAdd(g->b, row, LLVMBuildAdd(g->b, jr.iv, ci64(g, (int64_t)v * vl), ""), "");
                LLVMValueRef ptr = gep_as(g, cp, LLVMBuildMul(g->b, e, esz, ""), g->vt);
                LLVMValueRef c = LLVMBuildCall2(g->b, lty, mload,
                                                (LLVMValueRef[]){ptr, align4, m, LLVMConstNull(g->vt)}, 4, "");
                LLVMValueRef r = combine(g, out[i * nv + v], c, vbeta, vbz, vfma, vfma_ty);
                LLVMBuildCall2(g->b, sty, mstore, (LLVMValueRef[]){r, ptr, align4, m}, 4, "");
            }
        }
    }
    LLVMBuildBr(g->b, done);

    /* full tile, unit column stride: vector stores of each row, read-modify-write unless beta == 0
     * (then C is not read at all: half the memory traffic when k is small) */
    LLVMPositionBuilderAtEnd(g->b, fast);
    LLVMBasicBlockRef fast_st = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "fast_st");
    LLVMBasicBlockRef fast_rmw = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "fast_rmw");
    LLVMBuildCondBr(g->b, bz, fast_st, fast_rmw);
    for (int rmw = 0; rmw < 2; rmw++) {
        LLVMPositionBuilderAtEnd(g->b, rmw ? fast_rmw : fast_st);
        for (int i = 0; i < mr; i++) {
            LLVMValueRef row = LLVMBuildMul(g->b, LLVMBuildAdd(g->b, ir.iv, ci64(g, i), ""), rs, "");
            for (int v = 0; v < nv; v++) {
                LLVMValueRef e = LLVMBuildAdd(g->b, row, LLVMBuildAdd(g->b, jr.iv, ci64(g, (int64_t)v * vl), ""), "");
                LLVMValueRef off = LLVMBuildMul(g->b, e, esz, "");
                LLVMValueRef r = out[i * nv + v];
                if (rmw)
                    r = combine(g, r, load_at(g, g->vt, cp, off, 4), vbeta, vbz, vfma, vfma_ty);
                store_at(g, r, cp, off, 4);
            }
        }
        LLVMBuildBr(g->b, done);
    }

    /* edge tile or strided C: through the stack tile, element by element */
    LLVMPositionBuilderAtEnd(g->b, slow);
    for (int i = 0; i < mr; i++)
        for (int v = 0; v < nv; v++)
            store_at(g, out[i * nv + v], tile8, ci64(g, ((int64_t)i * nr + (int64_t)v * vl) * 4), 4);
    LLVMValueRef mm = imin(g, mleft, ci64(g, mr)), nn = imin(g, nleft, ci64(g, nr));
    Loop li = loop_begin(g, ci64(g, 0), mm, ci64(g, 1), "ti");
    Loop lj = loop_begin(g, ci64(g, 0), nn, ci64(g, 1), "tj");
    LLVMValueRef tix = LLVMBuildAdd(g->b, LLVMBuildMul(g->b, li.iv, ci64(g, nr), ""), lj.iv, "");
    LLVMValueRef t = load_at(g, g->et, tile8, LLVMBuildMul(g->b, tix, esz, ""), 4);
    LLVMValueRef e = LLVMBuildAdd(g->b, LLVMBuildMul(g->b, LLVMBuildAdd(g->b, ir.iv, li.iv, ""), rs, ""),
                                  LLVMBuildMul(g->b, LLVMBuildAdd(g->b, jr.iv, lj.iv, ""), cs, ""), "");
    LLVMValueRef off = LLVMBuildMul(g->b, e, esz, "");
    LLVMValueRef c = load_at(g, g->et, cp, off, 4);
    store_at(g, combine(g, t, c, beta, bz, g->sfma, g->sfma_ty), cp, off, 4);
    loop_end(g, &lj);
    loop_end(g, &li);
    LLVMBuildBr(g->b, done);

    LLVMPositionBuilderAtEnd(g->b, done);
    loop_end(g, s->a_outer ? &jr : &ir);
    loop_end(g, s->a_outer ? &ir : &jr);
    LLVMBuildRetVoid(g->b);
    LLVMDisposeBuilder(g->b);

    return verified(mod, "kernel", err);
}

/* ---- packing routines ---- */

/* The source and packed element types of a conversion, and the converted zero. */
static void pack_types(Gen *g, CgPackConv conv, LLVMTypeRef *st, LLVMTypeRef *dt, LLVMValueRef *zero)
{
    LLVMTypeRef i16 = LLVMInt16TypeInContext(g->ctx);
    switch (conv) {
    case CG_PACK_F32: *st = g->f32; *dt = g->f32; break;
    case CG_PACK_BF16_F32: case CG_PACK_F16_F32: *st = i16; *dt = g->f32; break;
    case CG_PACK_BF16: *st = i16; *dt = i16; break;
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
    LLVMValueRef v[512];
    for (int i = 0; i < n; i++)
        v[i] = ci32(g, idx[i]);
    return LLVMConstVector(v, (unsigned)n);
}

/* Interleaves g vectors of w lanes: result lane r*g + e is lane r of v[e] (g is 1, 2 or 4). */
static LLVMValueRef interleave(Gen *g, LLVMValueRef *v, int w, int kg)
{
    if (kg == 1)
        return v[0];
    int idx[512];
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

bool cg_gemm_pack(LLVMModuleRef mod, CgPackConv conv, int w, int kg, const char *name, char **err)
{
    *err = NULL;
    if (w < 1 || w > 64 || (kg != 1 && kg != 2 && kg != 4) || w * kg > 512) {
        *err = strdup("invalid packing panel");
        return false;
    }
    CgGemmSpec dummy = {.kind = CG_GEMM_I32, .mr = 1, .nv = 1, .vl = 1};
    Gen gen = {.s = &dummy, .ctx = LLVMGetModuleContext(mod), .mod = mod};
    Gen *g = &gen;
    if (!setup(g, err))
        return false;
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
    LLVMBasicBlockRef here = LLVMGetInsertBlock(g->b);
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSGE, live, ci64(g, w), ""), whole, tail);
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
        LLVMTypeRef gt = LLVMIntTypeInContext(g->ctx, (unsigned)(kg * ss * 8)); /* g source values */
        Loop lv = loop_begin(g, ci64(g, 0), kfull, ci64(g, 1), "kv");
        LLVMValueRef kb = LLVMBuildMul(g->b, LLVMBuildMul(g->b, lv.iv, ci64(g, kg), ""), sk_b, "");
        LLVMValueRef rv = LLVMGetUndef(LLVMVectorType(gt, (unsigned)w));
        for (int r = 0; r < w; r++) {
            LLVMValueRef off = LLVMBuildAdd(g->b, kb, LLVMBuildMul(g->b, ci64(g, r), sr_b, ""), "");
            rv = LLVMBuildInsertElement(g->b, rv, load_at(g, gt, ps, off, (unsigned)ss), ci32(g, r), "");
        }
        LLVMValueRef sv = LLVMBuildBitCast(g->b, rv, LLVMVectorType(st, (unsigned)(w * kg)), "");
        store_at(g, pack_convert(g, conv, sv), pd, LLVMBuildMul(g->b, lv.iv, ci64(g, (int64_t)w * kg * ds), ""),
                 (unsigned)ds);
        loop_end(g, &lv);
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

    /* the rest, element by element: k from kstart (0 for a partial panel) to kcp, all w rows */
    LLVMPositionBuilderAtEnd(g->b, tail);
    LLVMValueRef kstart = LLVMBuildPhi(g->b, g->i64, "kstart");
    LLVMValueRef z64 = ci64(g, 0);
    LLVMAddIncoming(kstart, &z64, &here, 1);
    LLVMAddIncoming(kstart, &kf_el, &contig_end, 1);
    LLVMAddIncoming(kstart, &kf_el, &gather_end, 1);
    if (rowvec_end)
        LLVMAddIncoming(kstart, &kf_el, &rowvec_end, 1);
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
    return verified(mod, "packing routine", err);
}

/* ---- the loop nest ---- */

/* Loads field `off` (bytes into the argument struct) of type t. */
static LLVMValueRef field(Gen *g, LLVMValueRef args, size_t off, LLVMTypeRef t)
{
    return load_at(g, t, args, ci64(g, (int64_t)off), 4);
}

static LLVMValueRef call_named(Gen *g, LLVMValueRef fn, LLVMValueRef *argv, unsigned n)
{
    return LLVMBuildCall2(g->b, LLVMGlobalGetValueType(fn), fn, argv, n, "");
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
    Gen gen = {.s = s, .ctx = LLVMGetModuleContext(mod), .mod = mod};
    Gen *g = &gen;
    if (!setup(g, err))
        return false;
    const int mr = s->mr, nr = s->nv * s->vl;
    bool fl = g->et == g->f32;
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
    LLVMValueRef cs4 = ci64(g, 4); /* C elements are 4 bytes */

    /* the three block loops in the spec's order; each packed block is made as soon as the loops it
     * depends on are open: B(k, n) once k and n are, A(m, k) once m and k are (with direct A, at the
     * innermost level, where it can pack just the partial panel) */
    static const int default_order[3] = {CG_DIM_N, CG_DIM_K, CG_DIM_M};
    const int *order = cg_gemm_order_valid(s->order) ? s->order : default_order;
    if (fdirect && order[2] != CG_DIM_M) {
        *err = strdup("reading A unpacked needs the M block loop innermost");
        LLVMDisposeBuilder(g->b);
        return false;
    }
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
        if (!packed_b && open[CG_DIM_K] && open[CG_DIM_N]) {
            LLVMValueRef boff = LLVMBuildMul(g->b, LLVMBuildAdd(g->b, LLVMBuildMul(g->b, iv[CG_DIM_K], b_rs, ""),
                                                                LLVMBuildMul(g->b, iv[CG_DIM_N], b_cs, ""), ""),
                                             ci64(g, eb), "");
            LLVMValueRef bsrc = LLVMBuildGEP2(g->b, g->i8, b, &boff, 1, "bsrc");
            call_named(g, fpb, (LLVMValueRef[]){bbuf, bsrc, b_cs, b_rs, blk[CG_DIM_N], blk[CG_DIM_K]}, 6);
            if (csfn)
                LLVMBuildCall2(g->b, csty, csfn,
                               (LLVMValueRef[]){bsrc, b_cs, b_rs, blk[CG_DIM_N], blk[CG_DIM_K], ci32(g, nr), colsum}, 7,
                               "");
            packed_b = true;
        }
        if (!asrc && open[CG_DIM_M] && open[CG_DIM_K]) {
            LLVMValueRef aoff = LLVMBuildMul(g->b, LLVMBuildAdd(g->b, LLVMBuildMul(g->b, iv[CG_DIM_M], a_rs, ""),
                                                                LLVMBuildMul(g->b, iv[CG_DIM_K], a_cs, ""), ""),
                                             ci64(g, ea), "");
            asrc = LLVMBuildGEP2(g->b, g->i8, a, &aoff, 1, "asrc");
            if (!fdirect) {
                call_named(g, fpa, (LLVMValueRef[]){abuf, asrc, a_rs, a_cs, blk[CG_DIM_M], blk[CG_DIM_K]}, 6);
                packed_a = true;
            }
        }
    }
    LLVMValueRef mcb = blk[CG_DIM_M], ncb = blk[CG_DIM_N], kcb = blk[CG_DIM_K];
    LLVMValueRef first = LLVMBuildICmp(g->b, LLVMIntEQ, iv[CG_DIM_K], ci64(g, 0), "");
    LLVMValueRef beta = LLVMBuildSelect(g->b, first, beta0, one, "beta");
    LLVMValueRef coff = LLVMBuildMul(g->b, LLVMBuildAdd(g->b, LLVMBuildMul(g->b, iv[CG_DIM_M], c_rs, ""),
                                                        LLVMBuildMul(g->b, iv[CG_DIM_N], c_cs, ""), ""),
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
        call_named(g, fdirect,
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
        call_named(g, fpa, (LLVMValueRef[]){abuf, asrc, a_rs, a_cs, rows, kcb}, 6);
    call_named(g, fmacro, (LLVMValueRef[]){rows, ncb, kcb, abuf, bbuf, cb, c_rs, c_cs, alpha, beta, colsum}, 11);
    LLVMBuildBr(g->b, next);
    LLVMPositionBuilderAtEnd(g->b, next);
    for (int d = 2; d >= 0; d--)
        loop_end(g, &loops[d]);
    LLVMBuildRetVoid(g->b);
    LLVMDisposeBuilder(g->b);
    return verified(mod, "loop nest", err);
}

/* ---- JIT compilation of one signature ---- */

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
    if (!cg_gemm_macro(u.mod, spec, "gemm_macro", false, err) ||
        (direct && !cg_gemm_macro(u.mod, spec, "gemm_macro_direct", true, err)) ||
        !cg_gemm_pack(u.mod, conv_a, spec->mr, kg, "gemm_pack_a", err) ||
        !cg_gemm_pack(u.mod, conv_b, spec->nv * spec->vl, kg, "gemm_pack_b", err) ||
        !cg_gemm_blocks(u.mod, spec, "gemm_blocks", "gemm_macro", direct ? "gemm_macro_direct" : NULL, "gemm_pack_a",
                        "gemm_pack_b", conv_size(conv_a), conv_size(conv_b), err)) {
        cg_unit_close(&u);
        return NULL;
    }
    return cg_unit_jit(&u, &(CgOptions){.opt_level = 3}, err); /* consumes the unit */
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
    return cg_unit_jit(&u, &(CgOptions){.opt_level = 2}, err); /* consumes the unit */
}
