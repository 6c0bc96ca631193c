/* cg_cell.c — IR helpers, docs/language.md §3 finalization in IR, and the cell function of a mapping. */
#include "cg_impl.h"

#include <stdio.h>
#include <stdlib.h>

LLVMValueRef cg_const(Cg *cg, uint64_t v) { return LLVMConstInt(cg->i64, v, false); }

LLVMValueRef cg_alloca(Cg *cg, LLVMTypeRef t, unsigned n, const char *name)
{
    LLVMBasicBlockRef cur = LLVMGetInsertBlock(cg->b);
    LLVMValueRef fn = LLVMGetBasicBlockParent(cur);
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
    LLVMBuilderRef tb = LLVMCreateBuilderInContext(cg->ctx); /* owned here, disposed below */
    LLVMValueRef first = LLVMGetFirstInstruction(entry);
    if (first)
        LLVMPositionBuilderBefore(tb, first);
    else
        LLVMPositionBuilderAtEnd(tb, entry);
    LLVMValueRef a = LLVMBuildArrayAlloca(tb, t, LLVMConstInt(cg->i32, n ? n : 1, false), name);
    LLVMDisposeBuilder(tb);
    return a;
}

/* Calls an overloaded i64 intrinsic such as llvm.uadd.sat. */
static LLVMValueRef intrinsic2(Cg *cg, const char *name, LLVMValueRef x, LLVMValueRef y)
{
    LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, name);
    LLVMTypeRef ps[2] = {cg->i64, cg->i64};
    LLVMTypeRef ft = LLVMFunctionType(cg->i64, ps, 2, false);
    if (!fn)
        fn = LLVMAddFunction(cg->mod, name, ft);
    LLVMValueRef args[2] = {x, y};
    return LLVMBuildCall2(cg->b, ft, fn, args, 2, "");
}

LLVMValueRef cg_sat_add(Cg *cg, LLVMValueRef x, LLVMValueRef y)
{
    if (LLVMIsConstant(y) && LLVMConstIntGetZExtValue(y) == 0)
        return x;
    if (LLVMIsConstant(x) && LLVMConstIntGetZExtValue(x) == 0)
        return y;
    return intrinsic2(cg, "llvm.uadd.sat.i64", x, y);
}

LLVMValueRef cg_sat_mulc(Cg *cg, LLVMValueRef x, uint64_t w)
{
    if (w == 1)
        return x;
    LLVMValueRef big = LLVMBuildICmp(cg->b, LLVMIntUGT, x, cg_const(cg, UINT64_MAX / w), "");
    return LLVMBuildSelect(cg->b, big, cg_const(cg, UINT64_MAX), LLVMBuildMul(cg->b, x, cg_const(cg, w), ""), "");
}

static LLVMValueRef or1(Cg *cg, LLVMValueRef a, LLVMValueRef b)
{
    return a ? LLVMBuildOr(cg->b, a, b, "") : b;
}

/* Finalization, docs/language.md §3 steps 1–4, as the interpreter does it. Places are pre-order slots: a
 * padding item's is static; a composite's is its class's first term with a non-zero value (a
 * term absent at this position is masked to 0, so it never counts). */
