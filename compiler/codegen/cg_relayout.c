/* cg_relayout.c — relayout plans: the destination's regions as strided boxes, fused, each given a vector mode
 * (runs, or transposes in registers), an L1 block from the cache model and a loop order; and the plan in words. */
#include "cg_relayout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Register transposes are at most 16 x 16 (16 vectors stay in registers on every target). */
enum { RL_MAX_TILE = 16 };
/* Parts (threads) split the product of a box's outermost dimensions, taken while it stays below this. */
enum { RL_FLAT_MAX = 1024 };
/* A bound on counted interleaved streams (only compared with small numbers). */
#define RL_MAX_STREAMS ((uint64_t)1 << 32)
/* A run longer than this many elements is cut into chunks when parts need iterations (split_run). */
enum { RL_CHUNK_ELEMS = 4096 };

/* The vector bytes of isa: AVX-512 64, AVX2 32, portable 16 (SSE2, which every x86-64 has). */
static unsigned isa_vector_bytes(TargetIsa isa)
{
    return isa == TARGET_ISA_AVX512 ? 64 : isa == TARGET_ISA_AVX2 ? 32 : 16;
}

/* Removes dimension j of b. */
static void drop_dim(RlBox *b, int j)
{
    memmove(&b->d[j], &b->d[j + 1], (size_t)(b->nd - j - 1) * sizeof *b->d);
    b->nd--;
}

/* Drops dimensions of one value and fuses pairs that are one dimension in both layouts: o directly outside i
 * (o's strides are i's times i's count; a zero box has no source strides). */
static void fuse(RlBox *b)
{
    for (int j = b->nd - 1; j >= 0; j--)
        if (b->d[j].n == 1)
            drop_dim(b, j);
    for (bool changed = true; changed;) {
        changed = false;
        for (int j = 0; j < b->nd && !changed; j++)
            for (int k = 0; k < b->nd && !changed; k++) {
                RlDim *o = &b->d[j], *i = &b->d[k];
                if (j == k || o->dw != i->dw * i->n || o->sw != i->sw * i->n)
                    continue;
                i->n *= o->n;
                i->first = o->first;
                drop_dim(b, j);
                changed = true;
            }
    }
}

/* The box of region r, or false when it has too many loops. */
static bool make_box(const RlInput *in, const CgRegion *r, RlBox *b)
{
    memset(b, 0, sizeof *b);
    b->kind = r->kind;
    b->dbase = r->pos;
    b->a = b->b = -1;
    bool live = r->kind == CELL_LIVE;
    if (r->nloops > RL_MAX_DIMS)
        return false;
    bool *looped = mem_calloc((size_t)in->dpl->nterms + 1, sizeof *looped);
    b->elems = 1;
    for (int k = 0; k < r->nloops; k++) {
        const CgRegionLoop *l = &r->loops[k];
        uint64_t sw = live && l->term >= in->skip ? in->srcw[l->term] : 0;
        if (l->term >= 0)
            looped[l->term] = true;
        b->d[b->nd++] = (RlDim){.n = l->count, .dw = l->weight, .sw = sw, .term = l->term, .first = l->term};
        b->dbase += l->start * l->weight;
        b->sbase += l->start * sw;
        b->elems *= l->count;
    }
    for (int t = in->skip; live && t < in->dpl->nterms; t++)
        if (!looped[t] && r->present[t])
            b->sbase += r->vals[t] * in->srcw[t];
    free(looped);
    fuse(b);
    return true;
}

/* A RUN box with few outer iterations and a long run: the run cut into chunks (a divisor of it, a multiple of
 * the vector, at most RL_CHUNK_ELEMS), so that parts have iterations to split. */
