/* chips.c — chips spread over the processes of a job: which positions a process writes, and the exchange of
 * the runs of a move plan whose source and destination chips live in different processes. */
#include "rt_impl.h"
#include "transport.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Element positions per chip of t. */
static uint64_t chip_elems(const RtTensor *t)
{
    return t->units.clusters * t->units.slices * t->units.elements;
}

bool rt_spread(const RtContext *rt, const RtTensor *t)
{
    return rt->transport && rt->transport->size > 1 && t->mem != MEM_HOST && !t->local;
}

void rt_own_range(const RtContext *rt, const RtTensor *t, uint64_t *lo, uint64_t *hi)
{
    *lo = 0;
    *hi = t->elems;
    if (!rt_spread(rt, t))
        return;
    uint64_t me = (uint64_t)rt->transport->rank, ce = chip_elems(t);
    *lo = me < t->units.chips ? me * ce : t->elems;
    *hi = me < t->units.chips ? *lo + ce : t->elems;
}

/* The process holding position pos of a side, and how many positions from pos stay with it. */
static int owner(const RtSide *s, uint64_t pos, uint64_t *left)
{
    if (!s->t) { /* process 0's host array */
        *left = UINT64_MAX;
        return 0;
    }
    uint64_t ce = chip_elems(s->t);
    *left = ce - pos % ce;
    return (int)(pos / ce);
}

/* Calls seg(arg, peer_dst, peer_src, dst_pos, src_pos, len) for every piece of p's runs that stays within
 * one chip on both sides (absolute positions of each side). */
typedef void (*SegFn)(void *arg, int od, int os, uint64_t d, uint64_t s, uint64_t len);
static void each_segment(const Plan *p, const RtSide *dst, const RtSide *src, SegFn seg, void *arg)
{
    for (size_t i = 0; i < p->nruns; i++) {
        const Run *r = &p->runs[i];
        if (r->src == RUN_ZERO)
            continue;
        uint64_t d = dst->off + r->dst, s = src->off + r->src, len = r->len;
        while (len) {
            uint64_t ld, ls;
            int od = owner(dst, d, &ld), os = owner(src, s, &ls);
            uint64_t n = len < ld ? len : ld;
            n = n < ls ? n : ls;
            seg(arg, od, os, d, s, n);
            d += n;
            s += n;
            len -= n;
        }
    }
}

typedef struct Exchange {
    int me;
    size_t es;
    const RtSide *src;
    uint64_t *send_len, *recv_len;      /* elements per peer */
    unsigned char **send_buf, **recv_buf;
    uint64_t *cursor;                   /* per peer, elements packed or unpacked so far */
    int phase;                          /* 0 count, 1 pack, 2 unpack */
    uint64_t cross;                     /* elements between different processes */
} Exchange;

static void exchange_seg(void *arg, int od, int os, uint64_t d, uint64_t s, uint64_t len)
{
    (void)d;
    Exchange *x = arg;
    if (od == os)
        return;
    x->cross += len;
    unsigned char *at = x->src->base + s * x->es;
    if (os == x->me) {
        if (x->phase == 0)
            x->send_len[od] += len;
        else if (x->phase == 1)
            memcpy(x->send_buf[od] + x->cursor[od] * x->es, at, len * x->es);
        if (x->phase == 1)
            x->cursor[od] += len;
    } else if (od == x->me) {
        if (x->phase == 0)
            x->recv_len[os] += len;
        else if (x->phase == 2)
            memcpy(at, x->recv_buf[os] + x->cursor[os] * x->es, len * x->es);
        if (x->phase == 2)
            x->cursor[os] += len;
    }
}

