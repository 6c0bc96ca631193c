/* cg_copy.c — relayout kernels: each destination cell gets the source element holding the same index,
 * pad(zero) gets 0, pad(top)/pad(bottom) are left alone; through a relayout plan (cg_relayout.c) when the
 * source position is linear in the destination's digits, else enumerating the destination cell by cell. */
#include "algebra/algebra.h"
#include "cg_relayout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct CopyCtx {
    const Copy *c;
    const Map *dmap;            /* the destination as enumerated: c->dst, or its digit refinement */
    const CgPlan *dpl, *spl;
    LLVMValueRef dst, src;      /* typed element pointers */
    LLVMTypeRef ety;
    unsigned esize;
    bool linear;                /* src position = sum(vals[j] · srcw[j]) over destination terms */
    bool src_tiled;             /* every coordinate the destination can hold has a source position
                                 * made of the source's digits (the plan's tiled, relaxed to the
                                 * axes the destination mentions) */
    uint64_t *srcw;
    LLVMValueRef offset_fn;     /* the generic path: the source's offset function */
    LLVMValueRef table;         /* or, for a source without a fast inverse: i64 source position
                                 * per destination position (-1: none), computed at compile time */
    LLVMValueRef coords;        /* scratch coordinates for it */
    CgGiven given;              /* a move of one unit: the units' term values (given.node NULL: none) */
    int unit_terms;             /* the first unit_terms destination terms are the units' */
    bool units_in_src;          /* linear unit move: src already points at the unit's source part */
} CopyCtx;

/* The source position as a linear function of the destination's digits, when every digit of the
 * destination lies inside one digit of the source or outside it with aligned boundaries. Both
 * mappings must be digit-exact and the source must tile its axes. */
static bool linear_weights(const CgPlan *d, const CgPlan *s, uint64_t *w)
{
    for (int j = 0; j < d->nterms; j++) {
        const CgTerm *a = &d->terms[j];
        int axis = d->cls[a->cls].axis;
        w[j] = 0;
        if (a->count == 1)
            continue;
        for (int k = 0; k < s->nterms; k++) {
            const CgTerm *b = &s->terms[k];
            if (s->cls[b->cls].axis != axis || b->count == 1)
                continue;
            uint64_t top = b->stride * b->count; /* <= the axis size */
            if (a->stride * a->count <= b->stride)
                continue;                       /* entirely below: only the floor, which is 0 */
            if (a->stride >= top && a->stride % top == 0)
                continue;                       /* entirely above, aligned: vanishes modulo */
            if (a->stride >= b->stride && a->stride % b->stride == 0 && a->stride * a->count <= top) {
                w[j] += (a->stride / b->stride) * b->weight;
                continue;
            }
            return false;
        }
    }
    return true;
}

static LLVMValueRef elem_ptr(Cg *cg, CopyCtx *x, LLVMValueRef base, LLVMValueRef idx)
{
    return LLVMBuildGEP2(cg->b, x->ety, base, &idx, 1, "");
}

/* The source position of the destination cell at pos (i64; -1 if none). */
static LLVMValueRef src_position(Cg *cg, CopyCtx *x, LLVMValueRef pos, LLVMValueRef *sub, LLVMValueRef *vals,
                                 const bool *present)
{
    if (x->linear && vals) {
        LLVMValueRef p = cg_const(cg, 0);
        for (int j = x->units_in_src ? x->unit_terms : 0; j < x->dpl->nterms; j++)
            if (x->srcw[j] && present[j])
                p = LLVMBuildNUWAdd(cg->b, p, LLVMBuildNUWMul(cg->b, vals[j], cg_const(cg, x->srcw[j]), ""), "");
        return p;
    }
    if (x->src_tiled) { /* digits of the coordinates: exact, no check needed */
        LLVMValueRef p = cg_const(cg, 0);
        for (int k = 0; k < x->spl->nterms; k++) {
            const CgTerm *t = &x->spl->terms[k];
            if (t->count == 1)
                continue;
            LLVMValueRef v = sub[x->spl->cls[t->cls].axis];
            if (t->stride > 1)
                v = LLVMBuildUDiv(cg->b, v, cg_const(cg, t->stride), "");
            if (t->stride * t->count < cg->prog->axes[x->spl->cls[t->cls].axis].size)
                v = LLVMBuildURem(cg->b, v, cg_const(cg, t->count), "");
            p = LLVMBuildNUWAdd(cg->b, p, LLVMBuildNUWMul(cg->b, v, cg_const(cg, t->weight), ""), "");
        }
        return p;
    }
    if (x->table) {
        LLVMValueRef v = LLVMBuildLoad2(cg->b, cg->i64, LLVMBuildGEP2(cg->b, cg->i64, x->table, &pos, 1, ""), "srcpos");
        LLVMSetAlignment(v, 1);
        return v;
    }
    for (int a = 0; a < cg->prog->naxes; a++) {
        LLVMValueRef idx = LLVMConstInt(cg->i64, (unsigned)a, false);
        LLVMBuildStore(cg->b, sub[a], LLVMBuildGEP2(cg->b, cg->i64, x->coords, &idx, 1, ""));
    }
    return LLVMBuildCall2(cg->b, cg->offset_ty, x->offset_fn, &x->coords, 1, "srcpos");
}

