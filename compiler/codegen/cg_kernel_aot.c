/* cg_kernel_aot.c — declared GEMM kernels described for the runner (CgAotKernel) and compiled ahead of time into
 * an emitted object: their routines, the relayout kernels of staged operands, the descriptor, the entry point. */
#include "algebra/algebra.h"
#include "cg_gemm_impl.h"
#include "desc/desc.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static TargetInput input_of(ElemType e)
{
    return e == ELEM_BF16 ? TARGET_IN_BF16 : e == ELEM_F16 ? TARGET_IN_F16 : e == ELEM_I8 ? TARGET_IN_I8 : TARGET_IN_F32;
}

int cg_kernel_describe(Prog *p, const KernelDecl *k, int kgroup, CgAotKernel *d, const Map *layout[3],
                       const Map *staging[3], char *err, size_t cap)
{
    const TargetInfo *ti = target_info(k->isa);
    kgroup = kgroup ? kgroup : k->kgroup;
    const TargetGroup *grp = target_group(ti, input_of(k->a->elem), kgroup);
    if (!grp) {
        snprintf(err, cap, "kernel %s: %s has no instruction for K groups of %d", k->name, ti->label, kgroup);
        return -1;
    }
    CgGemmSpec spec;
    CgPackConv ca, cb;
    cg_gemm_spec_for(ti, grp->op, input_of(k->a->elem), k->mr, k->nr, k->order, &spec, &ca, &cb);
    *d = (CgAotKernel){.abi = CG_AOT_ABI, .isa = k->isa, .kind = spec.kind, .mr = spec.mr, .nv = spec.nv,
                       .vl = spec.vl, .fused = spec.fused, .a_outer = spec.a_outer,
                       .order = {spec.order[0], spec.order[1], spec.order[2]}, .conv_a = ca, .conv_b = cb,
                       .kgroup = kgroup, .mc = (int64_t)k->tile[GEMM_M], .nc = (int64_t)k->tile[GEMM_N],
                       .kc = (int64_t)k->tile[GEMM_K], .split = k->split == GEMM_N};
    const TensorDecl *ops[3] = {k->a, k->b, k->c};
    MapWhy why;
    for (int i = 0; i < 3; i++)
        if (!(layout[i] = tensor_layout(&p->arena, ops[i]->mem, ops[i]->maps, why))) {
            snprintf(err, cap, "kernel %s: the layout of tensor %s: %s", k->name, ops[i]->name, why);
            return -1;
        }
    KernelPlan pl;
    if (kernel_plan(p, k, layout, &pl, err, cap))
        return -1;
    int64_t *blocks = malloc((pl.nblocks ? pl.nblocks : 1) * 4 * sizeof *blocks);
    if (!blocks) {
        kernel_plan_free(&pl);
        snprintf(err, cap, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < pl.nblocks; i++) {
        const KernelBlock *b = &pl.blocks[i];
        int64_t v[4] = {(int64_t)b->m0, (int64_t)b->n0, (int64_t)b->rows, (int64_t)b->cols};
        memcpy(blocks + 4 * i, v, sizeof v);
    }
    d->nblocks = (int64_t)pl.nblocks;
    d->blocks = blocks;
    int r = 0;
    for (int i = 0; i < 3 && r == 0; i++) {
        int ax, ay;
        kernel_operand_axes(k, i, &ax, &ay);
        staging[i] = NULL;
        if (!pl.acc[i].strided && !(staging[i] = kernel_staging_layout(p, k, i, why)))
            r = -1, snprintf(err, cap, "kernel %s: the staging layout of %s: %s", k->name, ops[i]->name, why);
        d->op[i] = (CgAotOperand){.elem = ops[i]->elem, .elems = (int64_t)layout[i]->size,
                                  .rows = (int64_t)p->axes[ax].size, .cols = (int64_t)p->axes[ay].size,
                                  .strided = pl.acc[i].strided, .rs = pl.acc[i].rs, .cs = pl.acc[i].cs,
                                  .base = (int64_t)pl.acc[i].base};
    }
    kernel_plan_free(&pl);
    if (r) {
        free(blocks);
        d->blocks = NULL;
    }
    return r;
}

/* ---- ahead of time: the object's functions and constants ---- */

const char *cg_aot_features(TargetIsa isa, CgGemmKind kind)
{
    switch (isa) {
    case TARGET_ISA_AVX512:
        return kind == CG_GEMM_BF16DP   ? "+avx512f,+avx512bw,+avx512vl,+avx512dq,+avx2,+avx,+fma,+f16c,+avx512bf16"
               : kind == CG_GEMM_I8VNNI ? "+avx512f,+avx512bw,+avx512vl,+avx512dq,+avx2,+avx,+fma,+f16c,+avx512vnni"
                                        : "+avx512f,+avx512bw,+avx512vl,+avx512dq,+avx2,+avx,+fma,+f16c";
    case TARGET_ISA_AVX2:
        return "+avx2,+avx,+fma,+f16c";
    default:
        return ""; /* portable: the base instruction set */
    }
}

/* Whether fn carries the string attribute key with exactly value. */
static bool has_attribute(LLVMValueRef fn, const char *key, const char *value)
{
    LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, key, (unsigned)strlen(key));
    unsigned n = 0;
    const char *v = a ? LLVMGetStringAttributeValue(a, &n) : NULL;
    return v && n == strlen(value) && memcmp(v, value, n) == 0;
}

