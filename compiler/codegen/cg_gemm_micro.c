/* cg_gemm_micro.c — the GEMM macro-kernel: register-blocked micro-tiles over packed panels and their write-back to C. */
#include "cg_gemm_ir.h"

#include <stdlib.h>

/* f32 lanes of a 512-bit register: the only width of the dpbf16ps.512 and vpdpbusd.512 intrinsics. */
enum { ZMM_LANES = 16 };

/* The macro-kernel's types and multiply-adds for its spec. */
typedef struct Micro {
    const CgGemmSpec *s;
    LLVMTypeRef et;         /* accumulator element: f32 or i32 */
    LLVMTypeRef vt;         /* accumulator vector <vl x et> */
    LLVMTypeRef bvt;        /* B load vector: <vl x f32> (F32) or <vl x i32> */
    LLVMTypeRef at;         /* A scalar load: f32 (F32) or i32 (a group of g packed values) */
    LLVMValueRef op;        /* the multiply-add intrinsic (NULL for I32) */
    LLVMTypeRef op_ty;
    LLVMValueRef sfma;      /* scalar fma / fmuladd for the f32 write-back */
    LLVMTypeRef sfma_ty;
} Micro;

/* One micro-tile's write-back: where it goes in the C block and what is written there. */
typedef struct Tile {
    LLVMValueRef cp, rs, cs;        /* the C block (i8*) and its strides, in elements */
    LLVMValueRef i0, j0;            /* the tile's first row and column in the block */
    LLVMValueRef mleft, nleft;      /* rows and columns of the block from (i0, j0) */
    const LLVMValueRef *out;        /* alpha * the accumulators: mr * nv vectors, row by row */
    LLVMValueRef beta, bz;          /* beta, and beta == 0 */
    LLVMValueRef vbeta, vbz;        /* the same splatted (vbz: float kinds only) */
    LLVMValueRef vfma;              /* the vector fma / fmuladd of float kinds */
    LLVMTypeRef vfma_ty;
    LLVMValueRef stack;             /* the stack tile (i8*) of mr x nr elements */
} Tile;

/* C elements are 4 bytes (f32 or i32). */
enum { C_ELEM = 4 };
/* VNNI multiplies u8 A values a + 128: 128 * (the column sums of B), a shift by 7, comes off each result. */
enum { U8_BIAS_SHIFT = 7 };

/* acc + a*b (or the dot-product step) for one accumulator vector. */
static LLVMValueRef mac(Gen *g, const Micro *u, LLVMValueRef acc, LLVMValueRef a, LLVMValueRef b)
{
    switch (u->s->kind) {
    case CG_GEMM_F32: {
        LLVMValueRef args[3] = {a, b, acc};
        return LLVMBuildCall2(g->b, u->op_ty, u->op, args, 3, "");
    }
    case CG_GEMM_BF16DP:
    case CG_GEMM_I8VNNI: {
        LLVMValueRef args[3] = {acc, a, b};
        return LLVMBuildCall2(g->b, u->op_ty, u->op, args, 3, "");
    }
    case CG_GEMM_I32:
        return LLVMBuildAdd(g->b, acc, LLVMBuildMul(g->b, a, b, ""), "");
    }
    return acc;
}

/* The value written to C: alpha*acc + beta*c, or alpha*acc when beta is 0 (C not used then). */
static LLVMValueRef combine(Gen *g, const Micro *u, LLVMValueRef out, LLVMValueRef c, LLVMValueRef beta, LLVMValueRef bz,
                            LLVMValueRef fma, LLVMTypeRef fma_ty)
{
    if (u->s->kind == CG_GEMM_I8VNNI || u->s->kind == CG_GEMM_I32)
        return LLVMBuildAdd(g->b, out, LLVMBuildMul(g->b, beta, c, ""), "");
    LLVMValueRef args[3] = {beta, c, out};
    LLVMValueRef r = LLVMBuildCall2(g->b, fma_ty, fma, args, 3, "");
    return LLVMBuildSelect(g->b, bz, out, r, "");
}

/* Fills u's types and multiply-adds for its spec u->s; false with *err when the kind has no intrinsic
 * for the vector length (bf16 and VNNI need 16 lanes). */
