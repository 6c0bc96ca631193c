/* cg_offset.c — the inverse (E_offset) and the exported functions of a type: E_cell, E_offset, E_each. */
#include "cg_impl.h"

#include <stdio.h>
#include <stdlib.h>

static LLVMValueRef load_at(Cg *cg, LLVMValueRef base, int i)
{
    LLVMValueRef idx = LLVMConstInt(cg->i64, (unsigned)i, false);
    return LLVMBuildLoad2(cg->b, cg->i64, LLVMBuildGEP2(cg->b, cg->i64, base, &idx, 1, ""), "");
}

/* i1: cell(m, p) is live with exactly the coordinates at `want` (tmp: scratch coordinates). */
static LLVMValueRef live_with(Cg *cg, LLVMValueRef cell, LLVMValueRef p, LLVMValueRef want, LLVMValueRef tmp)
{
    LLVMValueRef args[2] = {p, tmp};
    LLVMValueRef k = LLVMBuildCall2(cg->b, cg->cell_ty, cell, args, 2, "");
    LLVMValueRef ok = LLVMBuildICmp(cg->b, LLVMIntEQ, k, LLVMConstInt(cg->i32, CELL_LIVE, false), "");
    for (int a = 0; a < cg->prog->naxes; a++)
        ok = LLVMBuildAnd(cg->b, ok, LLVMBuildICmp(cg->b, LLVMIntEQ, load_at(cg, tmp, a), load_at(cg, want, a), ""), "");
    return ok;
}

/* Invertible mappings (CgPlan.invertible): the class coordinates of a live cell follow from its
 * axis coordinates (a composite class through its base's own inverse, which puts the base's
 * broadcasts at 0), and the digits from them, so the only candidate is
 * sum(((c / s) % m) · weight) with broadcasts at 0; it is checked with the cell function (which
 * also rejects coordinates no position holds). Others: the smallest live position found by
 * scanning (O(|E|); the normal form will widen the invertible case). */
LLVMValueRef cg_offset_fn(Cg *cg, const Map *m)
{
    struct CgMemo *me = cg_memo(cg, m);
    if (me->offset)
        return me->offset;
    const CgPlan *pl = cg_plan(cg, m);
    LLVMValueRef cell = pl ? cg_cell_fn(cg, m) : NULL;
    if (!pl || !cell) {
        cg->failed = true;
        return NULL;
    }
    char name[64];
    snprintf(name, sizeof name, "mapc.offset.%d", cg->nfn++);
    LLVMValueRef fn = LLVMAddFunction(cg->mod, name, cg->offset_ty);
    LLVMSetLinkage(fn, LLVMPrivateLinkage);
    cg_memo(cg, m)->offset = fn;
    LLVMBasicBlockRef saved = LLVMGetInsertBlock(cg->b);
    LLVMValueRef want = LLVMGetParam(fn, 0);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry");
    LLVMBasicBlockRef found = LLVMAppendBasicBlockInContext(cg->ctx, fn, "found");
    LLVMBasicBlockRef none = LLVMAppendBasicBlockInContext(cg->ctx, fn, "none");
    LLVMPositionBuilderAtEnd(cg->b, entry);
    LLVMValueRef tmp = cg_alloca(cg, cg->i64, (unsigned)cg->prog->naxes, "tmp");
    LLVMValueRef result;
    if (pl->invertible) {
        int na = cg->prog->naxes;
        LLVMValueRef *cc = mem_alloc(((size_t)pl->ncls + 1) * sizeof *cc);
        for (int k = 0; k < pl->ncls; k++) {
            if (pl->cls[k].axis >= 0) {
                cc[k] = load_at(cg, want, pl->cls[k].axis);
                continue;
            }
            /* a composite base: its own inverse, on the coordinates of the axes it mentions */
            const Map *x = pl->cls[k].base;
            LLVMValueRef xo = cg_offset_fn(cg, x);
            if (!xo) {
                free(cc);
                return NULL;
            }
            LLVMValueRef part = cg_alloca(cg, cg->i64, (unsigned)na, "part");
            for (int a = 0; a < na; a++) {
                LLVMValueRef idx = LLVMConstInt(cg->i64, (unsigned)a, false);
                LLVMBuildStore(cg->b, pl->cls_axes[k][a] ? load_at(cg, want, a) : cg_const(cg, 0),
                               LLVMBuildGEP2(cg->b, cg->i64, part, &idx, 1, ""));
            }
            cc[k] = LLVMBuildCall2(cg->b, cg->offset_ty, xo, &part, 1, "");
            LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(cg->ctx, fn, "ok");
            LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntSLT, cc[k], cg_const(cg, 0), ""), none, ok);
            LLVMPositionBuilderAtEnd(cg->b, ok);
        }
        LLVMValueRef p = cg_const(cg, 0);
        for (int t = 0; t < pl->nterms; t++) {
            const CgTerm *tm = &pl->terms[t];
            if (tm->count == 1)
                continue;
            LLVMValueRef c = cc[tm->cls];
            if (tm->stride > 1)
                c = LLVMBuildUDiv(cg->b, c, cg_const(cg, tm->stride), "");
            c = LLVMBuildURem(cg->b, c, cg_const(cg, tm->count), "");
            p = cg_sat_add(cg, p, cg_sat_mulc(cg, c, tm->weight));
        }
        free(cc);
        result = p;
        LLVMBuildCondBr(cg->b, live_with(cg, cell, p, want, tmp), found, none);
    } else {
        LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(cg->ctx, fn, "scan");
        LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(cg->ctx, fn, "next");
        LLVMBuildBr(cg->b, loop);
        LLVMPositionBuilderAtEnd(cg->b, loop);
        LLVMValueRef p = LLVMBuildPhi(cg->b, cg->i64, "p");
        LLVMValueRef z = cg_const(cg, 0);
        LLVMAddIncoming(p, &z, &entry, 1);
        LLVMBuildCondBr(cg->b, live_with(cg, cell, p, want, tmp), found, next);
        LLVMPositionBuilderAtEnd(cg->b, next);
        LLVMValueRef p1 = LLVMBuildNUWAdd(cg->b, p, cg_const(cg, 1), "");
        LLVMAddIncoming(p, &p1, &next, 1);
        LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntULT, p1, cg_const(cg, m->size), ""), loop, none);
        result = p;
    }
    LLVMPositionBuilderAtEnd(cg->b, found);
    LLVMBuildRet(cg->b, result);
    LLVMPositionBuilderAtEnd(cg->b, none);
    LLVMBuildRet(cg->b, LLVMConstInt(cg->i64, (unsigned long long)-1, true));
    if (saved)
        LLVMPositionBuilderAtEnd(cg->b, saved);
    return fn;
}

