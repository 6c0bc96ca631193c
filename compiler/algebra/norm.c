/* norm.c — the normal form of a mapping: sound rewrites of docs/language.md §3–4 applied to a fixpoint. */
#include "algebra.h"

#include <stdlib.h>
#include <string.h>

/*
 * Every rewrite below keeps the items of docs/language.md §3 (or changes them only in ways finalization
 * cannot see), so it holds at any place in a larger mapping, not only at the root:
 *  - pairs are right-nested lists; broadcasts 1 are dropped, adjacent broadcasts multiply
 *    (neither produces items);
 *  - a / % chain is one digit (X, s, m) and is printed as `X / s % m` with the identity
 *    operators left out (`X / 1` is kept only for a composite X whose digit is all of X, since
 *    a bare composite is not a term); a digit of a symbol with count 1 is the broadcast 1
 *    (it adds 0 and can never overshoot); an axis of size 1 likewise;
 *  - `E = |E|` and `E # |E|` disappear; `E = n = m` is `E = m`; `(L # k) = n` is `L = n` when
 *    n <= |L| and `L # n` otherwise; `[L, R] = n` is `[L = n/|R|], R` when |R| divides n; a
 *    resize of a broadcast is a broadcast; `L #k a #k b` (the same kind) is `L #k b`;
 *  - a composite base is replaced by its own normal form (an equivalent base is the same base);
 *    when that normal form is a symbol or a digit it is wrapped as `N = |N|` so the
 *    digit keeps a composite base;
 *  - adjacent digits `X / (s·m2) % m1, X / s % m2` of one base merge into `X / s % (m1·m2)`,
 *    but only when no other term of the scope (the mapping outside composite bases, or one
 *    composite base's inside) shares any of the three (stride, count) groups with that base —
 *    so overshoots are unchanged (a composite is conservatively counted as the same base as
 *    every base of its size, symbols included: equivalent bases are one base, docs/language.md §3);
 *  - digits that contribute nothing become broadcasts: count 1 on a composite base without
 *    padding, count 1 right beside another term of its base, a lone digit of a broadcast base
 *    (no other base of its size in the scope), and `E = 1` for E without padding (position 0:
 *    terms of value 0 only);
 *  - at the root only (standalone identities, not substitutions): `X / 1` is X, and a lone
 *    digit of a pair list X that cuts it exactly ([L, M, R] / |R| % |M|, broadcasts split into
 *    prime factors) is that slice M ([L, R] / |R| ≡ L, [L, R] % |R| ≡ R).
 *
 * Rounds repeat until one changes nothing (at most NORM_MAX_ROUNDS; the generated corpora
 * reach the fixpoint in a few), which makes norm idempotent (tested on every corpus mapping);
 * print.c brackets exactly what the comma would regroup, so the printed form parses back to a
 * structurally equal tree (tested likewise).
 *
 * Canonical fragment (norm_in_fragment): symbols, broadcasts, pairs, / and % chains on
 * symbols, identity resizes and paddings, where the digits of each axis cover pairwise
 * disjoint stride ranges [s, s·m). There a mapping is a list of non-overlapping digits and
 * broadcasts whose coordinates are the mixed-radix value of the position; maximal merging of
 * adjacent contiguous digits and broadcasts leaves one list per function, so equivalent
 * mappings of the fragment get structurally equal normal forms.
 */

#define NORM_MAX_ROUNDS 16

static Map *node(Arena *a, MapKind kind, const Map *l, const Map *r, uint64_t n, uint64_t size)
{
    Map *m = arena_alloc(a, sizeof *m);
    m->kind = kind;
    m->l = l;
    m->r = r;
    m->n = n;
    m->size = size;
    uint32_t d = 1;
    if (l && l->depth + 1 > d)
        d = l->depth + 1;
    if (r && r->depth + 1 > d)
        d = r->depth + 1;
    m->depth = d;
    if (l)
        m->loc = l->loc;
    return m;
}

static const Map *bcast(Arena *a, uint64_t n) { return node(a, MAP_BCAST, NULL, NULL, n, n); }

static bool is_chain(const Map *e) { return e->kind == MAP_STRIDE || e->kind == MAP_MOD; }

/* A composite base: any mapping whose top operator is not / or % and that is not a symbol. */
static bool is_composite(const Map *e) { return e->kind != MAP_SYM && !is_chain(e); }

