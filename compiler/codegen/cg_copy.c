/* cg_copy.c — relayout kernels: enumerate the destination, fetch each live cell's element from
 * the source position holding the same index, zero pad(zero), leave pad(top)/pad(bottom) alone. */
#include "algebra/algebra.h"
#include "cg_impl.h"

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
    /* Vector modes (linear path only): the innermost destination term t1 advances L values at a
     * time; RUN copies L contiguous elements, TILE transposes an L x L tile in registers, with
     * t2 the destination term that is contiguous in the source. */
    enum { MODE_SCALAR, MODE_RUN, MODE_TILE } mode;
    int t1, t2;
    unsigned L;
    LLVMTypeRef vty;            /* <L x iN> */
    bool nt;                    /* this variant streams its vector stores (destination aligned) */
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

/* A vector store of L elements at element pointer p: streaming (!nontemporal, aligned to the
 * vector) in the variant generated for an aligned destination, an ordinary store otherwise. */
static void store_vec(Cg *cg, CopyCtx *x, LLVMValueRef v, LLVMValueRef p)
{
    LLVMValueRef vp = LLVMBuildBitCast(cg->b, p, LLVMPointerType(x->vty, 0), "");
    LLVMValueRef st = LLVMBuildStore(cg->b, v, vp);
    if (!x->nt) {
        LLVMSetAlignment(st, x->esize);
        return;
    }
    LLVMSetAlignment(st, x->L * x->esize);
    LLVMMetadataRef one = LLVMValueAsMetadata(LLVMConstInt(cg->i32, 1, false));
    LLVMSetMetadata(st, LLVMGetMDKindIDInContext(cg->ctx, "nontemporal", 11),
                    LLVMMetadataAsValue(cg->ctx, LLVMMDNodeInContext2(cg->ctx, &one, 1)));
}

static LLVMValueRef load_vec(Cg *cg, CopyCtx *x, LLVMValueRef p)
{
    LLVMValueRef vp = LLVMBuildBitCast(cg->b, p, LLVMPointerType(x->vty, 0), "");
    LLVMValueRef v = LLVMBuildLoad2(cg->b, x->vty, vp, "");
    LLVMSetAlignment(v, x->esize);
    return v;
}

/* Transposes L vectors of L lanes in place: log2(L) butterfly stages; stage h exchanges the
 * off-diagonal h x h blocks of each 2h x 2h block (each step is one two-source shuffle). */
static void transpose(Cg *cg, CopyCtx *x, LLVMValueRef *r)
{
    unsigned L = x->L;
    LLVMValueRef m1[64], m2[64];
    for (unsigned h = 1; h < L; h *= 2) {
        for (unsigned j = 0; j < L; j++) {
            m1[j] = LLVMConstInt(cg->i32, (j & h) == 0 ? j : L + j - h, false);
            m2[j] = LLVMConstInt(cg->i32, (j & h) == 0 ? j + h : L + j, false);
        }
        LLVMValueRef k1 = LLVMConstVector(m1, L), k2 = LLVMConstVector(m2, L);
        for (unsigned i = 0; i < L; i++) {
            if (i & h)
                continue;
            LLVMValueRef a = r[i], b = r[i + h];
            r[i] = LLVMBuildShuffleVector(cg->b, a, b, k1, "");
            r[i + h] = LLVMBuildShuffleVector(cg->b, a, b, k2, "");
        }
    }
}

