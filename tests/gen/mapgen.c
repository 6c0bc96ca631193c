/* mapgen.c — random well-formed mapping programs from a seed (see mapgen.h for the contract). */
#include "mapgen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

/* ---- random draws ---- */

uint64_t mapgen_below(MapGen *g, uint64_t n) { return n <= 1 ? 0 : rng_below(&g->rng, n); }

/* True with probability pct/100. */
static bool chance(MapGen *g, unsigned pct)
{
    return mapgen_below(g, 100) < pct;
}

/* A value in [1, cap], log-uniform so that small values are as common as large ones. */
static uint64_t log_uniform(MapGen *g, uint64_t cap)
{
    if (cap <= 1)
        return 1;
    int bits = 64 - __builtin_clzll(cap);
    uint64_t top = UINT64_C(1) << mapgen_below(g, (uint64_t)bits + 1);
    if (top > cap)
        top = cap;
    return 1 + mapgen_below(g, top);
}

/* A random divisor d of s with lo <= d <= hi, or 0 if there is none. */
static uint64_t divisor_in(MapGen *g, uint64_t s, uint64_t lo, uint64_t hi)
{
    uint64_t ds[512];
    int nd = 0;
    for (uint64_t i = 1; i * i <= s && nd < 510; i++) {
        if (s % i)
            continue;
        if (i >= lo && i <= hi)
            ds[nd++] = i;
        if (i != s / i && s / i >= lo && s / i <= hi)
            ds[nd++] = s / i;
    }
    return nd ? ds[mapgen_below(g, (uint64_t)nd)] : 0;
}

/* Like divisor_in, but usually avoids the trivial divisors 1 and s when others fit. */
static uint64_t divisor_pref(MapGen *g, uint64_t s, uint64_t lo, uint64_t hi)
{
    if (s > 3 && chance(g, 85)) {
        uint64_t d = divisor_in(g, s, lo > 2 ? lo : 2, hi < s - 1 ? hi : s - 1);
        if (d)
            return d;
    }
    return divisor_in(g, s, lo, hi);
}

/* ---- text fragments ---- */

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    char *s = malloc((size_t)n + 1);
    if (!s)
        abort();
    va_start(ap, f);
    vsnprintf(s, (size_t)n + 1, f, ap);
    va_end(ap);
    return s;
}

typedef enum { FK_SYM, FK_BCAST, FK_ESCAPE, FK_LIST, FK_GROUP, FK_DIGIT, FK_RESIZE, FK_PAD } FragKind;

/* A generated piece of source: its text (malloc'ed), size and top-level form. A FK_LIST
 * must be bracketed before a postfix operator or on the left of a comma. */
typedef struct Frag {
    char *s;
    uint64_t size;
    FragKind kind;
    FragKind inner;     /* FK_GROUP: the bracketed form */
} Frag;

static void see(MapGen *g, MapGenFeature f)
{
    g->seen[f]++;
}

/* The form that decides how a / or % base counts. */
static FragKind base_form(const Frag *f)
{
    return f->kind == FK_GROUP ? f->inner : f->kind;
}

static Frag group(MapGen *g, Frag f)
{
    bool paren = chance(g, 35);
    bool comma = chance(g, 15);
    see(g, paren ? MAPGEN_GROUP_PAREN : MAPGEN_GROUP_BRACKET);
    if (comma)
        see(g, MAPGEN_TRAILING_COMMA);
    char *s = fmt("%c%s%s%c", paren ? '(' : '[', f.s, comma ? "," : "", paren ? ')' : ']');
    free(f.s);
    return (Frag){s, f.size, FK_GROUP, base_form(&f)};
}

/* An operator argument n: sometimes a {K} escape of a constant with that value. */
static char *arg_text(MapGen *g, uint64_t n)
{
    for (int i = 0; i < g->nconsts; i++)
        if (g->const_value[i] == n && chance(g, 50)) {
            see(g, MAPGEN_CONST_ESCAPE);
            return fmt("{K%d}", i);
        }
    return fmt("%llu", U(n));
}

/* Appends " OP n" to f (f must not be a bare list). */
static Frag postfix(MapGen *g, Frag f, const char *op, uint64_t n, uint64_t size, FragKind kind)
{
    char *a = arg_text(g, n);
    char *s = fmt("%s %s %s", f.s, op, a);
    free(a);
    free(f.s);
    return (Frag){s, size, kind, kind};
}

