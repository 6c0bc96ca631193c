/* cg_relayout_ir.c — the IR of a relayout plan: each box's loop nest (its outermost loops split into parts),
 * vector runs and register transposes with masked tails, streaming stores in the variant for an aligned
 * destination. */
#include "cg_relayout.h"

#include <llvm-c/DebugInfo.h>
#include <string.h>


typedef struct Rl {
    Cg *cg;
    const RlPlan *p;
    const RlBox *b;
    LLVMTypeRef ety, vty;       /* the element; the box's vector of vl elements */
    unsigned esize;
    LLVMValueRef dst, src;      /* element pointers */
    bool nt;                    /* this variant streams the full vector stores of aligned boxes */
} Rl;

/* A half-open range of a TILE dimension's values: start (i64) and a constant count. */
typedef struct Range {
    LLVMValueRef start;
    uint64_t count;
} Range;

typedef struct RlLoop {
    LLVMBasicBlockRef body, exit;
    LLVMValueRef iv;
} RlLoop;

static LLVMValueRef c64(Rl *x, uint64_t v) { return cg_const(x->cg, v); }
static LLVMValueRef add(Rl *x, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildNUWAdd(x->cg->b, a, b, ""); }
static LLVMValueRef mulc(Rl *x, LLVMValueRef a, uint64_t w) { return LLVMBuildNUWMul(x->cg->b, a, c64(x, w), ""); }

/* for (iv = lo; iv < hi; iv++), the builder left in the body (nothing runs when lo >= hi). */
static RlLoop loop_begin(Rl *x, LLVMValueRef lo, LLVMValueRef hi)
{
    Cg *cg = x->cg;
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(cg->b);
    LLVMValueRef fn = LLVMGetBasicBlockParent(pre);
    RlLoop l = {LLVMAppendBasicBlockInContext(cg->ctx, fn, "rl.loop"), LLVMAppendBasicBlockInContext(cg->ctx, fn, "rl.done"),
                NULL};
    LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntULT, lo, hi, ""), l.body, l.exit);
    LLVMPositionBuilderAtEnd(cg->b, l.body);
    l.iv = LLVMBuildPhi(cg->b, cg->i64, "i");
    LLVMAddIncoming(l.iv, &lo, &pre, 1);
    return l;
}

/* Closes loop l (the iterations run while iv + 1 < hi); with keep, LLVM is told not to unroll it. */
static void loop_end_as(Rl *x, RlLoop *l, LLVMValueRef hi, bool keep)
{
    Cg *cg = x->cg;
    LLVMValueRef next = LLVMBuildNUWAdd(cg->b, l->iv, c64(x, 1), "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(cg->b);
    LLVMAddIncoming(l->iv, &next, &latch, 1);
    LLVMValueRef br = LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntULT, next, hi, ""), l->body, l->exit);
    if (keep) {
        LLVMMetadataRef tmp = LLVMTemporaryMDNode(cg->ctx, NULL, 0);
        LLVMMetadataRef str = LLVMMDStringInContext2(cg->ctx, "llvm.loop.unroll.disable", 24);
        LLVMMetadataRef dis = LLVMMDNodeInContext2(cg->ctx, &str, 1);
        LLVMMetadataRef ops[2] = {tmp, dis};
        LLVMMetadataRef loop = LLVMMDNodeInContext2(cg->ctx, ops, 2);
        LLVMMetadataReplaceAllUsesWith(tmp, loop);
        LLVMSetMetadata(br, LLVMGetMDKindIDInContext(cg->ctx, "llvm.loop", 9), LLVMMetadataAsValue(cg->ctx, loop));
    }
    LLVMPositionBuilderAtEnd(cg->b, l->exit);
}

static void loop_end(Rl *x, RlLoop *l, LLVMValueRef hi) { loop_end_as(x, l, hi, false); }

