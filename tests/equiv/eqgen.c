/* eqgen.c — equivalent rewrites and mutations of generated mappings (see eqgen.h). */
#include "eqgen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Buf {
    char *s;
    size_t n, cap;
} Buf;

static void put(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->n + (size_t)w + 1 > b->cap) {
        b->cap = (b->n + (size_t)w + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s)
            abort();
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    b->n += (size_t)w;
}

#define U(x) ((unsigned long long)(x))

static bool chance(MapGen *g, unsigned pct) { return mapgen_below(g, 100) < pct; }

static const char *pad_op(MapGen *g, PadKind k)
{
    switch (k) {
    case PAD_TOP: return g && chance(g, 50) ? "#{*}" : "#";
    case PAD_ZERO: return "#{0}";
    case PAD_BOTTOM: return "#{!}";
    }
    return "#";
}

static bool is_chain(const Map *e) { return e->kind == MAP_STRIDE || e->kind == MAP_MOD; }

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

/* A random divisor d of n with 1 < d < n, or 0. */
static uint64_t proper_divisor(MapGen *g, uint64_t n)
{
    uint64_t ds[64];
    int k = 0;
    for (uint64_t d = 2; d * d <= n && k < 62; d++)
        if (n % d == 0) {
            ds[k++] = d;
            if (d != n / d)
                ds[k++] = n / d;
        }
    return k ? ds[mapgen_below(g, (uint64_t)k)] : 0;
}

/* ---- plain printing (and the node a mutation replaces) ---- */

/* A mutation in progress: the pre-order number of the node to change, counted down while printing. */
typedef struct Mutation {
    MapGen *g;
    int k;
} Mutation;

static void mutate_node(Buf *b, MapGen *g, const Prog *p, const Map *e);

/* Prints e with every sub-mapping bracketed; with mut, node number mut->k (pre-order) is printed
 * mutated instead (mut NULL: plain printing, no random draws). */
static void print_map(Buf *b, const Prog *p, const Map *e, Mutation *mut)
{
    if (mut && mut->k-- == 0) {
        mutate_node(b, mut->g, p, e);
        return;
    }
    switch (e->kind) {
    case MAP_SYM:
        put(b, "%s", p->axes[e->axis].name);
        return;
    case MAP_BCAST:
        put(b, "%llu", U(e->n));
        return;
    case MAP_PAIR:
        put(b, "[");
        print_map(b, p, e->l, mut);
        put(b, ", ");
        print_map(b, p, e->r, mut);
        put(b, "]");
        return;
    default:
        put(b, "[");
        print_map(b, p, e->l, mut);
        put(b, "] %s %llu",
            e->kind == MAP_STRIDE ? "/" : e->kind == MAP_MOD ? "%" : e->kind == MAP_RESIZE ? "=" : pad_op(NULL, e->pad),
            U(e->n));
        return;
    }
}

static void plain(Buf *b, const Prog *p, const Map *e) { print_map(b, p, e, NULL); }

char *eqgen_print(const Prog *p, const Map *e)
{
    Buf b = {0};
    put(&b, "m![");
    plain(&b, p, e);
    put(&b, "]");
    return b.s;
}

/* ---- equivalent rewrites ---- */

typedef struct Ctx {
    MapGen *g;
    const Prog *p;
    int uses[64];       /* terms per axis in the whole mapping (composite bases included) */
} Ctx;

static void count_uses(const Map *e, int *uses)
{
    if (!e)
        return;
    if (e->kind == MAP_SYM && e->axis < 64)
        uses[e->axis]++;
    count_uses(e->l, uses);
    count_uses(e->r, uses);
}

static void rw(Buf *b, Ctx *c, const Map *e, bool in_base, bool root);

/* The digit (x, s, m) in a random equivalent spelling; x is a base (symbol or composite). */
static void rw_digit(Buf *b, Ctx *c, const Map *x, uint64_t s, uint64_t m)
{
    put(b, "[");
    if (x->kind == MAP_SYM)
        put(b, "%s", c->p->axes[x->axis].name);
    else
        rw(b, c, x, true, false);
    put(b, "]");
    uint64_t size = x->size;
    switch (mapgen_below(c->g, 3)) {
    case 0: /* X % (s·m) / s */
        if (s * m < size || chance(c->g, 50))
            put(b, " %% %llu", U(s * m));
        put(b, " / %llu", U(s));
        break;
    case 1: /* X / s / 1 % m, with the stride split */
        if (s > 1) {
            uint64_t d = proper_divisor(c->g, s);
            if (d)
                put(b, " / %llu / %llu", U(d), U(s / d));
            else
                put(b, " / %llu", U(s));
        } else {
            put(b, " / 1");
        }
        if (s * m < size)
            put(b, " %% %llu", U(m));
        break;
    default: /* X / s % m, with % split into % a % m */
        if (s > 1 || chance(c->g, 50))
            put(b, " / %llu", U(s));
        if (s * m < size || !(s > 1))
            put(b, " %% %llu", U(m));
        if (chance(c->g, 30))
            put(b, " %% %llu", U(m));
        break;
    }
}