static void emit_live(Cg *cg, CopyCtx *x, LLVMValueRef pos, LLVMValueRef *sub, LLVMValueRef *vals,
                      const bool *present)
{
    LLVMValueRef sp = src_position(cg, x, pos, sub, vals, present);
    LLVMBasicBlockRef done = NULL;
    if (!(x->linear && vals) && !x->src_tiled) { /* sema proved a source exists; stay safe anyway */
        LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(cg->b));
        LLVMBasicBlockRef has = LLVMAppendBasicBlockInContext(cg->ctx, fn, "has");
        done = LLVMAppendBasicBlockInContext(cg->ctx, fn, "nosrc");
        LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntSGE, sp, cg_const(cg, 0), ""), has, done);
        LLVMPositionBuilderAtEnd(cg->b, has);
    }
    LLVMValueRef v = LLVMBuildLoad2(cg->b, x->ety, elem_ptr(cg, x, x->src, sp), "");
    LLVMSetAlignment(v, x->esize);
    LLVMValueRef st = LLVMBuildStore(cg->b, v, elem_ptr(cg, x, x->dst, pos));
    LLVMSetAlignment(st, x->esize);
    if (done) {
        LLVMBuildBr(cg->b, done);
        LLVMPositionBuilderAtEnd(cg->b, done);
    }
}

static void emit_zero(Cg *cg, CopyCtx *x, LLVMValueRef pos)
{
    LLVMValueRef st = LLVMBuildStore(cg->b, LLVMConstInt(x->ety, 0, false), elem_ptr(cg, x, x->dst, pos));
    LLVMSetAlignment(st, x->esize);
}

/* One destination position: dispatch on its cell kind (a constant in most loop bodies). */
static void copy_body(Cg *cg, void *user, LLVMValueRef pos, LLVMValueRef kind, LLVMValueRef *sub, LLVMValueRef *vals,
                      const bool *present)
{
    CopyCtx *x = user;
    if (LLVMIsConstant(kind)) {
        unsigned long long k = LLVMConstIntGetZExtValue(kind);
        if (k == CELL_LIVE)
            emit_live(cg, x, pos, sub, vals, present);
        else if (k == CELL_PAD_ZERO)
            emit_zero(cg, x, pos);
        return;
    }
    LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(cg->b));
    LLVMBasicBlockRef live = LLVMAppendBasicBlockInContext(cg->ctx, fn, "live");
    LLVMBasicBlockRef zero = LLVMAppendBasicBlockInContext(cg->ctx, fn, "zero");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(cg->ctx, fn, "next");
    LLVMValueRef sw = LLVMBuildSwitch(cg->b, kind, next, 2);
    LLVMAddCase(sw, LLVMConstInt(cg->i32, CELL_LIVE, false), live);
    LLVMAddCase(sw, LLVMConstInt(cg->i32, CELL_PAD_ZERO, false), zero);
    LLVMPositionBuilderAtEnd(cg->b, live);
    emit_live(cg, x, pos, sub, vals, present);
    LLVMBuildBr(cg->b, next);
    LLVMPositionBuilderAtEnd(cg->b, zero);
    emit_zero(cg, x, pos);
    LLVMBuildBr(cg->b, next);
    LLVMPositionBuilderAtEnd(cg->b, next);
}

