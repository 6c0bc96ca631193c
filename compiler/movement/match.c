/* match.c — the common refinement of factor lists and the matching of a stream's factors to a buffer's (docs/movement.md): strides, broadcasts, padding and coverage rules, raw entries. */
#include "mv_impl.h"

#include <string.h>

/* The digit of f as text, in buf. */
static const char *digit(const Prog *p, const MvFactor *f, char *buf, size_t cap)
{
    Text t = {buf, cap, 0};
    buf[0] = 0;
    mv_factor_text(&t, p, f);
    return buf;
}

/* The smallest boundary of f's axis strictly inside its interval (s, s*m), or 0. */
static uint64_t inner_boundary(const MvFactor *f, const uint64_t *bounds, int nb)
{
    uint64_t best = 0, top = u64_sat_mul(f->s, f->m);
    for (int i = 0; i < nb; i++)
        if (bounds[i] > f->s && bounds[i] < top && (best == 0 || bounds[i] < best))
            best = bounds[i];
    return best;
}

/* Cuts factor i of l at the boundary b of its axis (docs/movement.md): MV_OK, or MV_INCOMPATIBLE saying why it
 * cannot be cut there. */
static MvCode cut_at(const Prog *p, MvList *l, int i, uint64_t b, const char *name, MvDiag *d)
{
    MvFactor f = l->f[i];
    char buf[160];
    const char *axis = p->axes[f.axis].name;
    uint64_t top = f.s * f.m, q = b / f.s;
    const char *why = NULL;
    char whybuf[160];
    if (b % f.s != 0) {
        snprintf(whybuf, sizeof whybuf, "%llu is not a multiple of its stride %llu", (unsigned long long)b,
                 (unsigned long long)f.s);
        why = whybuf;
    } else if (top % b != 0) {
        snprintf(whybuf, sizeof whybuf, "%llu does not divide its top %llu", (unsigned long long)b, (unsigned long long)top);
        why = whybuf;
    } else if (f.nsub > 1) {
        why = "it is a composite digit walked as nested loops";
    } else if (f.r % q != 0) {
        snprintf(whybuf, sizeof whybuf, "its live count %llu is not a multiple of %llu", (unsigned long long)f.r,
                 (unsigned long long)q);
        why = whybuf;
    } else if (f.x % q != 0) {
        snprintf(whybuf, sizeof whybuf, "its extent %llu is not a multiple of %llu", (unsigned long long)f.x,
                 (unsigned long long)q);
        why = whybuf;
    }
    if (why)
        return mv_fail(d, MV_INCOMPATIBLE, "the %s digit %s (stride %llu, count %llu) cannot be cut at %s's boundary %llu: %s",
                       name, digit(p, &f, buf, sizeof buf), (unsigned long long)f.s, (unsigned long long)f.m, axis,
                       (unsigned long long)b, why);
    if (l->n == MV_MAX_RAW)
        return mv_fail(d, MV_UNSUPPORTED, "more than 64 factors after refinement");
    mv_cut_exact(l, i, q);
    return MV_OK;
}

MvCode mv_refine(const Prog *p, MvList *const *lists, const char *const *names, int n, MvDiag *d)
{
    for (int axis = 0; axis < p->naxes; axis++) {
        uint64_t bounds[4 * MV_MAX_RAW * 2];
        int nb = 0;
        for (int k = 0; k < n; k++)
            for (int i = 0; i < lists[k]->n; i++) {
                const MvFactor *f = &lists[k]->f[i];
                if (f->axis != axis || nb + 2 > (int)(sizeof bounds / sizeof *bounds))
                    continue;
                bounds[nb++] = f->s;
                bounds[nb++] = u64_sat_mul(f->s, f->m);
            }
        for (int k = 0; k < n; k++)
            for (int i = 0; i < lists[k]->n; i++) {
                if (lists[k]->f[i].axis != axis)
                    continue;
                uint64_t b;
                /* the major part stays at i and may hold more boundaries; the minor part holds none */
                while ((b = inner_boundary(&lists[k]->f[i], bounds, nb)) != 0) {
                    MvCode c = cut_at(p, lists[k], i, b, names[k], d);
                    if (c != MV_OK)
                        return c;
                }
            }
        /* a cut of a resized digit can leave a part of extent 1 (B = 2 cut at 2): it holds one value, like B % 2 */
        for (int k = 0; k < n; k++) {
            int w = 0;
            for (int i = 0; i < lists[k]->n; i++)
                if (lists[k]->f[i].x > 1)
                    lists[k]->f[w++] = lists[k]->f[i];
            lists[k]->n = w;
        }
    }
    return MV_OK;
}