/* One step of a vector mode: L destination elements (RUN) or an L x L tile (TILE) of one kind. */
static void vector_body(Cg *cg, CopyCtx *x, LLVMValueRef pos, unsigned long long kind, LLVMValueRef *vals,
                        const bool *present)
{
    bool tile = x->mode == MODE_TILE && present[x->t2];
    uint64_t w2 = tile ? x->dpl->terms[x->t2].weight : 0;
    unsigned rows = tile ? x->L : 1;
    if (kind == CELL_PAD_ZERO) {
        for (unsigned j = 0; j < rows; j++)
            store_vec(cg, x, LLVMConstNull(x->vty),
                      elem_ptr(cg, x, x->dst, LLVMBuildNUWAdd(cg->b, pos, cg_const(cg, j * w2), "")));
        return;
    }
    if (kind != CELL_LIVE)
        return;
    LLVMValueRef sp = src_position(cg, x, pos, NULL, vals, present);
    if (!tile) { /* RUN: contiguous in both */
        store_vec(cg, x, load_vec(cg, x, elem_ptr(cg, x, x->src, sp)), elem_ptr(cg, x, x->dst, pos));
        return;
    }
    uint64_t s1 = x->srcw[x->t1];
    LLVMValueRef r[64];
    for (unsigned i = 0; i < x->L; i++)
        r[i] = load_vec(cg, x, elem_ptr(cg, x, x->src, LLVMBuildNUWAdd(cg->b, sp, cg_const(cg, i * s1), "")));
    transpose(cg, x, r);
    for (unsigned j = 0; j < x->L; j++)
        store_vec(cg, x, r[j], elem_ptr(cg, x, x->dst, LLVMBuildNUWAdd(cg->b, pos, cg_const(cg, j * w2), "")));
}