LLVMValueRef cg_finalize(Cg *cg, const CgPlan *pl, LLVMValueRef *vals, LLVMValueRef *present, LLVMValueRef *taken,
                         LLVMValueRef *sub)
{
    int na = cg->prog->naxes;
    LLVMValueRef zero = cg_const(cg, 0);
    LLVMValueRef ovf = NULL;
    for (int a = 0; a < na; a++)
        sub[a] = zero;
    /* padding candidates in slot order: (slot, condition, kind) */
    int ncand = 0;
    struct Cand { LLVMValueRef place, cond, kind; } *cand = mem_alloc(((size_t)pl->npads + pl->ncls + 1) * sizeof *cand);
    for (int k = 0; k < pl->npads; k++)
        if (taken[k])
            cand[ncand++] = (struct Cand){LLVMConstInt(cg->i32, (unsigned)pl->pads[k].slot, false), taken[k],
                                          LLVMConstInt(cg->i32, pl->pads[k].node->pad, false)};

    LLVMValueRef *mv = mem_alloc(((size_t)pl->nterms + 1) * sizeof *mv); /* masked values */
    for (int t = 0; t < pl->nterms; t++)
        mv[t] = present[t] ? LLVMBuildSelect(cg->b, present[t], vals[t], zero, "") : vals[t];

    for (int k = 0; k < pl->ncls; k++) {
        LLVMValueRef coord = zero;
        for (int t = pl->cls[k].first; t < pl->nterms; t++) {
            const CgTerm *tm = &pl->terms[t];
            if (tm->cls != k)
                continue;
            coord = cg_sat_add(cg, coord, cg_sat_mulc(cg, mv[t], tm->stride));
            /* overshoot: the terms with this exact digit, summed, reach the count */
            bool first = true, alone = true;
            for (int u = pl->cls[k].first; u < t; u++)
                if (pl->terms[u].cls == k && pl->terms[u].stride == tm->stride && pl->terms[u].count == tm->count)
                    first = false;
            if (!first)
                continue;
            LLVMValueRef digit = mv[t];
            for (int u = t + 1; u < pl->nterms; u++)
                if (pl->terms[u].cls == k && pl->terms[u].stride == tm->stride && pl->terms[u].count == tm->count) {
                    digit = cg_sat_add(cg, digit, mv[u]);
                    alone = false;
                }
            if (!alone) /* a lone term's value is below its count */
                ovf = or1(cg, ovf, LLVMBuildICmp(cg->b, LLVMIntUGE, digit, cg_const(cg, tm->count), ""));
        }
        const Map *x = pl->cls[k].base;
        if (x->kind == MAP_SYM) {
            sub[x->axis] = cg_sat_add(cg, sub[x->axis], coord);
            continue;
        }
        /* a composite: decoded once, on its own (its function returns oob past its size) */
        LLVMValueRef fn = cg_cell_fn(cg, x);
        if (!fn)
            break;
        LLVMValueRef tmp = cg_alloca(cg, cg->i64, (unsigned)na, "inner");
        LLVMValueRef args[2] = {coord, tmp};
        LLVMValueRef kx = LLVMBuildCall2(cg->b, cg->cell_ty, fn, args, 2, "kx");
        LLVMValueRef bad = LLVMBuildICmp(cg->b, LLVMIntUGE, kx, LLVMConstInt(cg->i32, CELL_OOB, false), "");
        ovf = or1(cg, ovf, bad);
        LLVMValueRef km1 = LLVMBuildSub(cg->b, kx, LLVMConstInt(cg->i32, 1, false), "");
        LLVMValueRef ispad = LLVMBuildICmp(cg->b, LLVMIntULT, km1, LLVMConstInt(cg->i32, 3, false), "");
        /* its padding is placed at the class's first term with a non-zero value (the
         * interpreter's rule; cell(X, 0) is never padding, so one exists when it matters) */
        LLVMValueRef place = LLVMConstInt(cg->i32, (unsigned)pl->terms[pl->cls[k].first].slot, false);
        for (int t = pl->nterms - 1; t >= pl->cls[k].first; t--)
            if (pl->terms[t].cls == k && !(LLVMIsConstant(mv[t]) && LLVMConstIntGetZExtValue(mv[t]) == 0))
                place = LLVMBuildSelect(cg->b, LLVMBuildICmp(cg->b, LLVMIntNE, mv[t], zero, ""),
                                        LLVMConstInt(cg->i32, (unsigned)pl->terms[t].slot, false), place, "");
        cand[ncand++] = (struct Cand){place, ispad, kx};
        for (int a = 0; a < na; a++) {
            LLVMValueRef idx = LLVMConstInt(cg->i64, (unsigned)a, false);
            LLVMValueRef c = LLVMBuildLoad2(cg->b, cg->i64, LLVMBuildGEP2(cg->b, cg->i64, tmp, &idx, 1, ""), "");
            sub[a] = cg_sat_add(cg, sub[a], c);
        }
    }
    /* digit-exact: disjoint digits of an axis sum below its size, so no axis can overflow */
    for (int a = 0; a < na && !pl->exact; a++) {
        if (LLVMIsConstant(sub[a]) && LLVMConstIntGetZExtValue(sub[a]) < cg->prog->axes[a].size)
            continue;
        ovf = or1(cg, ovf, LLVMBuildICmp(cg->b, LLVMIntUGE, sub[a], cg_const(cg, cg->prog->axes[a].size), ""));
    }
    LLVMValueRef kind = ovf ? LLVMBuildSelect(cg->b, ovf, LLVMConstInt(cg->i32, CELL_OVERFLOW, false),
                                              LLVMConstInt(cg->i32, CELL_LIVE, false), "")
                            : LLVMConstInt(cg->i32, CELL_LIVE, false);
    /* the most major padding wins: the candidate with the smallest place */
    LLVMValueRef best = LLVMConstInt(cg->i32, UINT32_MAX, false);
    for (int i = 0; i < ncand; i++) {
        LLVMValueRef better = LLVMBuildAnd(cg->b, cand[i].cond, LLVMBuildICmp(cg->b, LLVMIntULT, cand[i].place, best, ""), "");
        best = LLVMBuildSelect(cg->b, better, cand[i].place, best, "");
        kind = LLVMBuildSelect(cg->b, better, cand[i].kind, kind, "");
    }
    LLVMValueRef live = LLVMBuildICmp(cg->b, LLVMIntEQ, kind, LLVMConstInt(cg->i32, CELL_LIVE, false), "live");
    for (int a = 0; a < na; a++)
        if (!(LLVMIsConstant(sub[a]) && LLVMConstIntGetZExtValue(sub[a]) == 0))
            sub[a] = LLVMBuildSelect(cg->b, live, sub[a], zero, "");
    free(mv);
    free(cand);
    return kind;
}

