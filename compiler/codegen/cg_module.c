/* cg_module.c — one LLVM module for a whole program: every type's functions, every copy kernel and, for
 * objects, every declared kernel. */
#include "algebra/algebra.h"
#include "cg_impl.h"

#include <llvm-c/Analysis.h>
#include <stdlib.h>
#include <string.h>

/* Prepares cg for generating into the unit's module; false if the evaluator cannot be made. */
static bool begin(Cg *cg, const Prog *prog, CgUnit *u, const CgOptions *opt, Diags *d)
{
    LLVMContextRef ctx = u->ctx;
    *cg = (Cg){.prog = prog, .diags = d, .ctx = ctx, .mod = u->mod, .prefix = opt && opt->prefix ? opt->prefix : ""};
    /* owned here: the plans' base comparisons, by the equivalence decision procedure (any size) */
    cg->ev = eqv_evaluator_new(prog);
    if (!cg->ev)
        return false;
    cg->b = LLVMCreateBuilderInContext(ctx);                  /* owned here */
    cg->i1 = LLVMInt1TypeInContext(ctx);
    cg->i8 = LLVMInt8TypeInContext(ctx);
    cg->i16 = LLVMInt16TypeInContext(ctx);
    cg->i32 = LLVMInt32TypeInContext(ctx);
    cg->i64 = LLVMInt64TypeInContext(ctx);
    cg->vptr = LLVMPointerType(cg->i8, 0);
    cg->i64ptr = LLVMPointerType(cg->i64, 0);
    LLVMTypeRef cell_args[2] = {cg->i64, cg->i64ptr};
    cg->cell_ty = LLVMFunctionType(cg->i32, cell_args, 2, false);
    cg->offset_ty = LLVMFunctionType(cg->i64, &cg->i64ptr, 1, false);
    LLVMTypeRef visit_args[4] = {cg->vptr, cg->i64, cg->i32, cg->i64ptr};
    cg->visit_ty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), visit_args, 4, false);
    LLVMTypeRef each_args[2] = {LLVMPointerType(cg->visit_ty, 0), cg->vptr};
    cg->each_ty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), each_args, 2, false);
    LLVMTypeRef copy_args[2] = {cg->vptr, cg->vptr};
    cg->copy_ty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), copy_args, 2, false);
    LLVMTypeRef move_args[3] = {cg->vptr, cg->vptr, cg->i64ptr};
    cg->move_ty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), move_args, 3, false);
    LLVMTypeRef part_args[4] = {cg->vptr, cg->vptr, cg->i64, cg->i64};
    cg->part_ty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), part_args, 4, false);
    /* relayout kernels: the JIT's take the program's ISA (the host's best unless named), restricted by target
     * features when it is below the host's; an object's take a named ISA's features, else portable vectors */
    bool object = opt && opt->object;
    cg->isa = object && prog->target == TARGET_ISA_HOST ? TARGET_ISA_PORTABLE : target_resolve(prog->target);
    if (!object && !target_host_supports(cg->isa))
        cg->isa = target_host_isa(); /* JIT code runs here: never an instruction this CPU lacks */
    cg->isa_features = object ? prog->target != TARGET_ISA_HOST && cg->isa != TARGET_ISA_PORTABLE
                              : cg->isa != target_host_isa();
    cg->caches = prog->caches.l1d ? prog->caches : target_host_caches();
    return true;
}

/* Verifies the module and frees cg's working state; false if generation failed (the unit's module is
 * then incomplete: the caller closes the unit). */
static bool end(Cg *cg)
{
    char *msg = NULL;
    if (!cg->failed && LLVMVerifyModule(cg->mod, LLVMReturnStatusAction, &msg)) {
        diag_error(cg->diags, (Loc){0}, "internal error: generated code does not verify: %s", msg);
        cg->failed = true;
    }
    if (msg)
        LLVMDisposeMessage(msg);
    LLVMDisposeBuilder(cg->b);
    eqv_evaluator_free(cg->ev);
    free(cg->memo);
    arena_free(&cg->arena);
    return !cg->failed;
}

bool cg_program(const Prog *prog, CgUnit *u, const CgOptions *opt, Diags *d)
{
    if (!(opt && opt->object) && !cg_check_symbols(prog, opt, false, d)) /* objects: checked by their writers */
        return false;
    Cg cg;
    if (!begin(&cg, prog, u, opt, d))
        return false;
    for (int i = 0; i < prog->ntypes && !cg.failed; i++)
        if (prog->types[i]->map)
            cg_emit_type(&cg, prog->types[i]->name, prog->types[i]->map);
    for (int i = 0; i < prog->ncopies && !cg.failed; i++)
        cg_emit_copy(&cg, prog->copies[i]);
    for (int i = 0; opt && opt->kernels && i < prog->nkernels && !cg.failed; i++)
        cg_emit_kernel(&cg, prog->kernels[i]);
    return end(&cg);
}

bool cg_copy_only(const Prog *prog, CgUnit *u, const Copy *c, const CgOptions *opt, Diags *d)
{
    Cg cg;
    if (!begin(&cg, prog, u, opt, d))
        return false;
    cg_emit_copy(&cg, c);
    return end(&cg);
}

char *cg_copy_plan(const Prog *prog, const Copy *c, const CgOptions *opt, Diags *d)
{
    CgUnit u;
    if (!cg_unit_open(&u, "mapc_plan")) {
        diag_error(d, (Loc){0}, "cannot create an LLVM module");
        return NULL;
    }
    Cg cg;
    char *text = NULL;
    if (begin(&cg, prog, &u, opt, d)) {
        /* planning folds constants with the builder: it needs a function to stand in */
        LLVMValueRef fn = LLVMAddFunction(cg.mod, "mapc.plan", cg.copy_ty);
        LLVMPositionBuilderAtEnd(cg.b, LLVMAppendBasicBlockInContext(cg.ctx, fn, "entry"));
        enum { CAP = 1 << 16 }; /* a few hundred bytes a box, at most 64 boxes */
        text = mem_alloc(CAP);
        size_t n = cg_describe_copy(&cg, c, text, CAP);
        if (cg.failed) {
            free(text);
            text = NULL;
        } else if (n >= CAP) {
            memcpy(text + CAP - 5, "...\n", 5);
        }
        LLVMBuildRetVoid(cg.b);
        cg.failed = cg.failed || !text;
        end(&cg);
    }
    cg_unit_close(&u);
    return text;
}