bool norm_equal(const Map *a, const Map *b)
{
    if (a == b)
        return true;
    if (!a || !b || a->kind != b->kind || a->size != b->size || a->n != b->n)
        return false;
    switch (a->kind) {
    case MAP_SYM:
        return a->axis == b->axis;
    case MAP_BCAST:
        return true;
    case MAP_PAD:
        if (a->pad != b->pad)
            return false;
        return norm_equal(a->l, b->l);
    case MAP_PAIR:
        return norm_equal(a->l, b->l) && norm_equal(a->r, b->r);
    default:
        return norm_equal(a->l, b->l);
    }
}

/* The digit a chain denotes: base, stride, count (count = |chain|). */
static const Map *digit_of(const Map *e, uint64_t *stride)
{
    uint64_t s = 1;
    while (is_chain(e)) {
        if (e->kind == MAP_STRIDE)
            s *= e->n;
        e = e->l;
    }
    *stride = s;
    return e;
}

/* The canonical spelling of the digit (x, s, m); x is already normalized. */
static const Map *make_digit(Arena *a, const Map *x, uint64_t s, uint64_t m)
{
    if (x->kind == MAP_SYM && m == 1)
        return bcast(a, 1);
    if (x->kind == MAP_SYM && s == 1 && m == x->size)
        return x;
    const Map *d = x;
    if (s > 1 || (x->kind != MAP_SYM && s * m == x->size))
        d = node(a, MAP_STRIDE, d, NULL, s, x->size / s);
    if (s * m < x->size)
        d = node(a, MAP_MOD, d, NULL, m, m);
    return d;
}

/* ---- pair lists ---- */

typedef struct List {
    const Map **v;
    int n, cap;
} List;

static void list_push(List *l, const Map *m)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->v = mem_realloc(l->v, (size_t)l->cap * sizeof *l->v);
    }
    l->v[l->n++] = m;
}

/* Appends the elements of a right-nested (or any) pair tree, flattening. */
static void flatten(const Map *e, List *l)
{
    if (e->kind == MAP_PAIR) {
        flatten(e->l, l);
        flatten(e->r, l);
    } else {
        list_push(l, e);
    }
}

/* Rebuilds a list as a right-nested pair, merging broadcasts and dropping 1s. */
static const Map *rebuild(Arena *a, List *l)
{
    List out = {0};
    for (int i = 0; i < l->n; i++) {
        const Map *m = l->v[i];
        if (m->kind == MAP_BCAST && m->n == 1)
            continue;
        if (m->kind == MAP_BCAST && out.n && out.v[out.n - 1]->kind == MAP_BCAST) {
            uint64_t k = out.v[out.n - 1]->n * m->n; /* cannot overflow: a sub-product of |E| */
            out.v[out.n - 1] = bcast(a, k);
            continue;
        }
        list_push(&out, m);
    }
    const Map *acc;
    if (out.n == 0) {
        acc = bcast(a, 1);
    } else {
        acc = out.v[out.n - 1];
        for (int i = out.n - 2; i >= 0; i--)
            acc = node(a, MAP_PAIR, out.v[i], acc, 0, out.v[i]->size * acc->size);
    }
    free(out.v);
    return acc;
}

/* ---- local rewrites, bottom-up ---- */

static bool pad_free(const Map *e);

static const Map *norm_fix(Arena *a, const Map *e, bool root);

/* The normal form of a composite base, kept composite. */
static const Map *norm_base(Arena *a, const Map *x)
{
    const Map *n = norm_fix(a, x, false);
    if (is_composite(n))
        return n;
    return node(a, MAP_RESIZE, n, NULL, n->size, n->size);
}