/* if (cond) { ... }: the builder left inside; if_end closes it. */
static LLVMBasicBlockRef if_begin(Rl *x, LLVMValueRef cond)
{
    Cg *cg = x->cg;
    LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(cg->b));
    LLVMBasicBlockRef then = LLVMAppendBasicBlockInContext(cg->ctx, fn, "rl.then");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(cg->ctx, fn, "rl.endif");
    LLVMBuildCondBr(cg->b, cond, then, done);
    LLVMPositionBuilderAtEnd(cg->b, then);
    return done;
}

static void if_end(Rl *x, LLVMBasicBlockRef done)
{
    LLVMBuildBr(x->cg->b, done);
    LLVMPositionBuilderAtEnd(x->cg->b, done);
}

static LLVMValueRef vec_ptr(Rl *x, LLVMValueRef base, LLVMValueRef at)
{
    LLVMValueRef p = LLVMBuildGEP2(x->cg->b, x->ety, base, &at, 1, "");
    return LLVMBuildBitCast(x->cg->b, p, LLVMPointerType(x->vty, 0), "");
}

/* The constant mask of the first k of the vector's lanes. */
static LLVMValueRef lane_mask(Rl *x, unsigned k)
{
    LLVMValueRef m[64];
    for (unsigned i = 0; i < x->b->vl; i++)
        m[i] = LLVMConstInt(x->cg->i1, i < k, false);
    return LLVMConstVector(m, x->b->vl);
}

/* A masked vector intrinsic (llvm.masked.load / llvm.masked.store) for the box's vector type. */
static LLVMValueRef masked_fn(Rl *x, const char *name, LLVMTypeRef *fty)
{
    LLVMTypeRef over[2] = {x->vty, LLVMPointerType(x->vty, 0)};
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    *fty = LLVMIntrinsicGetType(x->cg->ctx, id, over, 2);
    return LLVMGetIntrinsicDeclaration(x->cg->mod, id, over, 2);
}

/* The first k lanes (k <= vl) of the source vector at element offset at; the others are zero. */
static LLVMValueRef load_vec(Rl *x, LLVMValueRef at, unsigned k)
{
    Cg *cg = x->cg;
    LLVMValueRef p = vec_ptr(x, x->src, at);
    if (k == x->b->vl) {
        LLVMValueRef v = LLVMBuildLoad2(cg->b, x->vty, p, "");
        LLVMSetAlignment(v, x->esize);
        return v;
    }
    LLVMTypeRef fty;
    LLVMValueRef fn = masked_fn(x, "llvm.masked.load", &fty);
    LLVMValueRef args[4] = {p, LLVMConstInt(cg->i32, x->esize, false), lane_mask(x, k), LLVMConstNull(x->vty)};
    return LLVMBuildCall2(cg->b, fty, fn, args, 4, "");
}

/* Stores the first k lanes of v at destination element offset at: a streaming store for a full vector of an
 * aligned box in the streaming variant, else an ordinary (masked) one. */
static void store_vec(Rl *x, LLVMValueRef v, LLVMValueRef at, unsigned k)
{
    Cg *cg = x->cg;
    LLVMValueRef p = vec_ptr(x, x->dst, at);
    if (k < x->b->vl) {
        LLVMTypeRef fty;
        LLVMValueRef fn = masked_fn(x, "llvm.masked.store", &fty);
        LLVMValueRef args[4] = {v, p, LLVMConstInt(cg->i32, x->esize, false), lane_mask(x, k)};
        LLVMBuildCall2(cg->b, fty, fn, args, 4, "");
        return;
    }
    LLVMValueRef st = LLVMBuildStore(cg->b, v, p);
    if (!(x->nt && x->b->aligned)) {
        LLVMSetAlignment(st, x->esize);
        return;
    }
    LLVMSetAlignment(st, x->b->vl * x->esize);
    LLVMMetadataRef one = LLVMValueAsMetadata(LLVMConstInt(cg->i32, 1, false));
    LLVMSetMetadata(st, LLVMGetMDKindIDInContext(cg->ctx, "nontemporal", 11),
                    LLVMMetadataAsValue(cg->ctx, LLVMMDNodeInContext2(cg->ctx, &one, 1)));
}

