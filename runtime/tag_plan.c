/* tag_plan.c — move plans read off the move's own JIT kernel: run on position tags, it shows which source
 * position every destination cell reads, at memory speed (the plans of inter-chip exchanges). */
#include "rt_impl.h"

#include <stdlib.h>
#include <string.h>

/* A scratch tensor of t's layout with i32 elements (NULL when it breaks a capacity, with rt's error kept). */
static RtTensor *tag_tensor(RtContext *rt, const RtTensor *t)
{
    char saved[sizeof rt->error];
    memcpy(saved, rt->error, sizeof saved);
    RtTensor *x = rt_tensor_new_axes(rt, t->mem, ELEM_I32, t->maps, t->nmaps, t->axes);
    memcpy(rt->error, saved, sizeof saved);
    if (x)
        rt_tensor_make_local(x);
    return x;
}

const Plan *rt_tag_plan(RtContext *rt, const RtView *dst, const Map *d, const RtView *src, const Map *s,
                        RtKernelMove move)
{
    for (Plan *p = rt->tag_plans; p; p = p->next)
        if (p->dst == d && p->src == s)
            return p;
    const RtTensor *dt = dst->tensor, *st = src->tensor;
    if (st->elems >= UINT32_MAX - 1 || dt->data == st->data)
        return NULL;
    RtTensor *td = tag_tensor(rt, dt), *ts = td ? tag_tensor(rt, st) : NULL;
    Plan *p = ts ? calloc(1, sizeof *p) : NULL;
    bool ok = p != NULL;
    if (ok) {
        uint32_t *tags = rt_tensor_data(ts);
        for (uint64_t i = 0; i < st->elems; i++)
            tags[i] = (uint32_t)(i + 1);
        RtView v = *dst;
        v.tensor = td;
        ok = move(rt, d, rt_view_has_units(&v), s, ELEM_I32, (uint32_t *)rt_tensor_data(td) + dst->pos_offset,
                  tags + src->pos_offset) == 0;
    }
    size_t cap = 0;
    const uint32_t *got = td ? (const uint32_t *)rt_tensor_data(td) + dst->pos_offset : NULL;
    for (uint64_t i = 0; ok && i < d->size; i++)
        if (got[i]) { /* 0: padding, or a cell the move leaves */
            uint64_t at = got[i] - 1 - src->pos_offset;
            ok = rt_plan_push(p, &cap, i, at);
            p->dst_end = i + 1;
            p->src_end = at + 1 > p->src_end ? at + 1 : p->src_end;
        }
    rt_tensor_free(td);
    rt_tensor_free(ts);
    if (!ok) {
        if (p)
            free(p->runs);
        free(p);
        return NULL;
    }
    p->dst = d;
    p->src = s;
    p->next = rt->tag_plans;
    rt->tag_plans = p;
    return p;
}
