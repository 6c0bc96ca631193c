/* dma.c — DMA commands between two tensors (docs/movement.md): the paired read and write sequencers over one stream, engines, the default stream, tails, the checks and the cycle model's inputs. */
#include "mv_impl.h"

#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

/* Flattens a tensor's mappings (chip, cluster, slice, element) into its layout's factor list. */
static MvCode layout(const Prog *p, const TensorDecl *t, MvList *l, MvDiag *d)
{
    for (int i = 0; i < mem_kind_maps(t->mem); i++) {
        MvCode c = mv_flatten(p, t->maps[i], MV_PART_BUF, l, d);
        if (c != MV_OK)
            return c;
    }
    return MV_OK;
}

/* The default stream: dst's layout without its unit padding (1 # k), its innermost factor the packet. */
static void default_stream(const MvList *dst, MvList *st)
{
    st->n = 0;
    for (int i = 0; i < dst->n; i++) {
        const MvFactor *f = &dst->f[i];
        if (f->axis < 0 && f->r == 1)
            continue;
        st->f[st->n] = *f;
        st->f[st->n++].part = MV_PART_TIME;
    }
    if (st->n)
        st->f[st->n - 1].part = MV_PART_PACKET;
}

/* The fitted stream (mv_dma with fit): the default stream with its packet cut down to the destination's innermost
 * digits of a volume that divides the common tail of the two elements (so that the packet is one run in both) and
 * fits one transfer (4096 bytes). */
static void fit_packet(MvList *st, uint64_t common, uint64_t max_elems)
{
    for (int i = 0; i < st->n; i++)
        st->f[i].part = MV_PART_TIME;
    uint64_t v = 1;
    int i = st->n - 1;
    while (i >= 0 && common % (v * st->f[i].x) == 0 && v * st->f[i].x <= max_elems) {
        st->f[i].part = MV_PART_PACKET;
        v *= st->f[i].x;
        i--;
    }
    if (i < 0 || st->n == MV_MAX_RAW)
        return;
    /* the largest cut of factor i that divides what is left of the tail and fits */
    MvFactor f = st->f[i];
    for (uint64_t q = f.x - 1; q > 1; q--) {
        if (common % (v * q) || v * q > max_elems || f.x % q || f.r % q || f.m % q || f.nsub > 1)
            continue;
        mv_cut_exact(st, i, q);
        st->f[i + 1].part = MV_PART_PACKET;
        return;
    }
}

static void pairs_text(Text *t, const MvPair *e, int n, uint64_t packet, bool write)
{
    text_printf(t, "[");
    for (int i = 0; i < n; i++)
        text_printf(t, "%s%llu:%lld", i ? ", " : "", U(e[i].n), (long long)(write ? e[i].w : e[i].r));
    text_printf(t, "]:%llu", U(packet));
}

/* The DMN of layout position pos of a DM tensor with units u: (chip, cluster, slice / 32) as one number. */
static uint64_t dmn_of(const TensorDecl *t, uint64_t pos)
{
    uint64_t elems = t->maps[3]->size, slices = t->maps[2]->size, unit = pos / elems;
    return unit / slices * 8 + unit % slices / 32;
}

/* One engine's command for the cost model: its packets, and per side the channels (stack bit toggled or not) and
 * row conflicts (HBM) or the DMNs it spans (DM), for the engine whose bases are base_r, base_w. */
static void command(const MvDma *x, const TensorDecl *src, const TensorDecl *dst, int64_t base_r, int64_t base_w,
                    MvCmd *c)
{
    uint64_t eb = elem_type_size(x->elem);
    memset(c, 0, sizeof *c);
    c->packets = x->time;
    c->packet_bytes = x->packet * eb;
    for (int side = 0; side < 2; side++) {
        const TensorDecl *t = side ? dst : src;
        bool hbm = t->mem != MEM_DM;
        MvTier *tier = side ? &c->dst : &c->src;
        *tier = hbm ? MV_TIER_HBM : MV_TIER_DM;
        bool stack = c->packet_bytes > 256, conflict = false;
        int64_t lo = side ? base_w : base_r, hi = lo;
        for (int i = 0; i < x->ncfg; i++) {
            int64_t s = side ? x->cfg[i].w : x->cfg[i].r;
            hi += (int64_t)(x->cfg[i].n - 1) * s;
            if (i < x->cfg_time && x->cfg[i].n > 1 && ((uint64_t)s * eb & 256))
                stack = true;
        }
        if (x->cfg_time > 0) {
            int64_t s = side ? x->cfg[x->cfg_time - 1].w : x->cfg[x->cfg_time - 1].r;
            conflict = (uint64_t)s * eb >= (UINT64_C(1) << 21);
        }
        if (side) {
            c->dst_channels = stack ? 32 : 16;
            c->dst_conflict = hbm && conflict;
            c->dst_dmns = hbm ? 1 : dmn_of(t, (uint64_t)lo) != dmn_of(t, (uint64_t)hi) ? 2 : 1;
        } else {
            c->src_channels = stack ? 32 : 16;
            c->src_conflict = hbm && conflict;
            c->src_dmns = hbm ? 1 : dmn_of(t, (uint64_t)lo) != dmn_of(t, (uint64_t)hi) ? 2 : 1;
        }
    }
}