/* Prefetches the source line holding element offset at into every cache level. */
static void prefetch(Rl *x, LLVMValueRef at)
{
    Cg *cg = x->cg;
    LLVMTypeRef pt[4] = {cg->vptr, cg->i32, cg->i32, cg->i32};
    LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(cg->ctx), pt, 4, false);
    LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, "llvm.prefetch.p0i8");
    if (!fn)
        fn = LLVMAddFunction(cg->mod, "llvm.prefetch.p0i8", ft);
    LLVMValueRef p = LLVMBuildBitCast(cg->b, LLVMBuildGEP2(cg->b, x->ety, x->src, &at, 1, ""), cg->vptr, "");
    LLVMValueRef args[4] = {p, LLVMConstInt(cg->i32, 0, false), LLVMConstInt(cg->i32, 3, false),
                            LLVMConstInt(cg->i32, 1, false)}; /* read, keep in all levels, data */
    LLVMBuildCall2(cg->b, ft, fn, args, 4, "");
}

/* Transposes L vectors of L lanes in place: log2(L) butterfly stages; stage h exchanges the off-diagonal
 * h x h blocks of each 2h x 2h block (each step one two-source shuffle). */
static void transpose(Rl *x, LLVMValueRef *r)
{
    unsigned L = x->b->vl;
    LLVMValueRef m1[RL_MAX_DIMS], m2[RL_MAX_DIMS];
    for (unsigned h = 1; h < L; h *= 2) {
        for (unsigned j = 0; j < L; j++) {
            m1[j] = LLVMConstInt(x->cg->i32, (j & h) == 0 ? j : L + j - h, false);
            m2[j] = LLVMConstInt(x->cg->i32, (j & h) == 0 ? j + h : L + j, false);
        }
        LLVMValueRef k1 = LLVMConstVector(m1, L), k2 = LLVMConstVector(m2, L);
        for (unsigned i = 0; i < L; i++) {
            if (i & h)
                continue;
            LLVMValueRef a = r[i], b = r[i + h];
            r[i] = LLVMBuildShuffleVector(x->cg->b, a, b, k1, "");
            r[i + h] = LLVMBuildShuffleVector(x->cg->b, a, b, k2, "");
        }
    }
}

/* One register tile: ca (<= vl) values of a by cb (<= vl) of b, at destination offset dpos (of its a = b = 0
 * corner) and source offset spos. Source rows run along b, destination rows along a. */
static void tile(Rl *x, LLVMValueRef dpos, LLVMValueRef spos, unsigned ca, unsigned cb)
{
    const RlBox *b = x->b;
    uint64_t swa = b->d[b->a].sw, dwb = b->d[b->b].dw;
    LLVMValueRef r[RL_MAX_DIMS];
    for (unsigned i = 0; i < b->vl; i++)
        r[i] = i < ca ? load_vec(x, add(x, spos, c64(x, i * swa)), cb) : LLVMConstNull(x->vty);
    /* separate long rows: their lines two tiles ahead prefetched, which the hardware alone keeps fewer of in
     * flight (see RlBox.prefetch); prefetching past a buffer never faults */
    for (unsigned i = 0; i < ca && b->prefetch; i++)
        prefetch(x, add(x, spos, c64(x, i * swa + RL_PREFETCH_BYTES / x->esize)));
    transpose(x, r);
    for (unsigned j = 0; j < cb; j++)
        store_vec(x, r[j], add(x, dpos, c64(x, j * dwb)), ca);
}

/* The tiles of a TILE box's block ra x rb at offsets dpos, spos (of the box's a = b = 0): a inner, so each
 * destination row is written front to back; partial tiles masked. */
