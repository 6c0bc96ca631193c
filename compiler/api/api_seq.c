/* api_seq.c — the public C API of the NPU's data movement (seq.h) over compiler/movement. */
#include "api_impl.h"
#include "movement/movement.h"
#include "seq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(mapc_diag *err, int code, const char *msg)
{
    if (err) {
        err->code = code;
        snprintf(err->message, sizeof err->message, "%s", msg);
    }
    return code;
}

int api_movement_error(mapc_diag *err, const MvDiag *d)
{
    return fail(err, d->code == MV_OK ? 0 : MAPC_E_UNSUPPORTED + (int)d->code - MV_UNSUPPORTED, d->msg);
}

static void copy_entries(mapc_seq_entry *dst, const MvEntry *src, int n)
{
    for (int i = 0; i < n; i++)
        dst[i] = (mapc_seq_entry){src[i].n, src[i].s};
}

static int resolve(mapc_program *p, const char *name, const Map **m, mapc_diag *err)
{
    mapc_status s = api_resolve(p, name, m);
    if (s == MAPC_ERR_NOT_FOUND)
        return fail(err, s, "no such type");
    if (s != MAPC_OK)
        return fail(err, s, s == MAPC_ERR_INPUT ? "the mapping has errors (see the program's diagnostics)" : "bad argument");
    return 0;
}

static int sequence(mapc_program *p, const char *buf, const char *time, const char *packet, mapc_seq_mode mode,
                    unsigned bits, mapc_seq_config *out, mapc_diag *err)
{
    const Map *m[3];
    const char *names[3] = {buf, time, packet};
    for (int i = 0; i < 3; i++) {
        int s = resolve(p, names[i], &m[i], err);
        if (s)
            return s;
    }
    MvSeq *s = mem_alloc(sizeof *s);
    MvDiag d;
    MvCode c = mv_sequence(p->prog, m[0], m[1], m[2], (MvMode)mode, bits, true, s, &d);
    int st = 0;
    if (c != MV_OK) {
        st = api_movement_error(err, &d);
    } else {
        memset(out, 0, sizeof *out);
        copy_entries(out->e, s->cfg, s->ncfg);
        copy_entries(out->raw, s->raw, s->nraw);
        out->count = (uint32_t)s->ncfg;
        out->time_count = (uint32_t)s->cfg_time;
        out->raw_count = (uint32_t)s->nraw;
        out->raw_time_count = (uint32_t)s->raw_time;
        out->packet = s->packet;
        out->run = s->run;
        out->access = s->access;
        out->read_size = s->read_size;
        out->bank_run = s->bank_run;
        out->reads = s->reads;
        out->fetch_cycles = s->fetch_cycles;
        fail(err, 0, "");
    }
    free(s);
    return st;
}

int mapc_sequence(mapc_program *p, const char *buf, const char *time, const char *packet, mapc_seq_mode mode,
                  unsigned elem_bits, mapc_seq_config *out, mapc_diag *err)
{
    if (!p || !buf || !time || !packet || !out || (unsigned)mode > MAPC_SEQ_CARVE ||
        (elem_bits != 4 && elem_bits != 8 && elem_bits != 16 && elem_bits != 32 && elem_bits != 64))
        return fail(err, MAPC_ERR_ARGUMENT, "bad argument (a NULL pointer, a mode or an element width)");
    GUARDED(sequence(p, buf, time, packet, mode, elem_bits, out, err));
}

static int tails(mapc_program *p, const char *src, const char *dst, uint64_t out[3], mapc_diag *err)
{
    const Map *a, *b;
    int s = resolve(p, src, &a, err);
    if (!s)
        s = resolve(p, dst, &b, err);
    if (s)
        return s;
    MvDiag d;
    if (!mv_tails(p->prog, a, b, out, &d))
        return api_movement_error(err, &d);
    return fail(err, 0, "");
}

int mapc_dma_tails(mapc_program *p, const char *src, const char *dst, uint64_t out[3], mapc_diag *err)
{
    if (!p || !src || !dst || !out)
        return fail(err, MAPC_ERR_ARGUMENT, "bad argument (a NULL pointer)");
    GUARDED(tails(p, src, dst, out, err));
}

static const TensorDecl *tensor(mapc_program *p, const char *name)
{
    const Name *n = prog_lookup(p->prog, name);
    return n && n->kind == NAME_TENSOR ? n->tensor : NULL;
}