/* The cycles of the aggregate: one command per engine, each at its own bases. */
static uint64_t aggregate_cycles(MvDma *x, const TensorDecl *src, const TensorDecl *dst)
{
    MvCmd *cmds = mem_calloc(x->engines, sizeof *cmds);
    uint32_t *one = mem_calloc(x->engines, sizeof *one);
    for (uint64_t e = 0; e < x->engines; e++) {
        int64_t br = 0, bw = 0;
        uint64_t rest = e;
        for (int i = x->neng - 1; i >= 0; i--) {
            br += (int64_t)(rest % x->eng[i].n) * x->eng[i].r;
            bw += (int64_t)(rest % x->eng[i].n) * x->eng[i].w;
            rest /= x->eng[i].n;
        }
        command(x, src, dst, br, bw, &cmds[e]);
        one[e] = 1;
    }
    x->cmd = cmds[0];
    uint64_t c = mv_cost(cmds, one, (uint32_t)x->engines);
    free(cmds);
    free(one);
    return c;
}

/* The checks of a derived command (docs/movement.md): contiguity and size of the packet, alignment. */
static MvCode check(const Prog *p, MvDma *x, const TensorDecl *src, const TensorDecl *dst, const MvList *dl, MvDiag *d)
{
    (void)p;
    uint64_t eb = elem_type_size(x->elem);
    char cfg[400];
    Text t = {cfg, sizeof cfg, 0};
    cfg[0] = 0;
    int npk = x->ncfg - x->cfg_time;
    if (x->packet > 1 && !(npk == 1 && x->cfg[x->cfg_time].r == 1 && x->cfg[x->cfg_time].w == 1)) {
        text_printf(&t, "read ");
        pairs_text(&t, x->cfg + x->cfg_time, npk, x->packet, false);
        text_printf(&t, ", write ");
        pairs_text(&t, x->cfg + x->cfg_time, npk, x->packet, true);
        return mv_fail(d, MV_DMA_CONTIGUITY, "the packet of %llu elements is not one run of stride 1 on both sides (%s)",
                       U(x->packet), cfg);
    }
    if (x->packet * eb > 4096)
        return mv_fail(d, MV_DMA_PACKET_SIZE, "the packet of %llu elements is %llu bytes, over the 4096 of one AXI "
                       "transfer (256 beats of 16 bytes)", U(x->packet), U(x->packet * eb));
    bool dm = src->mem == MEM_DM || dst->mem == MEM_DM, cross = src->mem != dst->mem && dm;
    x->min_align = dm ? 8 : 1;
    uint64_t tail = x->tails[1] * eb;
    if (tail % x->min_align)
        return mv_fail(d, MV_DMA_ALIGN, "the destination tail of %llu elements is %llu bytes, not a multiple of %u",
                       U(x->tails[1]), U(tail), x->min_align);
    uint64_t k = 1;
    for (int i = dl->n - 1; i >= 0; i--) {
        if (k >= x->tails[1] && (k * eb) % x->min_align)
            return mv_fail(d, MV_DMA_ALIGN, "the destination stride %llu (%llu bytes) past the tail of %llu elements is "
                           "not a multiple of %u bytes", U(k), U(k * eb), U(x->tails[1]), x->min_align);
        k = u64_sat_mul(k, dl->f[i].x);
    }
    if (cross) {
        if ((x->packet * eb) % 8)
            return mv_fail(d, MV_DMA_ALIGN, "between HBM and DM the packet of %llu bytes must be a multiple of 8",
                           U(x->packet * eb));
        for (int i = 0; i < x->neng + x->raw_time; i++) {
            int64_t s = i < x->neng ? x->eng[i].r : x->raw[i - x->neng].r;
            if (((uint64_t)s * eb) % 8)
                return mv_fail(d, MV_DMA_ALIGN, "between HBM and DM the source stride %lld (%llu bytes) must be a "
                               "multiple of 8 bytes", (long long)s, U((uint64_t)s * eb));
        }
    }
    return MV_OK;
}