/* Bounds fn, and every function with a body it calls (directly or through others), to the base CPU cpu
 * (base_cpu) plus features, whatever the object's --cpu is. A callee left to the object's CPU would not be
 * inlined into a bounded caller (LLVM inlines only callees whose features the caller has) and would run its
 * instructions from inside the kernel. */
static void bound(Cg *cg, LLVMValueRef fn, const char *cpu, const char *features)
{
    if (!fn || LLVMIsDeclaration(fn) || (has_attribute(fn, "target-cpu", cpu) &&
                                         has_attribute(fn, "target-features", features)))
        return;
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateStringAttribute(cg->ctx, "target-cpu", 10, cpu, (unsigned)strlen(cpu)));
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateStringAttribute(cg->ctx, "target-features", 15, features,
                                                      (unsigned)strlen(features)));
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
            if (LLVMIsACallInst(i)) {
                LLVMValueRef callee = LLVMGetCalledValue(i);
                if (callee && LLVMIsAFunction(callee))
                    bound(cg, callee, cpu, features);
            }
}

/* The base CPU routines bounded to an ISA are compiled for: "x86-64" (SSE2) on x86-64 hosts, else "generic". */
static const char *base_cpu(void)
{
    char *triple = LLVMGetDefaultTargetTriple(); /* owned: LLVMDisposeMessage */
    const char *cpu = strncmp(triple, "x86_64", 6) == 0 ? "x86-64" : "generic";
    LLVMDisposeMessage(triple);
    return cpu;
}

/* Makes the module's function `name` internal; NULL if absent. */
static LLVMValueRef seal(Cg *cg, const char *name)
{
    LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, name);
    if (fn)
        LLVMSetLinkage(fn, LLVMInternalLinkage);
    return fn;
}

/* A private constant global holding init. */
static LLVMValueRef private_const(Cg *cg, const char *name, LLVMValueRef init)
{
    LLVMValueRef g = LLVMAddGlobal(cg->mod, LLVMTypeOf(init), name);
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, true);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    return g;
}

/* The relayout kernel `sym` (prefixed by the generator) from src to dst as elem, internal; NULL on failure. */
static LLVMValueRef stage_copy(Cg *cg, const KernelDecl *k, const char *sym, const Map *src, const Map *dst,
                               ElemType elem)
{
    Copy c = {.name = sym, .src = src, .dst = dst, .elem = elem, .loc = k->loc};
    cg_emit_copy(cg, &c);
    if (cg->failed)
        return NULL;
    char full[512];
    /* the kernel runs the whole copy only: its parts function would be an unbounded, unused symbol */
    snprintf(full, sizeof full, "%s%s_part", cg->prefix, sym);
    LLVMValueRef part = LLVMGetNamedFunction(cg->mod, full);
    if (part && !LLVMGetFirstUse(part))
        LLVMDeleteFunction(part);
    else if (part)
        LLVMSetLinkage(part, LLVMInternalLinkage);
    snprintf(full, sizeof full, "%s%s", cg->prefix, sym);
    return seal(cg, full);
}

/* The failure of kernel k's generation: a diagnostic at the kernel. */
static void kernel_error(Cg *cg, const KernelDecl *k, const char *what, const char *msg)
{
    diag_error(cg->diags, k->loc, "kernel %s cannot be emitted: %s%s%s", k->name, what, msg ? ": " : "",
               msg ? msg : "");
    cg->failed = true;
}