static void split_run(RlBox *b)
{
    uint64_t outer = 1;
    for (int k = 0; k < b->nd; k++)
        if (k != b->a)
            outer = u64_sat_mul(outer, b->d[k].n);
    RlDim *a = &b->d[b->a];
    if (outer >= RL_FLAT_MAX || b->nd >= RL_MAX_DIMS)
        return;
    for (uint64_t c = RL_CHUNK_ELEMS / b->vl * b->vl; c >= 4 * (uint64_t)b->vl; c -= b->vl)
        if (a->n % c == 0 && a->n / c >= 2) {
            b->d[b->nd++] = (RlDim){.n = a->n / c, .dw = a->dw * c, .sw = a->sw * c, .term = a->term, .first = a->first,
                                    .chunks = true};
            b->d[b->a].n = c;
            return;
        }
}

/* The vector lanes for n values: vmax halved while above n, down to at least least (all powers of two). */
static unsigned lanes_for(unsigned vmax, uint64_t n, unsigned least)
{
    unsigned vl = vmax;
    while (vl > least && vl > n)
        vl /= 2;
    return vl;
}

/* Chooses b's mode, vector lanes and blocks for vectors of vmax lanes and caches c. */
static void choose_mode(RlBox *b, unsigned vmax, unsigned esize, const TargetCaches *c)
{
    for (int k = 0; k < b->nd; k++) {
        if (b->d[k].dw == 1)
            b->a = k;
        if (b->kind == CELL_LIVE && b->d[k].sw == 1 && (b->b < 0 || b->d[k].n > b->d[b->b].n))
            b->b = k;
    }
    b->mode = RL_SCALAR;
    if (b->a < 0)
        return;
    uint64_t na = b->d[b->a].n;
    if (b->kind != CELL_LIVE || b->b == b->a) {
        unsigned vl = lanes_for(vmax, na, 1);
        if (vl * esize >= 4) {
            b->mode = RL_RUN;
            b->vl = vl;
            b->run = na;
            split_run(b);
        }
        return;
    }
    if (b->b < 0)
        return;
    uint64_t nb = b->d[b->b].n;
    /* a with 2, 4 or 8 values (fewer than a full tile's side) whose plane with b is contiguous in the
     * destination, or b so in the source: whole vectors along the wide one, (de)interleaved in registers */
    unsigned full = vmax < RL_MAX_TILE ? vmax : RL_MAX_TILE;
    bool weave_a = (na == 2 || na == 4 || na == 8) && na < full && b->d[b->b].dw == na && nb >= 4;
    bool weave_b = !weave_a && (nb == 2 || nb == 4 || nb == 8) && nb < full && b->d[b->a].sw == nb && na >= 4;
    if (weave_a || weave_b) {
        unsigned vl = lanes_for(vmax, weave_a ? nb : na, 4);
        if (vl * esize >= 4) {
            b->mode = RL_WEAVE;
            b->narrow_a = weave_a;
            b->vl = vl;
            return;
        }
    }
    unsigned t = lanes_for(full, na < nb ? na : nb, 4);
    if (t < 4 || t * esize < 4)
        return;
    b->mode = RL_TILE;
    b->vl = t;
    /* The block: along a, the source rows whose tiles complete whole 64-byte lines of the destination rows
     * (streaming stores of parts of lines are slow), which the prefetchers read as that many streams;
     * along b, as many tiles as keep the block's source rows and destination rows in half of L1d. */
    uint64_t line = 64 / esize > t ? 64 / esize : t;
    uint64_t along = c->l1d / (4 * line * esize) / t * t;
    uint64_t ra = (na + t - 1) / t * t, rb = (nb + t - 1) / t * t;
    b->ba = line < ra ? line : ra;
    b->bb = along < t ? t : along < rb ? along : rb;
    b->prefetch = b->d[b->a].sw != nb && nb * esize >= 4 * RL_PREFETCH_BYTES;
}