static void tiles(Rl *x, LLVMValueRef dpos, LLVMValueRef spos, Range ra, Range rb)
{
    const RlBox *b = x->b;
    unsigned L = b->vl;
    uint64_t swa = b->d[b->a].sw, dwb = b->d[b->b].dw;
    for (int pb = 0; pb < 2; pb++) { /* full tiles of b, then the partial one */
        uint64_t nbt = pb ? (rb.count % L ? 1 : 0) : rb.count / L;
        unsigned cb = pb ? (unsigned)(rb.count % L) : L;
        if (!nbt)
            continue;
        RlLoop lb = loop_begin(x, c64(x, 0), c64(x, nbt));
        LLVMValueRef b0 = add(x, rb.start, pb ? c64(x, rb.count / L * L) : mulc(x, lb.iv, L));
        LLVMValueRef db = add(x, dpos, LLVMBuildNUWMul(x->cg->b, b0, c64(x, dwb), ""));
        LLVMValueRef sb = add(x, spos, b0);
        for (int pa = 0; pa < 2; pa++) {
            uint64_t nat = pa ? (ra.count % L ? 1 : 0) : ra.count / L;
            unsigned ca = pa ? (unsigned)(ra.count % L) : L;
            if (!nat)
                continue;
            RlLoop la = loop_begin(x, c64(x, 0), c64(x, nat));
            LLVMValueRef a0 = add(x, ra.start, pa ? c64(x, ra.count / L * L) : mulc(x, la.iv, L));
            tile(x, add(x, db, a0), add(x, sb, LLVMBuildNUWMul(x->cg->b, a0, c64(x, swa), "")), ca, cb);
            loop_end_as(x, &la, c64(x, nat), true);
        }
        loop_end_as(x, &lb, c64(x, nbt), true);
    }
}

/* A RUN box's innermost dimension at dpos, spos: full vectors, then a masked tail (zeros for a zero box). */
static void run(Rl *x, LLVMValueRef dpos, LLVMValueRef spos)
{
    const RlBox *b = x->b;
    unsigned L = b->vl;
    uint64_t n = b->d[b->a].n;
    bool live = b->kind == CELL_LIVE;
    if (n / L) {
        RlLoop l = loop_begin(x, c64(x, 0), c64(x, n / L));
        LLVMValueRef at = mulc(x, l.iv, L);
        LLVMValueRef v = live ? load_vec(x, add(x, spos, at), L) : LLVMConstNull(x->vty);
        store_vec(x, v, add(x, dpos, at), L);
        loop_end(x, &l, c64(x, n / L));
    }
    if (n % L) {
        LLVMValueRef at = c64(x, n / L * L);
        LLVMValueRef v = live ? load_vec(x, add(x, spos, at), (unsigned)(n % L)) : LLVMConstNull(x->vty);
        store_vec(x, v, add(x, dpos, at), (unsigned)(n % L));
    }
}

/* A vector of the box's lanes whose lane i is element idx[i] of the concatenation of the k (a power of two)
 * vectors in[], built as a tree of concatenations and one last shuffle. */
static LLVMValueRef pick_lanes(Rl *x, LLVMValueRef *in, unsigned k, const unsigned *idx)
{
    Cg *cg = x->cg;
    LLVMValueRef cur[8], m[RL_MAX_DIMS * 8];
    unsigned w = x->b->vl;
    for (unsigned i = 0; i < k; i++)
        cur[i] = in[i];
    for (; k > 2; k /= 2, w *= 2) {
        for (unsigned i = 0; i < 2 * w; i++)
            m[i] = LLVMConstInt(cg->i32, i, false);
        LLVMValueRef id = LLVMConstVector(m, 2 * w);
        for (unsigned i = 0; i < k / 2; i++)
            cur[i] = LLVMBuildShuffleVector(cg->b, cur[2 * i], cur[2 * i + 1], id, "");
    }
    for (unsigned i = 0; i < x->b->vl; i++)
        m[i] = LLVMConstInt(cg->i32, idx[i], false);
    return LLVMBuildShuffleVector(cg->b, cur[0], k == 2 ? cur[1] : LLVMGetUndef(LLVMTypeOf(cur[0])),
                                  LLVMConstVector(m, x->b->vl), "");
}

/* The lanes of vector j (of vl) that a weave of `count` elements fills. */
static unsigned filled(const Rl *x, uint64_t count, unsigned j)
{
    uint64_t lo = (uint64_t)j * x->b->vl;
    return count <= lo ? 0 : count - lo >= x->b->vl ? x->b->vl : (unsigned)(count - lo);
}

