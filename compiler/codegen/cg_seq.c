/* cg_seq.c — a sequencer config JIT-compiled into its address generator: nested counted loops over the entries, outermost first, the address kept by adding strides (no division per element), every stream position's buffer position stored in order. */
#include "cg_impl.h"

#include <stdlib.h>

/* The walk's state while its loops are generated. */
typedef struct SeqGen {
    LLVMContextRef ctx;
    LLVMBuilderRef b;
    LLVMValueRef fn, out, pos;  /* the output array, the slot of the next stream position */
    LLVMTypeRef i64;
    const uint64_t *n;
    const int64_t *stride;
    int count;
} SeqGen;

/* The loops of entries level.. around the store, entered with the address addr (an i64 value). Each loop is a
 * do-while over its n >= 1 iterations with its counter and address in stack slots (mem2reg promotes them). */
static void gen_level(SeqGen *g, int level, LLVMValueRef addr)
{
    LLVMBuilderRef b = g->b;
    if (level == g->count) {
        LLVMValueRef p = LLVMBuildLoad2(b, g->i64, g->pos, "pos");
        LLVMValueRef slot = LLVMBuildGEP2(b, g->i64, g->out, &p, 1, "slot");
        LLVMBuildStore(b, addr, slot);
        LLVMBuildStore(b, LLVMBuildAdd(b, p, LLVMConstInt(g->i64, 1, 0), ""), g->pos);
        return;
    }
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(g->fn), here = LLVMGetInsertBlock(b);
    LLVMPositionBuilder(b, entry, LLVMGetFirstInstruction(entry));
    LLVMValueRef cnt = LLVMBuildAlloca(b, g->i64, "cnt"), at = LLVMBuildAlloca(b, g->i64, "addr");
    LLVMPositionBuilderAtEnd(b, here);
    LLVMBuildStore(b, LLVMConstInt(g->i64, 0, 0), cnt);
    LLVMBuildStore(b, addr, at);
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "body");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->ctx, g->fn, "done");
    LLVMBuildBr(b, body);
    LLVMPositionBuilderAtEnd(b, body);
    gen_level(g, level + 1, LLVMBuildLoad2(b, g->i64, at, "a"));
    LLVMValueRef next = LLVMBuildAdd(b, LLVMBuildLoad2(b, g->i64, cnt, "c"), LLVMConstInt(g->i64, 1, 0), "");
    LLVMBuildStore(b, next, cnt);
    LLVMBuildStore(b, LLVMBuildAdd(b, LLVMBuildLoad2(b, g->i64, at, ""), LLVMConstInt(g->i64, (uint64_t)g->stride[level], 1), ""), at);
    LLVMValueRef more = LLVMBuildICmp(b, LLVMIntULT, next, LLVMConstInt(g->i64, g->n[level], 0), "");
    LLVMBuildCondBr(b, more, body, done);
    LLVMPositionBuilderAtEnd(b, done);
}

JitModule *jit_seq_walk(const uint64_t *n, const int64_t *stride, int count, int opt_level, Diags *d)
{
    for (int i = 0; i < count; i++)
        if (n[i] == 0) {
            diag_error(d, (Loc){0}, "a sequencer entry of 0 iterations");
            return NULL;
        }
    CgUnit u;
    if (!cg_unit_open(&u, "mapc_seq")) {
        diag_error(d, (Loc){0}, "cannot create an LLVM module");
        return NULL;
    }
    SeqGen g = {.ctx = u.ctx, .b = LLVMCreateBuilderInContext(u.ctx), .i64 = LLVMInt64TypeInContext(u.ctx), .n = n,
                .stride = stride, .count = count};
    LLVMTypeRef params[2] = {LLVMPointerType(g.i64, 0), g.i64};
    g.fn = LLVMAddFunction(u.mod, "mapc_seq_walk", LLVMFunctionType(LLVMVoidTypeInContext(u.ctx), params, 2, 0));
    g.out = LLVMGetParam(g.fn, 0);
    LLVMPositionBuilderAtEnd(g.b, LLVMAppendBasicBlockInContext(u.ctx, g.fn, "entry"));
    g.pos = LLVMBuildAlloca(g.b, g.i64, "pos");
    LLVMBuildStore(g.b, LLVMConstInt(g.i64, 0, 0), g.pos);
    gen_level(&g, 0, LLVMGetParam(g.fn, 1));
    LLVMBuildRetVoid(g.b);
    LLVMDisposeBuilder(g.b);
    char *err = NULL;
    if (!cg_unit_verify(&u, "the sequencer walk", &err)) {
        diag_error(d, (Loc){0}, "%s", err ? err : "invalid sequencer walk");
        free(err);
        cg_unit_close(&u);
        return NULL;
    }
    CgOptions opt = {.prefix = "", .opt_level = opt_level};
    JitModule *j = cg_unit_jit(&u, &opt, &err); /* consumes the unit */
    if (!j)
        diag_error(d, (Loc){0}, "%s", err ? err : "JIT: unknown error");
    free(err);
    return j;
}