/* The destination and source strides (elements per iteration) of level l of box b. */
static void level_strides(const RlBox *b, const RlLevel *l, uint64_t *dw, uint64_t *sw)
{
    if (l->kind == RL_LEVEL_DIM) {
        *dw = b->d[l->dim].dw;
        *sw = b->d[l->dim].sw;
    } else if (l->kind == RL_LEVEL_ABLOCK) {
        *dw = b->ba;
        *sw = b->ba * b->d[b->a].sw;
    } else {
        *dw = b->bb * b->d[b->b].dw;
        *sw = b->bb;
    }
}

/* floor(log2(x)) for x >= 1; 0 for 0. */
static int log2u(uint64_t x)
{
    int k = 0;
    while (x > 1) {
        x >>= 1;
        k++;
    }
    return k;
}

/* The loop order, chosen from the innermost level outward. The hardware prefetchers follow about 16
 * interleaved read streams: beyond that, reads run at half speed, while streaming stores of whole lines
 * lose little when scattered (measured on Zen 4: 16 rows read line by line 26 GB/s, 32 rows 13 GB/s; lines
 * stored across all rows 21 GB/s, in order 25 GB/s). So each step takes, in this order of preference: a
 * level that continues both layouts' contiguous spans; one that continues the destination's while the
 * source's interleaved streams stay within RL_READ_STREAMS; one that continues the source's (the fewest
 * iterations first); one that continues the destination's; else the one whose steps jump least. */
static void order_levels(RlBox *b)
{
    enum { RL_READ_STREAMS = 16 };
    RlLevel todo[RL_MAX_LEVELS];
    int n = 0;
    for (int k = 0; k < b->nd; k++)
        if (b->mode == RL_SCALAR || (k != b->a && k != b->b))
            todo[n++] = (RlLevel){RL_LEVEL_DIM, k};
    /* the body's contiguous spans and the source streams it reads at once */
    uint64_t ext_d = 1, ext_s = 1, streams = 1;
    if (b->mode == RL_TILE) {
        if (b->d[b->a].n > b->ba)
            todo[n++] = (RlLevel){RL_LEVEL_ABLOCK, b->a};
        if (b->d[b->b].n > b->bb)
            todo[n++] = (RlLevel){RL_LEVEL_BBLOCK, b->b};
        ext_d = b->ba;
        ext_s = b->bb;
        streams = b->ba;
        /* a block of whole source rows that are adjacent is one contiguous read (and so for destination rows) */
        if (b->bb >= b->d[b->b].n && b->d[b->a].sw == b->d[b->b].n) {
            ext_s = b->ba * b->d[b->b].n;
            streams = 1;
        }
        if (b->ba >= b->d[b->a].n && b->d[b->b].dw == b->d[b->a].n)
            ext_d = b->d[b->a].n * b->bb;
    } else if (b->mode == RL_RUN) {
        ext_d = ext_s = b->d[b->a].n;
    } else if (b->mode == RL_WEAVE) {
        uint64_t plane = b->d[b->a].n * b->d[b->b].n;
        ext_d = b->narrow_a ? plane : b->d[b->a].n;
        ext_s = b->narrow_a ? b->d[b->b].n : plane;
        streams = b->narrow_a ? b->d[b->a].n : 1;
    }
    b->nlevels = n;
    for (int pos = n - 1; pos >= 0; pos--) {
        int best = -1, best_rank = 0;
        uint64_t best_key = 0;
        for (int i = 0; i < n; i++) {
            if (todo[i].dim < 0)
                continue;
            uint64_t dw, sw, cnt = todo[i].kind == RL_LEVEL_DIM ? b->d[todo[i].dim].n
                                   : todo[i].kind == RL_LEVEL_ABLOCK ? (b->d[b->a].n + b->ba - 1) / b->ba
                                                                     : (b->d[b->b].n + b->bb - 1) / b->bb;
            level_strides(b, &todo[i], &dw, &sw);
            bool cd = dw == ext_d, cs = b->kind == CELL_LIVE ? sw == ext_s : false;
            int rank;
            uint64_t key = cnt;
            if (cd && (cs || b->kind != CELL_LIVE))
                rank = 0;
            else if (cd && streams * cnt <= RL_READ_STREAMS)
                rank = 1;
            else if (cs)
                rank = 2;
            else if (cd)
                rank = 3;
            else {
                rank = 4;
                key = (uint64_t)(log2u(dw) + log2u(sw ? sw : 1));
            }
            if (best < 0 || rank < best_rank || (rank == best_rank && key < best_key)) {
                best = i;
                best_rank = rank;
                best_key = key;
            }
        }
        RlLevel l = todo[best];
        uint64_t dw, sw, cnt = l.kind == RL_LEVEL_DIM ? b->d[l.dim].n
                               : l.kind == RL_LEVEL_ABLOCK ? (b->d[b->a].n + b->ba - 1) / b->ba
                                                           : (b->d[b->b].n + b->bb - 1) / b->bb;
        level_strides(b, &l, &dw, &sw);
        if (dw == ext_d)
            ext_d *= cnt;
        if (sw == ext_s)
            ext_s *= cnt;
        else
            streams = streams * cnt < RL_MAX_STREAMS ? streams * cnt : RL_MAX_STREAMS;
        /* the blocks of a TILE dimension done, with the other one whole in each block: its rows continue */
        if (l.kind == RL_LEVEL_ABLOCK && dw == b->ba && b->bb >= b->d[b->b].n && b->d[b->b].dw == ext_d)
            ext_d *= b->d[b->b].n;
        if (l.kind == RL_LEVEL_BBLOCK && sw == b->bb && b->ba >= b->d[b->a].n && b->d[b->a].sw == ext_s)
            ext_s *= b->d[b->a].n;
        b->level[pos] = l;
        todo[best].dim = -1;
    }
    /* parts split the outermost dimensions, flattened while their product stays small */
    b->flat = 0;
    uint64_t prod = 1;
    while (b->flat < b->nlevels && b->level[b->flat].kind == RL_LEVEL_DIM && prod < RL_FLAT_MAX)
        prod *= b->d[b->level[b->flat++].dim].n;
}