/* One step of a WEAVE box: w (<= vl) values of the wide dimension from w0 (i64), at the plane's offsets dpos,
 * spos. Narrow a (k rows of the source): k source vectors along b, interleaved into k consecutive destination
 * vectors; narrow b (k columns): k consecutive source vectors deinterleaved into k destination rows along a. */
static void weave(Rl *x, LLVMValueRef dpos, LLVMValueRef spos, LLVMValueRef w0, unsigned w)
{
    const RlBox *b = x->b;
    unsigned L = b->vl, k = (unsigned)(b->narrow_a ? b->d[b->a].n : b->d[b->b].n), idx[RL_MAX_DIMS];
    LLVMValueRef in[8];
    if (b->narrow_a) {
        uint64_t swa = b->d[b->a].sw;
        for (unsigned c = 0; c < k; c++)
            in[c] = load_vec(x, add(x, spos, add(x, w0, c64(x, c * swa))), w);
        LLVMValueRef at = add(x, dpos, mulc(x, w0, k));
        for (unsigned j = 0; j < k; j++) {
            unsigned lanes = filled(x, (uint64_t)k * w, j);
            if (!lanes)
                continue;
            for (unsigned i = 0; i < L; i++) {
                unsigned f = j * L + i;
                idx[i] = (f % k) * L + f / k;
            }
            store_vec(x, pick_lanes(x, in, k, idx), add(x, at, c64(x, (uint64_t)j * L)), lanes);
        }
        return;
    }
    uint64_t dwb = b->d[b->b].dw;
    LLVMValueRef from = add(x, spos, mulc(x, w0, k));
    for (unsigned j = 0; j < k; j++) {
        unsigned lanes = filled(x, (uint64_t)k * w, j);
        in[j] = lanes ? load_vec(x, add(x, from, c64(x, (uint64_t)j * L)), lanes) : LLVMConstNull(x->vty);
    }
    for (unsigned c = 0; c < k; c++) {
        for (unsigned i = 0; i < L; i++)
            idx[i] = i * k + c;
        store_vec(x, pick_lanes(x, in, k, idx), add(x, dpos, add(x, w0, c64(x, c * dwb))), w);
    }
}

/* A WEAVE box's plane: steps of vl along the wide dimension, then a masked tail. */
static void weaves(Rl *x, LLVMValueRef dpos, LLVMValueRef spos)
{
    const RlBox *b = x->b;
    unsigned L = b->vl;
    uint64_t n = b->narrow_a ? b->d[b->b].n : b->d[b->a].n;
    if (n / L) {
        RlLoop l = loop_begin(x, c64(x, 0), c64(x, n / L));
        weave(x, dpos, spos, mulc(x, l.iv, L), L);
        loop_end(x, &l, c64(x, n / L));
    }
    if (n % L)
        weave(x, dpos, spos, c64(x, n / L * L), (unsigned)(n % L));
}

/* One element (a SCALAR box's body). */
static void element(Rl *x, LLVMValueRef dpos, LLVMValueRef spos)
{
    Cg *cg = x->cg;
    LLVMValueRef v = LLVMConstNull(x->ety);
    if (x->b->kind == CELL_LIVE) {
        v = LLVMBuildLoad2(cg->b, x->ety, LLVMBuildGEP2(cg->b, x->ety, x->src, &spos, 1, ""), "");
        LLVMSetAlignment(v, x->esize);
    }
    LLVMValueRef st = LLVMBuildStore(cg->b, v, LLVMBuildGEP2(cg->b, x->ety, x->dst, &dpos, 1, ""));
    LLVMSetAlignment(st, x->esize);
}

/* The innermost work of the box at offsets dpos, spos with TILE ranges ra, rb. */
static void body(Rl *x, LLVMValueRef dpos, LLVMValueRef spos, Range ra, Range rb)
{
    if (x->b->mode == RL_TILE)
        tiles(x, dpos, spos, ra, rb);
    else if (x->b->mode == RL_WEAVE)
        weaves(x, dpos, spos);
    else if (x->b->mode == RL_RUN)
        run(x, dpos, spos);
    else
        element(x, dpos, spos);
}