static void rw_body(Buf *b, Ctx *c, const Map *e, bool in_base, bool root)
{
    (void)root;
    MapGen *g = c->g;
    const Prog *p = c->p;
    switch (e->kind) {
    case MAP_SYM:
        if (!in_base && chance(g, 15))
            put(b, "[%s] %s", p->axes[e->axis].name, chance(g, 50) ? "/ 1" : "%");
        else
            put(b, "%s", p->axes[e->axis].name);
        if (!in_base && b->s[b->n - 1] == '%')
            put(b, " %llu", U(e->size));
        return;
    case MAP_BCAST:
        if (e->n == 1 && !in_base && p->naxes && chance(g, 30)) {
            put(b, "[%s %% 1]", p->axes[mapgen_below(g, (uint64_t)p->naxes)].name);
            return;
        }
        if (e->n > 3 && chance(g, 30)) {
            uint64_t d = proper_divisor(g, e->n);
            if (d) {
                put(b, "[%llu, %llu]", U(d), U(e->n / d));
                return;
            }
        }
        put(b, "%llu", U(e->n));
        return;
    case MAP_PAIR:
        if (e->r->kind == MAP_PAIR && chance(g, 30)) {
            put(b, "[[");
            rw(b, c, e->l, false, false);
            put(b, ", ");
            rw(b, c, e->r->l, false, false);
            put(b, "], ");
            rw(b, c, e->r->r, false, false);
            put(b, "]");
            return;
        }
        put(b, "[");
        rw(b, c, e->l, false, false);
        put(b, ", ");
        rw(b, c, e->r, false, false);
        put(b, "]");
        return;
    case MAP_STRIDE:
    case MAP_MOD: {
        uint64_t s;
        const Map *x = digit_of(e, &s);
        uint64_t m = e->size;
        /* split a digit of an axis used once (no other term shares its groups) */
        if (!in_base && x->kind == MAP_SYM && c->uses[x->axis] == 1 && chance(g, 30)) {
            uint64_t d = proper_divisor(g, m);
            if (d) {
                put(b, "[");
                rw_digit(b, c, x, s * d, m / d);
                put(b, ", ");
                rw_digit(b, c, x, s, d);
                put(b, "]");
                return;
            }
        }
        rw_digit(b, c, x, s, m);
        return;
    }
    case MAP_RESIZE:
        put(b, "[");
        rw(b, c, e->l, false, false);
        put(b, "] = %llu", U(e->n));
        return;
    case MAP_PAD:
        put(b, "[");
        rw(b, c, e->l, false, false);
        put(b, "] %s %llu", pad_op(g, e->pad), U(e->n));
        return;
    }
}

/* Emits a mapping equivalent to e in its context. in_base: e is the base of a / % chain (it must
 * stay a composite of the same kind class); root: e is the whole mapping. */
static void rw(Buf *b, Ctx *c, const Map *e, bool in_base, bool root)
{
    MapGen *g = c->g;
    if (!in_base && chance(g, root ? 40 : 12)) {
        int k = (int)mapgen_below(g, root ? 7 : 4);
        switch (k) {
        case 0: /* [E, 1] / [1, E] */
            put(b, chance(g, 50) ? "[1, " : "[[");
            if (b->s[b->n - 1] == ' ') {
                rw(b, c, e, false, root);
                put(b, "]");
            } else {
                rw(b, c, e, false, root);
                put(b, "], 1]");
            }
            return;
        case 1: /* E = |E| */
            put(b, "[");
            rw(b, c, e, false, root);
            put(b, "] = %llu", U(e->size));
            return;
        case 2: /* E # |E| */
            put(b, "[");
            rw(b, c, e, false, root);
            put(b, "] %s %llu", pad_op(g, (PadKind)(1 + mapgen_below(g, 3))), U(e->size));
            return;
        case 3: /* chains on symbols: E / 1 keeps the term */
            if (e->kind == MAP_SYM || is_chain(e)) { /* the operand stays a term (no wrapper, no split) */
                put(b, "[");
                rw_body(b, c, e, true, false);
                put(b, "] / 1");
                return;
            }
            break;
        case 4: { /* root: E ≡ [E / n, E % n] */
            uint64_t n = proper_divisor(g, e->size);
            if (!n)
                break;
            put(b, "[[");
            rw(b, c, e, true, false);
            put(b, "] / %llu, [", U(n));
            rw(b, c, e, true, false);
            put(b, "] %% %llu]", U(n));
            return;
        }
        case 5: { /* root: [E, R] / |R| ≡ E */
            uint64_t r = 1 + mapgen_below(g, 4);
            put(b, "[[");
            rw(b, c, e, false, false);
            put(b, "], %llu] / %llu", U(r), U(r));
            return;
        }
        case 6: { /* root: [L, E] % |E| ≡ E, L a symbol */
            const Prog *p = c->p;
            if (!p->naxes)
                break;
            put(b, "[%s, [", p->axes[mapgen_below(g, (uint64_t)p->naxes)].name);
            rw(b, c, e, false, false);
            put(b, "]] %% %llu", U(e->size));
            return;
        }
        }
    }
    rw_body(b, c, e, in_base, root);
}