/* Whether every full vector store of b lands at a multiple of v elements from the destination's start. */
static bool stores_aligned(const RlBox *b, uint64_t v)
{
    if (b->mode == RL_SCALAR || b->dbase % v)
        return false;
    for (int k = 0; k < b->nd; k++)
        if (k != b->a && !(b->mode == RL_WEAVE && b->narrow_a && k == b->b) && b->d[k].dw % v)
            return false;
    return true;
}

bool rl_plan(Cg *cg, const RlInput *in, RlPlan *out)
{
    memset(out, 0, sizeof *out);
    CgRegion *regs;
    int nregs;
    if (!cg_enum_regions(cg, in->dmap, in->given, &regs, &nregs))
        return false;
    out->esize = in->esize;
    out->isa = cg->isa;
    out->vbytes = isa_vector_bytes(cg->isa);
    out->caches = cg->caches;
    out->box = mem_calloc((size_t)nregs + 1, sizeof *out->box);
    out->main = -1;
    unsigned vmax = out->vbytes / in->esize;
    for (int i = 0; i < nregs; i++) {
        if (regs[i].kind != CELL_LIVE && regs[i].kind != CELL_PAD_ZERO)
            continue; /* pad(top) and pad(bottom) are never written */
        RlBox *b = &out->box[out->nbox];
        if (!make_box(in, &regs[i], b)) {
            rl_plan_free(out);
            return false;
        }
        choose_mode(b, vmax ? vmax : 1, in->esize, &out->caches);
        order_levels(b);
        b->aligned = b->vl * in->esize >= 16 && stores_aligned(b, b->vl);
        if (out->main < 0 || b->elems > out->box[out->main].elems ||
            (b->kind == CELL_LIVE && out->box[out->main].kind != CELL_LIVE))
            out->main = out->nbox;
        out->nbox++;
    }
    out->dst_bytes = u64_sat_mul(in->dst_elems, in->esize);
    out->stream_min = 4 * out->caches.l2;
    out->stream = false;
    for (int i = 0; i < out->nbox; i++)
        out->stream = out->stream || (out->box[i].aligned && out->dst_bytes >= out->stream_min);
    out->contiguous = 1;
    if (out->main >= 0 && out->box[out->main].mode == RL_RUN && out->box[out->main].kind == CELL_LIVE)
        out->contiguous = out->box[out->main].run;
    return true;
}