static void side(mapc_seq_config *c, const MvDma *x, bool write)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < x->ncfg && i < 8; i++)
        c->e[i] = (mapc_seq_entry){x->cfg[i].n, write ? x->cfg[i].w : x->cfg[i].r};
    for (int i = 0; i < x->nraw; i++)
        c->raw[i] = (mapc_seq_entry){x->raw[i].n, write ? x->raw[i].w : x->raw[i].r};
    c->count = (uint32_t)x->ncfg;
    c->time_count = (uint32_t)x->cfg_time;
    c->raw_count = (uint32_t)x->nraw;
    c->raw_time_count = (uint32_t)x->raw_time;
    c->packet = x->packet;
}

void api_dma_plan(const MvDma *x, mapc_dma_plan *out)
{
    side(&out->read, x, false);
    side(&out->write, x, true);
    memcpy(out->tails, x->tails, sizeof out->tails);
    out->engines = x->engines;
    out->cycles = x->cycles;
    out->min_align = x->min_align;
}

static int dma(mapc_program *p, const char *src, const char *dst, const char *time, const char *packet,
               const char *engines, mapc_dma_plan *out, mapc_diag *err)
{
    const TensorDecl *s = tensor(p, src), *t = tensor(p, dst);
    if (!s || !t)
        return fail(err, MAPC_ERR_NOT_FOUND, "no such tensor");
    const Map *m[3] = {NULL};
    const char *names[3] = {time, packet, engines};
    for (int i = 0; i < 3; i++) {
        int st = names[i] ? resolve(p, names[i], &m[i], err) : 0;
        if (st)
            return st;
    }
    MvDma *x = mem_alloc(sizeof *x);
    MvDiag d;
    int st = 0;
    if (mv_dma(p->prog, s, t, m[0], m[1], m[2], false, x, &d) != MV_OK) {
        st = api_movement_error(err, &d);
    } else {
        api_dma_plan(x, out);
        fail(err, 0, "");
    }
    free(x);
    return st;
}

int mapc_dma_derive(mapc_program *p, const char *src, const char *dst, const char *time, const char *packet,
                    const char *engines, mapc_dma_plan *out, mapc_diag *err)
{
    if (!p || !src || !dst || !out || !time != !packet)
        return fail(err, MAPC_ERR_ARGUMENT, "bad argument (a NULL pointer, or time without packet)");
    GUARDED(dma(p, src, dst, time, packet, engines, out, err));
}

uint64_t mapc_dma_cost(const mapc_dma_cmd *cmds, const uint32_t *per_engine, uint32_t engines)
{
    if (!cmds || !per_engine || engines == 0)
        return 0;
    size_t total = 0;
    for (uint32_t e = 0; e < engines; e++)
        total += per_engine[e];
    MvCmd *c = malloc(total ? total * sizeof *c : 1);
    if (!c)
        return 0;
    for (size_t i = 0; i < total; i++) {
        const mapc_dma_cmd *k = &cmds[i];
        bool ok = (unsigned)k->src <= MAPC_TIER_DM && (unsigned)k->dst <= MAPC_TIER_DM && k->packet_bytes > 0 &&
                  (k->src == MAPC_TIER_DM ? k->src_dmns == 1 || k->src_dmns == 2 : k->src_channels == 16 || k->src_channels == 32) &&
                  (k->dst == MAPC_TIER_DM ? k->dst_dmns == 1 || k->dst_dmns == 2 : k->dst_channels == 16 || k->dst_channels == 32);
        if (!ok) {
            free(c);
            return 0;
        }
        c[i] = (MvCmd){k->packets, k->packet_bytes, (MvTier)k->src, (MvTier)k->dst, k->src_channels, k->dst_channels,
                       k->src_conflict != 0, k->dst_conflict != 0, k->src_dmns, k->dst_dmns};
    }
    uint64_t cycles = mv_cost(c, per_engine, engines);
    free(c);
    return cycles;
}

static int cost_plan(const char *plan, uint64_t *cycles, mapc_diag *err)
{
    MvCmd *cmds;
    uint32_t *per, n;
    MvDiag d;
    if (!mv_plan_parse(plan, &cmds, &per, &n, &d))
        return api_movement_error(err, &d);
    *cycles = mv_cost(cmds, per, n);
    free(cmds);
    free(per);
    return fail(err, 0, "");
}

int mapc_dma_cost_plan(const char *plan, uint64_t *cycles, mapc_diag *err)
{
    if (!plan || !cycles)
        return fail(err, MAPC_ERR_ARGUMENT, "bad argument (a NULL pointer)");
    GUARDED(cost_plan(plan, cycles, err));
}
