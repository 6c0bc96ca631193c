/* eval.c — the reference interpreter of docs/language.md §3: structural evaluation into items, then finalization.
 * It favours obvious correctness over speed: it is the oracle every other part is tested against. */
#include "eval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An item of a structural evaluation: a term (X, stride, count) = value, or a padding met. */
typedef struct Item {
    bool is_pad;
    PadKind pad;
    const Map *base;    /* a MAP_SYM node or a composite (top operator not / or %) */
    uint64_t stride, count, value;
} Item;

typedef struct Items {
    Item *v;
    size_t n, cap;
} Items;

typedef struct Memo {
    const Map *x, *y;
    int same;
} Memo;

struct Evaluator {
    const Prog *prog;
    int naxes;
    BaseEquivFn base_equiv;
    void *base_equiv_ctx;
    uint64_t budget;
    Memo *memo;
    size_t nmemo, memo_cap;
    char error[256];
};

static int exhaustive_base_equiv(Evaluator *ev, const Map *x, const Map *y, void *ctx);

Evaluator *eval_new(const Prog *prog)
{
    Evaluator *ev = mem_calloc(1, sizeof *ev);
    if (!ev)
        return NULL;
    ev->prog = prog;
    ev->naxes = prog->naxes;
    ev->base_equiv = exhaustive_base_equiv;
    ev->budget = MAPC_EXHAUSTIVE_BUDGET;
    return ev;
}

void eval_free(Evaluator *ev)
{
    if (!ev)
        return;
    free(ev->memo);
    free(ev);
}

void eval_set_base_equiv(Evaluator *ev, BaseEquivFn fn, void *ctx)
{
    ev->base_equiv = fn ? fn : exhaustive_base_equiv;
    ev->base_equiv_ctx = ctx;
}

void *eval_base_equiv_ctx(const Evaluator *ev) { return ev->base_equiv_ctx; }

void eval_set_error(Evaluator *ev, const char *msg) { snprintf(ev->error, sizeof ev->error, "%s", msg); }

void eval_set_budget(Evaluator *ev, uint64_t positions) { ev->budget = positions; }

const char *eval_error(const Evaluator *ev) { return ev->error; }

static void push(Items *it, Item x)
{
    if (it->n == it->cap) {
        it->cap = it->cap ? 2 * it->cap : 16;
        it->v = mem_realloc(it->v, it->cap * sizeof *it->v);
    }
    it->v[it->n++] = x;
}

/* ev(E, p) of docs/language.md §3, appended to it; requires p < |E|. */
static void structural(const Map *e, uint64_t p, Items *it)
{
    switch (e->kind) {
    case MAP_SYM:
        push(it, (Item){.base = e, .stride = 1, .count = e->size, .value = p});
        return;
    case MAP_BCAST:
        return;
    case MAP_STRIDE:
    case MAP_MOD: {
        uint64_t s;
        const Map *x = map_digit_root(e, &s);
        push(it, (Item){.base = x, .stride = s, .count = e->size, .value = p});
        return;
    }
    case MAP_RESIZE:
        structural(e->l, p, it);
        return;
    case MAP_PAD:
        if (p < e->l->size)
            structural(e->l, p, it);
        else
            push(it, (Item){.is_pad = true, .pad = e->pad});
        return;
    case MAP_PAIR:
        structural(e->l, p / e->r->size, it);
        structural(e->r, p % e->r->size, it);
        return;
    }
}

/* Same base (docs/language.md §3): the same axis for symbols, equivalent mappings otherwise. 1/0, -1 undecided. */
static int same_base(Evaluator *ev, const Map *x, const Map *y)
{
    if (x == y)
        return 1;
    if (x->kind == MAP_SYM && y->kind == MAP_SYM)
        return x->axis == y->axis;
    if (x->size != y->size)
        return 0;
    return ev->base_equiv(ev, x, y, ev->base_equiv_ctx);
}

int eval_same_base(Evaluator *ev, const Map *x, const Map *y) { return same_base(ev, x, y); }