static const Map *simplify(Arena *a, const Map *e)
{
    switch (e->kind) {
    case MAP_SYM:
        return e->size == 1 ? bcast(a, 1) : e;
    case MAP_BCAST:
        return e;
    case MAP_STRIDE:
    case MAP_MOD: {
        uint64_t s;
        const Map *x = digit_of(e, &s);
        if (x->kind != MAP_SYM)
            x = norm_base(a, x);
        return make_digit(a, x, s, e->size);
    }
    case MAP_PAIR: {
        List l = {0};
        flatten(simplify(a, e->l), &l);
        flatten(simplify(a, e->r), &l);
        const Map *r = rebuild(a, &l);
        free(l.v);
        return r;
    }
    case MAP_RESIZE: {
        const Map *l = simplify(a, e->l);
        uint64_t n = e->n;
        if (n == l->size)
            return l;
        if (n == 1 && pad_free(l))
            return bcast(a, 1); /* position 0: terms of value 0 only, on bases that never pad */
        switch (l->kind) {
        case MAP_BCAST:
            return bcast(a, n);
        case MAP_RESIZE:
            return simplify(a, node(a, MAP_RESIZE, l->l, NULL, n, n));
        case MAP_PAD:
            if (n <= l->l->size)
                return simplify(a, node(a, MAP_RESIZE, l->l, NULL, n, n));
            {
                Map *p = node(a, MAP_PAD, l->l, NULL, n, n);
                p->pad = l->pad;
                return p;
            }
        case MAP_PAIR:
            if (n % l->r->size == 0) {
                uint64_t k = n / l->r->size;
                const Map *ll = simplify(a, node(a, MAP_RESIZE, l->l, NULL, k, k));
                List li = {0};
                flatten(ll, &li);
                flatten(l->r, &li);
                const Map *r = rebuild(a, &li);
                free(li.v);
                return r;
            }
            break;
        default:
            break;
        }
        return node(a, MAP_RESIZE, l, NULL, n, n);
    }
    case MAP_PAD: {
        const Map *l = simplify(a, e->l);
        if (e->n == l->size)
            return l;
        if (l->kind == MAP_PAD && l->pad == e->pad)
            l = l->l;
        Map *p = node(a, MAP_PAD, l, NULL, e->n, e->n);
        p->pad = e->pad;
        return p;
    }
    }
    return e;
}

/* ---- merging adjacent digits within one scope ---- */

typedef struct Group {
    int axis;           /* >= 0: a symbol base; -1: composite bases of size `bsize` (all of them:
                         * whether two composites are one base is not decided here) */
    uint64_t bsize, stride, count;
    int n;
} Group;

typedef struct Groups {
    Group *v;
    int n, cap;
} Groups;

static int *group_count(Groups *g, const Map *base, uint64_t stride, uint64_t count, bool create)
{
    int axis = base->kind == MAP_SYM ? base->axis : -1;
    for (int i = 0; i < g->n; i++)
        if (g->v[i].axis == axis && g->v[i].bsize == base->size && g->v[i].stride == stride && g->v[i].count == count)
            return &g->v[i].n;
    if (!create)
        return NULL;
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 16;
        g->v = mem_realloc(g->v, (size_t)g->cap * sizeof *g->v);
    }
    g->v[g->n] = (Group){axis, base->size, stride, count, 0};
    return &g->v[g->n++].n;
}

/* Counts the terms of a scope by group (not descending into composite bases). */
static void count_terms(const Map *e, Groups *g)
{
    switch (e->kind) {
    case MAP_SYM:
        (*group_count(g, e, 1, e->size, true))++;
        return;
    case MAP_STRIDE:
    case MAP_MOD: {
        uint64_t s;
        const Map *x = digit_of(e, &s);
        (*group_count(g, x, s, e->size, true))++;
        return;
    }
    case MAP_PAIR:
        count_terms(e->l, g);
        count_terms(e->r, g);
        return;
    case MAP_RESIZE:
    case MAP_PAD:
        count_terms(e->l, g);
        return;
    case MAP_BCAST:
        return;
    }
}

/* Terms of the scope that may share the group (base, s, m): the same axis for a symbol, and
 * every base of the same size when either side is a composite (a composite equivalent to a
 * symbol or to another composite is the same base, docs/language.md §3). */
static int groups_get(Groups *g, const Map *base, uint64_t s, uint64_t m)
{
    int axis = base->kind == MAP_SYM ? base->axis : -1, n = 0;
    for (int i = 0; i < g->n; i++) {
        const Group *x = &g->v[i];
        if (x->stride != s || x->count != m || x->bsize != base->size)
            continue;
        if (axis < 0 || x->axis < 0 || x->axis == axis)
            n += x->n;
    }
    return n;
}

/* A term's digit (base, stride, count), if e is a term. */
static bool as_digit(const Map *e, const Map **base, uint64_t *s, uint64_t *m)
{
    if (e->kind == MAP_SYM) {
        *base = e;
        *s = 1;
        *m = e->size;
        return true;
    }
    if (!is_chain(e))
        return false;
    *base = digit_of(e, s);
    *m = e->size;
    return true;
}