static MvCode derive(const Prog *p, const TensorDecl *src, const TensorDecl *dst, const Map *time, const Map *packet,
                     const Map *engines, bool fit, MvList *sl, MvList *dl, MvList *st, MvDma *x, MvDiag *d)
{
    x->elem = src->elem;
    x->src_mem = src->mem;
    x->dst_mem = dst->mem;
    if (src->elem != dst->elem)
        return mv_fail(d, MV_DMA_TYPE, "the source %s holds %s, the destination %s %s", src->name,
                       elem_type_name(src->elem), dst->name, elem_type_name(dst->elem));
    if (src->mem == MEM_HOST || dst->mem == MEM_HOST)
        return mv_fail(d, MV_UNSUPPORTED, "a tensor DMA moves HBM and DM tensors, and %s is a HostTensor",
                       src->mem == MEM_HOST ? src->name : dst->name);
    MvCode c = layout(p, src, sl, d);
    if (c == MV_OK)
        c = layout(p, dst, dl, d);
    if (c != MV_OK)
        return c;
    if (engines && (c = mv_flatten(p, engines, MV_PART_ENGINE, st, d)) != MV_OK)
        return c;
    if (time) {
        if ((c = mv_flatten(p, time, MV_PART_TIME, st, d)) != MV_OK || (c = mv_flatten(p, packet, MV_PART_PACKET, st, d)) != MV_OK)
            return c;
    } else {
        MvList *def = mem_calloc(1, sizeof *def);
        default_stream(dl, def);
        uint64_t t[3];
        if (fit && mv_tails(p, src->maps[mem_kind_maps(src->mem) - 1], dst->maps[mem_kind_maps(dst->mem) - 1], t, d))
            fit_packet(def, t[2], 4096 / elem_type_size(src->elem));
        for (int i = 0; i < def->n && st->n < MV_MAX_RAW; i++)
            st->f[st->n++] = def->f[i];
        free(def);
    }
    if (time && (c = mv_check_digits(p, packet, st, 0, d)) != MV_OK)
        return c;
    MvList *lists[3] = {sl, dl, st};
    static const char *const names[3] = {"source", "destination", "stream"};
    if ((c = mv_refine(p, lists, names, 3, d)) != MV_OK)
        return c;
    int64_t rs[MV_MAX_RAW], ws[MV_MAX_RAW];
    if ((c = mv_match(p, sl, st, MV_READ, "source", rs, d)) != MV_OK ||
        (c = mv_match(p, dl, st, MV_WRITE, "destination", ws, d)) != MV_OK)
        return c;
    MvEntry re[MV_MAX_RAW], we[MV_MAX_RAW];
    int ntime, neng;
    int n = mv_raw_entries(st, rs, re, NULL, &ntime, &neng);
    mv_raw_entries(st, ws, we, NULL, &ntime, &neng);
    x->neng = neng;
    x->engines = 1;
    x->time = x->packet = 1;
    for (int i = 0; i < n; i++) {
        MvPair e = {re[i].n, re[i].s, we[i].s};
        if (i < neng) {
            x->eng[i] = e;
            x->engines = u64_sat_mul(x->engines, e.n);
        } else {
            x->raw[x->nraw++] = e;
            if (i < ntime)
                x->time = u64_sat_mul(x->time, e.n);
            else
                x->packet = u64_sat_mul(x->packet, e.n);
        }
    }
    x->raw_time = ntime - neng;
    if (x->engines > 65536)
        return mv_fail(d, MV_UNSUPPORTED, "%llu engines (at most 65536 are modelled)", U(x->engines));
    x->cfg_time = mv_merge(x->raw, x->raw_time, x->cfg);
    x->ncfg = x->cfg_time + mv_merge(x->raw + x->raw_time, x->nraw - x->raw_time, x->cfg + x->cfg_time);
    for (int i = 0; i < x->nraw; i++)
        if (x->raw[i].n > MV_MAX_N)
            return mv_fail(d, MV_ITERATION_LIMIT, "the entry %llu:(%lld, %lld) exceeds %llu iterations", U(x->raw[i].n),
                           (long long)x->raw[i].r, (long long)x->raw[i].w, U(MV_MAX_N));
    if (x->ncfg > MV_MAX_ENTRIES)
        return mv_fail(d, MV_TOO_MANY_ENTRIES, "%d entries after merging exceed the %d of a sequencer", x->ncfg,
                       MV_MAX_ENTRIES);
    if (!mv_tails(p, src->maps[mem_kind_maps(src->mem) - 1], dst->maps[mem_kind_maps(dst->mem) - 1], x->tails, d))
        return d->code;
    if ((c = check(p, x, src, dst, dl, d)) != MV_OK)
        return c;
    x->cycles = aggregate_cycles(x, src, dst);
    return MV_OK;
}

MvCode mv_dma(const Prog *p, const TensorDecl *src, const TensorDecl *dst, const Map *time, const Map *packet,
              const Map *engines, bool fit, MvDma *out, MvDiag *d)
{
    memset(out, 0, sizeof *out);
    d->code = MV_OK;
    d->msg[0] = 0;
    MvList *sl = mem_calloc(1, sizeof *sl), *dl = mem_calloc(1, sizeof *dl), *st = mem_calloc(1, sizeof *st);
    MvCode c = derive(p, src, dst, time, packet, engines, fit && !time, sl, dl, st, out, d);
    free(sl);
    free(dl);
    free(st);
    return c;
}

void mv_dma_text(Text *t, const MvDma *x, bool write)
{
    pairs_text(t, x->cfg, x->ncfg, x->packet, write);
}