/* One destination position: dispatch on its cell kind (a constant in most loop bodies). */
static void copy_body(Cg *cg, void *user, LLVMValueRef pos, LLVMValueRef kind, LLVMValueRef *sub, LLVMValueRef *vals,
                      const bool *present)
{
    CopyCtx *x = user;
    if (x->mode != MODE_SCALAR && vals && present[x->t1] && LLVMIsConstant(kind)) {
        vector_body(cg, x, pos, LLVMConstIntGetZExtValue(kind), vals, present);
        return;
    }
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

/* Picks a vector mode for a linear copy: the destination's innermost term (weight 1) either is
 * contiguous in the source too (RUN, one 64-byte vector a step) or is transposed against a
 * destination term that is contiguous in the source (TILE, L = min(16, 64 / element size)). */
static void choose_mode(CopyCtx *x)
{
    const CgPlan *d = x->dpl;
    x->mode = MODE_SCALAR;
    x->t1 = x->t2 = -1;
    for (int t = x->unit_terms; t < d->nterms; t++)
        if (d->terms[t].weight == 1 && d->terms[t].count > 1)
            x->t1 = t;
    if (x->t1 < 0)
        return;
    uint64_t n1 = d->terms[x->t1].count;
    unsigned run = 64 / x->esize, tile = run < 16 ? run : 16;
    if (x->srcw[x->t1] == 1 && n1 % run == 0) {
        x->mode = MODE_RUN;
        x->L = run;
        return;
    }
    if (n1 % tile)
        return;
    for (int t = x->unit_terms; t < d->nterms; t++)
        if (t != x->t1 && x->srcw[t] == 1 && d->terms[t].count % tile == 0) {
            x->mode = MODE_TILE;
            x->t2 = t;
            x->L = tile;
            return;
        }
}

static void copy_loops(Cg *cg, CopyCtx *xp);

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

void cg_emit_copy(Cg *cg, const Copy *c)
{
    const CgPlan *dpl = cg_plan(cg, c->dst), *spl = cg_plan(cg, c->src);
    if (!dpl || !spl) {
        cg->failed = true;
        return;
    }
    CopyCtx x = {.c = c, .dpl = dpl, .spl = spl, .esize = (unsigned)elem_type_size(c->elem)};
    if (c->units) { /* one unit's part: dst is pair(units, element), the units' terms given */
        if (c->dst->kind != MAP_PAIR || c->dst->l != c->units) {
            diag_error(cg->diags, c->loc, "internal error: a unit move's destination is not (units, element)");
            cg->failed = true;
            return;
        }
        x.unit_terms = units_terms(dpl, c->units);
    }
    x.ety = LLVMIntTypeInContext(cg->ctx, 8 * x.esize); /* elements are moved as bits */
    x.srcw = mem_calloc((size_t)dpl->nterms + 1, sizeof *x.srcw);
    x.dmap = c->dst;
    /* Axes the destination never mentions hold 0 in every destination cell, so the source only
     * has to tile the axes the destination mentions (a per-slice part of a move, say). */
    x.src_tiled = spl->tiled || (spl->exact && !spl->truncated && cover_proved(cg->prog, c->src, c->dst));
    x.linear = dpl->exact && x.src_tiled && linear_weights(dpl, spl, x.srcw);
    if (!x.linear && dpl->exact && x.src_tiled) {
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
            free(x.srcw);
            x.srcw = w;
            x.dmap = r;
            x.dpl = dpl = rpl;
            x.linear = true;
        } else {
            free(w);
        }
    }
    if (!x.src_tiled && !spl->invertible && c->units) {
        diag_error(cg->diags, c->loc, "a unit move needs a source with a fast inverse");
        cg->failed = true;
        free(x.srcw);
        return;
    }
    if (!x.src_tiled && !spl->invertible) {
        x.table = offset_table(cg, c);
        if (!x.table) {
            free(x.srcw);
            return;
        }
    } else if (!x.src_tiled) {
        x.offset_fn = cg_offset_fn(cg, c->src);
        if (!x.offset_fn) {
            free(x.srcw);
            return;
        }
    }
    char *sym = arena_printf(&cg->arena, "%s%s", cg->prefix, c->name);
    if (LLVMGetNamedFunction(cg->mod, sym)) {
        diag_error(cg->diags, c->loc, "symbol '%s' is generated twice (rename the type or the copy)", sym);
        cg->failed = true;
        free(x.srcw);
        return;
    }
    LLVMValueRef fn = LLVMAddFunction(cg->mod, sym, c->move || c->units ? cg->move_ty : cg->copy_ty);
    if (c->units)
        x.given = (CgGiven){c->units, LLVMGetParam(fn, 2)};
    /* the destination never overlaps the source: noalias lets the loops vectorize */
    unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
    LLVMAddAttributeAtIndex(fn, 1, LLVMCreateEnumAttribute(cg->ctx, noalias, 0));
    LLVMAddAttributeAtIndex(fn, 2, LLVMCreateEnumAttribute(cg->ctx, noalias, 0));
    LLVMPositionBuilderAtEnd(cg->b, LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry"));
    LLVMTypeRef ep = LLVMPointerType(x.ety, 0);
    x.dst = LLVMBuildBitCast(cg->b, LLVMGetParam(fn, 0), ep, "dst");
    x.src = LLVMBuildBitCast(cg->b, LLVMGetParam(fn, 1), ep, "src");
    x.coords = cg_alloca(cg, cg->i64, (unsigned)cg->prog->naxes, "coords");
    if (x.linear && c->units) {
        /* the units' part of every source position, added to src once: with the unknown unit values
         * left out of the positions, the vectorizer sees the strided accesses it can widen */
        LLVMValueRef off = cg_const(cg, 0);
        for (int j = 0; j < x.unit_terms; j++) {
            LLVMValueRef at = LLVMConstInt(cg->i64, (unsigned)j, false);
            LLVMValueRef v = LLVMBuildLoad2(cg->b, cg->i64, LLVMBuildGEP2(cg->b, cg->i64, x.given.values, &at, 1, ""),
                                            "unit");
            off = LLVMBuildNUWAdd(cg->b, off, LLVMBuildNUWMul(cg->b, v, cg_const(cg, x.srcw[j]), ""), "");
        }
        x.src = elem_ptr(cg, &x, x.src, off);
        x.units_in_src = true;
    }
    if (x.linear)
        choose_mode(&x);
    /* Large destinations get streaming stores, which need aligned vectors: every vector store is
     * at dst + (multiple of L) elements when all weights but t1's are multiples of L, so one
     * check of dst at entry picks the streaming variant or the ordinary one. */
    bool stream = x.mode != MODE_SCALAR && u64_sat_mul(c->dst->size, x.esize) >= ((uint64_t)4 << 20) &&
                  x.L * x.esize >= 16;
    for (int t = 0; stream && t < dpl->nterms; t++)
        stream = t == x.t1 || dpl->terms[t].weight % x.L == 0;
    /* paddings around t1 only ever hold t1's run or scalar padding stores: their weight is free */
    bool *around = mem_calloc((size_t)dpl->npads + 1, sizeof *around);
    for (int k = stream ? dpl->terms[x.t1].pad : -1; k >= 0; k = dpl->pads[k].parent)
        around[k] = true;
    for (int k = 0; stream && k < dpl->npads; k++)
        stream = around[k] || dpl->pads[k].weight % x.L == 0;
    free(around);
    LLVMBasicBlockRef exit = NULL, plain = NULL;
    if (stream) {
        LLVMBasicBlockRef nt = LLVMAppendBasicBlockInContext(cg->ctx, fn, "aligned");
        plain = LLVMAppendBasicBlockInContext(cg->ctx, fn, "unaligned");
        exit = LLVMAppendBasicBlockInContext(cg->ctx, fn, "exit");
        LLVMValueRef lo = LLVMBuildAnd(cg->b, LLVMBuildPtrToInt(cg->b, LLVMGetParam(fn, 0), cg->i64, ""),
                                       cg_const(cg, x.L * x.esize - 1), "");
        LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, lo, cg_const(cg, 0), ""), nt, plain);
        LLVMPositionBuilderAtEnd(cg->b, nt);
        x.nt = true;
        copy_loops(cg, &x);
        LLVMBuildBr(cg->b, exit);
        LLVMPositionBuilderAtEnd(cg->b, plain);
        x.nt = false;
    }
    copy_loops(cg, &x);
    if (exit) {
        LLVMBuildBr(cg->b, exit);
        LLVMPositionBuilderAtEnd(cg->b, exit);
    }
    LLVMBuildRetVoid(cg->b);
    free(x.srcw);
}