static bool micro_setup(Gen *g, Micro *u, char **err)
{
    const CgGemmSpec *s = u->s;
    bool fl = s->kind == CG_GEMM_F32 || s->kind == CG_GEMM_BF16DP;
    u->et = fl ? g->f32 : g->i32;
    u->vt = LLVMVectorType(u->et, (unsigned)s->vl);
    u->bvt = s->kind == CG_GEMM_F32 ? u->vt : LLVMVectorType(g->i32, (unsigned)s->vl);
    u->at = s->kind == CG_GEMM_F32 ? g->f32 : g->i32;
    const char *fname = s->fused ? "llvm.fma" : "llvm.fmuladd";
    if (s->kind == CG_GEMM_F32)
        u->op = intrinsic(g, fname, &u->vt, 1, &u->op_ty);
    else if (s->kind == CG_GEMM_BF16DP)
        u->op = s->vl == ZMM_LANES ? intrinsic(g, "llvm.x86.avx512bf16.dpbf16ps.512", NULL, 0, &u->op_ty) : NULL;
    else if (s->kind == CG_GEMM_I8VNNI)
        u->op = s->vl == ZMM_LANES ? intrinsic(g, "llvm.x86.avx512.vpdpbusd.512", NULL, 0, &u->op_ty) : NULL;
    if (s->kind != CG_GEMM_I32 && !u->op) {
        *err = strdup("no multiply-add intrinsic for this kernel kind and vector length");
        return false;
    }
    if (fl) {
        LLVMTypeRef sf = g->f32;
        u->sfma = intrinsic(g, fname, &sf, 1, &u->sfma_ty);
    }
    return true;
}

/* The k loop of one micro-tile: mr * nv accumulators carried in phis from zero, one multiply-add per
 * accumulator and k group, reading the A micro-panel at ap (unpacked rows a_rs bytes apart when a_rs is
 * given) and the B micro-panel at bp (unpacked rows b_rs bytes apart when b_rs is given). Leaves the
 * builder after the loop with the accumulators in acc. */
static void accumulate(Gen *g, const Micro *u, LLVMValueRef ap, LLVMValueRef bp, LLVMValueRef ngroups,
                       LLVMValueRef a_rs, LLVMValueRef b_rs, LLVMValueRef *acc)
{
    const CgGemmSpec *s = u->s;
    const int mr = s->mr, nv = s->nv, vl = s->vl, nr = nv * vl, kg = cg_gemm_kgroup(s->kind);
    const int ps = cg_gemm_packed_size(s->kind);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(g->b);
    LLVMBasicBlockRef khead = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "k");
    LLVMBasicBlockRef kbody = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "kbody");
    LLVMBasicBlockRef kexit = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "kexit");
    LLVMBuildBr(g->b, khead);
    LLVMPositionBuilderAtEnd(g->b, khead);
    LLVMValueRef kiv = LLVMBuildPhi(g->b, g->i64, "kg");
    LLVMValueRef zero64 = ci64(g, 0);
    LLVMAddIncoming(kiv, &zero64, &pre, 1);
    LLVMValueRef zacc = LLVMConstNull(u->vt);
    for (int i = 0; i < mr * nv; i++) {
        acc[i] = LLVMBuildPhi(g->b, u->vt, "acc");
        LLVMAddIncoming(acc[i], &zacc, &pre, 1);
    }
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, kiv, ngroups, ""), kbody, kexit);
    LLVMPositionBuilderAtEnd(g->b, kbody);
    LLVMValueRef bvec[CG_GEMM_MAX_NV];
    /* B vectors sit at multiples of their size (vl * 4 bytes) from a line-aligned panel */
    unsigned balign = b_rs ? 4 : (unsigned)(vl * 4 < CG_GEMM_LINE ? vl * 4 : CG_GEMM_LINE);
    LLVMValueRef boff = LLVMBuildMul(g->b, kiv, b_rs ? b_rs : ci64(g, (int64_t)nr * kg * ps), "");
    for (int v = 0; v < nv; v++)
        bvec[v] = load_at(g, u->bvt, bp, LLVMBuildAdd(g->b, boff, ci64(g, (int64_t)v * vl * kg * ps), ""), balign);
    LLVMValueRef aoff = LLVMBuildMul(g->b, kiv, ci64(g, a_rs ? 4 : (int64_t)mr * kg * ps), "");
    LLVMValueRef next[CG_GEMM_MAX_ACC];
    for (int i = 0; i < mr; i++) {
        LLVMValueRef roff = a_rs ? LLVMBuildMul(g->b, a_rs, ci64(g, i), "") : ci64(g, (int64_t)i * kg * ps);
        LLVMValueRef a = load_at(g, u->at, ap, LLVMBuildAdd(g->b, aoff, roff, ""), 4);
        LLVMValueRef va = splat(g, u->bvt, a);
        for (int v = 0; v < nv; v++)
            next[i * nv + v] = mac(g, u, acc[i * nv + v], va, bvec[v]);
    }
    LLVMValueRef knext = LLVMBuildAdd(g->b, kiv, ci64(g, 1), "");
    LLVMBasicBlockRef klatch = LLVMGetInsertBlock(g->b);
    LLVMBuildBr(g->b, khead);
    LLVMAddIncoming(kiv, &knext, &klatch, 1);
    for (int i = 0; i < mr * nv; i++)
        LLVMAddIncoming(acc[i], &next[i], &klatch, 1);
    LLVMPositionBuilderAtEnd(g->b, kexit);
}