/* ---- the recursive generator ---- */

static const char *const axis_names[MAPGEN_MAX_AXES] = {"A", "B", "C", "D", "F", "G", "H", "X"};

static Frag gen_expr(MapGen *g, uint64_t cap, int depth, int ntypes);

static Frag gen_bcast(MapGen *g, uint64_t cap)
{
    uint64_t n = chance(g, 35) ? 1 : log_uniform(g, cap);
    see(g, n == 1 ? MAPGEN_BCAST_ONE : MAPGEN_BCAST);
    return (Frag){fmt("%llu", U(n)), n, FK_BCAST, FK_BCAST};
}

/* A type escape {Ti} of one of the first ntypes helpers with size <= cap; .s NULL if none. */
static Frag gen_escape(MapGen *g, uint64_t cap, int ntypes)
{
    int ok[MAPGEN_MAX_TYPES], n = 0;
    for (int i = 0; i < ntypes; i++)
        if (g->type_size[i] <= cap)
            ok[n++] = i;
    if (!n)
        return (Frag){0};
    int t = ok[mapgen_below(g, (uint64_t)n)];
    see(g, MAPGEN_TYPE_ESCAPE);
    return (Frag){fmt("{T%d}", t), g->type_size[t], FK_ESCAPE, FK_ESCAPE};
}

static Frag gen_leaf(MapGen *g, uint64_t cap, int ntypes)
{
    uint64_t r = mapgen_below(g, 100);
    if (r < 25 && ntypes > 0) {
        Frag f = gen_escape(g, cap, ntypes);
        if (f.s)
            return f;
    }
    if (r < 75) {
        int ok[MAPGEN_MAX_AXES], n = 0;
        for (int i = 0; i < g->naxes; i++)
            if (g->axis_size[i] <= cap)
                ok[n++] = i;
        if (n) {
            int a = ok[mapgen_below(g, (uint64_t)n)];
            g->axis_uses[a]++;
            see(g, MAPGEN_SYMBOL);
            return (Frag){fmt("%s", axis_names[a]), g->axis_size[a], FK_SYM, FK_SYM};
        }
    }
    return gen_bcast(g, cap);
}

/* An expression that can take a postfix operator (lists come back bracketed). */
static Frag gen_operand(MapGen *g, uint64_t cap, int depth, int ntypes)
{
    Frag f = gen_expr(g, cap, depth, ntypes);
    return f.kind == FK_LIST ? group(g, f) : f;
}

/* Records what kind of base a / or % was applied to. */
static void see_base(MapGen *g, FragKind base, bool stride)
{
    switch (base) {
    case FK_SYM:
        see(g, stride ? MAPGEN_STRIDE_SYMBOL : MAPGEN_MOD_SYMBOL);
        return;
    case FK_DIGIT:
        see(g, MAPGEN_CHAIN);
        return;
    case FK_LIST:
        see(g, MAPGEN_BASE_PAIR);
        break;
    case FK_PAD:
        see(g, MAPGEN_BASE_PADDED);
        break;
    case FK_RESIZE:
        see(g, MAPGEN_BASE_RESIZED);
        break;
    case FK_ESCAPE:
        see(g, MAPGEN_BASE_ESCAPE);
        break;
    default:
        break;
    }
    see(g, stride ? MAPGEN_STRIDE_COMPOSITE : MAPGEN_MOD_COMPOSITE);
}

/* X / n and X % n chains of one to three operators, ending at size <= cap. */
static Frag gen_chain(MapGen *g, uint64_t cap, int depth, int ntypes)
{
    Frag f = gen_operand(g, g->opts.max_base, depth - 1, ntypes);
    int nops = 1 + (int)mapgen_below(g, 3);
    for (int i = 0; i < nops || f.size > cap; i++) {
        bool stride = chance(g, 50);
        uint64_t n;
        if (i >= nops) /* finish: bring the size under cap */
            n = stride ? divisor_pref(g, f.size, (f.size + cap - 1) / cap, f.size) : divisor_pref(g, f.size, 1, cap);
        else
            n = divisor_pref(g, f.size, 1, f.size);
        see_base(g, base_form(&f), stride);
        f = postfix(g, f, stride ? "/" : "%", n, stride ? f.size / n : n, FK_DIGIT);
    }
    return f;
}