/* The loop nest of a copy kernel in its chosen mode (falling back to scalar when the steps do
 * not apply). */
static void copy_loops(Cg *cg, CopyCtx *x)
{
    const CgPlan *dpl = x->dpl;
    CopyCtx v = *x; /* the mode may fall back to scalar for this variant only */
    bool done = false;
    if (v.mode != MODE_SCALAR) {
        uint64_t *step = mem_calloc((size_t)dpl->nterms + 1, sizeof *step);
        for (int t = 0; t < dpl->nterms; t++)
            step[t] = t == v.t1 || (v.mode == MODE_TILE && t == v.t2) ? v.L : 1;
        v.vty = LLVMVectorType(v.ety, v.L);
        /* TILE: block the transposed term (4 tiles) so that a strip of tiles reads few source
         * rows and writes few destination pages (measured best on 256 MiB f32 transposes) */
        CgHoist h = {.outer = v.t2, .inner = v.t1};
        uint64_t n1 = dpl->terms[v.t1].count;
        for (h.block = 4 * (uint64_t)v.L; h.block > v.L && n1 % h.block; h.block -= v.L)
            ;
        bool hoist = v.mode == MODE_TILE && v.t2 < v.t1 && h.block < n1;
        const CgGiven *given = v.given.node ? &v.given : NULL;
        done = hoist && cg_enumerate_stepped(cg, v.dmap, step, &h, given, copy_body, &v);
        if (!done)
            done = cg_enumerate_stepped(cg, v.dmap, step, NULL, given, copy_body, &v);
        free(step);
    }
    if (!done) {
        v.mode = MODE_SCALAR;
        if (!cg_enumerate_stepped(cg, v.dmap, NULL, NULL, v.given.node ? &v.given : NULL, copy_body, &v)) {
            diag_error(cg->diags, x->c->loc, "a unit move of %s is too irregular to generate loops for", x->c->name);
            cg->failed = true;
        }
    }
}