/* The number of terms of the units (the major part of a unit move's destination, whose terms come
 * first in the plan's pre-order). */
static int units_terms(const CgPlan *dpl, const Map *units)
{
    (void)dpl;
    switch (units->kind) {
    case MAP_SYM: case MAP_STRIDE: case MAP_MOD: return 1;
    case MAP_BCAST: return 0;
    case MAP_RESIZE: case MAP_PAD: return units_terms(dpl, units->l);
    case MAP_PAIR: return units_terms(dpl, units->l) + units_terms(dpl, units->r);
    }
    return 0;
}

/* A new node (in the code generator's arena) with the given operands and sizes. */
static Map *new_map(Cg *cg, const Map *like, MapKind kind, const Map *l, const Map *r, uint64_t n, uint64_t size)
{
    Map *m = arena_alloc(&cg->arena, sizeof *m);
    *m = *like;
    m->kind = kind;
    m->l = l;
    m->r = r;
    m->n = n;
    m->size = size;
    m->depth = 1 + (l ? l->depth : 0) + (r ? r->depth : 0); /* a bound is enough here */
    return m;
}

/* t cut into digits at the radices cut[0] < cut[1] < ... (each divides the next and |t|):
 * [t / cut[k-1], (t % cut[k-1]) / cut[k-2], ..., t % cut[0]] — the same digit of the same base
 * (v·s = (v / r)·s·r + (v % r)·s), so the mapping stays equivalent and keeps its bases. */
static const Map *cut_term(Cg *cg, const Map *t, const uint64_t *cut, int k)
{
    if (k == 0)
        return t;
    uint64_t r = cut[k - 1];
    const Map *hi = new_map(cg, t, MAP_STRIDE, t, NULL, r, t->size / r);
    const Map *lo = new_map(cg, t, MAP_MOD, t, NULL, r, r);
    return new_map(cg, t, MAP_PAIR, hi, cut_term(cg, lo, cut, k - 1), 0, t->size);
}

/* The destination with each digit cut where a digit of the source begins or ends inside it
 * (when those radices form a divisibility chain; otherwise that digit is left whole). */
static const Map *refine(Cg *cg, const Map *m, const CgPlan *spl)
{
    switch (m->kind) {
    case MAP_BCAST:
        return m;
    case MAP_SYM:
    case MAP_STRIDE:
    case MAP_MOD: {
        uint64_t s;
        const Map *x = map_digit_root(m, &s);
        if (x->kind != MAP_SYM)
            return m;
        uint64_t cut[64];
        int k = 0;
        for (int t = 0; t < spl->nterms; t++) {
            const CgTerm *b = &spl->terms[t];
            if (spl->cls[b->cls].axis != x->axis)
                continue;
            uint64_t ends[2] = {b->stride, b->stride * b->count};
            for (int e = 0; e < 2; e++) {
                uint64_t bv = ends[e];
                if (bv <= s || bv % s || bv / s >= m->size || m->size % (bv / s))
                    continue;
                bool seen = false;
                for (int i = 0; i < k; i++)
                    seen = seen || cut[i] == bv / s;
                if (!seen && k < 64)
                    cut[k++] = bv / s;
            }
        }
        for (int i = 0; i < k; i++) /* ascending */
            for (int j = i + 1; j < k; j++)
                if (cut[j] < cut[i]) {
                    uint64_t tmp = cut[i];
                    cut[i] = cut[j];
                    cut[j] = tmp;
                }
        for (int i = 1; i < k; i++)
            if (cut[i] % cut[i - 1])
                return m;
        return cut_term(cg, m, cut, k);
    }
    case MAP_RESIZE:
    case MAP_PAD: {
        const Map *l = refine(cg, m->l, spl);
        return l == m->l ? m : new_map(cg, m, m->kind, l, NULL, m->n, m->size);
    }
    case MAP_PAIR: {
        const Map *l = refine(cg, m->l, spl), *r = refine(cg, m->r, spl);
        return l == m->l && r == m->r ? m : new_map(cg, m, MAP_PAIR, l, r, 0, m->size);
    }
    }
    return m;
}