static Frag gen_resize(MapGen *g, uint64_t cap, int depth, int ntypes)
{
    Frag f = gen_operand(g, g->opts.max_base, depth - 1, ntypes);
    uint64_t hi = f.size < cap ? f.size : cap;
    uint64_t n = chance(g, 20) ? hi : log_uniform(g, hi);
    see(g, MAPGEN_RESIZE);
    return postfix(g, f, "=", n, n, FK_RESIZE);
}

static Frag gen_pad(MapGen *g, uint64_t cap, int depth, int ntypes)
{
    Frag f = gen_operand(g, cap, depth - 1, ntypes);
    uint64_t n = chance(g, 20) ? f.size : f.size + mapgen_below(g, cap - f.size + 1);
    static const char *const ops[] = {"#", "#{*}", "#{0}", "#{!}"};
    static const MapGenFeature feat[] = {MAPGEN_PAD_TOP, MAPGEN_PAD_STAR, MAPGEN_PAD_ZERO, MAPGEN_PAD_BOTTOM};
    int k = (int)mapgen_below(g, 4);
    see(g, feat[k]);
    return postfix(g, f, ops[k], n, n, FK_PAD);
}

/* Joins items into "a, b, c" (items other than the last are bracketed when they are lists). */
static Frag gen_pair(MapGen *g, uint64_t cap, int depth, int ntypes)
{
    int k = 2 + (int)mapgen_below(g, 3);
    uint64_t rem = cap, size = 1;
    char *s = NULL;
    for (int i = 0; i < k; i++) {
        bool last = i == k - 1;
        Frag f = gen_expr(g, last ? rem : log_uniform(g, rem), depth - 1, ntypes);
        if (f.kind == FK_LIST && (!last || chance(g, 40))) {
            see(g, last ? MAPGEN_PAIR_RIGHT_NESTED : MAPGEN_PAIR_LEFT_NESTED);
            f = group(g, f);
        }
        rem /= f.size;
        size *= f.size;
        char *t = s ? fmt("%s, %s", s, f.s) : fmt("%s", f.s);
        free(s);
        free(f.s);
        s = t;
    }
    see(g, MAPGEN_PAIR);
    return (Frag){s, size, FK_LIST, FK_LIST};
}

/* One base X written several times as digits: X / (c1·c2), X / c2 % c1, X % c2, ... possibly
 * permuted, with a digit dropped or repeated, cut down to size <= cap. */
