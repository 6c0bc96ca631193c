/* cg_enum.c — the enumeration loop: every position of a mapping in order, as nested loops over
 * its digits (no division per element), with the cell finalized in the innermost body. */
#include "cg_impl.h"

#include <stdlib.h>
#include <string.h>

/* Loop bodies generated at most; past it the enumeration is one loop calling the cell function
 * (correct, with a division per element), to keep code size bounded. */
enum { CG_MAX_BODIES = 64 };

/* A pending part of the position: a node iterated over its first n positions, or held at the
 * fixed position q; w is its position weight; t0/k0 its first term / padding in pre-order. */
typedef struct Item {
    const Map *m;
    uint64_t n, q, w;
    bool fixed;
    int t0, k0;
} Item;

typedef struct Enum {
    Cg *cg;
    const CgPlan *pl;
    CgBodyFn body;
    void *user;
    bool dry;
    int bodies;
    const CgGiven *given;       /* a sub-mapping whose term values are given (NULL: none) */
    LLVMValueRef *vals;
    bool *present, *taken;
    /* Recording (cg_enum_regions): loops are not generated but kept on a stack, and each body becomes a
     * region; positions and fixed term values stay constants. */
    bool rec;
    CgRegionLoop *stack;
    int depth, cap_stack;
    CgRegion *regs;
    int nregs, cap_regs;
    /* The incremental each walk (cg_enumerate_each): set[t] while term t has its value for the code being
     * generated; each assignment stores the coordinate of the term's axis where the visitor reads it. */
    struct EachWalk *each;
    bool *set;
} Enum;

/* cg_enumerate_each's state: the visitor and its context, the coordinates of live cells (public axes, updated
 * where a term's loop advances) and those of padding cells (all 0, stored once). */
typedef struct EachWalk {
    LLVMValueRef visit, ctx, live, zeros;
} EachWalk;

static int count_terms(const Map *m)
{
    switch (m->kind) {
    case MAP_BCAST: return 0;
    case MAP_SYM: case MAP_STRIDE: case MAP_MOD: return 1;
    case MAP_RESIZE: case MAP_PAD: return count_terms(m->l);
    case MAP_PAIR: return count_terms(m->l) + count_terms(m->r);
    }
    return 0;
}

static int count_pads(const Map *m)
{
    switch (m->kind) {
    case MAP_BCAST: case MAP_SYM: case MAP_STRIDE: case MAP_MOD: return 0;
    case MAP_RESIZE: return count_pads(m->l);
    case MAP_PAD: return 1 + count_pads(m->l);
    case MAP_PAIR: return count_pads(m->l) + count_pads(m->r);
    }
    return 0;
}

/* A do-while loop "for (iv = 0; iv != n; iv++)", n >= 1; the builder is left in the body. */
typedef struct Loop {
    LLVMBasicBlockRef body, exit;
    LLVMValueRef iv;
} Loop;

static Loop loop_open(Cg *cg)
{
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(cg->b);
    LLVMValueRef fn = LLVMGetBasicBlockParent(pre);
    Loop l;
    l.body = LLVMAppendBasicBlockInContext(cg->ctx, fn, "loop");
    l.exit = LLVMAppendBasicBlockInContext(cg->ctx, fn, "done");
    LLVMBuildBr(cg->b, l.body);
    LLVMPositionBuilderAtEnd(cg->b, l.body);
    l.iv = LLVMBuildPhi(cg->b, cg->i64, "d");
    LLVMValueRef z = cg_const(cg, 0);
    LLVMAddIncoming(l.iv, &z, &pre, 1);
    return l;
}

static void loop_close(Cg *cg, Loop *l, uint64_t n)
{
    LLVMValueRef next = LLVMBuildNUWAdd(cg->b, l->iv, cg_const(cg, 1), "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(cg->b);
    LLVMAddIncoming(l->iv, &next, &latch, 1);
    LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntNE, next, cg_const(cg, n), ""), l->body, l->exit);
    LLVMPositionBuilderAtEnd(cg->b, l->exit);
}

static void gen(Enum *e, Item *items, int n, LLVMValueRef pos);

/* Continues with items[1..n) after the first one was placed. */
static void gen_rest(Enum *e, Item *items, int n, LLVMValueRef pos) { gen(e, items + 1, n - 1, pos); }

/* Replaces items[0] by its operands (one or two) and continues. */
static void gen_split(Enum *e, Item *items, int n, LLVMValueRef pos, Item a, Item b, bool two)
{
    Item *v = mem_alloc(((size_t)n + 2) * sizeof *v);
    v[0] = a;
    int k = 1;
    if (two)
        v[k++] = b;
    memcpy(v + k, items + 1, (size_t)(n - 1) * sizeof *v);
    gen(e, v, n - 1 + k, pos);
    free(v);
}

