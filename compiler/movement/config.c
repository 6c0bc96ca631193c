/* config.c — sequencer configs: the derivation of mv_sequence, merging per descriptor, the limits in their order, the access and read sizes, walking and printing. */
#include "mv_impl.h"

#include <stdlib.h>
#include <string.h>

void mv_config_text(Text *t, const MvEntry *e, int n, uint64_t packet)
{
    text_printf(t, "[");
    for (int i = 0; i < n; i++)
        text_printf(t, "%s%llu:%lld", i ? ", " : "", (unsigned long long)e[i].n, (long long)e[i].s);
    text_printf(t, "]:%llu", (unsigned long long)packet);
}

int64_t mv_walk_addr(const MvEntry *e, int n, uint64_t pos)
{
    int64_t a = 0;
    for (int i = n - 1; i >= 0; i--) {
        a += (int64_t)(pos % e[i].n) * e[i].s;
        pos /= e[i].n;
    }
    return a;
}

uint64_t mv_contiguous_run(const MvEntry *e, int n)
{
    if (n == 0)
        return 1;
    uint64_t run = e[n - 1].n;
    for (int i = n - 2; i >= 0; i--) {
        int64_t inner;
        if (__builtin_mul_overflow((int64_t)e[i + 1].n, e[i + 1].s, &inner) || e[i].s != inner)
            break;
        run = u64_sat_mul(run, e[i].n);
    }
    return run;
}

int mv_merge(const MvPair *e, int n, MvPair *out)
{
    MvPair rev[MV_MAX_RAW];
    int k = 0;
    for (int i = n - 1; i >= 0; i--) {
        int64_t rs, ws;
        uint64_t joined;
        if (k > 0 && !__builtin_mul_overflow((int64_t)rev[k - 1].n, rev[k - 1].r, &rs) &&
            !__builtin_mul_overflow((int64_t)rev[k - 1].n, rev[k - 1].w, &ws) && e[i].r == rs && e[i].w == ws &&
            u64_mul(e[i].n, rev[k - 1].n, &joined) && joined <= MV_MAX_N)
            rev[k - 1].n = joined;
        else
            rev[k++] = e[i];
    }
    for (int i = 0; i < k; i++)
        out[i] = rev[k - 1 - i];
    return k;
}

/* mv_merge of one side's entries e[0..n) into out. */
static int merge(const MvEntry *e, int n, MvEntry *out)
{
    MvPair in[MV_MAX_RAW], merged[MV_MAX_RAW];
    for (int i = 0; i < n; i++)
        in[i] = (MvPair){e[i].n, e[i].s, e[i].s};
    int k = mv_merge(in, n, merged);
    for (int i = 0; i < k; i++)
        out[i] = (MvEntry){merged[i].n, merged[i].r};
    return k;
}

/* The merged config of s's raw one, per descriptor (never across time and packet). */
static void coalesce(MvSeq *s)
{
    s->cfg_time = merge(s->raw, s->raw_time, s->cfg);
    s->ncfg = s->cfg_time + merge(s->raw + s->raw_time, s->nraw - s->raw_time, s->cfg + s->cfg_time);
}

/* The largest divisor of access whose bytes (of bits-wide elements) are 1, 2, 4, 8, 16 or 32; 0 if none. */
static uint64_t read_size(uint64_t access, unsigned bits)
{
    for (uint64_t bytes = 32; bytes >= 1; bytes /= 2)
        if (bytes * 8 % bits == 0 && access % (bytes * 8 / bits) == 0)
            return bytes * 8 / bits;
    return 0;
}