int eval_terms(const Map *e, uint64_t pos, uint64_t *values, int cap)
{
    if (pos >= e->size)
        return -1;
    Items it = {0};
    structural(e, pos, &it);
    int n = 0;
    for (size_t i = 0; i < it.n && n >= 0; i++) {
        if (it.v[i].is_pad)
            n = -1;
        else if (n < cap)
            values[n++] = it.v[i].value;
        else
            n = -1;
    }
    free(it.v);
    return n;
}

static EvalStatus finalize(Evaluator *ev, const Items *it, Cell *out);

EvalStatus eval_cell(Evaluator *ev, const Map *e, uint64_t pos, Cell *out)
{
    memset(out->coord, 0, (size_t)ev->naxes * sizeof *out->coord);
    if (pos >= e->size) {
        out->kind = CELL_OOB;
        return EVAL_OK;
    }
    Items it = {0};
    structural(e, pos, &it);
    EvalStatus st = finalize(ev, &it, out);
    free(it.v);
    return st;
}

EvalStatus eval_index(Evaluator *ev, const IndexTerm *terms, int n, Cell *out)
{
    Items it = {0};
    for (int i = 0; i < n; i++)
        structural(terms[i].map, terms[i].value, &it);
    memset(out->coord, 0, (size_t)ev->naxes * sizeof *out->coord);
    EvalStatus st = finalize(ev, &it, out);
    free(it.v);
    return st;
}

/* Finalization (docs/language.md §3 steps 1–4). */
static EvalStatus finalize(Evaluator *ev, const Items *it, Cell *out)
{
    size_t n = it->n;
    size_t *cls = mem_alloc((n + 1) * sizeof *cls);    /* class of each term: index of its first term */
    uint64_t *sub = mem_calloc((size_t)ev->naxes + 1, sizeof *sub);
    EvalStatus st = EVAL_OK;
    bool overflow = false;
    size_t pad_place = SIZE_MAX;
    PadKind pad = PAD_TOP;

    for (size_t i = 0; i < n; i++) {
        const Item *t = &it->v[i];
        if (t->is_pad) {
            if (i < pad_place)
                pad_place = i, pad = t->pad;
            continue;
        }
        cls[i] = i;
        for (size_t j = 0; j < i; j++) {
            if (it->v[j].is_pad || cls[j] != j)
                continue;
            int same = same_base(ev, it->v[j].base, t->base);
            if (same < 0) {
                st = EVAL_UNDECIDED;
                goto done;
            }
            if (same) {
                cls[i] = j;
                break;
            }
        }
    }

    /* Per class (placed at its first term): add equal digits, detect overshoots, sum the coordinate. */
    for (size_t j = 0; j < n; j++) {
        if (it->v[j].is_pad || cls[j] != j)
            continue;
        uint64_t coord = 0;
        for (size_t i = j; i < n; i++) {
            if (it->v[i].is_pad || cls[i] != j)
                continue;
            const Item *t = &it->v[i];
            coord = u64_sat_add(coord, u64_sat_mul(t->value, t->stride));
            /* the sum of the terms with this exact (base, stride, count) is checked once, at the first */
            bool first = true;
            for (size_t k = j; k < i; k++)
                if (!it->v[k].is_pad && cls[k] == j && it->v[k].stride == t->stride && it->v[k].count == t->count)
                    first = false;
            if (!first)
                continue;
            uint64_t digit = 0;
            for (size_t k = i; k < n; k++)
                if (!it->v[k].is_pad && cls[k] == j && it->v[k].stride == t->stride && it->v[k].count == t->count)
                    digit = u64_sat_add(digit, it->v[k].value);
            if (digit >= t->count)
                overflow = true;
        }
        const Map *x = it->v[j].base;
        if (x->kind == MAP_SYM) {
            sub[x->axis] = u64_sat_add(sub[x->axis], coord);
            continue;
        }
        if (coord >= x->size) {
            overflow = true;
            continue;
        }
        /* decode the composite once, on its own (a strictly smaller mapping) */
        Cell inner = {.coord = mem_calloc((size_t)ev->naxes + 1, sizeof(uint64_t))};
        st = eval_cell(ev, x, coord, &inner);
        if (st == EVAL_OK) {
            if (inner.kind >= CELL_PAD_TOP && inner.kind <= CELL_PAD_BOTTOM) {
                /* A composite's padding is placed at its first term with a non-zero value (one
                 * exists: cell(X, 0) is never padding). Placing it at a zero-valued term, as
                 * docs/language.md §3 step 3 literally reads, breaks [L, R] % |R| ≡ R when L and R share a
                 * composite base: L's zero terms would move R's padding ahead of R's own. */
                size_t place = j;
                while (place < n && (it->v[place].is_pad || cls[place] != j || it->v[place].value == 0))
                    place++;
                if (place == n)
                    place = j;
                if (place < pad_place)
                    pad_place = place, pad = (PadKind)inner.kind;
            } else if (inner.kind == CELL_OVERFLOW) {
                overflow = true;
            } else {
                for (int a = 0; a < ev->naxes; a++)
                    sub[a] = u64_sat_add(sub[a], inner.coord[a]);
            }
        }
        free(inner.coord);
        if (st != EVAL_OK)
            goto done;
    }

    if (pad_place != SIZE_MAX) {
        out->kind = (CellKind)pad;
        goto done;
    }
    for (int a = 0; a < ev->naxes; a++)
        if (sub[a] >= ev->prog->axes[a].size)
            overflow = true;
    if (overflow) {
        out->kind = CELL_OVERFLOW;
        goto done;
    }
    out->kind = CELL_LIVE;
    memcpy(out->coord, sub, (size_t)ev->naxes * sizeof *sub);
done:
    if (out->kind != CELL_LIVE || st != EVAL_OK)
        memset(out->coord, 0, (size_t)ev->naxes * sizeof *out->coord);
    free(cls);
    free(sub);
    return st;
}

