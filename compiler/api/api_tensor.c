/* api_tensor.c — the public device-tensor API (mapc_runtime, mapc_tensor, mapc_view): tensors over units,
 * host transfers, tiles and DMA through the runtime. */
#include "api_impl.h"
#include "movement/movement.h"
#include "seq.h"
#include "rt.h"
#include "transport.h"

#include <stdlib.h>
#include <string.h>

struct mapc_tensor {
    RtTensor *t;            /* owned */
    const Prog *prog;       /* the runtime's program */
    struct mapc_tensor *next;
};

struct mapc_view {
    RtView v;
    struct mapc_view *next;
};

struct mapc_runtime {
    mapc_program *p;        /* borrowed */
    RtContext *rt;          /* owned */
    mapc_tensor *tensors;   /* owned, newest first */
    mapc_view *views;       /* owned, newest first */
    RtTransport *transport; /* owned: the processes of an MPI runtime, NULL in one process */
    char error[512];
};

static mapc_status runtime_create_body(mapc_program *p, int threads, RtTransport *transport, mapc_runtime **out)
{
    if (!out || !p || threads < 0 || threads > 1024) {
        rt_transport_free(transport);
        if (out)
            *out = NULL;
        return MAPC_ERR_ARGUMENT;
    }
    *out = NULL;
    mapc_runtime *r = p->compile_errors ? NULL : calloc(1, sizeof *r);
    if (!r) {
        rt_transport_free(transport);
        return p->compile_errors ? MAPC_ERR_INPUT : MAPC_ERR_NOMEM;
    }
    RtConfig cfg = rt_default_config();
    cfg.threads = threads;
    cfg.transport = transport;
    r->p = p;
    r->transport = transport;
    if (!(r->rt = rt_new(p->prog, &cfg))) {
        rt_transport_free(transport);
        free(r);
        return MAPC_ERR_NOMEM;
    }
    *out = r;
    return MAPC_OK;
}

mapc_status api_runtime_create(mapc_program *p, int threads, RtTransport *transport, mapc_runtime **out)
{
    if (api_cache_default() != MAPC_OK) {
        rt_transport_free(transport);
        if (out)
            *out = NULL;
        return MAPC_ERR_NOMEM;
    }
    GUARDED(runtime_create_body(p, threads, transport, out));
}

mapc_status mapc_runtime_create(mapc_program *p, int threads, mapc_runtime **out)
{
    return api_runtime_create(p, threads, NULL, out);
}

void mapc_runtime_free(mapc_runtime *r)
{
    if (!r)
        return;
    for (mapc_view *v = r->views, *next; v; v = next) {
        next = v->next;
        free(v);
    }
    for (mapc_tensor *t = r->tensors, *next; t; t = next) {
        next = t->next;
        rt_tensor_free(t->t);
        free(t);
    }
    rt_free(r->rt);
    rt_transport_free(r->transport);
    free(r);
}

const char *mapc_runtime_error(const mapc_runtime *r) { return r ? r->error : "no runtime (a null pointer)"; }

/* Records the runtime's message as the last error and returns s. */
/* The runtime's failure as status s, or MAPC_ERR_NOMEM when it failed for memory; its message kept. */
static mapc_status failed(mapc_runtime *r, mapc_status s)
{
    api_set_error(r->error, sizeof r->error, "%s", rt_error(r->rt));
    return rt_out_of_memory(r->rt) ? MAPC_ERR_NOMEM : s;
}

static mapc_status tensor_create_body(mapc_runtime *r, const char *name, mapc_tensor **out)
{
    if (!out)
        return MAPC_ERR_ARGUMENT;
    *out = NULL;
    if (!r || !name)
        return MAPC_ERR_ARGUMENT;
    r->error[0] = 0;
    const Name *n = prog_lookup(r->p->prog, name);
    if (!n || n->kind != NAME_TENSOR) {
        api_set_error(r->error, sizeof r->error, "no tensor is declared as '%s'", name);
        return MAPC_ERR_NOT_FOUND;
    }
    mapc_tensor *t = calloc(1, sizeof *t);
    if (!t)
        return MAPC_ERR_NOMEM;
    if (!(t->t = rt_tensor_declared(r->rt, name))) {
        free(t);
        return failed(r, MAPC_ERR_INPUT);
    }
    t->prog = r->p->prog;
    t->next = r->tensors;
    r->tensors = t;
    *out = t;
    return MAPC_OK;
}

mapc_status mapc_tensor_create(mapc_runtime *r, const char *name, mapc_tensor **out)
{
    GUARDED(tensor_create_body(r, name, out));
}

void *mapc_tensor_data(const mapc_tensor *t) { return t ? rt_tensor_data(t->t) : NULL; }

size_t mapc_tensor_bytes(const mapc_tensor *t)
{
    return t ? (size_t)rt_tensor_elems(t->t) * elem_type_size(rt_tensor_elem(t->t)) : 0;
}