static uint64_t coord_hash(const uint64_t *c, int n)
{
    uint64_t h = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < n; i++) {
        h ^= c[i] + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
        h *= 0xbf58476d1ce4e5b9u;
    }
    return h ^ (h >> 31);
}

/* A source without a fast inverse (the offset function would scan, O(|SRC|) per element): the
 * smallest source position of every destination position's index is computed once, here, with
 * the interpreter, into a constant table (sema_copy accepted such copies only within the
 * exhaustive budget, so the table is bounded). NULL after a diagnostic. */
static LLVMValueRef offset_table(Cg *cg, const Copy *c)
{
    int na = cg->prog->naxes;
    uint64_t ns = c->src->size, nd = c->dst->size;
    if (ns > MAPC_EXHAUSTIVE_BUDGET || nd > MAPC_EXHAUSTIVE_BUDGET) {
        diag_error(cg->diags, c->loc, "copy %s: the source has no fast inverse and the sizes exceed %llu", c->name,
                   (unsigned long long)MAPC_EXHAUSTIVE_BUDGET);
        cg->failed = true;
        return NULL;
    }
    uint64_t cap = 16;
    while (cap < 2 * ns)
        cap *= 2;
    uint64_t *slot = mem_calloc(cap, sizeof *slot);                    /* source position + 1 */
    uint64_t *sc = mem_alloc(ns * (size_t)(na + 1) * sizeof *sc);   /* source coordinates */
    int64_t *tab = mem_alloc(nd * sizeof *tab);
    Cell cell = {.coord = mem_calloc((size_t)na + 1, sizeof(uint64_t))};
    bool ok = true;
    for (uint64_t q = 0; q < ns && ok; q++) {
        ok = eval_cell(cg->ev, c->src, q, &cell) == EVAL_OK;
        memcpy(&sc[q * (size_t)na], cell.coord, (size_t)na * sizeof *sc);
        if (!ok || cell.kind != CELL_LIVE)
            continue;
        for (uint64_t h = coord_hash(cell.coord, na) & (cap - 1);; h = (h + 1) & (cap - 1)) {
            if (!slot[h]) {
                slot[h] = q + 1;
                break;
            }
            if (memcmp(&sc[(slot[h] - 1) * (size_t)na], cell.coord, (size_t)na * sizeof *sc) == 0)
                break; /* an earlier position holds it */
        }
    }
    for (uint64_t pos = 0; pos < nd && ok; pos++) {
        tab[pos] = -1;
        ok = eval_cell(cg->ev, c->dst, pos, &cell) == EVAL_OK;
        if (!ok || cell.kind != CELL_LIVE)
            continue;
        for (uint64_t h = coord_hash(cell.coord, na) & (cap - 1); slot[h]; h = (h + 1) & (cap - 1))
            if (memcmp(&sc[(slot[h] - 1) * (size_t)na], cell.coord, (size_t)na * sizeof *sc) == 0) {
                tab[pos] = (int64_t)(slot[h] - 1);
                break;
            }
    }
    LLVMValueRef g = NULL;
    if (ok) {
        /* the bytes as one constant data array (cheap to build), used as i64 through a cast */
        LLVMValueRef init = LLVMConstStringInContext(cg->ctx, (const char *)tab, (unsigned)(nd * sizeof *tab), true);
        g = LLVMAddGlobal(cg->mod, LLVMTypeOf(init), "mapc.srcpos");
        LLVMSetInitializer(g, init);
        LLVMSetGlobalConstant(g, true);
        LLVMSetLinkage(g, LLVMPrivateLinkage);
        LLVMSetAlignment(g, 8);
        g = LLVMConstBitCast(g, cg->i64ptr);
    } else {
        diag_error(cg->diags, c->loc, "copy %s: cannot evaluate the layouts: %s", c->name, eval_error(cg->ev));
        cg->failed = true;
    }
    free(slot);
    free(sc);
    free(tab);
    free(cell.coord);
    return g;
}

/* The analysis of a copy: how each destination cell finds its source (linear weights over the destination
 * as enumerated, digits of the coordinates, a table, or the offset function). false after a diagnostic. */
