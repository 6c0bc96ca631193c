/* cgtest.c — checks generated cell/offset/each functions against the reference interpreter. */
#include "cgtest.h"
#include "eval/eval.h"

#include <stdlib.h>
#include <string.h>

typedef struct EachState {
    const Prog *p;
    const Map *m;
    Evaluator *ev;
    Cell c;
    uint64_t next;
    int bad;
} EachState;

static void visit(void *ctx, uint64_t pos, int kind, const int64_t *coords)
{
    EachState *s = ctx;
    if (s->bad)
        return;
    if (pos != s->next) {
        s->bad = 1;
        return;
    }
    s->next++;
    if (eval_cell(s->ev, s->m, pos, &s->c) != EVAL_OK || (int)s->c.kind != kind) {
        s->bad = 2;
        return;
    }
    for (int a = 0; a < s->p->naxes; a++)
        if ((uint64_t)coords[a] != s->c.coord[a])
            s->bad = 3;
}

static uint64_t rnd(uint64_t *st)
{
    uint64_t z = (*st += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        if (fails++ < 3) {                                                                         \
            printf("FAIL seed %llu type %s: ", (unsigned long long)seed, name);                    \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

int cgtest_check_type(const Prog *p, const Map *m, const char *name, CellFn cell, OffsetFn offset, EachFn each,
                      uint64_t seed)
{
    int fails = 0, na = p->naxes;
    Evaluator *ev = eval_new(p);
    Cell c = {.coord = calloc((size_t)na + 1, sizeof(uint64_t))};
    Cell d = {.coord = calloc((size_t)na + 1, sizeof(uint64_t))};
    int64_t *k = calloc((size_t)na + 1, sizeof *k);
    int64_t *k2 = calloc((size_t)na + 1, sizeof *k2);
    for (uint64_t pos = 0; pos < m->size + 2 && fails < 3; pos++) {
        if (eval_cell(ev, m, pos, &c) != EVAL_OK) {
            FAIL("interpreter undecided");
            break;
        }
        memset(k, 0x55, ((size_t)na + 1) * sizeof *k);
        int kind = cell(pos, k);
        bool same = kind == (int)c.kind;
        for (int a = 0; a < na; a++)
            same = same && (uint64_t)k[a] == c.coord[a];
        if (!same) {
            FAIL("position %llu: generated kind %d, interpreter kind %d", (unsigned long long)pos, kind, (int)c.kind);
            continue;
        }
        if (kind != CELL_LIVE)
            continue;
        int64_t off = offset(k);
        if (off < 0 || (uint64_t)off > pos) {
            FAIL("position %llu: offset of its cell is %lld", (unsigned long long)pos, (long long)off);
            continue;
        }
        if (eval_cell(ev, m, (uint64_t)off, &d) != EVAL_OK || !cell_equal(&c, &d, na))
            FAIL("position %llu: offset %lld holds another cell", (unsigned long long)pos, (long long)off);
    }
    /* random coordinates, in and out of range: -1 exactly when no position holds them */
    uint64_t st = seed * 7919 + 17;
    for (int i = 0; i < 8 && fails < 3; i++) {
        for (int a = 0; a < na; a++)
            k[a] = (int64_t)(rnd(&st) % (p->axes[a].size + (i == 7)));
        memcpy(k2, k, (size_t)na * sizeof *k);
        int64_t off = offset(k);
        int64_t want = -1;
        for (uint64_t pos = 0; pos < m->size && want < 0; pos++) {
            eval_cell(ev, m, pos, &c);
            bool same = c.kind == CELL_LIVE;
            for (int a = 0; a < na; a++)
                same = same && c.coord[a] == (uint64_t)k2[a];
            if (same)
                want = (int64_t)pos;
        }
        if (off != want)
            FAIL("offset of random coordinates: %lld, expected %lld", (long long)off, (long long)want);
    }
    if (each && m->size <= (1u << 20)) {
        EachState s = {.p = p, .m = m, .ev = ev, .c = c};
        each(visit, &s);
        if (s.bad || s.next != m->size)
            FAIL("each: failure %d after %llu positions", s.bad, (unsigned long long)s.next);
    }
    free(c.coord);
    free(d.coord);
    free(k);
    free(k2);
    eval_free(ev);
    return fails;
}