/* The iterations of level li of box b (ceil(n / block) for a block level; 1 past the last level). */
static uint64_t level_count(const RlBox *b, int li)
{
    if (li >= b->nlevels)
        return 1;
    const RlLevel *l = &b->level[li];
    if (l->kind == RL_LEVEL_DIM)
        return b->d[l->dim].n;
    uint64_t n = l->kind == RL_LEVEL_ABLOCK ? b->d[b->a].n : b->d[b->b].n, blk = l->kind == RL_LEVEL_ABLOCK ? b->ba : b->bb;
    return (n + blk - 1) / blk;
}

/* Level li of the box over its iterations [lo, hi) (i64 values), and the levels inside it whole: a dimension's
 * values, or a TILE dimension's full blocks and then its partial block (the last iteration). */
static void levels(Rl *x, int li, LLVMValueRef lo, LLVMValueRef hi, LLVMValueRef dpos, LLVMValueRef spos, Range ra,
                   Range rb)
{
    const RlBox *b = x->b;
    if (li == b->nlevels) {
        body(x, dpos, spos, ra, rb);
        return;
    }
    const RlLevel *l = &b->level[li];
    LLVMValueRef zero = c64(x, 0), inner = c64(x, level_count(b, li + 1));
    if (l->kind == RL_LEVEL_DIM) {
        const RlDim *d = &b->d[l->dim];
        RlLoop lp = loop_begin(x, lo, hi);
        levels(x, li + 1, zero, inner, add(x, dpos, mulc(x, lp.iv, d->dw)), add(x, spos, mulc(x, lp.iv, d->sw)), ra, rb);
        loop_end(x, &lp, hi);
        return;
    }
    bool ab = l->kind == RL_LEVEL_ABLOCK;
    uint64_t n = ab ? b->d[b->a].n : b->d[b->b].n, blk = ab ? b->ba : b->bb, nfull = n / blk, rem = n % blk;
    Cg *cg = x->cg;
    LLVMValueRef top = LLVMBuildSelect(cg->b, LLVMBuildICmp(cg->b, LLVMIntULT, hi, c64(x, nfull), ""), hi,
                                       c64(x, nfull), "");
    RlLoop lp = loop_begin(x, lo, top);
    Range r = {mulc(x, lp.iv, blk), blk};
    levels(x, li + 1, zero, inner, dpos, spos, ab ? r : ra, ab ? rb : r);
    loop_end(x, &lp, top);
    if (rem) {
        LLVMValueRef in = LLVMBuildAnd(cg->b, LLVMBuildICmp(cg->b, LLVMIntULE, lo, c64(x, nfull), ""),
                                       LLVMBuildICmp(cg->b, LLVMIntULT, c64(x, nfull), hi, ""), "");
        LLVMBasicBlockRef done = if_begin(x, in);
        Range p = {c64(x, nfull * blk), rem};
        levels(x, li + 1, zero, inner, dpos, spos, ab ? p : ra, ab ? rb : p);
        if_end(x, done);
    }
}

/* The iterations [lo, hi) of n split into nparts: part k gets [n·k / nparts, n·(k + 1) / nparts). */
static void part_range(Rl *x, uint64_t n, LLVMValueRef part, LLVMValueRef nparts, LLVMValueRef *lo, LLVMValueRef *hi)
{
    Cg *cg = x->cg;
    *lo = LLVMBuildUDiv(cg->b, mulc(x, part, n), nparts, "");
    *hi = LLVMBuildUDiv(cg->b, mulc(x, add(x, part, c64(x, 1)), n), nparts, "");
}

/* One box, its part of the outermost loop: the flat levels as one loop over the product of their counts
 * (each iteration's values by division), or the first level alone. */
