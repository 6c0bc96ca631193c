/* plan.c — move plans: which source element every destination cell of a relayout receives, found with
 * the reference interpreter and compressed into runs of consecutive positions. */
#include "rt_impl.h"

#include <stdlib.h>
#include <string.h>

/* An open-addressing table from a tensor index (naxes coordinates) to the smallest source position. */
typedef struct IndexTable {
    int naxes;
    size_t cap;
    uint64_t *keys;     /* cap * naxes */
    uint64_t *pos;      /* cap; UINT64_MAX = empty */
} IndexTable;

static uint64_t hash_index(const uint64_t *c, int n)
{
    uint64_t h = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < n; i++) {
        h ^= c[i] + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
        h *= 0xff51afd7ed558ccdu;
    }
    return h ^ (h >> 33);
}

static bool table_init(IndexTable *t, int naxes, uint64_t entries)
{
    t->naxes = naxes;
    t->cap = 16;
    while (t->cap < 2 * entries)
        t->cap *= 2;
    t->keys = malloc(t->cap * ((size_t)naxes + 1) * sizeof *t->keys);
    t->pos = malloc(t->cap * sizeof *t->pos);
    if (!t->keys || !t->pos)
        return false;
    memset(t->pos, 0xff, t->cap * sizeof *t->pos);
    return true;
}

static void table_free(IndexTable *t)
{
    free(t->keys);
    free(t->pos);
}

/* The slot holding index c, or the empty slot where it belongs. */
static size_t table_slot(const IndexTable *t, const uint64_t *c)
{
    size_t i = hash_index(c, t->naxes) & (t->cap - 1);
    while (t->pos[i] != UINT64_MAX && memcmp(&t->keys[i * (size_t)t->naxes], c, (size_t)t->naxes * sizeof *c) != 0)
        i = (i + 1) & (t->cap - 1);
    return i;
}

bool rt_plan_push(Plan *p, size_t *cap, uint64_t dst, uint64_t src)
{
    if (p->nruns) {
        Run *r = &p->runs[p->nruns - 1];
        if (r->dst + r->len == dst &&
            ((src == RUN_ZERO && r->src == RUN_ZERO) || (src != RUN_ZERO && r->src != RUN_ZERO && r->src + r->len == src))) {
            r->len++;
            return true;
        }
    }
    if (p->nruns == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        Run *runs = realloc(p->runs, *cap * sizeof *runs);
        if (!runs)
            return false;
        p->runs = runs;
    }
    p->runs[p->nruns++] = (Run){dst, src, 1};
    return true;
}

/* Fills p's runs; returns 0, or -1 with rt_error set. */
static int build(RtContext *rt, Plan *p)
{
    const Prog *prog = rt->prog;
    int naxes = prog->naxes;
    Cell c = {.coord = calloc((size_t)naxes + 1, sizeof(uint64_t))};
    uint64_t *key = calloc((size_t)naxes + 1, sizeof(uint64_t));
    IndexTable t = {0};
    int status = -1;
    size_t cap = 0;
    if (!c.coord || !key || !table_init(&t, naxes, p->src->size)) {
        rt_fail_memory(rt, "out of memory planning a move of %llu elements", (unsigned long long)p->src->size);
        goto out;
    }
    for (uint64_t s = 0; s < p->src->size; s++) {
        if (eval_cell(rt->ev, p->src, s, &c) != EVAL_OK) {
            rt_fail(rt, "cannot evaluate the source mapping: %s", eval_error(rt->ev));
            goto out;
        }
        if (c.kind != CELL_LIVE)
            continue;
        size_t i = table_slot(&t, c.coord);
        if (t.pos[i] == UINT64_MAX) {
            memcpy(&t.keys[i * (size_t)naxes], c.coord, (size_t)naxes * sizeof *c.coord);
            t.pos[i] = s;
            if (s + 1 > p->src_end)
                p->src_end = s + 1;
        }
    }
    for (uint64_t d = 0; d < p->dst->size; d++) {
        if (eval_cell(rt->ev, p->dst, d, &c) != EVAL_OK) {
            rt_fail(rt, "cannot evaluate the destination mapping: %s", eval_error(rt->ev));
            goto out;
        }
        uint64_t src;
        if (c.kind == CELL_PAD_ZERO) {
            src = RUN_ZERO;
        } else if (c.kind == CELL_LIVE) {
            bool inside = true;
            for (int a = 0; a < naxes; a++) {
                int64_t v = (int64_t)c.coord[a] + p->delta[a];
                inside &= v >= 0 && (uint64_t)v < prog->axes[a].size;
                key[a] = (uint64_t)v;
            }
            size_t i = inside ? table_slot(&t, key) : 0;
            if (!inside || t.pos[i] == UINT64_MAX) {
                if (p->missing_ok)
                    continue;
                char buf[256];
                cell_format(prog, &c, buf, sizeof buf);
                rt_fail(rt, "destination position %llu holds index %s, which the source does not hold",
                        (unsigned long long)d, buf);
                goto out;
            }
            src = t.pos[i];
        } else {
            continue; /* pad(top), pad(bottom), overflow: never written */
        }
        if (!rt_plan_push(p, &cap, d, src)) {
            rt_fail_memory(rt, "out of memory planning a move");
            goto out;
        }
        p->dst_end = d + 1;
    }
    status = 0;
out:
    table_free(&t);
    free(c.coord);
    free(key);
    return status;
}

const Plan *rt_plan(RtContext *rt, const Map *dst, const Map *src, const int64_t *delta, bool missing_ok)
{
    size_t dbytes = (size_t)rt->prog->naxes * sizeof *delta;
    for (Plan *p = rt->plans; p; p = p->next)
        if (p->dst == dst && p->src == src && p->missing_ok == missing_ok && memcmp(p->delta, delta, dbytes) == 0)
            return p;
    Plan *p = calloc(1, sizeof *p);
    if (!p) {
        rt_fail_memory(rt, "out of memory");
        return NULL;
    }
    p->dst = dst;
    p->src = src;
    p->missing_ok = missing_ok;
    p->delta = malloc(dbytes + sizeof *delta);
    if (!p->delta || (memcpy(p->delta, delta, dbytes), build(rt, p) != 0)) {
        if (!p->delta)
            rt_fail_memory(rt, "out of memory");
        p->next = NULL;
        rt_plans_free(p);
        return NULL;
    }
    p->next = rt->plans;
    rt->plans = p;
    return p;
}

void rt_plans_free(Plan *p)
{
    while (p) {
        Plan *next = p->next;
        free(p->delta);
        free(p->runs);
        free(p);
        p = next;
    }
}