int rt_chips_exchange(RtContext *rt, const Plan *p, const RtSide *dst, const RtSide *src, size_t es)
{
    RtTransport *t = rt->transport;
    if (!t || t->size < 2)
        return 0;
    int n = t->size, r = 0;
    Exchange x = {.me = t->rank, .es = es, .src = src};
    x.send_len = calloc((size_t)n, sizeof *x.send_len);
    x.recv_len = calloc((size_t)n, sizeof *x.recv_len);
    x.cursor = calloc((size_t)n, sizeof *x.cursor);
    x.send_buf = calloc((size_t)n, sizeof *x.send_buf);
    x.recv_buf = calloc((size_t)n, sizeof *x.recv_buf);
    RtMsg *send = calloc((size_t)n, sizeof *send), *recv = calloc((size_t)n, sizeof *recv);
    int nsend = 0, nrecv = 0;
    bool ok = x.send_len && x.recv_len && x.cursor && x.send_buf && x.recv_buf && send && recv;
    if (ok)
        each_segment(p, dst, src, exchange_seg, &x);
    for (int q = 0; q < n && ok; q++) {
        if (x.send_len[q]) {
            ok = (x.send_buf[q] = malloc(x.send_len[q] * es)) != NULL;
            send[nsend++] = (RtMsg){q, x.send_buf[q], x.send_len[q] * es};
        }
        if (ok && x.recv_len[q]) {
            ok = (x.recv_buf[q] = malloc(x.recv_len[q] * es)) != NULL;
            recv[nrecv++] = (RtMsg){q, x.recv_buf[q], x.recv_len[q] * es};
        }
    }
    if (!ok) {
        r = rt_fail(rt, "out of memory exchanging chip data");
    } else {
        x.phase = 1;
        each_segment(p, dst, src, exchange_seg, &x);
        char err[256];
        for (int q = 0; q < n; q++) {
            rt->stats.chip_bytes_sent += x.send_len[q] * es;
            rt->stats.chip_bytes_received += x.recv_len[q] * es;
        }
        if (rt_transport_exchange(t, send, nsend, recv, nrecv, err, sizeof err) != 0) {
            r = rt_fail(rt, "%s", err);
        } else {
            memset(x.cursor, 0, (size_t)n * sizeof *x.cursor);
            x.phase = 2;
            each_segment(p, dst, src, exchange_seg, &x);
        }
    }
    for (int q = 0; q < n && x.send_buf && x.recv_buf; q++) {
        free(x.send_buf[q]);
        free(x.recv_buf[q]);
    }
    free(x.send_len);
    free(x.recv_len);
    free(x.cursor);
    free(x.send_buf);
    free(x.recv_buf);
    free(send);
    free(recv);
    return r;
}

/* Gives back the pages of t's chips that this process does not hold (they read as zeros again). */
static void release_others(const RtContext *rt, RtTensor *t)
{
    uint64_t lo, hi;
    rt_own_range(rt, t, &lo, &hi);
    size_t es = elem_type_size(t->elem);
    uintptr_t b = (uintptr_t)t->data, own0 = b + lo * es, own1 = b + hi * es, end = b + t->elems * es;
    uintptr_t pg = 4096;
    /* whole pages before and after this process's chip */
    uintptr_t a0 = b, a1 = own0 & ~(pg - 1), c0 = (own1 + pg - 1) & ~(pg - 1), c1 = (end + pg - 1) & ~(pg - 1);
    if (lo >= hi) /* no chip here */
        a1 = c1, c0 = c1;
    if (a1 > a0)
        madvise((void *)a0, a1 - a0, MADV_DONTNEED);
    if (c1 > c0 && c0 < b + t->alloc)
        madvise((void *)c0, (c1 < b + t->alloc ? c1 : b + t->alloc) - c0, MADV_DONTNEED);
}

int rt_chips_whole(RtContext *rt, RtTensor *t, bool scatter)
{
    RtTransport *tr = rt->transport;
    uint64_t chips = t->units.chips, ce = chip_elems(t);
    size_t es = elem_type_size(t->elem);
    int me = tr->rank, n = 0;
    RtMsg *m = calloc(chips + 1, sizeof *m);
    if (!m)
        return rt_fail_memory(rt, "out of memory");
    for (uint64_t q = 1; q < chips; q++)
        if (me == 0 || (uint64_t)me == q)
            m[n++] = (RtMsg){me == 0 ? (int)q : 0, (unsigned char *)t->data + q * ce * es, ce * es};
    bool sending = scatter == (me == 0);
    for (int i = 0; i < n; i++)
        *(sending ? &rt->stats.chip_bytes_sent : &rt->stats.chip_bytes_received) += m[i].bytes;
    char err[256];
    int r = rt_transport_exchange(tr, sending ? m : NULL, sending ? n : 0, sending ? NULL : m, sending ? 0 : n, err,
                                  sizeof err);
    free(m);
    if (r != 0)
        return rt_fail(rt, "%s", err);
    if (me == 0 && scatter)
        release_others(rt, t);
    return 0;
}

void rt_chips_release(const RtContext *rt, RtTensor *t)
{
    release_others(rt, t);
}

uint64_t rt_chips_cross_bytes(const RtContext *rt, const Plan *p, const RtSide *dst, const RtSide *src, size_t es)
{
    /* counting only: no peer, no buffers */
    Exchange x = {.me = -1, .es = es, .src = src};
    (void)rt;
    each_segment(p, dst, src, exchange_seg, &x);
    return x.cross * es;
}

int rt_transport_exchange(RtTransport *t, const RtMsg *send, int nsend, const RtMsg *recv, int nrecv, char *err,
                          size_t cap)
{
    if (!t)
        return 0;
    return t->ops->exchange(t, send, nsend, recv, nrecv, err, cap);
}

void rt_transport_abort(RtTransport *t, int code)
{
    if (t)
        t->ops->abort(t, code);
}

void rt_transport_free(RtTransport *t)
{
    if (t)
        t->ops->free(t);
}