/* An exported function named PREFIX NAME SUFFIX of type ty; the builder is at its entry. */
static LLVMValueRef export_fn(Cg *cg, const char *name, const char *suffix, LLVMTypeRef ty)
{
    char *sym = arena_printf(&cg->arena, "%s%s%s", cg->prefix, name, suffix);
    if (LLVMGetNamedFunction(cg->mod, sym)) {
        diag_error(cg->diags, (Loc){0}, "symbol '%s' is generated twice (rename the type or the copy)", sym);
        cg->failed = true;
        return NULL;
    }
    LLVMValueRef fn = LLVMAddFunction(cg->mod, sym, ty);
    LLVMSetLinkage(fn, LLVMExternalLinkage);
    LLVMSetFunctionCallConv(fn, LLVMCCallConv);
    LLVMPositionBuilderAtEnd(cg->b, LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry"));
    return fn;
}

/* Copies coordinates between a full array (every axis of the program) and a public one (the axes of
 * axes![...], prog_public_index): to_public stores full[a] into public[i], else public[i] into full[a]
 * and 0 into the tile axes' entries. */
static void copy_coords(Cg *cg, LLVMValueRef full, LLVMValueRef pub, bool to_public)
{
    for (int a = 0; a < cg->prog->naxes; a++) {
        int i = prog_public_index(cg->prog, a);
        LLVMValueRef fa = LLVMConstInt(cg->i64, (unsigned)a, false);
        LLVMValueRef at_full = LLVMBuildGEP2(cg->b, cg->i64, full, &fa, 1, "");
        if (i < 0) {
            if (!to_public)
                LLVMBuildStore(cg->b, cg_const(cg, 0), at_full);
            continue;
        }
        LLVMValueRef pi = LLVMConstInt(cg->i64, (unsigned)i, false);
        LLVMValueRef at_pub = LLVMBuildGEP2(cg->b, cg->i64, pub, &pi, 1, "");
        if (to_public)
            LLVMBuildStore(cg->b, LLVMBuildLoad2(cg->b, cg->i64, at_full, ""), at_pub);
        else
            LLVMBuildStore(cg->b, LLVMBuildLoad2(cg->b, cg->i64, at_pub, ""), at_full);
    }
}

/* The exported functions of a type: E_cell, E_offset and E_each over public coordinates (the internal
 * functions take one entry per axis of the program, tile axes included). */
void cg_emit_type(Cg *cg, const char *name, const Map *m)
{
    LLVMValueRef cell = cg_cell_fn(cg, m);
    LLVMValueRef off = cell ? cg_offset_fn(cg, m) : NULL;
    if (!off)
        return;
    unsigned na = (unsigned)cg->prog->naxes;
    LLVMValueRef fn = export_fn(cg, name, "_cell", cg->cell_ty);
    if (!fn)
        return;
    LLVMValueRef full = cg_alloca(cg, cg->i64, na ? na : 1, "full");
    LLVMValueRef args[2] = {LLVMGetParam(fn, 0), full};
    LLVMValueRef kind = LLVMBuildCall2(cg->b, cg->cell_ty, cell, args, 2, "");
    copy_coords(cg, full, LLVMGetParam(fn, 1), true);
    LLVMBuildRet(cg->b, kind);

    fn = export_fn(cg, name, "_offset", cg->offset_ty);
    if (!fn)
        return;
    full = cg_alloca(cg, cg->i64, na ? na : 1, "full");
    copy_coords(cg, full, LLVMGetParam(fn, 0), false);
    LLVMBuildRet(cg->b, LLVMBuildCall2(cg->b, cg->offset_ty, off, &full, 1, ""));

    fn = export_fn(cg, name, "_each", cg->each_ty);
    if (!fn)
        return;
    cg_enumerate_each(cg, m, LLVMGetParam(fn, 0), LLVMGetParam(fn, 1));
    LLVMBuildRetVoid(cg->b);
}