void rl_plan_free(RlPlan *p)
{
    free(p->box);
    p->box = NULL;
    p->nbox = 0;
}

/* The digit of plan term t as written inside m![...] ("A % 16"). */
static size_t term_name(const Prog *prog, const CgPlan *dpl, int t, char *buf, size_t cap)
{
    char tmp[512];
    map_format(prog, dpl->terms[t].node, tmp, sizeof tmp);
    size_t n = strlen(tmp);
    const char *s = tmp;
    if (strncmp(tmp, "m![", 3) == 0 && n > 4 && tmp[n - 1] == ']') {
        s += 3;
        n -= 4;
    }
    return (size_t)snprintf(buf, cap, "%.*s", (int)n, s);
}

/* The digits of dimension k of b: its fused terms, outermost to innermost ("[A / 16, B]"), or what it is. */
static size_t dim_name(const Prog *prog, const CgPlan *dpl, const RlBox *b, int k, char *buf, size_t cap)
{
    const RlDim *d = &b->d[k];
    if (d->term < 0)
        return (size_t)snprintf(buf, cap, "%s", b->kind == CELL_LIVE ? "a broadcast" : "the padding");
    size_t n = 0;
    bool many = d->first != d->term;
    if (d->chunks)
        n += (size_t)snprintf(buf, cap, "chunks of ");
    if (many)
        n += (size_t)snprintf(buf + (n < cap ? n : cap), n < cap ? cap - n : 0, "[");
    for (int t = d->first; t <= d->term && t >= 0; t++) {
        if (t > d->first)
            n += (size_t)snprintf(buf + (n < cap ? n : cap), n < cap ? cap - n : 0, ", ");
        n += term_name(prog, dpl, t, buf + (n < cap ? n : cap), n < cap ? cap - n : 0);
    }
    if (many)
        n += (size_t)snprintf(buf + (n < cap ? n : cap), n < cap ? cap - n : 0, "]");
    return n;
}

/* snprintf onto the end of buf (at *n; the count grows past cap like snprintf's). */
#define PUT(...) (*n += (size_t)snprintf(buf + (*n < cap ? *n : cap), *n < cap ? cap - *n : 0, __VA_ARGS__))

