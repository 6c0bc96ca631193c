/* cg_gemm_ir.h — the IR helpers the GEMM generators share (codegen/ only): generator state, constants,
 * byte-addressed loads and stores, splats, intrinsics, counted loops. */
#ifndef MAPC_CG_GEMM_IR_H
#define MAPC_CG_GEMM_IR_H

#include "cg_gemm_impl.h"

#include <string.h>

/* Bounds of the generators' unrolled arrays: the largest micro-tile of any target table. */
enum {
    CG_GEMM_MAX_ACC = TARGET_MAX_VEC_REGS,      /* accumulators, one vector register each */
    CG_GEMM_MAX_NV = TARGET_MAX_NV,             /* B vectors of one micro-tile row */
    CG_GEMM_MAX_LANES = TARGET_MAX_LANES,       /* lanes of one accumulator vector */
    CG_GEMM_MAX_PANEL = TARGET_MAX_PANEL,       /* rows of an A panel or columns of a B panel */
    CG_GEMM_MAX_SHUFFLE = TARGET_MAX_PANEL * TARGET_MAX_KGROUP, /* lanes of one interleaved k group */
};

/* Bytes of a cache line: packed panels and the micro-kernel's stack tile start on one (the engine
 * allocates its packing buffers so), which aligned vector accesses rely on. */
enum { CG_GEMM_LINE = 64 };

/* The state of one generator: the module it adds a function to, that function and its builder. */
typedef struct Gen {
    LLVMContextRef ctx;
    LLVMModuleRef mod;      /* borrowed */
    LLVMBuilderRef b;       /* owned: disposed by the generator that created it */
    LLVMValueRef fn;        /* the function being generated */
    LLVMTypeRef i1, i8, i16, i32, i64, f32, i8p;
} Gen;

/* A generator over mod with its scalar types; no function and no builder yet. */
void cg_gemm_gen_init(Gen *g, LLVMModuleRef mod);

/* Verifies mod after generating `what` into it: true, or false with *err (malloc'ed) saying why. */
bool cg_gemm_verified(LLVMModuleRef mod, const char *what, char **err);

static inline LLVMValueRef ci64(Gen *g, int64_t v) { return LLVMConstInt(g->i64, (unsigned long long)v, 1); }
static inline LLVMValueRef ci32(Gen *g, int32_t v) { return LLVMConstInt(g->i32, (unsigned long long)(int64_t)v, 1); }

/* A pointer to t at base + byte offset off (base an i8*). */
static inline LLVMValueRef gep_as(Gen *g, LLVMValueRef base, LLVMValueRef off, LLVMTypeRef t)
{
    LLVMValueRef p = LLVMBuildGEP2(g->b, g->i8, base, &off, 1, "");
    return LLVMBuildBitCast(g->b, p, LLVMPointerType(t, 0), "");
}

/* A load of t from base + off bytes, declared align-aligned. */
static inline LLVMValueRef load_at(Gen *g, LLVMTypeRef t, LLVMValueRef base, LLVMValueRef off, unsigned align)
{
    LLVMValueRef v = LLVMBuildLoad2(g->b, t, gep_as(g, base, off, t), "");
    LLVMSetAlignment(v, align);
    return v;
}

/* A store of v to base + off bytes, declared align-aligned. */
static inline void store_at(Gen *g, LLVMValueRef v, LLVMValueRef base, LLVMValueRef off, unsigned align)
{
    LLVMValueRef st = LLVMBuildStore(g->b, v, gep_as(g, base, off, LLVMTypeOf(v)));
    LLVMSetAlignment(st, align);
}

/* A vector of type t whose lanes are all the scalar x (of type LLVMGetElementType(t)). */
static inline LLVMValueRef splat(Gen *g, LLVMTypeRef t, LLVMValueRef x)
{
    LLVMValueRef v = LLVMBuildInsertElement(g->b, LLVMGetUndef(t), x, ci32(g, 0), "");
    LLVMTypeRef mt = LLVMVectorType(g->i32, LLVMGetVectorSize(t));
    return LLVMBuildShuffleVector(g->b, v, LLVMGetUndef(t), LLVMConstNull(mt), "");
}

/* The declaration of intrinsic `name` overloaded on over[nover] in g's module, its type in *fty; NULL if
 * LLVM has no such intrinsic. */
static inline LLVMValueRef intrinsic(Gen *g, const char *name, LLVMTypeRef *over, unsigned nover, LLVMTypeRef *fty)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    if (!id)
        return NULL;
    *fty = LLVMIntrinsicGetType(g->ctx, id, over, nover);
    return LLVMGetIntrinsicDeclaration(g->mod, id, over, nover);
}

/* A call of the module function fn. */
static inline LLVMValueRef call_fn(Gen *g, LLVMValueRef fn, LLVMValueRef *argv, unsigned n)
{
    return LLVMBuildCall2(g->b, LLVMGlobalGetValueType(fn), fn, argv, n, "");
}

/* The signed minimum of two i64 values. */
static inline LLVMValueRef imin(Gen *g, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, a, b, ""), a, b, "");
}

/* A counted loop: `for (iv = start; iv < end; iv += step)`. loop_begin leaves the builder in the
 * body; loop_end closes it and leaves the builder after the loop. */
typedef struct Loop {
    LLVMBasicBlockRef head, exit;
    LLVMValueRef iv, step;
} Loop;

static inline Loop loop_begin(Gen *g, LLVMValueRef start, LLVMValueRef end, LLVMValueRef step, const char *name)
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

static inline void loop_end(Gen *g, Loop *l)
{
    LLVMValueRef next = LLVMBuildAdd(g->b, l->iv, l->step, "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(g->b);
    LLVMBuildBr(g->b, l->head);
    LLVMAddIncoming(l->iv, &next, &latch, 1);
    LLVMPositionBuilderAtEnd(g->b, l->exit);
}

#endif