static bool analyze(Cg *cg, const Copy *c, CopyCtx *x)
{
    const CgPlan *dpl = cg_plan(cg, c->dst), *spl = cg_plan(cg, c->src);
    if (!dpl || !spl) {
        cg->failed = true;
        return false;
    }
    *x = (CopyCtx){.c = c, .dpl = dpl, .spl = spl, .esize = (unsigned)elem_type_size(c->elem)};
    if (c->units) { /* one unit's part: dst is pair(units, element), the units' terms given */
        if (c->dst->kind != MAP_PAIR || c->dst->l != c->units) {
            diag_error(cg->diags, c->loc, "internal error: a unit move's destination is not (units, element)");
            cg->failed = true;
            return false;
        }
        x->unit_terms = units_terms(dpl, c->units);
    }
    x->ety = LLVMIntTypeInContext(cg->ctx, 8 * x->esize); /* elements are moved as bits */
    x->srcw = mem_calloc((size_t)dpl->nterms + 1, sizeof *x->srcw);
    x->dmap = c->dst;
    /* Axes the destination never mentions hold 0 in every destination cell, so the source only
     * has to tile the axes the destination mentions (a per-slice part of a move, say). */
    x->src_tiled = spl->tiled || (spl->exact && !spl->truncated && cover_proved(cg->prog, c->src, c->dst));
    x->linear = dpl->exact && x->src_tiled && linear_weights(dpl, spl, x->srcw);
    if (!x->linear && dpl->exact && x->src_tiled) {
        /* a destination digit spans several source digits: enumerate an equivalent destination
         * whose digits are cut at the source's boundaries, which makes the copy linear */
        const Map *r = c->units ? refine(cg, c->dst->r, spl) : refine(cg, c->dst, spl);
        if (c->units && r != c->dst->r) /* the units stay as they are: their terms are given */
            r = new_map(cg, c->dst, MAP_PAIR, c->units, r, 0, c->dst->size);
        else if (c->units)
            r = c->dst;
        const CgPlan *rpl = r != c->dst ? cg_plan(cg, r) : NULL;
        uint64_t *w = rpl ? calloc((size_t)rpl->nterms + 1, sizeof *w) : NULL;
        if (rpl && w && rpl->exact && linear_weights(rpl, spl, w)) {
            free(x->srcw);
            x->srcw = w;
            x->dmap = r;
            x->dpl = dpl = rpl;
            x->linear = true;
        } else {
            free(w);
        }
    }
    if (!x->src_tiled && !spl->invertible && c->units) {
        diag_error(cg->diags, c->loc, "a unit move needs a source with a fast inverse");
        cg->failed = true;
        free(x->srcw);
        return false;
    }
    x->units_in_src = x->linear && c->units;
    return true;
}

/* The blocked, vectorized plan of an analyzed linear copy (false: none applies). */
static bool relayout_plan(Cg *cg, const CopyCtx *x, RlPlan *plan)
{
    if (!x->linear)
        return false;
    CgGiven given = {x->c->units, NULL};
    RlInput in = {.dmap = x->dmap, .dpl = x->dpl, .srcw = x->srcw, .given = x->c->units ? &given : NULL,
                  .skip = x->unit_terms, .esize = x->esize, .dst_elems = x->c->dst->size};
    return rl_plan(cg, &in, plan);
}

/* The attributes of every function of a copy: dst and src never overlap (noalias lets loops vectorize), and
 * the ISA's target features where cg names them. */
static void copy_attributes(Cg *cg, LLVMValueRef fn)
{
    unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
    LLVMAddAttributeAtIndex(fn, 1, LLVMCreateEnumAttribute(cg->ctx, noalias, 0));
    LLVMAddAttributeAtIndex(fn, 2, LLVMCreateEnumAttribute(cg->ctx, noalias, 0));
    if (cg->isa_features)
        cg_isa_attribute(cg, fn);
}

/* An exported function of the copy: PREFIX NAME SUFFIX of type ty, the builder at its entry; NULL after a
 * diagnostic when the symbol exists already. */