static void emit_box(Rl *x, LLVMValueRef part, LLVMValueRef nparts)
{
    const RlBox *b = x->b;
    Cg *cg = x->cg;
    LLVMValueRef lo, hi, zero = c64(x, 0);
    Range ra = {zero, b->a >= 0 ? b->d[b->a].n : 0}, rb = {zero, b->b >= 0 ? b->d[b->b].n : 0};
    LLVMValueRef dpos = c64(x, b->dbase), spos = c64(x, b->sbase);
    if (b->nlevels == 0) { /* nothing to split: the last part does it */
        part_range(x, 1, part, nparts, &lo, &hi);
        LLVMBasicBlockRef done = if_begin(x, LLVMBuildICmp(cg->b, LLVMIntULT, lo, hi, ""));
        body(x, dpos, spos, ra, rb);
        if_end(x, done);
        return;
    }
    if (b->flat == 0) {
        part_range(x, level_count(b, 0), part, nparts, &lo, &hi);
        levels(x, 0, lo, hi, dpos, spos, ra, rb);
        return;
    }
    uint64_t prod = 1;
    for (int i = 0; i < b->flat; i++)
        prod *= b->d[b->level[i].dim].n;
    part_range(x, prod, part, nparts, &lo, &hi);
    RlLoop lp = loop_begin(x, lo, hi);
    LLVMValueRef idx = lp.iv;
    for (int i = b->flat - 1; i >= 0; i--) {
        const RlDim *d = &b->d[b->level[i].dim];
        LLVMValueRef v = i ? LLVMBuildURem(cg->b, idx, c64(x, d->n), "") : idx;
        if (i)
            idx = LLVMBuildUDiv(cg->b, idx, c64(x, d->n), "");
        dpos = add(x, dpos, mulc(x, v, d->dw));
        spos = add(x, spos, mulc(x, v, d->sw));
    }
    levels(x, b->flat, zero, c64(x, level_count(b, b->flat)), dpos, spos, ra, rb);
    loop_end(x, &lp, hi);
}

/* Every box, streaming or not. */
static void emit_boxes(Rl *x, LLVMValueRef part, LLVMValueRef nparts)
{
    for (int i = 0; i < x->p->nbox; i++) {
        x->b = &x->p->box[i];
        x->vty = LLVMVectorType(x->ety, x->b->vl ? x->b->vl : 1);
        emit_box(x, part, nparts);
    }
}

void rl_emit(Cg *cg, const RlPlan *p, LLVMTypeRef ety, LLVMValueRef dst_raw, LLVMValueRef dst, LLVMValueRef src,
             LLVMValueRef part, LLVMValueRef nparts)
{
    Rl x = {.cg = cg, .p = p, .ety = ety, .esize = p->esize, .dst = dst, .src = src};
    if (!p->stream) {
        emit_boxes(&x, part, nparts);
        return;
    }
    LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(cg->b));
    LLVMBasicBlockRef nt = LLVMAppendBasicBlockInContext(cg->ctx, fn, "rl.aligned");
    LLVMBasicBlockRef plain = LLVMAppendBasicBlockInContext(cg->ctx, fn, "rl.unaligned");
    LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(cg->ctx, fn, "rl.exit");
    LLVMValueRef lo = LLVMBuildAnd(cg->b, LLVMBuildPtrToInt(cg->b, dst_raw, cg->i64, ""), c64(&x, p->vbytes - 1), "");
    LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, lo, c64(&x, 0), ""), nt, plain);
    LLVMPositionBuilderAtEnd(cg->b, nt);
    x.nt = true;
    emit_boxes(&x, part, nparts);
    /* streaming stores are weakly ordered: fence them before the caller (or another thread) reads */
    LLVMTypeRef vt = LLVMFunctionType(LLVMVoidTypeInContext(cg->ctx), NULL, 0, false);
    LLVMValueRef sfence = LLVMGetNamedFunction(cg->mod, "llvm.x86.sse.sfence");
    if (!sfence)
        sfence = LLVMAddFunction(cg->mod, "llvm.x86.sse.sfence", vt);
    LLVMBuildCall2(cg->b, vt, sfence, NULL, 0, "");
    LLVMBuildBr(cg->b, exit);
    LLVMPositionBuilderAtEnd(cg->b, plain);
    x.nt = false;
    emit_boxes(&x, part, nparts);
    LLVMBuildBr(cg->b, exit);
    LLVMPositionBuilderAtEnd(cg->b, exit);
}