static LLVMValueRef add_pos(Enum *e, LLVMValueRef pos, LLVMValueRef v, uint64_t w)
{
    if (e->dry)
        return pos;
    return LLVMBuildNUWAdd(e->cg->b, pos, LLVMBuildNUWMul(e->cg->b, v, cg_const(e->cg, w), ""), "");
}

/* Marks the terms under a taken padding absent (and restores them). */
static void set_present(Enum *e, int t0, int nt, bool v)
{
    for (int t = t0; t < t0 + nt; t++)
        e->present[t] = v;
}

/* Recording: the cell kind of a body of a digit-exact plan, which its taken paddings decide (the most major
 * wins; a digit-exact plan has no composite base and no digit that can overflow). */
static int recorded_kind(const Enum *e)
{
    int kind = CELL_LIVE, slot = -1;
    for (int k = 0; k < e->pl->npads; k++)
        if (e->taken[k] && (slot < 0 || e->pl->pads[k].slot < slot)) {
            slot = e->pl->pads[k].slot;
            kind = (int)e->pl->pads[k].node->pad;
        }
    return kind;
}

/* Recording: the body at the loops on the stack becomes a region. */
static void record_region(Enum *e, LLVMValueRef pos)
{
    if (e->nregs == e->cap_regs) {
        e->cap_regs = e->cap_regs ? 2 * e->cap_regs : 8;
        e->regs = mem_realloc(e->regs, (size_t)e->cap_regs * sizeof *e->regs);
    }
    const CgPlan *pl = e->pl;
    CgRegion *r = &e->regs[e->nregs++];
    r->kind = recorded_kind(e);
    r->pos = LLVMConstIntGetZExtValue(pos);
    r->nloops = e->depth;
    r->loops = arena_alloc(&e->cg->arena, ((size_t)e->depth + 1) * sizeof *r->loops);
    if (e->depth) /* no loop around the body: the stack may be empty (NULL) */
        memcpy(r->loops, e->stack, (size_t)e->depth * sizeof *r->loops);
    r->vals = arena_alloc(&e->cg->arena, ((size_t)pl->nterms + 1) * sizeof *r->vals);
    r->present = arena_alloc(&e->cg->arena, (size_t)pl->nterms + 1);
    for (int t = 0; t < pl->nterms; t++) {
        r->present[t] = e->present[t];
        r->vals[t] = LLVMConstIntGetZExtValue(e->vals[t]);
    }
}

/* Recording: a loop pushed on the stack around the rest of the items (its term's value a placeholder). */
static void record_loop(Enum *e, Item *items, int n, LLVMValueRef pos, CgRegionLoop l)
{
    if (l.term >= 0)
        e->vals[l.term] = cg_const(e->cg, 0);
    if (e->depth == e->cap_stack) {
        e->cap_stack = e->cap_stack ? 2 * e->cap_stack : 16;
        e->stack = mem_realloc(e->stack, (size_t)e->cap_stack * sizeof *e->stack);
    }
    e->stack[e->depth++] = l;
    gen_rest(e, items, n, pos);
    e->depth--;
}

/* Term t takes value v; in the each walk, the coordinate of its axis (the terms that have values, times their
 * strides) is stored for the visitor, so coordinates change in memory only where their loops advance. */
static void assign(Enum *e, int t, LLVMValueRef v)
{
    e->vals[t] = v;
    if (!e->each || e->rec)
        return;
    e->set[t] = true;
    Cg *cg = e->cg;
    const CgPlan *pl = e->pl;
    int axis = pl->cls[pl->terms[t].cls].axis, pub = prog_public_index(cg->prog, axis);
    if (pub < 0)
        return;
    LLVMValueRef c = cg_const(cg, 0);
    for (int u = 0; u < pl->nterms; u++)
        if (e->set[u] && pl->cls[pl->terms[u].cls].axis == axis && pl->terms[u].count > 1)
            c = LLVMBuildNUWAdd(cg->b, c, LLVMBuildNUWMul(cg->b, e->vals[u], cg_const(cg, pl->terms[u].stride), ""), "");
    LLVMValueRef at = LLVMConstInt(cg->i64, (unsigned)pub, false);
    LLVMBuildStore(cg->b, c, LLVMBuildGEP2(cg->b, cg->i64, e->each->live, &at, 1, ""));
}

