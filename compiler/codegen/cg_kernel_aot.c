/* cg_kernel_aot.c — declared GEMM kernels compiled ahead of time into an emitted object: their routines, the
 * relayout kernels of staged operands, the descriptor the runner reads, and the exported entry point. */
#include "algebra/algebra.h"
#include "cg_gemm_impl.h"
#include "desc/desc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The target features the kernel's routines are compiled with, whatever the object's CPU: the ISA's vector
 * instructions plus the dot product of the kernel kind (checked on the running host by the runner). */
static const char *isa_features(TargetIsa isa, CgGemmKind kind)
{
    switch (isa) {
    case TARGET_ISA_AVX512:
        return kind == CG_GEMM_BF16DP   ? "+avx512f,+avx512bw,+avx512vl,+avx512dq,+avx2,+avx,+fma,+f16c,+avx512bf16"
               : kind == CG_GEMM_I8VNNI ? "+avx512f,+avx512bw,+avx512vl,+avx512dq,+avx2,+avx,+fma,+f16c,+avx512vnni"
                                        : "+avx512f,+avx512bw,+avx512vl,+avx512dq,+avx2,+avx,+fma,+f16c";
    case TARGET_ISA_AVX2:
        return "+avx2,+avx,+fma,+f16c";
    default:
        return NULL; /* portable: the object's own CPU */
    }
}

static TargetInput input_of(ElemType e)
{
    return e == ELEM_BF16 ? TARGET_IN_BF16 : e == ELEM_F16 ? TARGET_IN_F16 : e == ELEM_I8 ? TARGET_IN_I8 : TARGET_IN_F32;
}

/* Makes the module's function `name` internal and gives it the features (NULL: none); false if absent. */
static bool seal(Cg *cg, const char *name, const char *features)
{
    LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, name);
    if (!fn)
        return false;
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    if (features)
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                LLVMCreateStringAttribute(cg->ctx, "target-features", 15, features,
                                                          (unsigned)strlen(features)));
    return true;
}

static LLVMValueRef ptr_to(Cg *cg, LLVMValueRef v)
{
    return v ? LLVMConstBitCast(v, cg->vptr) : LLVMConstNull(cg->vptr);
}

/* A private constant global holding init; its address as i8*. */
static LLVMValueRef private_const(Cg *cg, const char *name, LLVMValueRef init)
{
    LLVMValueRef g = LLVMAddGlobal(cg->mod, LLVMTypeOf(init), name);
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, true);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    return g;
}

typedef struct Fields {
    LLVMValueRef v[64];
    int n;
} Fields;

static void add_i64(Cg *cg, Fields *f, int64_t x)
{
    f->v[f->n++] = LLVMConstInt(cg->i64, (unsigned long long)x, true);
}

static void add_ptr(Cg *cg, Fields *f, LLVMValueRef p)
{
    f->v[f->n++] = ptr_to(cg, p);
}

/* Emits the relayout kernel `sym` (prefixed by the generator) from src to dst as elem, internal. */
static LLVMValueRef stage_copy(Cg *cg, const KernelDecl *k, const char *sym, const Map *src, const Map *dst,
                               ElemType elem)
{
    Copy c = {.name = sym, .src = src, .dst = dst, .elem = elem, .loc = k->loc};
    cg_emit_copy(cg, &c);
    if (cg->failed)
        return NULL;
    char full[512];
    snprintf(full, sizeof full, "%s%s", cg->prefix, sym);
    seal(cg, full, NULL);
    return LLVMGetNamedFunction(cg->mod, full);
}

/* The failure of kernel k's generation: a diagnostic at the kernel. */
static void kernel_error(Cg *cg, const KernelDecl *k, const char *what, const char *msg)
{
    diag_error(cg->diags, k->loc, "kernel %s cannot be emitted: %s%s%s", k->name, what, msg ? ": " : "",
               msg ? msg : "");
    cg->failed = true;
}