uint64_t mapc_tensor_host_elems(const mapc_tensor *t)
{
    if (!t)
        return 0;
    const Prog *p = t->prog;
    int *axes = calloc((size_t)p->naxes + 1, sizeof *axes);
    if (!axes)
        return 0;
    int n = rt_tensor_axes(t->t, axes);
    uint64_t e = 1;
    for (int i = 0; i < n; i++)
        e *= p->axes[axes[i]].size;
    free(axes);
    return e;
}

/* A new view owned by r holding v. */
static mapc_status keep_view(mapc_runtime *r, RtView v, mapc_view **out)
{
    mapc_view *w = calloc(1, sizeof *w);
    if (!w)
        return MAPC_ERR_NOMEM;
    w->v = v;
    w->next = r->views;
    r->views = w;
    *out = w;
    return MAPC_OK;
}

mapc_status mapc_tensor_view(mapc_runtime *r, mapc_tensor *t, int writable, mapc_view **out)
{
    if (!out)
        return MAPC_ERR_ARGUMENT;
    *out = NULL;
    if (!r || !t)
        return MAPC_ERR_ARGUMENT;
    return keep_view(r, rt_view(t->t, writable != 0), out);
}

static mapc_status view_tile_body(mapc_runtime *r, const mapc_view *v, int unit, const char *index, uint64_t len,
                                  uint64_t start, mapc_view **out)
{
    if (!out)
        return MAPC_ERR_ARGUMENT;
    *out = NULL;
    if (!r || !v || !index || unit < -1 || unit > 2)
        return MAPC_ERR_ARGUMENT;
    r->error[0] = 0;
    int before = r->p->prog->diags.count;
    const Map *m = prog_parse_map(r->p->prog, "<index>", index);
    if (!m) {
        api_set_error(r->error, sizeof r->error, "the index '%s' is not a mapping (see the program's diagnostics)",
                      index);
        return r->p->prog->diags.count > before ? MAPC_ERR_INPUT : MAPC_ERR_ARGUMENT;
    }
    RtView tile;
    int rc = unit < 0 ? rt_tile(r->rt, &v->v, m, len, start, NULL, &tile)
                      : rt_unit_tile(r->rt, &v->v, unit, m, len, start, NULL, &tile);
    if (rc)
        return failed(r, MAPC_ERR_ARGUMENT);
    return keep_view(r, tile, out);
}

mapc_status mapc_view_tile(mapc_runtime *r, const mapc_view *v, int unit, const char *index, uint64_t len,
                           uint64_t start, mapc_view **out)
{
    GUARDED(view_tile_body(r, v, unit, index, len, start, out));
}

/* One move: a host transfer in (to_host 0) or out (1), or a DMA (host NULL). */
static mapc_status move_body(mapc_runtime *r, const mapc_view *dst, const mapc_view *src, void *host, int dir)
{
    /* in an MPI runtime the host arrays are process 0's: the other processes may pass NULL */
    bool need_host = !r || !r->transport || r->transport->rank == 0;
    if (!r || (dir == 0 && (!dst || (!host && need_host))) || (dir == 1 && (!src || (!host && need_host))) ||
        (dir == 2 && (!dst || !src)))
        return MAPC_ERR_ARGUMENT;
    r->error[0] = 0;
    int rc = dir == 0   ? rt_from_host(r->rt, &dst->v, host)
             : dir == 1 ? rt_to_host(r->rt, &src->v, host)
                        : rt_dma(r->rt, &dst->v, &src->v);
    return rc ? failed(r, strstr(rt_error(r->rt), "out of memory") ? MAPC_ERR_NOMEM : MAPC_ERR_ARGUMENT) : MAPC_OK;
}

mapc_status mapc_view_write(mapc_runtime *r, const mapc_view *dst, const void *host)
{
    GUARDED(move_body(r, dst, NULL, (void *)host, 0));
}

mapc_status mapc_view_read(mapc_runtime *r, const mapc_view *src, void *host)
{
    GUARDED(move_body(r, NULL, src, host, 1));
}

mapc_status mapc_dma(mapc_runtime *r, const mapc_view *dst, const mapc_view *src)
{
    GUARDED(move_body(r, dst, src, NULL, 2));
}

/* The NPU command behind a DMA (seq.h): rt_dma_npu, and its plan in public values. */
static int dma_npu_body(mapc_runtime *r, const mapc_view *dst, const mapc_view *src, int fit, mapc_dma_plan *out,
                        mapc_diag *err)
{
    MvDma *x = mem_alloc(sizeof *x);
    MvDiag d;
    int st = 0;
    if (rt_dma_npu(r->rt, &dst->v, &src->v, fit != 0, x, &d) == 0)
        api_dma_plan(x, out);
    else
        st = api_movement_error(err, &d);
    free(x);
    return st;
}

int mapc_dma_npu(mapc_runtime *r, const mapc_view *dst, const mapc_view *src, int fit, mapc_dma_plan *out,
                 mapc_diag *err)
{
    if (!r || !dst || !src || !out) {
        if (err) {
            err->code = MAPC_ERR_ARGUMENT;
            strcpy(err->message, "bad argument (a NULL pointer)");
        }
        return MAPC_ERR_ARGUMENT;
    }
    GUARDED(dma_npu_body(r, dst, src, fit, out, err));
}