static void gen(Enum *e, Item *items, int n, LLVMValueRef pos)
{
    Cg *cg = e->cg;
    if (e->bodies > CG_MAX_BODIES)
        return;
    if (n == 0) {
        e->bodies++;
        if (e->dry)
            return;
        if (e->rec) {
            record_region(e, pos);
            return;
        }
        const CgPlan *pl = e->pl;
        LLVMValueRef *pres = mem_calloc((size_t)pl->nterms + 1, sizeof *pres);
        LLVMValueRef *tk = mem_calloc((size_t)pl->npads + 1, sizeof *tk);
        LLVMValueRef *vals = mem_calloc((size_t)pl->nterms + 1, sizeof *vals);
        LLVMValueRef sub[cg->prog->naxes + 1];
        for (int t = 0; t < pl->nterms; t++) {
            pres[t] = e->present[t] ? NULL : LLVMConstInt(cg->i1, 0, false);
            vals[t] = e->present[t] ? e->vals[t] : cg_const(cg, 0);
        }
        for (int k = 0; k < pl->npads; k++)
            tk[k] = e->taken[k] ? LLVMConstInt(cg->i1, 1, false) : NULL;
        LLVMValueRef kind = cg_finalize(cg, pl, vals, pres, tk, sub);
        e->body(cg, e->user, pos, kind, sub, vals, e->present);
        free(pres);
        free(tk);
        free(vals);
        return;
    }
    Item it = items[0];
    const Map *m = it.m;
    if (e->given && m == e->given->node && !it.fixed && it.n == m->size) {
        if (e->rec)
            for (int t = 0, nt = count_terms(m); t < nt; t++)
                e->vals[it.t0 + t] = cg_const(cg, 0); /* unknown here; the caller offsets the buffers */
        else if (!e->dry)
            for (int t = 0, nt = count_terms(m); t < nt; t++) {
                LLVMValueRef at = LLVMConstInt(cg->i64, (unsigned)t, false);
                e->vals[it.t0 + t] = LLVMBuildLoad2(cg->b, cg->i64,
                                                    LLVMBuildGEP2(cg->b, cg->i64, e->given->values, &at, 1, ""), "unit");
            }
        gen_rest(e, items, n, pos);
        return;
    }
    switch (m->kind) {
    case MAP_BCAST:
    case MAP_SYM:
    case MAP_STRIDE:
    case MAP_MOD: {
        bool term = m->kind != MAP_BCAST;
        if (it.fixed || it.n == 1) {
            uint64_t q = it.fixed ? it.q : 0;
            if (term && !e->dry)
                assign(e, it.t0, cg_const(cg, q));
            gen_rest(e, items, n, e->dry ? pos : add_pos(e, pos, cg_const(cg, q), it.w));
            if (term && e->set)
                e->set[it.t0] = false;
            return;
        }
        if (e->dry) {
            gen_rest(e, items, n, pos);
            return;
        }
        if (e->rec) {
            record_loop(e, items, n, pos, (CgRegionLoop){it.n, 0, it.w, term ? it.t0 : -1});
            return;
        }
        Loop l = loop_open(cg);
        if (term)
            assign(e, it.t0, l.iv);
        gen_rest(e, items, n, add_pos(e, pos, l.iv, it.w));
        if (term && e->set)
            e->set[it.t0] = false;
        loop_close(cg, &l, it.n);
        return;
    }
    case MAP_RESIZE: {
        Item a = it;
        a.m = m->l;
        gen_split(e, items, n, pos, a, a, false);
        return;
    }
    case MAP_PAIR: {
        uint64_t r = m->r->size;
        Item a = {.m = m->l, .w = it.w * r, .t0 = it.t0, .k0 = it.k0};
        Item b = {.m = m->r, .w = it.w, .t0 = it.t0 + count_terms(m->l), .k0 = it.k0 + count_pads(m->l)};
        if (it.fixed) {
            a.fixed = b.fixed = true;
            a.q = it.q / r;
            b.q = it.q % r;
            gen_split(e, items, n, pos, a, b, true);
            return;
        }
        if (it.n / r) {
            a.n = it.n / r;
            b.n = r;
            gen_split(e, items, n, pos, a, b, true);
        }
        if (it.n % r) {
            a.fixed = true;
            a.q = it.n / r;
            b.n = it.n % r;
            gen_split(e, items, n, pos, a, b, true);
        }
        return;
    }
    case MAP_PAD: {
        uint64_t inner = m->l->size;
        Item a = {.m = m->l, .w = it.w, .t0 = it.t0, .k0 = it.k0 + 1};
        int nt = count_terms(m->l);
        if (it.fixed) {
            if (it.q < inner) {
                a.fixed = true;
                a.q = it.q;
                gen_split(e, items, n, pos, a, a, false);
            } else {
                e->taken[it.k0] = true;
                set_present(e, it.t0, nt, false);
                gen_rest(e, items, n, e->dry ? pos : add_pos(e, pos, cg_const(cg, it.q), it.w));
                e->taken[it.k0] = false;
                set_present(e, it.t0, nt, true);
            }
            return;
        }
        a.n = it.n < inner ? it.n : inner;
        gen_split(e, items, n, pos, a, a, false);
        if (it.n <= inner)
            return;
        /* the padding run: positions inner .. n-1 of this node */
        e->taken[it.k0] = true;
        set_present(e, it.t0, nt, false);
        if (e->dry || it.n - inner == 1) {
            gen_rest(e, items, n, e->dry ? pos : add_pos(e, pos, cg_const(cg, inner), it.w));
        } else if (e->rec) {
            record_loop(e, items, n, pos, (CgRegionLoop){it.n - inner, inner, it.w, -1});
        } else {
            Loop l = loop_open(cg);
            LLVMValueRef at = LLVMBuildNUWAdd(cg->b, l.iv, cg_const(cg, inner), "");
            gen_rest(e, items, n, add_pos(e, pos, at, it.w));
            loop_close(cg, &l, it.n - inner);
        }
        e->taken[it.k0] = false;
        set_present(e, it.t0, nt, true);
        return;
    }
    }
}

