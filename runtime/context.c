/* context.c — the runtime context: its configuration, thread pool, interpreter and caches of moves. */
#include "algebra/algebra.h"
#include "rt_impl.h"
#include "transport.h"

#include <stdlib.h>
#include <unistd.h>

RtConfig rt_default_config(void) { return (RtConfig){.limits = tensor_default_limits(), .threads = 0}; }

RtContext *rt_new(Prog *prog, const RtConfig *cfg)
{
    RtContext *rt = calloc(1, sizeof *rt);
    if (!rt)
        return NULL;
    rt->prog = prog;
    rt->cfg = cfg ? *cfg : rt_default_config();
    rt->transport = rt->cfg.transport;
    rt->threads = rt->cfg.threads > 0 ? rt->cfg.threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (rt->threads < 1)
        rt->threads = 1;
    rt->pool = rt_pool_new(rt->threads);
    rt->ev = eqv_evaluator_new(prog);
    if (!rt->pool || !rt->ev) {
        rt_free(rt);
        return NULL;
    }
    return rt;
}

void rt_free(RtContext *rt)
{
    if (!rt)
        return;
    rt_pool_free(rt->pool);
    eqv_evaluator_free(rt->ev);
    rt_plans_free(rt->plans);
    rt_plans_free(rt->tag_plans);
    rt_kernels_free(rt->kernels);
    free(rt);
}

int rt_threads(const RtContext *rt) { return rt->threads; }

Prog *rt_prog(const RtContext *rt) { return rt->prog; }

int rt_chip(const RtContext *rt) { return rt->transport ? rt->transport->rank : -1; }

int rt_procs(const RtContext *rt) { return rt->transport ? rt->transport->size : 1; }

RtTransport *rt_transport(const RtContext *rt) { return rt->transport; }

bool rt_holds_chip(const RtContext *rt, uint64_t c) { return !rt->transport || c == (uint64_t)rt->transport->rank; }