typedef struct Walk {
    Cg *cg;
    const CgPlan *pl;
    int t, k;               /* next term / padding in pre-order */
    LLVMValueRef *vals, *present, *taken;
} Walk;

/* ev(E, p) of docs/language.md §3 as IR, in the plan's pre-order; inside is the i1 "no enclosing padding
 * taken" (NULL: true). Values under a taken padding are masked by present[]. */
static void walk(Walk *w, const Map *m, LLVMValueRef p, LLVMValueRef inside)
{
    Cg *cg = w->cg;
    switch (m->kind) {
    case MAP_BCAST:
        return;
    case MAP_SYM:
    case MAP_STRIDE:
    case MAP_MOD:
        w->vals[w->t] = p;
        w->present[w->t] = inside;
        w->t++;
        return;
    case MAP_RESIZE:
        walk(w, m->l, p, inside);
        return;
    case MAP_PAD: {
        int me = w->k++;
        if (m->n == m->l->size) { /* no padding cells */
            w->taken[me] = NULL;
            walk(w, m->l, p, inside);
            return;
        }
        LLVMValueRef beyond = LLVMBuildICmp(cg->b, LLVMIntUGE, p, cg_const(cg, m->l->size), "");
        w->taken[me] = inside ? LLVMBuildAnd(cg->b, inside, beyond, "") : beyond;
        LLVMValueRef in = LLVMBuildNot(cg->b, beyond, "");
        walk(w, m->l, p, inside ? LLVMBuildAnd(cg->b, inside, in, "") : in);
        return;
    }
    case MAP_PAIR: {
        uint64_t r = m->r->size;
        LLVMValueRef pl = r == 1 ? p : LLVMBuildUDiv(cg->b, p, cg_const(cg, r), "");
        LLVMValueRef pr = r == 1 ? cg_const(cg, 0) : LLVMBuildURem(cg->b, p, cg_const(cg, r), "");
        walk(w, m->l, pl, inside);
        walk(w, m->r, pr, inside);
        return;
    }
    }
}