/* The descriptor d as an LLVM constant: its words in order, each pointer field the value given for its offset
 * (ptrs[j] for the field at offs[j]), every other word d's integer. */
static LLVMValueRef descriptor_const(Cg *cg, const CgAotKernel *d, const size_t *offs, LLVMValueRef *ptrs, int n)
{
    enum { WORDS = sizeof(CgAotKernel) / sizeof(int64_t) };
    _Static_assert(sizeof(CgAotKernel) % sizeof(int64_t) == 0 && sizeof(void *) == sizeof(int64_t),
                   "every field of the descriptor is one 64-bit word");
    LLVMValueRef words[WORDS];
    for (size_t w = 0; w < WORDS; w++) {
        words[w] = NULL;
        for (int j = 0; j < n; j++)
            if (offs[j] == w * sizeof(int64_t))
                words[w] = ptrs[j] ? LLVMConstBitCast(ptrs[j], cg->vptr) : LLVMConstNull(cg->vptr);
        if (!words[w]) {
            int64_t v;
            memcpy(&v, (const char *)d + w * sizeof v, sizeof v);
            words[w] = LLVMConstInt(cg->i64, (unsigned long long)v, true);
        }
    }
    return LLVMConstStructInContext(cg->ctx, words, WORDS, false);
}

void cg_emit_kernel(Cg *cg, const KernelDecl *k)
{
    Prog *p = (Prog *)cg->prog; /* describing only adds nodes to the program's arena */
    CgAotKernel d;
    const Map *layout[3], *staging[3];
    char err[256];
    if (cg_kernel_describe(p, k, 0, &d, layout, staging, err, sizeof err)) {
        kernel_error(cg, k, "its plan", err);
        return;
    }
    /* the routines, named after the kernel so that several kernels share one object */
    char macro[256], pack_a[256], pack_b[256], nest[256], sym[256];
    snprintf(macro, sizeof macro, "%s%s.macro", cg->prefix, k->name);
    snprintf(pack_a, sizeof pack_a, "%s%s.pack_a", cg->prefix, k->name);
    snprintf(pack_b, sizeof pack_b, "%s%s.pack_b", cg->prefix, k->name);
    snprintf(nest, sizeof nest, "%s%s.blocks", cg->prefix, k->name);
    CgGemmSpec spec = {.kind = (CgGemmKind)d.kind, .mr = (int)d.mr, .nv = (int)d.nv, .vl = (int)d.vl,
                       .fused = d.fused != 0, .a_outer = d.a_outer != 0,
                       .order = {d.order[0], d.order[1], d.order[2]}};
    char *msg = NULL;
    int kg = cg_gemm_kgroup(spec.kind);
    if (!cg_gemm_macro(cg->mod, &spec, macro, false, false, &msg) ||
        !cg_gemm_pack(cg->mod, (CgPackConv)d.conv_a, spec.mr, kg, pack_a, &msg) ||
        !cg_gemm_pack(cg->mod, (CgPackConv)d.conv_b, spec.nv * spec.vl, kg, pack_b, &msg) ||
        !cg_gemm_blocks(cg->mod, &spec, nest, macro, NULL, pack_a, pack_b, (int)elem_type_size(k->a->elem),
                        (int)elem_type_size(k->b->elem), &msg)) {
        kernel_error(cg, k, "its routines", msg);
        free(msg);
        free((void *)d.blocks);
        return;
    }
    const char *features = cg_aot_features(k->isa, spec.kind);
    const TensorDecl *ops[3] = {k->a, k->b, k->c};
    size_t offs[12];
    LLVMValueRef ptrs[12];
    int n = 0;
    offs[n] = offsetof(CgAotKernel, name);
    snprintf(sym, sizeof sym, "%s%s.name", cg->prefix, k->name);
    ptrs[n++] = private_const(cg, sym, LLVMConstStringInContext(cg->ctx, k->name, (unsigned)strlen(k->name), false));
    for (int i = 0; i < 3 && !cg->failed; i++) {
        offs[n] = offsetof(CgAotKernel, op) + (size_t)i * sizeof(CgAotOperand) + offsetof(CgAotOperand, stage_in);
        offs[n + 1] = offs[n] - offsetof(CgAotOperand, stage_in) + offsetof(CgAotOperand, stage_out);
        ptrs[n] = ptrs[n + 1] = NULL;
        if (staging[i]) {
            snprintf(sym, sizeof sym, "%s.stage_in_%c", k->name, "abc"[i]);
            ptrs[n] = stage_copy(cg, k, sym, layout[i], staging[i], ops[i]->elem);
            if (i == 2) {
                snprintf(sym, sizeof sym, "%s.stage_out_c", k->name);
                ptrs[n + 1] = stage_copy(cg, k, sym, staging[i], layout[i], ops[i]->elem);
            }
        }
        n += 2;
    }
    size_t nb = (size_t)d.nblocks * 4;
    LLVMValueRef *bv = cg->failed ? NULL : malloc((nb ? nb : 1) * sizeof *bv);
    if (!cg->failed && !bv)
        kernel_error(cg, k, "out of memory", NULL);
    if (cg->failed) {
        free(bv);
        free((void *)d.blocks);
        return;
    }
    for (size_t i = 0; i < nb; i++)
        bv[i] = LLVMConstInt(cg->i64, (unsigned long long)d.blocks[i], true);
    offs[n] = offsetof(CgAotKernel, blocks);
    snprintf(sym, sizeof sym, "%s%s.blocks_of_c", cg->prefix, k->name);
    ptrs[n++] = private_const(cg, sym, LLVMConstArray(cg->i64, bv, (unsigned)nb));
    free(bv);
    free((void *)d.blocks);
    const size_t fn_offs[4] = {offsetof(CgAotKernel, macro), offsetof(CgAotKernel, pack_a),
                               offsetof(CgAotKernel, pack_b), offsetof(CgAotKernel, loop_nest)};
    const char *fn_names[4] = {macro, pack_a, pack_b, nest};
    for (int j = 0; j < 4; j++) {
        offs[n] = fn_offs[j];
        ptrs[n++] = seal(cg, fn_names[j]);
    }
    snprintf(sym, sizeof sym, "%s%s.descriptor", cg->prefix, k->name);
    LLVMValueRef desc = private_const(cg, sym, descriptor_const(cg, &d, offs, ptrs, n));

    /* int PREFIX<name>(const void *a, const void *b, void *c, double alpha, double beta, int threads)
     *     { return mapc_aot_run(&descriptor, a, b, c, alpha, beta, threads); } */
    LLVMTypeRef dbl = LLVMDoubleTypeInContext(cg->ctx);
    LLVMTypeRef run_args[7] = {cg->vptr, cg->vptr, cg->vptr, cg->vptr, dbl, dbl, cg->i32};
    LLVMTypeRef run_ty = LLVMFunctionType(cg->i32, run_args, 7, false);
    LLVMValueRef run = LLVMGetNamedFunction(cg->mod, "mapc_aot_run");
    if (!run)
        run = LLVMAddFunction(cg->mod, "mapc_aot_run", run_ty);
    snprintf(sym, sizeof sym, "%s%s", cg->prefix, k->name);
    if (LLVMGetNamedFunction(cg->mod, sym) || LLVMGetNamedGlobal(cg->mod, sym)) {
        /* a name the object has already (the runner it calls, another function): LLVM would rename the entry
         * point (sym.1), and the header's declaration would bind to the other */
        char msg[320];
        snprintf(msg, sizeof msg, "'%s' names another function of the object", sym);
        kernel_error(cg, k, "its entry point", msg);
        return;
    }
    LLVMValueRef entry = LLVMAddFunction(cg->mod, sym, LLVMFunctionType(cg->i32, run_args + 1, 6, false));
    LLVMPositionBuilderAtEnd(cg->b, LLVMAppendBasicBlockInContext(cg->ctx, entry, "entry"));
    LLVMValueRef args[7] = {LLVMConstBitCast(desc, cg->vptr)};
    for (int i = 0; i < 6; i++)
        args[i + 1] = LLVMGetParam(entry, (unsigned)i);
    LLVMBuildRet(cg->b, LLVMBuildCall2(cg->b, run_ty, run, args, 7, ""));
    /* every instruction the kernel runs is of its ISA (the runner checks that the host has it): the entry
     * point, the routines, the staging kernels, and every function they call */
    const char *cpu = base_cpu();
    bound(cg, entry, cpu, features);
    for (int j = 0; j < n; j++)
        if (ptrs[j] && LLVMIsAFunction(ptrs[j]))
            bound(cg, ptrs[j], cpu, features);
}