/* No padding anywhere in e (its bases included): its cells are never padding. */
static bool pad_free(const Map *e)
{
    if (!e)
        return true;
    return e->kind != MAP_PAD && pad_free(e->l) && pad_free(e->r);
}

/* Terms of the scope whose base has size n (any axis, any composite). */
static int terms_of_size(const Groups *g, uint64_t n)
{
    int k = 0;
    for (int i = 0; i < g->n; i++)
        if (g->v[i].bsize == n)
            k += g->v[i].n;
    return k;
}

/* A digit of a composite base that contributes nothing: count 1 on a base that can never be
 * padding (its value is 0, it adds 0, and the place of a base matters only for padding), or a
 * lone digit of a broadcast base (it decodes to {} and has no other term to overshoot with).
 * Returns the broadcast replacing it, or NULL. */
static const Map *inert_digit(Arena *a, const Map *e, Groups *g)
{
    const Map *x;
    uint64_t s, m;
    if (!as_digit(e, &x, &s, &m) || x->kind == MAP_SYM)
        return NULL;
    if (m == 1 && pad_free(x)) {
        (*group_count(g, x, s, m, false))--;
        return bcast(a, 1);
    }
    if (x->kind == MAP_BCAST && terms_of_size(g, x->size) == 1) {
        (*group_count(g, x, s, m, false))--;
        return bcast(a, m);
    }
    return NULL;
}

static bool same_base_syntax(const Map *x, const Map *y)
{
    if (x->kind == MAP_SYM || y->kind == MAP_SYM)
        return x->kind == MAP_SYM && y->kind == MAP_SYM && x->axis == y->axis;
    return norm_equal(x, y);
}

/* A count-1 digit of a composite base right beside another term of the same base in one
 * list: it adds 0, it is present exactly when its neighbour is, and no item lies between
 * them, so the base's place (its first present term) keeps its rank. Returns 1 or NULL. */
static const Map *count1_beside(Arena *a, const Map *e, const Map *next, Groups *g)
{
    const Map *x, *y;
    uint64_t s, m, s2, m2;
    if (!as_digit(e, &x, &s, &m) || m != 1 || x->kind == MAP_SYM || !as_digit(next, &y, &s2, &m2) ||
        !same_base_syntax(x, y))
        return NULL;
    (*group_count(g, x, s, m, false))--;
    return bcast(a, 1);
}

/* Merges adjacent digits in the lists of one scope (see the file comment). */
static const Map *merge(Arena *a, const Map *e, Groups *g)
{
    switch (e->kind) {
    case MAP_PAIR: {
        List l = {0};
        flatten(e, &l);
        for (int i = 0; i < l.n; i++) {
            const Map *b = inert_digit(a, l.v[i], g);
            if (!b && i + 1 < l.n)
                b = count1_beside(a, l.v[i], l.v[i + 1], g);
            if (!b && i > 0)
                b = count1_beside(a, l.v[i], l.v[i - 1], g);
            if (b)
                l.v[i] = b;
            else if (!is_chain(l.v[i]) && l.v[i]->kind != MAP_SYM)
                l.v[i] = merge(a, l.v[i], g);
        }
        for (int i = 0; i + 1 < l.n;) {
            const Map *x1, *x2;
            uint64_t s1, m1, s2, m2;
            if (as_digit(l.v[i], &x1, &s1, &m1) && as_digit(l.v[i + 1], &x2, &s2, &m2) &&
                same_base_syntax(x1, x2) && s1 == s2 * m2 && groups_get(g, x1, s1, m1) == 1 &&
                groups_get(g, x1, s2, m2) == 1 && groups_get(g, x1, s2, m1 * m2) == 0) {
                (*group_count(g, x1, s1, m1, false))--;
                (*group_count(g, x1, s2, m2, false))--;
                (*group_count(g, x1, s2, m1 * m2, true))++;
                l.v[i] = make_digit(a, x1, s2, m1 * m2);
                memmove(&l.v[i + 1], &l.v[i + 2], (size_t)(l.n - i - 2) * sizeof *l.v);
                l.n--;
                if (i > 0)
                    i--;
                continue;
            }
            i++;
        }
        const Map *r = rebuild(a, &l);
        free(l.v);
        return r;
    }
    case MAP_STRIDE:
    case MAP_MOD: {
        const Map *b = inert_digit(a, e, g);
        return b ? b : e;
    }
    case MAP_RESIZE:
    case MAP_PAD: {
        const Map *l = merge(a, e->l, g);
        if (l == e->l)
            return e;
        Map *m = node(a, e->kind, l, NULL, e->n, e->size);
        m->pad = e->pad;
        return m;
    }
    default:
        return e;
    }
}