static LLVMValueRef copy_fn(Cg *cg, const Copy *c, const char *suffix, LLVMTypeRef ty)
{
    char *sym = arena_printf(&cg->arena, "%s%s%s", cg->prefix, c->name, suffix);
    if (LLVMGetNamedFunction(cg->mod, sym)) {
        diag_error(cg->diags, c->loc, "symbol '%s' is generated twice (rename the type or the copy)", sym);
        cg->failed = true;
        return NULL;
    }
    LLVMValueRef fn = LLVMAddFunction(cg->mod, sym, ty);
    copy_attributes(cg, fn);
    LLVMPositionBuilderAtEnd(cg->b, LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry"));
    return fn;
}

/* The unit's part of every source position (its terms' values at terms, times their weights), so that src
 * can be offset once. */
static LLVMValueRef unit_offset(Cg *cg, const CopyCtx *x, LLVMValueRef terms)
{
    LLVMValueRef off = cg_const(cg, 0);
    for (int j = 0; j < x->unit_terms; j++) {
        LLVMValueRef at = LLVMConstInt(cg->i64, (unsigned)j, false);
        LLVMValueRef v = LLVMBuildLoad2(cg->b, cg->i64, LLVMBuildGEP2(cg->b, cg->i64, terms, &at, 1, ""), "unit");
        off = LLVMBuildNUWAdd(cg->b, off, LLVMBuildNUWMul(cg->b, v, cg_const(cg, x->srcw[j]), ""), "");
    }
    return off;
}

/* The exported functions of a copy with a relayout plan: the plan in a private function
 * (dst, src, unit terms, part, nparts), called by NAME with part 0 of 1 and, for copies and whole moves, by
 * NAME_part(dst, src, part, nparts) for part < nparts. */
static void emit_planned(Cg *cg, CopyCtx *x, const RlPlan *plan)
{
    const Copy *c = x->c;
    LLVMTypeRef args[5] = {cg->vptr, cg->vptr, cg->i64ptr, cg->i64, cg->i64};
    LLVMTypeRef bty = LLVMFunctionType(LLVMVoidTypeInContext(cg->ctx), args, 5, false);
    char name[64];
    snprintf(name, sizeof name, "mapc.relayout.%d", cg->nfn++);
    LLVMValueRef bfn = LLVMAddFunction(cg->mod, name, bty);
    LLVMSetLinkage(bfn, LLVMPrivateLinkage);
    copy_attributes(cg, bfn);
    LLVMPositionBuilderAtEnd(cg->b, LLVMAppendBasicBlockInContext(cg->ctx, bfn, "entry"));
    LLVMTypeRef ep = LLVMPointerType(x->ety, 0);
    LLVMValueRef dst = LLVMBuildBitCast(cg->b, LLVMGetParam(bfn, 0), ep, "dst");
    LLVMValueRef src = LLVMBuildBitCast(cg->b, LLVMGetParam(bfn, 1), ep, "src");
    if (c->units)
        src = LLVMBuildGEP2(cg->b, x->ety, src, (LLVMValueRef[]){unit_offset(cg, x, LLVMGetParam(bfn, 2))}, 1, "");
    rl_emit(cg, plan, x->ety, LLVMGetParam(bfn, 0), dst, src, LLVMGetParam(bfn, 3), LLVMGetParam(bfn, 4));
    LLVMBuildRetVoid(cg->b);

    bool move = c->move || c->units;
    LLVMValueRef fn = copy_fn(cg, c, "", move ? cg->move_ty : cg->copy_ty);
    if (!fn)
        return;
    LLVMValueRef call[5] = {LLVMGetParam(fn, 0), LLVMGetParam(fn, 1),
                            c->units ? LLVMGetParam(fn, 2) : LLVMConstNull(cg->i64ptr), cg_const(cg, 0), cg_const(cg, 1)};
    LLVMBuildCall2(cg->b, bty, bfn, call, 5, "");
    LLVMBuildRetVoid(cg->b);
    if (c->units)
        return;
    fn = copy_fn(cg, c, "_part", cg->part_ty);
    if (!fn)
        return;
    LLVMValueRef part = LLVMGetParam(fn, 2), nparts = LLVMGetParam(fn, 3);
    LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(cg->ctx, fn, "run");
    LLVMBasicBlockRef out = LLVMAppendBasicBlockInContext(cg->ctx, fn, "out");
    LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntULT, part, nparts, ""), run, out);
    LLVMPositionBuilderAtEnd(cg->b, run);
    LLVMValueRef pcall[5] = {LLVMGetParam(fn, 0), LLVMGetParam(fn, 1), LLVMConstNull(cg->i64ptr), part, nparts};
    LLVMBuildCall2(cg->b, bty, bfn, pcall, 5, "");
    LLVMBuildBr(cg->b, out);
    LLVMPositionBuilderAtEnd(cg->b, out);
    LLVMBuildRetVoid(cg->b);
}