/* An enumeration of plan pl (dry, nothing generated yet) with the body given; enum_free releases it. */
static Enum enum_init(Cg *cg, const CgPlan *pl, const CgGiven *given, CgBodyFn body, void *user)
{
    Enum e = {.cg = cg, .pl = pl, .body = body, .user = user, .dry = true, .given = given};
    e.vals = mem_calloc((size_t)pl->nterms + 1, sizeof *e.vals);
    e.present = mem_alloc(((size_t)pl->nterms + 1) * sizeof *e.present);
    e.taken = mem_calloc((size_t)pl->npads + 1, sizeof *e.taken);
    for (int t = 0; t < pl->nterms; t++)
        e.present[t] = true;
    return e;
}

static void enum_free(Enum *e)
{
    free(e->vals);
    free(e->present);
    free(e->taken);
    free(e->set);
    free(e->stack);
    free(e->regs);
}

/* Fallback: one loop over the positions, each cell through the cell function. */
static void gen_flat(Cg *cg, const Map *m, CgBodyFn body, void *user)
{
    int na = cg->prog->naxes;
    LLVMValueRef fn = cg_cell_fn(cg, m);
    if (!fn)
        return;
    LLVMValueRef tmp = cg_alloca(cg, cg->i64, (unsigned)na, "cell");
    Loop l = loop_open(cg);
    LLVMValueRef args[2] = {l.iv, tmp};
    LLVMValueRef kind = LLVMBuildCall2(cg->b, cg->cell_ty, fn, args, 2, "k");
    LLVMValueRef sub[na + 1];
    for (int a = 0; a < na; a++) {
        LLVMValueRef idx = LLVMConstInt(cg->i64, (unsigned)a, false);
        sub[a] = LLVMBuildLoad2(cg->b, cg->i64, LLVMBuildGEP2(cg->b, cg->i64, tmp, &idx, 1, ""), "");
    }
    body(cg, user, l.iv, kind, sub, NULL, NULL);
    loop_close(cg, &l, m->size);
}

bool cg_enumerate_given(Cg *cg, const Map *m, const CgGiven *given, CgBodyFn body, void *user)
{
    const CgPlan *pl = cg_plan(cg, m);
    if (!pl) {
        cg->failed = true;
        return true;
    }
    Enum e = enum_init(cg, pl, given, body, user);
    Item root = {.m = m, .n = m->size, .w = 1};
    gen(&e, &root, 1, NULL);
    bool ok = true;
    if (e.bodies > CG_MAX_BODIES && !given) {
        gen_flat(cg, m, body, user);
    } else if (e.bodies > CG_MAX_BODIES) {
        ok = false; /* the flat fallback enumerates every position: a given part needs the loops */
    } else {
        e.dry = false;
        e.bodies = 0;
        gen(&e, &root, 1, cg_const(cg, 0));
    }
    enum_free(&e);
    return ok;
}

