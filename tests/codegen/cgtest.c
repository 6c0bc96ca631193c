/* cgtest.c — checks generated cell/offset/each functions against the reference interpreter. */
#include "cgtest.h"
#include "eval/eval.h"
#include "harness.h"

#include <stdarg.h>
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

enum { MAX_PROBLEMS = 3 };

/* The problems found in one type: their number and the text of the first MAX_PROBLEMS. */
typedef struct Problems {
    int n;
    char text[MAX_PROBLEMS][256];
} Problems;

static void problem(Problems *pr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(Problems *pr, const char *fmt, ...)
{
    if (pr->n < MAX_PROBLEMS) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(pr->text[pr->n], sizeof pr->text[pr->n], fmt, ap);
        va_end(ap);
    }
    pr->n++;
}

bool cgtest_check_type(const Prog *p, const Map *m, const char *name, CellFn cell, OffsetFn offset, EachFn each,
                       uint64_t seed)
{
    Problems pr = {0};
    int na = p->naxes;
    Evaluator *ev = eval_new(p);
    Cell c = {.coord = calloc((size_t)na + 1, sizeof(uint64_t))};
    Cell d = {.coord = calloc((size_t)na + 1, sizeof(uint64_t))};
    int64_t *k = calloc((size_t)na + 1, sizeof *k);
    int64_t *k2 = calloc((size_t)na + 1, sizeof *k2);
    for (uint64_t pos = 0; pos < m->size + 2 && pr.n < MAX_PROBLEMS; pos++) {
        if (eval_cell(ev, m, pos, &c) != EVAL_OK) {
            problem(&pr, "interpreter undecided");
            break;
        }
        memset(k, 0x55, ((size_t)na + 1) * sizeof *k);
        int kind = cell(pos, k);
        bool same = kind == (int)c.kind;
        for (int a = 0; a < na; a++)
            same = same && (uint64_t)k[a] == c.coord[a];
        if (!same) {
            problem(&pr, "position %llu: generated kind %d, interpreter kind %d", (unsigned long long)pos, kind,
                    (int)c.kind);
            continue;
        }
        if (kind != CELL_LIVE)
            continue;
        int64_t off = offset(k);
        if (off < 0 || (uint64_t)off > pos) {
            problem(&pr, "position %llu: offset of its cell is %lld", (unsigned long long)pos, (long long)off);
            continue;
        }
        if (eval_cell(ev, m, (uint64_t)off, &d) != EVAL_OK || !cell_equal(&c, &d, na))
            problem(&pr, "position %llu: offset %lld holds another cell", (unsigned long long)pos, (long long)off);
    }
    /* random coordinates, in and out of range: -1 exactly when no position holds them */
    Rng rng = rng_seeded(seed * 7919 + 17);
    for (int i = 0; i < 8 && pr.n < MAX_PROBLEMS; i++) {
        for (int a = 0; a < na; a++)
            k[a] = (int64_t)(rng_next(&rng) % (p->axes[a].size + (i == 7)));
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
            problem(&pr, "offset of random coordinates: %lld, expected %lld", (long long)off, (long long)want);
    }
    if (each && m->size <= (1u << 20)) {
        EachState s = {.p = p, .m = m, .ev = ev, .c = c};
        each(visit, &s);
        if (s.bad || s.next != m->size)
            problem(&pr, "each: failure %d after %llu positions", s.bad, (unsigned long long)s.next);
    }
    free(c.coord);
    free(d.coord);
    free(k);
    free(k2);
    eval_free(ev);
    bool ok = CHECK_EQ_INT(pr.n, 0, "type %s: problems of the generated functions (seed %llu)", name,
                           (unsigned long long)seed);
    for (int i = 0; i < pr.n && i < MAX_PROBLEMS; i++)
        harness_detail("%s", pr.text[i]);
    return ok;
}

Jit *cgtest_compile(Prog *p, const char *name, const char *text, int opt_level)
{
    if (text && prog_parse(p, name, text, strlen(text)) != 0) {
        FAIL("%s does not parse: %s", name, p->diags.head ? p->diags.head->msg : "?");
        return NULL;
    }
    CgOptions o = {.opt_level = opt_level};
    Jit *j = jit_new(p, &o, &p->diags);
    if (!j)
        FAIL("%s: the JIT fails: %s", name, p->diags.head ? p->diags.head->msg : "?");
    return j;
}