LLVMValueRef cg_cell_fn(Cg *cg, const Map *m)
{
    struct CgMemo *me = cg_memo(cg, m);
    if (me->cell)
        return me->cell;
    const CgPlan *pl = cg_plan(cg, m);
    if (!pl) {
        cg->failed = true;
        return NULL;
    }
    char name[64];
    snprintf(name, sizeof name, "mapc.cell.%d", cg->nfn++);
    LLVMValueRef fn = LLVMAddFunction(cg->mod, name, cg->cell_ty);
    LLVMSetLinkage(fn, LLVMPrivateLinkage);
    cg_memo(cg, m)->cell = fn; /* before generating: composites only recurse into smaller maps */

    LLVMBasicBlockRef saved = LLVMGetInsertBlock(cg->b);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry");
    LLVMBasicBlockRef in = LLVMAppendBasicBlockInContext(cg->ctx, fn, "in");
    LLVMBasicBlockRef out = LLVMAppendBasicBlockInContext(cg->ctx, fn, "oob");
    LLVMPositionBuilderAtEnd(cg->b, entry);
    LLVMValueRef pos = LLVMGetParam(fn, 0), coords = LLVMGetParam(fn, 1);
    int na = cg->prog->naxes;
    /* in range is the expected case: llvm.expect keeps it a predicted branch, not selects */
    LLVMValueRef inr = LLVMBuildICmp(cg->b, LLVMIntULT, pos, cg_const(cg, m->size), "");
    LLVMTypeRef ety = LLVMFunctionType(cg->i1, (LLVMTypeRef[]){cg->i1, cg->i1}, 2, false);
    LLVMValueRef expect = LLVMGetNamedFunction(cg->mod, "llvm.expect.i1");
    if (!expect)
        expect = LLVMAddFunction(cg->mod, "llvm.expect.i1", ety);
    LLVMValueRef eargs[2] = {inr, LLVMConstInt(cg->i1, 1, false)};
    LLVMBuildCondBr(cg->b, LLVMBuildCall2(cg->b, ety, expect, eargs, 2, ""), in, out);

    LLVMPositionBuilderAtEnd(cg->b, out);
    for (int a = 0; a < na; a++) {
        LLVMValueRef idx = LLVMConstInt(cg->i64, (unsigned)a, false);
        LLVMBuildStore(cg->b, cg_const(cg, 0), LLVMBuildGEP2(cg->b, cg->i64, coords, &idx, 1, ""));
    }
    LLVMBuildRet(cg->b, LLVMConstInt(cg->i32, CELL_OOB, false));

    LLVMPositionBuilderAtEnd(cg->b, in);
    size_t n = (size_t)pl->nterms + pl->npads + (size_t)na + 1;
    LLVMValueRef *buf = mem_calloc(3 * n, sizeof *buf);
    Walk w = {.cg = cg, .pl = pl, .vals = buf, .present = buf + n, .taken = buf + 2 * n};
    walk(&w, m, pos, NULL);
    LLVMValueRef sub[na + 1];
    LLVMValueRef kind = cg_finalize(cg, pl, w.vals, w.present, w.taken, sub);
    for (int a = 0; a < na; a++) {
        LLVMValueRef idx = LLVMConstInt(cg->i64, (unsigned)a, false);
        LLVMBuildStore(cg->b, sub[a], LLVMBuildGEP2(cg->b, cg->i64, coords, &idx, 1, ""));
    }
    LLVMBuildRet(cg->b, kind);
    free(buf);
    if (saved)
        LLVMPositionBuilderAtEnd(cg->b, saved);
    return fn;
}