/* An edge tile with unit column stride: masked vector read-modify-writes (rows past the block's and
 * columns past its nc masked off, so nothing outside C is touched). */
static void write_masked(Gen *g, const Micro *u, const Tile *t)
{
    const int mr = u->s->mr, nv = u->s->nv, vl = u->s->vl;
    LLVMValueRef esz = ci64(g, C_ELEM);
    LLVMTypeRef vp = LLVMPointerType(u->vt, 0), mt = LLVMVectorType(g->i1, (unsigned)vl);
    LLVMTypeRef lty = NULL, sty = NULL;
    LLVMValueRef mload = intrinsic(g, "llvm.masked.load", (LLVMTypeRef[]){u->vt, vp}, 2, &lty);
    LLVMValueRef mstore = intrinsic(g, "llvm.masked.store", (LLVMTypeRef[]){u->vt, vp}, 2, &sty);
    LLVMValueRef lanes[CG_GEMM_MAX_LANES];
    for (int l = 0; l < vl; l++)
        lanes[l] = ci64(g, l);
    LLVMValueRef iota = LLVMConstVector(lanes, (unsigned)vl);
    LLVMValueRef mm = imin(g, t->mleft, ci64(g, mr));
    LLVMValueRef align4 = ci32(g, 4);
    /* C is read only when beta != 0: with beta = 0 the loads take no lane (they give zeros) */
    LLVMValueRef readc = splat(g, mt, LLVMBuildNot(g->b, t->bz, ""));
    for (int v = 0; v < nv; v++) {
        /* lanes of this vector inside C: lane < nleft - v*vl */
        LLVMValueRef left = LLVMBuildSub(g->b, t->nleft, ci64(g, (int64_t)v * vl), "");
        LLVMValueRef vleft = splat(g, LLVMVectorType(g->i64, (unsigned)vl), left);
        LLVMValueRef cm = LLVMBuildICmp(g->b, LLVMIntSLT, iota, vleft, "");
        for (int i = 0; i < mr; i++) {
            LLVMValueRef rowin = LLVMBuildICmp(g->b, LLVMIntSLT, ci64(g, i), mm, "");
            LLVMValueRef m = LLVMBuildAnd(g->b, cm, splat(g, mt, rowin), "");
            LLVMValueRef row = LLVMBuildMul(g->b, LLVMBuildAdd(g->b, t->i0, ci64(g, i), ""), t->rs, "");
            LLVMValueRef e = LLVMBuildAdd(g->b, row, LLVMBuildAdd(g->b, t->j0, ci64(g, (int64_t)v * vl), ""), "");
            LLVMValueRef ptr = gep_as(g, t->cp, LLVMBuildMul(g->b, e, esz, ""), u->vt);
            LLVMValueRef c = LLVMBuildCall2(g->b, lty, mload,
                                            (LLVMValueRef[]){ptr, align4, LLVMBuildAnd(g->b, m, readc, ""),
                                                             LLVMConstNull(u->vt)},
                                            4, "");
            LLVMValueRef r = combine(g, u, t->out[i * nv + v], c, t->vbeta, t->vbz, t->vfma, t->vfma_ty);
            LLVMBuildCall2(g->b, sty, mstore, (LLVMValueRef[]){r, ptr, align4, m}, 4, "");
        }
    }
}