MvCode mv_seq_finish(MvSeq *s, MvDiag *d)
{
    char cfg[400];
    coalesce(s);
    for (int i = 0; i < s->nraw; i++)
        if (s->raw[i].n > MV_MAX_N)
            return mv_fail(d, MV_ITERATION_LIMIT, "the entry %llu:%lld (entry %d of the raw config) exceeds %llu iterations",
                           (unsigned long long)s->raw[i].n, (long long)s->raw[i].s, i,
                           (unsigned long long)MV_MAX_N);
    Text t = {cfg, sizeof cfg, 0};
    cfg[0] = 0;
    mv_config_text(&t, s->cfg, s->ncfg, s->packet);
    if (s->ncfg > MV_MAX_ENTRIES)
        return mv_fail(d, MV_TOO_MANY_ENTRIES, "%d entries after merging (%s; time %d, packet %d) exceed the %d of a "
                       "sequencer", s->ncfg, cfg, s->cfg_time, s->ncfg - s->cfg_time, MV_MAX_ENTRIES);
    s->run = mv_contiguous_run(s->cfg, s->ncfg);
    s->access = u64_gcd(s->packet, s->run);
    if (s->ncfg > 0 && s->access != 1) {
        MvEntry in = s->cfg[s->ncfg - 1];
        if (!((in.s == 0 || in.s == 1) && in.n % s->access == 0))
            return mv_fail(d, MV_INNERMOST, "the innermost entry %llu:%lld of %s is not contiguous (stride 0 or 1 and a "
                           "multiple of the access size %llu) and the access is not one element", (unsigned long long)in.n,
                           (long long)in.s, cfg, (unsigned long long)s->access);
    }
    s->read_size = read_size(s->access, s->elem_bits);
    if (s->read_size == 0)
        return mv_fail(d, MV_PACKET_SIZE, "no divisor of the access size %llu (of %u-bit elements) is 1, 2, 4, 8, 16 or "
                       "32 bytes", (unsigned long long)s->access, s->elem_bits);
    s->reads = s->packet / s->read_size;
    s->fetch_cycles = u64_sat_mul(s->time, s->reads);
    s->bank_run = mv_bank_run(s->cfg, s->ncfg, s->read_size, s->elem_bits);
    return MV_OK;
}

/* The text of stream factor i, for messages. */
static const char *factor_name(const Prog *p, const MvList *l, int i, char *buf, size_t cap)
{
    Text t = {buf, cap, 0};
    buf[0] = 0;
    mv_factor_text(&t, p, &l->f[i]);
    return buf;
}

/* The derivation behind mv_sequence on lists it owns. */
static MvCode derive(const Prog *p, MvList *buf, MvList *st, const Map *b, const Map *time, const Map *packet,
                     MvMode mode, bool limits, MvSeq *out, MvDiag *d)
{
    MvCode c = mv_flatten(p, b, MV_PART_BUF, buf, d);
    if (c == MV_OK)
        c = mv_flatten(p, time, MV_PART_TIME, st, d);
    if (c == MV_OK)
        c = mv_flatten(p, packet, MV_PART_PACKET, st, d);
    if (c == MV_OK)
        c = mv_check_digits(p, packet, st, 0, d);
    if (c != MV_OK)
        return c;
    if (!u64_mul(time->size, packet->size, &out->time))
        return mv_fail(d, MV_UNSUPPORTED, "the stream's size %llu * %llu does not fit in 64 bits",
                       (unsigned long long)time->size, (unsigned long long)packet->size);
    out->time = time->size;
    out->packet = packet->size;
    MvList *lists[2] = {buf, st};
    static const char *const names[2] = {"buffer", "stream"};
    if ((c = mv_refine(p, lists, names, 2, d)) != MV_OK)
        return c;
    int64_t stride[MV_MAX_RAW];
    if ((c = mv_match(p, buf, st, mode, "buffer", stride, d)) != MV_OK)
        return c;
    int src[MV_MAX_RAW], neng;
    out->nraw = mv_raw_entries(st, stride, out->raw, src, &out->raw_time, &neng);
    if (!limits) {
        coalesce(out);
        return MV_OK;
    }
    for (int i = 0; i < out->nraw; i++)
        if (out->raw[i].n > MV_MAX_N) {
            char name[160];
            return mv_fail(d, MV_ITERATION_LIMIT, "the stream digit %s gives the entry %llu:%lld, over %llu iterations",
                           factor_name(p, st, src[i], name, sizeof name), (unsigned long long)out->raw[i].n,
                           (long long)out->raw[i].s, (unsigned long long)MV_MAX_N);
        }
    return mv_seq_finish(out, d);
}

MvCode mv_sequence(const Prog *p, const Map *buf, const Map *time, const Map *packet, MvMode mode,
                   unsigned elem_bits, bool limits, MvSeq *out, MvDiag *d)
{
    memset(out, 0, sizeof *out);
    out->elem_bits = elem_bits;
    if (d) {
        d->code = MV_OK;
        d->msg[0] = 0;
    }
    MvList *b = mem_calloc(1, sizeof *b), *st = mem_calloc(1, sizeof *st);
    MvCode c = derive(p, b, st, buf, time, packet, mode, limits, out, d);
    free(b);
    free(st);
    return c;
}