bool cg_enum_regions(Cg *cg, const Map *m, const CgGiven *given, CgRegion **regions, int *nregions)
{
    *regions = NULL;
    *nregions = 0;
    const CgPlan *pl = cg_plan(cg, m);
    if (!pl || !pl->exact)
        return false;
    Enum e = enum_init(cg, pl, given, NULL, NULL);
    Item root = {.m = m, .n = m->size, .w = 1};
    gen(&e, &root, 1, NULL);
    bool ok = e.bodies <= CG_MAX_BODIES;
    if (ok) {
        for (int t = 0; t < pl->nterms; t++)
            e.vals[t] = cg_const(cg, 0);
        e.dry = false;
        e.rec = true;
        e.bodies = 0;
        gen(&e, &root, 1, cg_const(cg, 0));
        *regions = arena_alloc(&cg->arena, ((size_t)e.nregs + 1) * sizeof **regions);
        if (e.nregs)
            memcpy(*regions, e.regs, (size_t)e.nregs * sizeof **regions);
        *nregions = e.nregs;
    }
    enum_free(&e);
    return ok;
}

/* The body of the incremental each walk: the visitor called with the live coordinates or the zeros. */
static void each_visit(Cg *cg, void *user, LLVMValueRef pos, LLVMValueRef kind, LLVMValueRef *sub, LLVMValueRef *vals,
                       const bool *present)
{
    (void)sub;
    (void)vals;
    (void)present;
    EachWalk *w = user;
    bool live = LLVMConstIntGetZExtValue(kind) == CELL_LIVE;
    LLVMValueRef args[4] = {w->ctx, pos, kind, live ? w->live : w->zeros};
    LLVMBuildCall2(cg->b, cg->visit_ty, w->visit, args, 4, "");
}

/* The body of the general each walk: every public coordinate stored, then the visitor called. */
static void each_body(Cg *cg, void *user, LLVMValueRef pos, LLVMValueRef kind, LLVMValueRef *sub, LLVMValueRef *vals,
                      const bool *present)
{
    (void)vals;
    (void)present;
    EachWalk *w = user;
    for (int a = 0; a < cg->prog->naxes; a++) {
        int i = prog_public_index(cg->prog, a);
        if (i < 0)
            continue;
        LLVMValueRef idx = LLVMConstInt(cg->i64, (unsigned)i, false);
        LLVMBuildStore(cg->b, sub[a], LLVMBuildGEP2(cg->b, cg->i64, w->live, &idx, 1, ""));
    }
    LLVMValueRef args[4] = {w->ctx, pos, kind, w->live};
    LLVMBuildCall2(cg->b, cg->visit_ty, w->visit, args, 4, "");
}

void cg_enumerate_each(Cg *cg, const Map *m, LLVMValueRef visit, LLVMValueRef ctx)
{
    unsigned np = (unsigned)prog_public_axes(cg->prog);
    EachWalk w = {.visit = visit, .ctx = ctx, .live = cg_alloca(cg, cg->i64, np ? np : 1, "coords")};
    const CgPlan *pl = cg_plan(cg, m);
    if (!pl) {
        cg->failed = true;
        return;
    }
    if (!pl->exact) {
        cg_enumerate(cg, m, each_body, &w);
        return;
    }
    /* digit-exact: a live cell's coordinates are sums of its terms' digits and every body's kind a constant */
    w.zeros = cg_alloca(cg, cg->i64, np ? np : 1, "zeros");
    for (unsigned i = 0; i < np; i++) {
        LLVMValueRef at = LLVMConstInt(cg->i64, i, false);
        LLVMBuildStore(cg->b, cg_const(cg, 0), LLVMBuildGEP2(cg->b, cg->i64, w.zeros, &at, 1, ""));
        LLVMBuildStore(cg->b, cg_const(cg, 0), LLVMBuildGEP2(cg->b, cg->i64, w.live, &at, 1, ""));
    }
    Enum e = enum_init(cg, pl, NULL, each_visit, &w);
    e.each = &w;
    e.set = mem_calloc((size_t)pl->nterms + 1, sizeof *e.set);
    Item root = {.m = m, .n = m->size, .w = 1};
    gen(&e, &root, 1, NULL);
    if (e.bodies > CG_MAX_BODIES) {
        e.each = NULL;
        gen_flat(cg, m, each_body, &w);
    } else {
        e.dry = false;
        e.bodies = 0;
        gen(&e, &root, 1, cg_const(cg, 0));
    }
    enum_free(&e);
}

void cg_enumerate(Cg *cg, const Map *m, CgBodyFn body, void *user)
{
    cg_enumerate_given(cg, m, NULL, body, user);
}