/* One box's lines. */
static void describe_box(const Prog *prog, const CgPlan *dpl, const RlPlan *p, const RlBox *b, char *buf, size_t cap,
                         size_t *n)
{
    char na[256] = "", nb[256] = "";
    PUT("  %s box of %llu elements at %llu", b->kind == CELL_LIVE ? "live" : "pad(zero)", (unsigned long long)b->elems,
        (unsigned long long)b->dbase);
    if (b->mode == RL_RUN) {
        dim_name(prog, dpl, b, b->a, na, sizeof na);
        PUT(": %s vectors of %u elements (%u bytes) along %s (%llu, contiguous in %s)\n",
            b->kind == CELL_LIVE ? "copied in" : "zero", b->vl, b->vl * p->esize, na,
            (unsigned long long)b->run, b->kind == CELL_LIVE ? "both" : "the destination");
    } else if (b->mode == RL_TILE) {
        dim_name(prog, dpl, b, b->a, na, sizeof na);
        dim_name(prog, dpl, b, b->b, nb, sizeof nb);
        PUT(": %ux%u transposes in registers (vectors of %u bytes) of %s (%llu, destination stride 1) against %s "
            "(%llu, source stride 1), in L1 blocks of %llux%llu%s\n",
            b->vl, b->vl, b->vl * p->esize, na, (unsigned long long)b->d[b->a].n, nb, (unsigned long long)b->d[b->b].n,
            (unsigned long long)b->ba, (unsigned long long)b->bb, b->prefetch ? ", source rows prefetched" : "");
    } else if (b->mode == RL_WEAVE) {
        dim_name(prog, dpl, b, b->a, na, sizeof na);
        dim_name(prog, dpl, b, b->b, nb, sizeof nb);
        const char *narrow = b->narrow_a ? na : nb, *wide = b->narrow_a ? nb : na;
        uint64_t k = b->narrow_a ? b->d[b->a].n : b->d[b->b].n;
        PUT(": %llu vectors of %u elements (%u bytes) along %s (%llu) %s %s (%llu, contiguous in the %s) in registers\n",
            (unsigned long long)k, b->vl, b->vl * p->esize, wide, (unsigned long long)(b->narrow_a ? b->d[b->b].n : b->d[b->a].n),
            b->narrow_a ? "interleaved over" : "deinterleaved from", narrow, (unsigned long long)k,
            b->narrow_a ? "destination" : "source");
    } else {
        PUT(": element by element\n");
    }
    PUT("    loops, outer to inner:");
    for (int i = 0; i < b->nlevels; i++) {
        const RlLevel *l = &b->level[i];
        char nm[256];
        if (l->kind == RL_LEVEL_DIM) {
            dim_name(prog, dpl, b, l->dim, nm, sizeof nm);
            PUT("%s %s (%llu)", i ? "," : "", nm, (unsigned long long)b->d[l->dim].n);
        } else {
            bool ab = l->kind == RL_LEVEL_ABLOCK;
            uint64_t cnt = ab ? b->d[b->a].n : b->d[b->b].n, blk = ab ? b->ba : b->bb;
            PUT("%s blocks of %s (%llu)", i ? "," : "", ab ? na : nb, (unsigned long long)((cnt + blk - 1) / blk));
        }
    }
    if (b->mode == RL_RUN)
        PUT("%s vectors", b->nlevels ? "," : "");
    else if (b->mode == RL_TILE)
        PUT("%s tiles", b->nlevels ? "," : "");
    else if (b->mode == RL_WEAVE)
        PUT("%s vectors", b->nlevels ? "," : "");
    if (b->nlevels)
        PUT("; parts (threads) split the first %d\n", b->flat ? b->flat : 1);
    else
        PUT("; one part\n");
}

size_t rl_describe(const Prog *prog, const CgPlan *dpl, const RlPlan *p, char *buf, size_t cap)
{
    size_t count = 0, *n = &count;
    if (cap)
        buf[0] = 0;
    char l1[32], l2[32];
    snprintf(l1, sizeof l1, "%llu KiB", (unsigned long long)(p->caches.l1d >> 10));
    snprintf(l2, sizeof l2, "%llu KiB", (unsigned long long)(p->caches.l2 >> 10));
    PUT("  %s, %u-byte vectors; caches L1d %s, L2 %s (%s)\n", target_isa_name(p->isa), p->vbytes, l1, l2,
        p->caches.source);
    for (int i = 0; i < p->nbox; i++)
        describe_box(prog, dpl, p, &p->box[i], buf, cap, n);
    if (p->stream)
        PUT("  streaming stores when the destination is %u-byte aligned (its %llu bytes are at least 4 x L2, so it "
            "is not re-read from cache)\n",
            p->vbytes, (unsigned long long)p->dst_bytes);
    else
        PUT("  ordinary stores (%s)\n", p->dst_bytes < p->stream_min ? "the destination fits 4 x L2" : "no aligned vectors");
    PUT("  contiguous width %llu element%s\n", (unsigned long long)p->contiguous, p->contiguous == 1 ? "" : "s");
    return count;
}