/* At the root only ([L, R] / |R| ≡ L and [L, R] % |R| ≡ R as whole mappings, and so
 * [L, M, R] / |R| % |M| ≡ M): a lone digit (X, s, m) of a pair list X whose elements split
 * exactly into a minor part of size s and a middle part of size m is that middle part.
 * NULL when r is not such a digit. */
static const Map *root_slice(Arena *a, const Map *r)
{
    uint64_t s;
    const Map *x = digit_of(r, &s);
    if (!is_chain(r) || x->kind != MAP_PAIR)
        return NULL;
    uint64_t m = r->size;
    List l0 = {0}, l = {0};
    flatten(x, &l0);
    for (int k = 0; k < l0.n; k++) { /* broadcasts commute and split freely: use prime factors */
        if (l0.v[k]->kind != MAP_BCAST) {
            list_push(&l, l0.v[k]);
            continue;
        }
        uint64_t n = l0.v[k]->n;
        for (uint64_t f = 2; f * f <= n; f++)
            while (n % f == 0) {
                list_push(&l, bcast(a, f));
                n /= f;
            }
        if (n > 1)
            list_push(&l, bcast(a, n));
    }
    free(l0.v);
    int i = l.n;
    uint64_t suffix = 1;
    while (i > 0 && suffix < s)
        suffix *= l.v[--i]->size;
    int j = i;
    uint64_t mid = 1;
    while (j > 0 && mid < m)
        mid *= l.v[--j]->size;
    const Map *res = NULL;
    if (suffix == s && mid == m) {
        List part = {0};
        for (int k = j; k < i; k++)
            list_push(&part, l.v[k]);
        res = rebuild(a, &part);
        free(part.v);
    }
    free(l.v);
    return res;
}

/* One round: local rewrites, then merging in the top scope (composite bases were normalized,
 * merges included, by norm_base). */
static const Map *round_once(Arena *a, const Map *e, bool root)
{
    const Map *r = simplify(a, e);
    Groups g = {0};
    count_terms(r, &g);
    r = merge(a, r, &g);
    free(g.v);
    if (root) {
        for (;;) {
            /* E ≡ E / 1 as whole mappings: a lone composite digit covering its base is the base */
            if (r->kind == MAP_STRIDE && r->n == 1 && is_composite(r->l)) {
                r = simplify(a, r->l);
                continue;
            }
            const Map *slice = root_slice(a, r);
            if (!slice)
                break;
            r = simplify(a, slice);
        }
    }
    return r;
}

/* Applies rounds until nothing changes (bounded; each round is sound on its own). */
static const Map *norm_fix(Arena *a, const Map *e, bool root)
{
    const Map *cur = e;
    for (int i = 0; i < NORM_MAX_ROUNDS; i++) {
        const Map *next = round_once(a, cur, root);
        if (norm_equal(next, cur))
            return next;
        cur = next;
    }
    return cur;
}

const Map *norm_map(Arena *a, const Map *e) { return norm_fix(a, e, true); }

/* ---- the canonical fragment ---- */

typedef struct Span {
    int axis;
    uint64_t lo, hi;    /* stride range [s, s·m) */
} Span;

static bool frag_walk(const Map *e, Span *sp, int *n, int cap)
{
    switch (e->kind) {
    case MAP_BCAST:
        return true;
    case MAP_PAIR:
        return frag_walk(e->l, sp, n, cap) && frag_walk(e->r, sp, n, cap);
    case MAP_RESIZE:
    case MAP_PAD:
        return e->n == e->l->size && frag_walk(e->l, sp, n, cap);
    case MAP_SYM:
    case MAP_STRIDE:
    case MAP_MOD: {
        uint64_t s;
        const Map *x = digit_of(e, &s);
        if (x->kind != MAP_SYM || *n >= cap)
            return false;
        Span me = {x->axis, s, s * e->size};
        for (int i = 0; i < *n; i++)
            if (sp[i].axis == me.axis && sp[i].lo < me.hi && me.lo < sp[i].hi)
                return false;
        sp[(*n)++] = me;
        return true;
    }
    }
    return false;
}

bool norm_in_fragment(const Map *e)
{
    Span sp[256];
    int n = 0;
    return frag_walk(e, sp, &n, 256);
}