static bool padded(const MvFactor *f) { return f->x > f->r; }

MvCode mv_match(const Prog *p, const MvList *buf, const MvList *stream, MvMode mode, const char *side,
                int64_t *stride, MvDiag *d)
{
    char b1[160], b2[160];
    /* 1. Bottom: never in a buffer that is read, never in a stream that is read or written (carve reads it as top) */
    for (int j = 0; j < buf->n; j++)
        if (mode != MV_WRITE && padded(&buf->f[j]) && buf->f[j].kind == PAD_BOTTOM)
            return mv_fail(d, MV_INPUT_BOTTOM, "the %s digit %s holds pad(bottom), which a %s may not touch", side,
                           digit(p, &buf->f[j], b1, sizeof b1), mv_mode_name(mode));
    for (int i = 0; i < stream->n; i++)
        if (mode != MV_CARVE && padded(&stream->f[i]) && stream->f[i].kind == PAD_BOTTOM)
            return mv_fail(d, MV_INPUT_BOTTOM, "the stream digit %s holds pad(bottom), which a %s may not move",
                           digit(p, &stream->f[i], b1, sizeof b1), mv_mode_name(mode));
    /* 2. buffer strides: the volume of the factors minor to each */
    int64_t bstride[MV_MAX_RAW];
    uint64_t vol = 1;
    for (int j = buf->n - 1; j >= 0; j--) {
        bstride[j] = (int64_t)vol;
        vol = u64_sat_mul(vol, buf->f[j].x);
    }
    bool used[MV_MAX_RAW] = {false};
    int match_of[MV_MAX_RAW], stream_of[MV_MAX_RAW]; /* stream factor -> buffer factor (-1), and back */
    const char *verb = mode == MV_WRITE ? "write" : "read";
    /* 3, 4. matching in stream order, and the padding rules of each pair */
    for (int i = 0; i < stream->n; i++) {
        const MvFactor *f = &stream->f[i];
        int g = -1;
        for (int j = 0; j < buf->n && g < 0; j++) {
            const MvFactor *h = &buf->f[j];
            if (used[j])
                continue;
            if (f->axis >= 0 ? h->axis == f->axis && h->s == f->s && h->m == f->m
                             : mode == MV_WRITE && h->axis < 0 && (f->r > 1 ? h->r == f->r : h->r == 1 && h->x >= f->x))
                g = j;
        }
        digit(p, f, b1, sizeof b1);
        match_of[i] = g;
        if (g >= 0)
            stream_of[g] = i;
        if (g < 0) {
            if (padded(f) && f->kind == PAD_ZERO)
                return mv_fail(d, MV_UNMATCHED, "the stream digit %s carries pad(zero) that the %s does not hold", b1, side);
            if (mode == MV_WRITE)
                return mv_fail(d, MV_UNMATCHED, "the stream digit %s has no place in the %s: a write cannot broadcast", b1,
                               side);
            stride[i] = 0;
            continue;
        }
        const MvFactor *h = &buf->f[g];
        used[g] = true;
        stride[i] = bstride[g];
        digit(p, h, b2, sizeof b2);
        if (f->r > h->r)
            return mv_fail(d, MV_UNMATCHED, "the stream digit %s has %llu live values, the %s digit %s only %llu: the %s "
                           "would take padding for data", b1, (unsigned long long)f->r, side, b2, (unsigned long long)h->r, verb);
        if (mode != MV_WRITE) {
            if (f->axis >= 0 && f->r < h->r)
                return mv_fail(d, MV_UNCONSUMED, "the stream digit %s reads %llu of the %llu live values of the %s digit %s",
                               b1, (unsigned long long)f->r, (unsigned long long)h->r, side, b2);
            if (padded(f) && f->kind == PAD_ZERO && !(padded(h) && h->kind == PAD_ZERO && h->r == f->r && f->x <= h->x))
                return mv_fail(d, MV_UNMATCHED, "the stream digit %s reads pad(zero) where the %s digit %s holds no zeros",
                               b1, side, b2);
        } else {
            if (f->r < h->r)
                return mv_fail(d, MV_UNCONSUMED, "the stream digit %s writes %llu of the %llu live values of the %s digit %s",
                               b1, (unsigned long long)f->r, (unsigned long long)h->r, side, b2);
            if (padded(f) && (f->x > h->x || (padded(h) && h->kind == PAD_BOTTOM) ||
                              (h->kind == PAD_ZERO && f->kind != PAD_ZERO)))
                return mv_fail(d, MV_UNMATCHED, "the stream digit %s writes its padding (%llu positions) where the %s digit "
                               "%s cannot take it", b1, (unsigned long long)(f->x - f->r), side, b2);
            if (padded(h) && h->kind == PAD_ZERO && f->x < h->x)
                return mv_fail(d, MV_UNCONSUMED, "the stream digit %s leaves %llu zero pads of the %s digit %s unwritten", b1,
                               (unsigned long long)(h->x - f->x), side, b2);
        }
    }
    /* 4b. where several walked paddings meet, the stream cell is the kind of the first of them in stream order and
     * the buffer cell that of the first in buffer order: a zero stream pad needs zeros there (and no over-read past
     * a digit beside it), a written pad a buffer kind that takes it */
    for (int i = 0; i < stream->n; i++)
        for (int k = i + 1; k < stream->n; k++) {
            const MvFactor *f = &stream->f[i], *e = &stream->f[k];
            int gi = match_of[i], gk = match_of[k];
            if (!padded(f) || !padded(e) || gi < 0 || gk < 0)
                continue;
            const MvFactor *hk = &buf->f[gk];
            bool bad = mode == MV_WRITE ? gk < gi && !(hk->kind == f->kind || (f->kind == PAD_ZERO && hk->kind == PAD_TOP))
                                        : f->kind == PAD_ZERO && (e->x > hk->x || (gk < gi && hk->kind != PAD_ZERO));
            if (bad)
                return mv_fail(d, MV_UNMATCHED, "the paddings of the stream digits %s and %s meet where the %s holds "
                               "another kind of cell", digit(p, f, b1, sizeof b1), digit(p, e, b2, sizeof b2), side);
        }
    /* 4c. a write leaves the positions of a buffer digit past the stream's extent unwritten: a zero pad more
     * major than it makes them pad(zero) cells, which must be written */
    if (mode == MV_WRITE)
        for (int j = 0; j < buf->n; j++) {
            const MvFactor *z = &buf->f[j];
            if (!padded(z) || z->kind != PAD_ZERO)
                continue;
            for (int k = j + 1; k < buf->n; k++) {
                uint64_t walked = used[k] ? stream->f[stream_of[k]].x : 1;
                if (walked < buf->f[k].x)
                    return mv_fail(d, MV_UNCONSUMED, "the zero padding of the %s digit %s is left unwritten where the "
                                   "digit %s is past the stream's %llu values", side, digit(p, z, b1, sizeof b1),
                                   digit(p, &buf->f[k], b2, sizeof b2), (unsigned long long)walked);
            }
        }
    /* 5. coverage */
    for (int j = 0; j < buf->n; j++) {
        const MvFactor *h = &buf->f[j];
        if (used[j])
            continue;
        digit(p, h, b2, sizeof b2);
        if (h->axis >= 0 && h->r > 1)
            return mv_fail(d, MV_UNCONSUMED, "the stream never %ss the %s digit %s (%llu live values)", verb, side, b2,
                           (unsigned long long)h->r);
        if (mode == MV_WRITE && h->axis < 0 && h->r > 1)
            return mv_fail(d, MV_UNCONSUMED, "the stream never writes the %llu replicas of the %s digit %s",
                           (unsigned long long)h->r, side, b2);
        if (mode == MV_WRITE && padded(h) && h->kind == PAD_ZERO)
            return mv_fail(d, MV_UNCONSUMED, "the stream never writes the zero padding of the %s digit %s", side, b2);
    }
    return MV_OK;
}

int mv_raw_entries(const MvList *stream, const int64_t *stride, MvEntry *out, int *src, int *ntime, int *neng)
{
    int n = 0;
    *ntime = *neng = 0;
    for (int i = 0; i < stream->n; i++) {
        const MvFactor *f = &stream->f[i];
        if (f->x < 2)
            continue;
        int parts = f->nsub > 1 ? f->nsub : 1;
        for (int k = 0; k < parts; k++) {
            uint64_t inner = 1;
            for (int j = k + 1; j < parts; j++)
                inner *= f->sub[j];
            out[n] = (MvEntry){parts > 1 ? f->sub[k] : f->x, stride[i] * (int64_t)inner};
            if (src)
                src[n] = i;
            n++;
            if (f->part != MV_PART_PACKET)
                (*ntime)++;
            if (f->part == MV_PART_ENGINE)
                (*neng)++;
        }
    }
    return n;
}