void cg_emit_kernel(Cg *cg, const KernelDecl *k)
{
    Prog *p = (Prog *)cg->prog; /* the plan only adds nodes to the program's arena */
    const TargetInfo *ti = target_info(k->isa);
    const TargetGroup *grp = target_group(ti, input_of(k->a->elem), k->kgroup);
    if (!grp) {
        kernel_error(cg, k, "its K group has no instruction on", ti->label);
        return;
    }
    CgGemmSpec spec;
    CgPackConv ca, cb;
    cg_gemm_spec_for(ti, grp->op, input_of(k->a->elem), k->mr, k->nr, k->order, &spec, &ca, &cb);
    const TensorDecl *ops[3] = {k->a, k->b, k->c};
    const Map *layout[3];
    MapWhy why;
    for (int i = 0; i < 3; i++)
        if (!(layout[i] = tensor_layout(&p->arena, ops[i]->mem, ops[i]->maps, why))) {
            kernel_error(cg, k, "the layout of its operand", why);
            return;
        }
    KernelPlan pl;
    char err[256];
    if (kernel_plan(p, k, layout, &pl, err, sizeof err)) {
        kernel_error(cg, k, "its plan", err);
        return;
    }
    /* the routines, named after the kernel so that several kernels share one object */
    char macro[256], pack_a[256], pack_b[256], nest[256], sym[256];
    snprintf(macro, sizeof macro, "%s%s.macro", cg->prefix, k->name);
    snprintf(pack_a, sizeof pack_a, "%s%s.pack_a", cg->prefix, k->name);
    snprintf(pack_b, sizeof pack_b, "%s%s.pack_b", cg->prefix, k->name);
    snprintf(nest, sizeof nest, "%s%s.blocks", cg->prefix, k->name);
    char *msg = NULL;
    int kg = cg_gemm_kgroup(spec.kind), esize[3];
    for (int i = 0; i < 3; i++)
        esize[i] = (int)elem_type_size(ops[i]->elem);
    if (!cg_gemm_macro(cg->mod, &spec, macro, false, &msg) || !cg_gemm_pack(cg->mod, ca, spec.mr, kg, pack_a, &msg) ||
        !cg_gemm_pack(cg->mod, cb, spec.nv * spec.vl, kg, pack_b, &msg) ||
        !cg_gemm_blocks(cg->mod, &spec, nest, macro, NULL, pack_a, pack_b, esize[0], esize[1], &msg)) {
        kernel_error(cg, k, "its routines", msg);
        free(msg);
        kernel_plan_free(&pl);
        return;
    }
    const char *features = isa_features(k->isa, spec.kind);
    seal(cg, macro, features);
    seal(cg, pack_a, features);
    seal(cg, pack_b, features);
    seal(cg, nest, features);

    Fields f = {.n = 0};
    add_i64(cg, &f, CG_AOT_ABI);
    LLVMValueRef name = LLVMConstStringInContext(cg->ctx, k->name, (unsigned)strlen(k->name), false);
    snprintf(sym, sizeof sym, "%s%s.name", cg->prefix, k->name);
    add_ptr(cg, &f, private_const(cg, sym, name));
    add_i64(cg, &f, k->isa);
    int64_t spec_fields[] = {spec.kind, spec.mr, spec.nv, spec.vl, spec.fused, spec.a_outer, spec.order[0],
                             spec.order[1], spec.order[2], ca, cb, k->kgroup, (int64_t)k->tile[GEMM_M],
                             (int64_t)k->tile[GEMM_N], (int64_t)k->tile[GEMM_K], k->split == GEMM_N};
    for (size_t i = 0; i < sizeof spec_fields / sizeof *spec_fields; i++)
        add_i64(cg, &f, spec_fields[i]);
    for (int i = 0; i < 3 && !cg->failed; i++) {
        int ax, ay;
        kernel_operand_axes(k, i, &ax, &ay);
        LLVMValueRef in = NULL, out = NULL;
        if (!pl.acc[i].strided) {
            const Map *rows = kernel_staging_layout(p, k, i, why);
            if (!rows) {
                kernel_error(cg, k, "the staging layout", why);
                break;
            }
            snprintf(sym, sizeof sym, "%s.stage_in_%c", k->name, "abc"[i]);
            in = stage_copy(cg, k, sym, layout[i], rows, ops[i]->elem);
            if (i == 2) {
                snprintf(sym, sizeof sym, "%s.stage_out_c", k->name);
                out = stage_copy(cg, k, sym, rows, layout[i], ops[i]->elem);
            }
        }
        add_i64(cg, &f, ops[i]->elem);
        add_i64(cg, &f, (int64_t)layout[i]->size);
        add_i64(cg, &f, (int64_t)p->axes[ax].size);
        add_i64(cg, &f, (int64_t)p->axes[ay].size);
        add_i64(cg, &f, pl.acc[i].strided);
        add_i64(cg, &f, pl.acc[i].rs);
        add_i64(cg, &f, pl.acc[i].cs);
        add_i64(cg, &f, (int64_t)pl.acc[i].base);
        add_ptr(cg, &f, in);
        add_ptr(cg, &f, out);
    }
    if (cg->failed) {
        kernel_plan_free(&pl);
        return;
    }
    size_t nb = pl.nblocks * 4;
    LLVMValueRef *bv = malloc((nb ? nb : 1) * sizeof *bv);
    if (!bv) {
        kernel_error(cg, k, "out of memory", NULL);
        kernel_plan_free(&pl);
        return;
    }
    for (size_t i = 0; i < pl.nblocks; i++) {
        const KernelBlock *b = &pl.blocks[i];
        uint64_t v[4] = {b->m0, b->n0, b->rows, b->cols};
        for (int j = 0; j < 4; j++)
            bv[i * 4 + j] = LLVMConstInt(cg->i64, v[j], false);
    }
    add_i64(cg, &f, (int64_t)pl.nblocks);
    snprintf(sym, sizeof sym, "%s%s.blocks_of_c", cg->prefix, k->name);
    add_ptr(cg, &f, private_const(cg, sym, LLVMConstArray(cg->i64, bv, (unsigned)nb)));
    free(bv);
    kernel_plan_free(&pl);
    add_ptr(cg, &f, LLVMGetNamedFunction(cg->mod, macro));
    add_ptr(cg, &f, LLVMGetNamedFunction(cg->mod, pack_a));
    add_ptr(cg, &f, LLVMGetNamedFunction(cg->mod, pack_b));
    add_ptr(cg, &f, LLVMGetNamedFunction(cg->mod, nest));
    snprintf(sym, sizeof sym, "%s%s.descriptor", cg->prefix, k->name);
    LLVMValueRef desc = private_const(cg, sym, LLVMConstStructInContext(cg->ctx, f.v, (unsigned)f.n, false));

    /* int PREFIX<name>(const void *a, const void *b, void *c, double alpha, double beta, int threads)
     *     { return mapc_aot_run(&descriptor, a, b, c, alpha, beta, threads); } */
    LLVMTypeRef dbl = LLVMDoubleTypeInContext(cg->ctx);
    LLVMTypeRef run_args[7] = {cg->vptr, cg->vptr, cg->vptr, cg->vptr, dbl, dbl, cg->i32};
    LLVMTypeRef run_ty = LLVMFunctionType(cg->i32, run_args, 7, false);
    LLVMValueRef run = LLVMGetNamedFunction(cg->mod, "mapc_aot_run");
    if (!run)
        run = LLVMAddFunction(cg->mod, "mapc_aot_run", run_ty);
    LLVMTypeRef entry_ty = LLVMFunctionType(cg->i32, run_args + 1, 6, false);
    snprintf(sym, sizeof sym, "%s%s", cg->prefix, k->name);
    LLVMValueRef entry = LLVMAddFunction(cg->mod, sym, entry_ty);
    LLVMPositionBuilderAtEnd(cg->b, LLVMAppendBasicBlockInContext(cg->ctx, entry, "entry"));
    LLVMValueRef args[7] = {ptr_to(cg, desc)};
    for (int i = 0; i < 6; i++)
        args[i + 1] = LLVMGetParam(entry, (unsigned)i);
    LLVMBuildRet(cg->b, LLVMBuildCall2(cg->b, run_ty, run, args, 7, ""));
}