static Frag gen_split(MapGen *g, uint64_t cap, int depth, int ntypes)
{
    Frag base = (Frag){0};
    if (ntypes > 0 && chance(g, 25))
        base = gen_escape(g, g->opts.max_base, ntypes);
    if (!base.s)
        base = gen_operand(g, g->opts.max_base, depth - 1, ntypes);
    uint64_t bs = base.size;
    enum { MAXD = 3 };
    uint64_t c[MAXD], lower[MAXD];
    int nd = 2 + (int)mapgen_below(g, 2);
    uint64_t rest = bs;
    for (int i = 0; i < nd - 1; i++) {
        c[i] = divisor_pref(g, rest, 1, rest);
        rest /= c[i];
    }
    c[nd - 1] = rest;
    lower[nd - 1] = 1;
    for (int i = nd - 2; i >= 0; i--)
        lower[i] = lower[i + 1] * c[i + 1];

    /* Which digits to write, in which order. */
    int order[2 * MAXD], no = 0;
    for (int i = 0; i < nd; i++)
        order[no++] = i;
    if (chance(g, 25)) {
        int a = (int)mapgen_below(g, (uint64_t)no), b = (int)mapgen_below(g, (uint64_t)no);
        int t = order[a];
        order[a] = order[b];
        order[b] = t;
    }
    if (chance(g, 15) && no > 1) {
        int a = (int)mapgen_below(g, (uint64_t)no);
        memmove(order + a, order + a + 1, (size_t)(no - a - 1) * sizeof *order);
        no--;
    }
    if (chance(g, 20)) {
        int a = (int)mapgen_below(g, (uint64_t)no), at = (int)mapgen_below(g, (uint64_t)no + 1);
        int d = order[a];
        memmove(order + at + 1, order + at, (size_t)(no - at) * sizeof *order);
        order[at] = d;
        no++;
    }
    for (;;) { /* drop the largest digit until the product fits */
        uint64_t prod = 1;
        int big = 0;
        for (int i = 0; i < no; i++) {
            prod *= c[order[i]];
            if (c[order[i]] > c[order[big]])
                big = i;
        }
        if (prod <= cap || no == 0)
            break;
        memmove(order + big, order + big + 1, (size_t)(no - big - 1) * sizeof *order);
        no--;
    }
    if (no == 0) {
        free(base.s);
        return gen_bcast(g, 1);
    }

    FragKind bk = base_form(&base);
    see(g, MAPGEN_SPLIT);
    if (bk != FK_SYM && bk != FK_DIGIT)
        see(g, MAPGEN_SPLIT_COMPOSITE);
    for (int i = 1; i < no; i++) {
        if (order[i] < order[i - 1])
            see(g, MAPGEN_SPLIT_PERMUTED);
        for (int j = 0; j < i; j++)
            if (order[i] == order[j])
                see(g, MAPGEN_SPLIT_REPEATED);
    }
    if (bk == FK_SYM) /* the symbol text repeats: count its uses */
        for (int a = 0; a < g->naxes; a++)
            if (strcmp(base.s, axis_names[a]) == 0)
                g->axis_uses[a] += no - 1;

    char *s = NULL;
    uint64_t size = 1;
    for (int i = 0; i < no; i++) {
        int d = order[i];
        Frag f = {fmt("%s", base.s), base.size, bk, bk};
        if (d == 0) {
            see_base(g, bk, true);
            f = postfix(g, f, "/", lower[0], c[0], FK_DIGIT);
        } else if (d == nd - 1) {
            see_base(g, bk, false);
            f = postfix(g, f, "%", c[d], c[d], FK_DIGIT);
        } else if (chance(g, 50)) {
            see_base(g, bk, true);
            f = postfix(g, f, "/", lower[d], bs / lower[d], FK_DIGIT);
            see_base(g, FK_DIGIT, false);
            f = postfix(g, f, "%", c[d], c[d], FK_DIGIT);
        } else {
            see_base(g, bk, false);
            f = postfix(g, f, "%", c[d] * lower[d], c[d] * lower[d], FK_DIGIT);
            see_base(g, FK_DIGIT, true);
            f = postfix(g, f, "/", lower[d], c[d], FK_DIGIT);
        }
        size *= f.size;
        char *t = s ? fmt("%s, %s", s, f.s) : fmt("%s", f.s);
        free(s);
        free(f.s);
        s = t;
    }
    free(base.s);
    return (Frag){s, size, no > 1 ? FK_LIST : FK_DIGIT, no > 1 ? FK_LIST : FK_DIGIT};
}

/* Any expression of size <= cap that escapes only the first ntypes helper types. */
static Frag gen_expr(MapGen *g, uint64_t cap, int depth, int ntypes)
{
    if (depth <= 0)
        return gen_leaf(g, cap, ntypes);
    uint64_t r = mapgen_below(g, 100);
    if (r < 22)
        return gen_leaf(g, cap, ntypes);
    if (r < 42)
        return gen_pair(g, cap, depth, ntypes);
    if (r < 57)
        return gen_chain(g, cap, depth, ntypes);
    if (r < 65)
        return gen_resize(g, cap, depth, ntypes);
    if (r < 76)
        return gen_pad(g, cap, depth, ntypes);
    if (r < 95)
        return gen_split(g, cap, depth, ntypes);
    return group(g, gen_expr(g, cap, depth - 1, ntypes));
}