/* A full tile with unit column stride: vector stores of each row, read-modify-write unless beta == 0
 * (then C is not read at all: half the memory traffic when k is small). Both paths branch to done. */
static void write_full(Gen *g, const Micro *u, const Tile *t, LLVMBasicBlockRef done)
{
    const int mr = u->s->mr, nv = u->s->nv, vl = u->s->vl;
    LLVMValueRef esz = ci64(g, C_ELEM);
    LLVMBasicBlockRef fast_st = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "fast_st");
    LLVMBasicBlockRef fast_rmw = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "fast_rmw");
    LLVMBuildCondBr(g->b, t->bz, fast_st, fast_rmw);
    for (int rmw = 0; rmw < 2; rmw++) {
        LLVMPositionBuilderAtEnd(g->b, rmw ? fast_rmw : fast_st);
        for (int i = 0; i < mr; i++) {
            LLVMValueRef row = LLVMBuildMul(g->b, LLVMBuildAdd(g->b, t->i0, ci64(g, i), ""), t->rs, "");
            for (int v = 0; v < nv; v++) {
                LLVMValueRef e = LLVMBuildAdd(g->b, row, LLVMBuildAdd(g->b, t->j0, ci64(g, (int64_t)v * vl), ""), "");
                LLVMValueRef off = LLVMBuildMul(g->b, e, esz, "");
                LLVMValueRef r = t->out[i * nv + v];
                if (rmw)
                    r = combine(g, u, r, load_at(g, u->vt, t->cp, off, 4), t->vbeta, t->vbz, t->vfma, t->vfma_ty);
                store_at(g, r, t->cp, off, 4);
            }
        }
        LLVMBuildBr(g->b, done);
    }
}

/* An edge tile or a strided C: the tile through the stack tile, then element by element. */
static void write_strided(Gen *g, const Micro *u, const Tile *t)
{
    const int mr = u->s->mr, nv = u->s->nv, vl = u->s->vl, nr = nv * vl;
    LLVMValueRef esz = ci64(g, C_ELEM);
    for (int i = 0; i < mr; i++)
        for (int v = 0; v < nv; v++)
            store_at(g, t->out[i * nv + v], t->stack, ci64(g, ((int64_t)i * nr + (int64_t)v * vl) * C_ELEM), 4);
    LLVMValueRef mm = imin(g, t->mleft, ci64(g, mr)), nn = imin(g, t->nleft, ci64(g, nr));
    Loop li = loop_begin(g, ci64(g, 0), mm, ci64(g, 1), "ti");
    Loop lj = loop_begin(g, ci64(g, 0), nn, ci64(g, 1), "tj");
    LLVMValueRef tix = LLVMBuildAdd(g->b, LLVMBuildMul(g->b, li.iv, ci64(g, nr), ""), lj.iv, "");
    LLVMValueRef xp = gep_as(g, t->stack, LLVMBuildMul(g->b, tix, esz, ""), u->et);
    LLVMValueRef x = LLVMBuildLoad2(g->b, u->et, xp, "");
    LLVMSetAlignment(x, 4);
    LLVMValueRef e = LLVMBuildAdd(g->b, LLVMBuildMul(g->b, LLVMBuildAdd(g->b, t->i0, li.iv, ""), t->rs, ""),
                                  LLVMBuildMul(g->b, LLVMBuildAdd(g->b, t->j0, lj.iv, ""), t->cs, ""), "");
    LLVMValueRef off = LLVMBuildMul(g->b, e, esz, "");
    /* C is read only when beta != 0: with beta = 0 the element read is the stack tile's (combine ignores it) */
    LLVMValueRef c = LLVMBuildLoad2(g->b, u->et, LLVMBuildSelect(g->b, t->bz, xp, gep_as(g, t->cp, off, u->et), ""), "");
    LLVMSetAlignment(c, 4);
    store_at(g, combine(g, u, x, c, t->beta, t->bz, u->sfma, u->sfma_ty), t->cp, off, 4);
    loop_end(g, &lj);
    loop_end(g, &li);
}