/* The exported functions of a copy without a plan: NAME enumerates the destination cell by cell, and
 * NAME_part (copies and whole moves) runs it as part 0 of nparts >= 1 (the other parts have nothing to do). */
static void emit_cells(Cg *cg, CopyCtx *x)
{
    const Copy *c = x->c;
    if (!x->src_tiled && !x->spl->invertible) {
        x->table = offset_table(cg, c);
        if (!x->table)
            return;
    } else if (!x->src_tiled) {
        x->offset_fn = cg_offset_fn(cg, c->src);
        if (!x->offset_fn)
            return;
    }
    bool move = c->move || c->units;
    LLVMValueRef fn = copy_fn(cg, c, "", move ? cg->move_ty : cg->copy_ty);
    if (!fn)
        return;
    if (c->units)
        x->given = (CgGiven){c->units, LLVMGetParam(fn, 2)};
    LLVMTypeRef ep = LLVMPointerType(x->ety, 0);
    x->dst = LLVMBuildBitCast(cg->b, LLVMGetParam(fn, 0), ep, "dst");
    x->src = LLVMBuildBitCast(cg->b, LLVMGetParam(fn, 1), ep, "src");
    x->coords = cg_alloca(cg, cg->i64, (unsigned)cg->prog->naxes, "coords");
    if (x->units_in_src)
        x->src = elem_ptr(cg, x, x->src, unit_offset(cg, x, x->given.values));
    if (!cg_enumerate_given(cg, x->dmap, x->given.node ? &x->given : NULL, copy_body, x)) {
        diag_error(cg->diags, c->loc, "a unit move of %s is too irregular to generate loops for", c->name);
        cg->failed = true;
    }
    LLVMBuildRetVoid(cg->b);
    if (c->units)
        return;
    LLVMValueRef whole = fn;
    fn = copy_fn(cg, c, "_part", cg->part_ty);
    if (!fn)
        return;
    LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(cg->ctx, fn, "run");
    LLVMBasicBlockRef out = LLVMAppendBasicBlockInContext(cg->ctx, fn, "out");
    LLVMValueRef first = LLVMBuildAnd(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, LLVMGetParam(fn, 2), cg_const(cg, 0), ""),
                                      LLVMBuildICmp(cg->b, LLVMIntNE, LLVMGetParam(fn, 3), cg_const(cg, 0), ""), "");
    LLVMBuildCondBr(cg->b, first, run, out);
    LLVMPositionBuilderAtEnd(cg->b, run);
    LLVMValueRef call[3] = {LLVMGetParam(fn, 0), LLVMGetParam(fn, 1), LLVMConstNull(cg->i64ptr)};
    LLVMBuildCall2(cg->b, move ? cg->move_ty : cg->copy_ty, whole, call, move ? 3 : 2, "");
    LLVMBuildBr(cg->b, out);
    LLVMPositionBuilderAtEnd(cg->b, out);
    LLVMBuildRetVoid(cg->b);
}

void cg_emit_copy(Cg *cg, const Copy *c)
{
    CopyCtx x;
    if (!analyze(cg, c, &x))
        return;
    RlPlan plan;
    if (relayout_plan(cg, &x, &plan)) {
        emit_planned(cg, &x, &plan);
        rl_plan_free(&plan);
    } else {
        emit_cells(cg, &x);
    }
    free(x.srcw);
}

size_t cg_describe_copy(Cg *cg, const Copy *c, char *buf, size_t cap)
{
    CopyCtx x;
    if (cap)
        buf[0] = 0;
    if (!analyze(cg, c, &x))
        return 0;
    RlPlan plan;
    size_t n;
    if (relayout_plan(cg, &x, &plan)) {
        n = rl_describe(cg->prog, x.dpl, &plan, buf, cap);
        rl_plan_free(&plan);
    } else {
        n = (size_t)snprintf(buf, cap, "  element by element (%s), in one part\n",
                             !x.linear ? "the source position is not linear in the destination's digits"
                                       : "too many regions of padding");
    }
    free(x.srcw);
    return n;
}