/* A whole "m![...]" text; tracks repeated axes over the expression. */
static char *gen_top(MapGen *g, uint64_t cap, int ntypes, uint64_t *size)
{
    Frag f;
    for (int attempt = 0;; attempt++) { /* size-1 results are common and dull: retry a few */
        memset(g->axis_uses, 0, sizeof g->axis_uses);
        f = gen_expr(g, cap, g->opts.max_depth, ntypes);
        if (f.size > 1 || cap == 1 || attempt == 3)
            break;
        free(f.s);
    }
    for (int a = 0; a < g->naxes; a++)
        if (g->axis_uses[a] >= 2)
            see(g, MAPGEN_REPEATED_AXIS);
    bool comma = chance(g, 10);
    if (comma)
        see(g, MAPGEN_TRAILING_COMMA);
    char *s = fmt("m![%s%s]", f.s, comma ? "," : "");
    free(f.s);
    if (size)
        *size = f.size;
    return s;
}

/* ---- API ---- */

const char *mapgen_feature_name(MapGenFeature f)
{
    static const char *const names[] = {
#define X(k, s) s,
        MAPGEN_FEATURES(X)
#undef X
    };
    return (unsigned)f < MAPGEN_NFEATURES ? names[f] : "?";
}

void mapgen_init(MapGen *g, uint64_t seed, const MapGenOpts *opts)
{
    memset(g, 0, sizeof *g);
    g->rng = rng_seeded(seed);
    MapGenOpts o = opts ? *opts : (MapGenOpts){0};
    if (o.max_size == 0)
        o.max_size = 512;
    if (o.max_base < o.max_size)
        o.max_base = o.max_size;
    if (o.max_base > (UINT64_C(1) << 32))
        o.max_base = UINT64_C(1) << 32;
    if (o.max_size > o.max_base)
        o.max_size = o.max_base;
    if (o.max_depth <= 0)
        o.max_depth = 5;
    if (o.max_depth > 12)
        o.max_depth = 12;
    if (o.max_axes <= 0)
        o.max_axes = 4;
    if (o.max_axes > MAPGEN_MAX_AXES)
        o.max_axes = MAPGEN_MAX_AXES;
    if (o.max_types == 0)
        o.max_types = 3;
    if (o.max_types < 0)
        o.max_types = 0;
    if (o.max_types > MAPGEN_MAX_TYPES)
        o.max_types = MAPGEN_MAX_TYPES;
    if (!o.name)
        o.name = "E";
    g->opts = o;
}

char *mapgen_program(MapGen *g)
{
    static const uint64_t sizes[] = {1, 2, 2, 3, 4, 4, 4, 5, 6, 6, 7, 8, 8, 8, 9, 12, 13, 16, 16, 24, 32, 61, 64};
    char *s = fmt("axes![");
    g->naxes = 1 + (int)mapgen_below(g, (uint64_t)g->opts.max_axes);
    for (int i = 0; i < g->naxes; i++) {
        uint64_t z;
        do
            z = sizes[mapgen_below(g, sizeof sizes / sizeof *sizes)];
        while (z > g->opts.max_size);
        g->axis_size[i] = z;
        char *t = fmt("%s%s%s = %llu", s, i ? ", " : "", axis_names[i], U(z));
        free(s);
        s = t;
    }
    char *t = fmt("%s%s];\n", s, chance(g, 10) ? "," : "");
    free(s);
    s = t;

    static const uint64_t consts[] = {2, 3, 4, 8};
    g->nconsts = (int)mapgen_below(g, MAPGEN_MAX_CONSTS + 1);
    for (int i = 0; i < g->nconsts; i++) {
        g->const_value[i] = consts[mapgen_below(g, 4)];
        t = fmt("%sconst K%d = %llu;\n", s, i, U(g->const_value[i]));
        free(s);
        s = t;
    }

    g->ntypes = (int)mapgen_below(g, (uint64_t)g->opts.max_types + 1);
    for (int i = 0; i < g->ntypes; i++) {
        char *e = gen_top(g, g->opts.max_size, i, &g->type_size[i]);
        t = fmt("%stype T%d = %s;\n", s, i, e);
        free(e);
        free(s);
        s = t;
    }
    char *e = gen_top(g, g->opts.max_size, g->ntypes, &g->main_size);
    t = fmt("%stype %s = %s;\n", s, g->opts.name, e);
    free(e);
    free(s);
    return t;
}

char *mapgen_expr(MapGen *g, uint64_t max_size, uint64_t *size)
{
    if (max_size == 0 || max_size > g->opts.max_size)
        max_size = g->opts.max_size;
    return gen_top(g, max_size, g->ntypes, size);
}