bool cg_gemm_macro(LLVMModuleRef mod, const CgGemmSpec *s, const char *name, bool direct_a, bool direct_b, char **err)
{
    *err = NULL;
    if ((direct_a && s->kind != CG_GEMM_F32 && s->kind != CG_GEMM_BF16DP) || (direct_b && s->kind != CG_GEMM_F32)) {
        *err = strdup("a direct A operand needs the f32 or bf16 dot-product kernel, a direct B the f32 one");
        return false;
    }
    if (direct_b && !direct_a) {
        *err = strdup("a direct B operand needs a direct A operand");
        return false;
    }
    if (s->mr < 1 || s->nv < 1 || s->vl < 1 || s->mr * s->nv > CG_GEMM_MAX_ACC || s->nv > CG_GEMM_MAX_NV ||
        s->vl > CG_GEMM_MAX_LANES) {
        *err = strdup("invalid micro-tile");
        return false;
    }
    Gen gen, *g = &gen;
    cg_gemm_gen_init(g, mod);
    Micro micro = {.s = s}, *u = &micro;
    if (!micro_setup(g, u, err))
        return false;
    const int mr = s->mr, nv = s->nv, vl = s->vl, nr = nv * vl, kg = cg_gemm_kgroup(s->kind);
    const int ps = cg_gemm_packed_size(s->kind);
    LLVMTypeRef params[13] = {g->i64, g->i64, g->i64, g->i8p, g->i8p, g->i8p, g->i64, g->i64, u->et, u->et, g->i8p,
                              g->i64, g->i64};
    LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(g->ctx), params, direct_b ? 13 : direct_a ? 12 : 11, 0);
    g->fn = LLVMAddFunction(mod, name, fty);
    LLVMValueRef mc = LLVMGetParam(g->fn, 0), nc = LLVMGetParam(g->fn, 1), kc = LLVMGetParam(g->fn, 2);
    LLVMValueRef ap0 = LLVMGetParam(g->fn, 3), bp0 = LLVMGetParam(g->fn, 4);
    LLVMValueRef alpha = LLVMGetParam(g->fn, 8), colsum = LLVMGetParam(g->fn, 10);
    LLVMValueRef a_rs = direct_a ? LLVMGetParam(g->fn, 11) : NULL; /* bytes between rows of a direct A */
    LLVMValueRef b_rs = direct_b ? LLVMGetParam(g->fn, 12) : NULL; /* bytes between rows of a direct B */
    Tile t = {.cp = LLVMGetParam(g->fn, 5), .rs = LLVMGetParam(g->fn, 6), .cs = LLVMGetParam(g->fn, 7),
              .beta = LLVMGetParam(g->fn, 9)};
    for (unsigned i = 3; i <= 5; i++) /* A, B and C */
        LLVMAddAttributeAtIndex(g->fn, i + 1,
                                LLVMCreateEnumAttribute(g->ctx, LLVMGetEnumAttributeKindForName("noalias", 7), 0));

    g->b = LLVMCreateBuilderInContext(g->ctx); /* owned: disposed below */
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "entry");
    LLVMPositionBuilderAtEnd(g->b, entry);
    LLVMValueRef stack = LLVMBuildArrayAlloca(g->b, u->et, ci32(g, mr * nr), "tile");
    LLVMSetAlignment(stack, CG_GEMM_LINE);
    t.stack = LLVMBuildBitCast(g->b, stack, g->i8p, "");
    /* kcp = kc rounded up to the k group; the groups and the panel sizes in bytes */
    LLVMValueRef kgroups = LLVMBuildSDiv(g->b, LLVMBuildAdd(g->b, kc, ci64(g, kg - 1), ""), ci64(g, kg), "");
    LLVMValueRef kcp = LLVMBuildMul(g->b, kgroups, ci64(g, kg), "kcp");
    LLVMValueRef ngroups = LLVMBuildSDiv(g->b, kcp, ci64(g, kg), "ngroups");
    LLVMValueRef a_panel = direct_a ? LLVMBuildMul(g->b, a_rs, ci64(g, mr), "")
                                    : LLVMBuildMul(g->b, kcp, ci64(g, (int64_t)mr * ps), "");
    LLVMValueRef b_panel = direct_b ? ci64(g, (int64_t)nr * ps) : LLVMBuildMul(g->b, kcp, ci64(g, (int64_t)nr * ps), "");
    LLVMValueRef valpha = splat(g, u->vt, alpha);
    t.vbeta = splat(g, u->vt, t.beta);
    bool fl = u->et == g->f32;
    t.bz = fl ? LLVMBuildFCmp(g->b, LLVMRealOEQ, t.beta, LLVMConstReal(g->f32, 0.0), "bz")
              : LLVMBuildICmp(g->b, LLVMIntEQ, t.beta, ci32(g, 0), "bz");
    t.vbz = fl ? splat(g, LLVMVectorType(g->i1, (unsigned)vl), t.bz) : NULL;
    if (fl)
        t.vfma = intrinsic(g, s->fused ? "llvm.fma" : "llvm.fmuladd", &u->vt, 1, &t.vfma_ty);
    LLVMValueRef esz = ci64(g, C_ELEM);

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
    t.i0 = ir.iv;
    t.j0 = jr.iv;
    LLVMValueRef q = LLVMBuildSDiv(g->b, jr.iv, ci64(g, nr), "");
    LLVMValueRef bp = LLVMBuildGEP2(g->b, g->i8, bp0, (LLVMValueRef[]){LLVMBuildMul(g->b, q, b_panel, "")}, 1, "bp");
    LLVMValueRef p = LLVMBuildSDiv(g->b, ir.iv, ci64(g, mr), "");
    LLVMValueRef ap = LLVMBuildGEP2(g->b, g->i8, ap0, (LLVMValueRef[]){LLVMBuildMul(g->b, p, a_panel, "")}, 1, "ap");
    LLVMValueRef acc[CG_GEMM_MAX_ACC];
    accumulate(g, u, ap, bp, ngroups, a_rs, b_rs, acc);

    /* alpha * acc (VNNI: minus 128 * the column sums first) */
    LLVMValueRef out[CG_GEMM_MAX_ACC];
    for (int v = 0; v < nv; v++) {
        LLVMValueRef corr = NULL;
        if (s->kind == CG_GEMM_I8VNNI) {
            LLVMValueRef off = LLVMBuildMul(g->b, LLVMBuildAdd(g->b, jr.iv, ci64(g, (int64_t)v * vl), ""), esz, "");
            corr = LLVMBuildShl(g->b, load_at(g, u->vt, colsum, off, 4), splat(g, u->vt, ci32(g, U8_BIAS_SHIFT)), "");
        }
        for (int i = 0; i < mr; i++) {
            LLVMValueRef x = acc[i * nv + v];
            if (corr)
                x = LLVMBuildSub(g->b, x, corr, "");
            out[i * nv + v] = fl ? LLVMBuildFMul(g->b, valpha, x, "") : LLVMBuildMul(g->b, valpha, x, "");
        }
    }
    t.out = out;

    /* full tiles with unit column stride, edge tiles with it, the rest */
    t.mleft = LLVMBuildSub(g->b, mc, ir.iv, "");
    t.nleft = LLVMBuildSub(g->b, nc, jr.iv, "");
    LLVMValueRef full = LLVMBuildAnd(
        g->b,
        LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntSGE, t.mleft, ci64(g, mr), ""),
                     LLVMBuildICmp(g->b, LLVMIntSGE, t.nleft, ci64(g, nr), ""), ""),
        LLVMBuildICmp(g->b, LLVMIntEQ, t.cs, ci64(g, 1), ""), "full");
    LLVMBasicBlockRef fast = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "fast");
    LLVMBasicBlockRef slow = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "slow");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "done");
    LLVMBasicBlockRef notfull = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "notfull");
    LLVMBasicBlockRef masked = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "masked");
    LLVMBuildCondBr(g->b, full, fast, notfull);
    LLVMPositionBuilderAtEnd(g->b, notfull);
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, t.cs, ci64(g, 1), ""), masked, slow);
    LLVMPositionBuilderAtEnd(g->b, masked);
    write_masked(g, u, &t);
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, fast);
    write_full(g, u, &t, done);
    LLVMPositionBuilderAtEnd(g->b, slow);
    write_strided(g, u, &t);
    LLVMBuildBr(g->b, done);

    LLVMPositionBuilderAtEnd(g->b, done);
    loop_end(g, s->a_outer ? &jr : &ir);
    loop_end(g, s->a_outer ? &ir : &jr);
    LLVMBuildRetVoid(g->b);
    LLVMDisposeBuilder(g->b);
    return cg_gemm_verified(mod, "kernel", err);
}