char *eqgen_equivalent(MapGen *g, const Prog *p, const Map *e)
{
    Ctx c = {.g = g, .p = p};
    count_uses(e, c.uses);
    Buf b = {0};
    put(&b, "m![");
    rw(&b, &c, e, false, true);
    put(&b, "]");
    return b.s;
}

/* ---- mutations ---- */

static int count_nodes(const Map *e) { return e ? 1 + count_nodes(e->l) + count_nodes(e->r) : 0; }

/* One random change of node e (its operands printed plain). */
static void mutate_node(Buf *b, MapGen *g, const Prog *p, const Map *e)
{
    switch (e->kind) {
    case MAP_SYM: {
        int a = (int)mapgen_below(g, (uint64_t)p->naxes);
        for (int i = 0; i < p->naxes; i++) /* prefer another axis of the same size */
            if (i != e->axis && p->axes[i].size == e->size)
                a = i;
        put(b, "%s", p->axes[a].name);
        return;
    }
    case MAP_BCAST:
        for (int a = 0; a < p->naxes; a++) /* a digit of an axis instead of the broadcast */
            if (e->n > 1 && p->axes[a].size % e->n == 0) {
                put(b, "[%s %% %llu]", p->axes[a].name, U(e->n));
                return;
            }
        put(b, "%llu", U(e->n));
        return;
    case MAP_PAIR:
        put(b, "[");
        plain(b, p, e->r);
        put(b, ", ");
        plain(b, p, e->l);
        put(b, "]");
        return;
    case MAP_STRIDE:
    case MAP_MOD: {
        uint64_t s;
        const Map *x = digit_of(e, &s);
        uint64_t m = e->size, size = x->size;
        put(b, "[");
        plain(b, p, x);
        put(b, "]");
        if (chance(g, 50)) { /* another stride with the same count */
            uint64_t q = size / m, s2 = 1;
            uint64_t d = proper_divisor(g, q);
            s2 = d ? d : (s == 1 ? q : 1);
            put(b, " / %llu %% %llu", U(s2), U(m));
        } else { /* the digit as a resize: the same values, another overshoot group */
            put(b, " / %llu = %llu", U(s), U(m));
        }
        return;
    }
    case MAP_RESIZE:
        put(b, "[");
        plain(b, p, e->l);
        if (e->n > 1)
            put(b, "] = %llu %s %llu", U(e->n - 1), pad_op(g, (PadKind)(1 + mapgen_below(g, 3))), U(e->n));
        else
            put(b, "] = %llu", U(e->n));
        return;
    case MAP_PAD: {
        PadKind k2 = (PadKind)(1 + mapgen_below(g, 3));
        if (k2 == e->pad)
            k2 = (PadKind)(1 + (k2 % 3));
        put(b, "[");
        plain(b, p, e->l);
        if (chance(g, 70) || e->l->size == 1)
            put(b, "] %s %llu", pad_op(g, k2), U(e->n));
        else
            put(b, "] = %llu %s %llu", U(e->l->size - (e->l->size > 1)), pad_op(g, e->pad), U(e->n));
        return;
    }
    }
}

char *eqgen_mutant(MapGen *g, const Prog *p, const Map *e)
{
    int n = count_nodes(e);
    Mutation mut = {g, (int)mapgen_below(g, (uint64_t)n)};
    Buf b = {0};
    put(&b, "m![");
    print_map(&b, p, e, &mut);
    put(&b, "]");
    return b.s;
}