/* The default base comparison: every position, memoized per pair, within the budget. */
static int exhaustive_base_equiv(Evaluator *ev, const Map *x, const Map *y, void *ctx)
{
    (void)ctx;
    for (size_t i = 0; i < ev->nmemo; i++)
        if ((ev->memo[i].x == x && ev->memo[i].y == y) || (ev->memo[i].x == y && ev->memo[i].y == x))
            return ev->memo[i].same;
    EqvResult r;
    r.c1.coord = mem_calloc((size_t)ev->naxes + 1, sizeof(uint64_t));
    r.c2.coord = mem_calloc((size_t)ev->naxes + 1, sizeof(uint64_t));
    EvalStatus st = eqv_exhaustive(ev, x, y, ev->budget, &r);
    free(r.c1.coord);
    free(r.c2.coord);
    if (st != EVAL_OK)
        return -1;
    if (r.verdict == EQV_UNKNOWN) {
        snprintf(ev->error, sizeof ev->error,
                 "comparing two composite bases of size %llu exceeds the exhaustive budget of %llu positions",
                 (unsigned long long)x->size, (unsigned long long)ev->budget);
        return -1;
    }
    int same = r.verdict == EQV_EQUIVALENT;
    if (ev->nmemo == ev->memo_cap) {
        ev->memo_cap = ev->memo_cap ? 2 * ev->memo_cap : 16;
        ev->memo = mem_realloc(ev->memo, ev->memo_cap * sizeof *ev->memo);
    }
    ev->memo[ev->nmemo++] = (Memo){x, y, same};
    return same;
}

EvalStatus eqv_exhaustive(Evaluator *ev, const Map *e1, const Map *e2, uint64_t budget, EqvResult *r)
{
    if (e1->size != e2->size) {
        r->verdict = EQV_SIZES_DIFFER;
        return EVAL_OK;
    }
    if (e1->size > budget) {
        r->verdict = EQV_UNKNOWN;
        return EVAL_OK;
    }
    for (uint64_t p = 0; p < e1->size; p++) {
        EvalStatus st = eval_cell(ev, e1, p, &r->c1);
        if (st == EVAL_OK)
            st = eval_cell(ev, e2, p, &r->c2);
        if (st != EVAL_OK)
            return st;
        if (!cell_equal(&r->c1, &r->c2, ev->naxes)) {
            r->verdict = EQV_CELLS_DIFFER;
            r->pos = p;
            return EVAL_OK;
        }
    }
    r->verdict = EQV_EQUIVALENT;
    return EVAL_OK;
}
