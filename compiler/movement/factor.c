/* factor.c — flattening a mapping into factors (the layouts a sequencer can walk), their cells, and their printed digits. */
#include "mv_impl.h"

#include <string.h>

/* The sub-expression e as m![...] text in buf (for "unsupported" messages). */
static const char *expr_text(const Prog *p, const Map *e, char *buf, size_t cap)
{
    map_format(p, e, buf, cap);
    return buf;
}

static MvCode unsupported(const Prog *p, const Map *e, MvDiag *d, const char *why)
{
    char buf[200];
    return mv_fail(d, MV_UNSUPPORTED, "%s: %s", expr_text(p, e, buf, sizeof buf), why);
}

static MvCode push(const Prog *p, const Map *e, MvList *l, MvFactor f, MvDiag *d)
{
    if (f.x < 2)
        return MV_OK;
    if (l->n == MV_MAX_RAW)
        return unsupported(p, e, d, "more than 64 factors");
    l->f[l->n++] = f;
    return MV_OK;
}

uint64_t mv_volume(const MvList *l, int from, int to)
{
    uint64_t v = 1;
    for (int i = from; i < to; i++)
        v = u64_sat_mul(v, l->f[i].x);
    return v;
}

/* The whole digit a factor is (for a factor cut where it cannot be cut). */
static struct MvWhole whole_of(const MvFactor *f)
{
    return (struct MvWhole){f->axis, f->s, f->m, f->r, f->x, f->kind};
}

void mv_cut_exact(MvList *l, int i, uint64_t q)
{
    MvFactor f = l->f[i], major = f, minor = f;
    major.s = f.s * q;
    major.m = f.m / q;
    major.r = f.r / q;
    major.x = f.x / q;
    minor.m = minor.r = minor.x = q;
    memmove(&l->f[i + 2], &l->f[i + 1], (size_t)(l->n - i - 1) * sizeof *l->f);
    l->f[i] = major;
    l->f[i + 1] = minor;
    l->n++;
}

/* Cuts l->f[i] at minor extent q (1 < q < x, q divides x) into a major and a minor factor (one more factor in l):
 * exactly when q divides its live count and range (docs/movement.md), otherwise as two parts of the whole digit,
 * regrouped (or refused) when the mapping is flattened. */
static MvCode cut(const Prog *p, const Map *e, MvList *l, int i, uint64_t q, MvDiag *d)
{
    if (l->n == MV_MAX_RAW)
        return unsupported(p, e, d, "more than 64 factors");
    MvFactor f = l->f[i];
    if (!f.rooted) {
        f.rooted = true;
        f.root = whole_of(&f);
    }
    if (!f.piece && f.r % q == 0 && f.m % q == 0) {
        l->f[i] = f;
        mv_cut_exact(l, i, q);
        return MV_OK;
    }
    MvFactor major = f, minor = f;
    if (f.piece) {
        major.lo = f.lo * q;
        minor.hi = f.lo * q;
    } else {
        major.piece = minor.piece = true;
        major.inexact = minor.inexact = true;
        major.whole = minor.whole = whole_of(&f);
        major.lo = q;
        major.hi = f.x;
        minor.lo = 1;
        minor.hi = q;
    }
    major.x = f.x / q;
    minor.x = q;
    memmove(&l->f[i + 2], &l->f[i + 1], (size_t)(l->n - i - 1) * sizeof *l->f);
    l->f[i] = major;
    l->f[i + 1] = minor;
    l->n++;
    return MV_OK;
}

/* split(flat(L), n) of docs/movement.md on the segment [start, l->n): keeps its outer part (outer: L / n) or its
 * inner part (L % n), where the inner part's volume is n. */
static MvCode split(const Prog *p, const Map *e, MvList *l, int start, uint64_t n, bool outer, MvDiag *d)
{
    /* a broadcast under / or % is a digit of its base (the outermost one counts): bases of one size may be one
     * base (broadcasts of a size are equivalent), so their digits may collide */
    bool chain = e->l->kind == MAP_STRIDE || e->l->kind == MAP_MOD; /* then the base is further down */
    uint64_t base = mv_volume(l, start, l->n);
    for (int k = start; k < l->n; k++) {
        l->f[k].split = true;
        if (l->f[k].axis < 0 && !chain)
            l->f[k].bbase = base;
    }
    uint64_t vol = 1;
    int i = l->n - 1; /* the factor the cut falls in or before */
    while (i >= start && vol < n && n % (vol * l->f[i].x) == 0)
        vol *= l->f[i--].x;
    int cut_at = i + 1; /* the first factor of the inner part */
    if (vol < n) {
        /* the cut falls inside factor i, at minor extent q */
        if (i < start || n % vol != 0 || l->f[i].x % (n / vol) != 0)
            return unsupported(p, e, d, "a composite base: the cut does not fall between digits");
        MvCode c = cut(p, e, l, i, n / vol, d);
        if (c != MV_OK)
            return c;
        cut_at = i + 1;
    }
    if (outer) {
        l->n = cut_at;
    } else {
        memmove(&l->f[start], &l->f[cut_at], (size_t)(l->n - cut_at) * sizeof *l->f);
        l->n = start + (l->n - cut_at);
    }
    return MV_OK;
}

/* L = n and L # n (any kind) on the segment [start, l->n): the major factor's extent becomes n / V (V the volume
 * of the others), and its live count shrinks (resize) or its padding kind is set (padding). */
static MvCode resize_or_pad(const Prog *p, const Map *e, MvList *l, int start, MvDiag *d)
{
    uint64_t n = e->n;
    if (start == l->n) { /* |L| = 1 */
        if (e->kind == MAP_PAD)
            return push(p, e, l, (MvFactor){.axis = -1, .s = 1, .m = 1, .r = 1, .x = n, .kind = e->pad, .src = e}, d);
        return MV_OK;
    }
    MvFactor *f = &l->f[start];
    uint64_t v = mv_volume(l, start + 1, l->n);
    if (f->piece)
        return unsupported(p, e, d, "a composite base: its major digit is part of a split digit");
    if (n % v != 0)
        return unsupported(p, e, d, e->kind == MAP_PAD ? "group padding: the size is not a multiple of the inner volume"
                                                        : "a resize that is not a multiple of the inner volume");
    uint64_t x = n / v;
    if (e->kind == MAP_RESIZE) {
        f->x = x;
        if (f->r > x)
            f->r = x;
    } else if (x > f->x) {
        if (f->x > f->r && f->kind != e->pad)
            return unsupported(p, e, d, "mixed padding kinds on one digit");
        f->x = x;
        f->kind = e->pad;
    }
    if (f->x < 2) {
        memmove(f, f + 1, (size_t)(l->n - start - 1) * sizeof *l->f);
        l->n--;
    }
    return MV_OK;
}

static MvCode flat(const Prog *p, const Map *e, MvPart part, MvList *l, MvDiag *d)
{
    switch (e->kind) {
    case MAP_SYM:
        return push(p, e, l, (MvFactor){.axis = e->axis, .s = 1, .m = e->size, .r = e->size, .x = e->size, .part = part,
                                        .src = e}, d);
    case MAP_BCAST:
        return push(p, e, l, (MvFactor){.axis = -1, .s = 1, .m = e->n, .r = e->n, .x = e->n, .part = part, .src = e}, d);
    case MAP_PAIR: {
        MvCode c = flat(p, e->l, part, l, d);
        return c != MV_OK ? c : flat(p, e->r, part, l, d);
    }
    case MAP_STRIDE:
    case MAP_MOD:
    case MAP_RESIZE:
    case MAP_PAD: {
        int start = l->n;
        MvCode c = flat(p, e->l, part, l, d);
        if (c != MV_OK)
            return c;
        if (e->kind == MAP_STRIDE)
            return split(p, e, l, start, e->n, true, d);
        if (e->kind == MAP_MOD)
            return split(p, e, l, start, e->n, false, d);
        return resize_or_pad(p, e, l, start, d);
    }
    }
    return unsupported(p, e, d, "an unknown node");
}

static bool same_whole(const struct MvWhole *a, const struct MvWhole *b)
{
    return a->axis == b->axis && a->s == b->s && a->m == b->m && a->r == b->r && a->x == b->x &&
           (a->r == a->x || a->kind == b->kind);
}

/* Regroups the parts of each digit cut where it cannot be cut: adjacent, major first, with no gap between their
 * weights, they become one factor over their weights lo..hi (a composite digit walked as nested loops when there
 * are several); anything else is unsupported. */
static MvCode regroup(const Prog *p, const Map *e, MvList *l, MvDiag *d)
{
    for (int i = 0; i < l->n; i++) {
        if (!l->f[i].piece)
            continue;
        MvFactor *f = &l->f[i];
        int j = i + 1;
        while (j < l->n && l->f[j].piece && same_whole(&l->f[j].whole, &f->whole) && l->f[j].hi == l->f[j - 1].lo)
            j++;
        for (int k = j; k < l->n; k++)
            if (l->f[k].piece && same_whole(&l->f[k].whole, &f->whole))
                return unsupported(p, l->f[k].src ? l->f[k].src : e, d,
                                   "a composite base whose digits are not adjacent, major first");
        if (j - i > MV_MAX_SUB)
            return unsupported(p, e, d, "a composite digit of more than 8 parts");
        struct MvWhole w = f->whole;
        uint64_t lo = l->f[j - 1].lo, hi = f->hi, xe = hi / lo;
        MvFactor g = {.axis = w.axis, .s = w.s * lo, .x = xe, .kind = w.kind, .part = f->part, .bbase = f->bbase,
                      .rooted = f->rooted, .inexact = true, .split = true, .root = f->root, .src = f->src};
        g.r = (w.r + lo - 1) / lo < xe ? (w.r + lo - 1) / lo : xe;
        g.m = (w.m + lo - 1) / lo < xe ? (w.m + lo - 1) / lo : xe;
        if (g.m < g.r)
            g.m = g.r;
        if (j - i > 1) {
            g.nsub = j - i;
            for (int k = i; k < j; k++)
                g.sub[k - i] = l->f[k].x;
        }
        l->f[i] = g;
        memmove(&l->f[i + 1], &l->f[j], (size_t)(l->n - j) * sizeof *l->f);
        l->n -= j - i - 1;
    }
    return MV_OK;
}

/* The digits of each axis must not overlap ([s, s*m) disjoint) and their largest live coordinate must stay
 * within the axis (otherwise cells overflow, as in m![A, A]). */
MvCode mv_check_digits(const Prog *p, const Map *e, const MvList *l, int from, MvDiag *d)
{
    for (int i = from; i < l->n; i++)
        for (int j = i + 1; j < l->n; j++) {
            const MvFactor *f = &l->f[i], *g = &l->f[j];
            if (f->rooted && g->rooted && (f->inexact || g->inexact) && same_whole(&f->root, &g->root))
                return unsupported(p, e, d, "a composite base: two digits of a padded digit whose live count they do not "
                                   "divide");
            /* digits of a composite base take the kind of the base's own most major padding, whatever their order */
            if (f->split && g->split && f->x > f->r && g->x > g->r && f->kind != g->kind)
                return unsupported(p, e, d, "a composite base with padding of two kinds");
        }
    for (int i = from; i < l->n; i++) {
        const MvFactor *f = &l->f[i];
        if (f->axis < 0 && !f->bbase)
            continue;
        uint64_t top = u64_sat_mul(f->s, f->m), reach = u64_sat_mul(f->r - 1, f->s);
        for (int j = from; j < l->n; j++) {
            const MvFactor *g = &l->f[j];
            if (j == i || g->axis != f->axis || g->bbase != f->bbase)
                continue;
            if (j > i && (g->s == f->s || (g->s < top && f->s < u64_sat_mul(g->s, g->m))))
                return unsupported(p, e, d, "two digits of one axis overlap (cells overflow)");
            reach = u64_sat_add(reach, u64_sat_mul(g->r - 1, g->s));
        }
        if (reach >= (f->axis >= 0 ? p->axes[f->axis].size : f->bbase))
            return unsupported(p, e, d, "the digits of an axis reach past its size (cells overflow)");
    }
    return MV_OK;
}

MvCode mv_flatten(const Prog *p, const Map *e, MvPart part, MvList *out, MvDiag *d)
{
    int from = out->n;
    MvCode c = flat(p, e, part, out, d);
    if (c == MV_OK)
        c = regroup(p, e, out, d);
    if (c == MV_OK)
        c = mv_check_digits(p, e, out, from, d);
    return c;
}

void mv_list_cell(const MvList *l, int naxes, uint64_t pos, CellKind *kind, uint64_t *coord)
{
    memset(coord, 0, (size_t)naxes * sizeof *coord);
    if (pos >= mv_volume(l, 0, l->n)) {
        *kind = CELL_OOB;
        return;
    }
    *kind = CELL_LIVE;
    for (int i = l->n - 1; i >= 0; i--) {
        const MvFactor *f = &l->f[i];
        uint64_t v = pos % f->x;
        pos /= f->x;
        if (v >= f->r)
            *kind = (CellKind)f->kind; /* the most major padding is the last one met */
        else if (f->axis >= 0)
            coord[f->axis] += v * f->s;
    }
    if (*kind != CELL_LIVE)
        memset(coord, 0, (size_t)naxes * sizeof *coord);
}

void mv_factor_text(Text *t, const Prog *p, const MvFactor *f)
{
    static const char *const pad[] = {"#", "#", "#{0}", "#{!}"};
    if (f->axis < 0) {
        text_printf(t, "%llu", (unsigned long long)f->r);
    } else {
        text_printf(t, "%s", p->axes[f->axis].name);
        if (f->s > 1)
            text_printf(t, " / %llu", (unsigned long long)f->s);
        if (u64_sat_mul(f->s, f->m) < p->axes[f->axis].size)
            text_printf(t, " %% %llu", (unsigned long long)f->m);
        if (f->r < f->m)
            text_printf(t, " = %llu", (unsigned long long)f->r);
    }
    if (f->x > f->r)
        text_printf(t, " %s %llu", pad[f->kind & 3], (unsigned long long)f->x);
    if (f->nsub > 1) {
        text_printf(t, " (walked as");
        for (int i = 0; i < f->nsub; i++)
            text_printf(t, "%s%llu", i ? " x " : " ", (unsigned long long)f->sub[i]);
        text_printf(t, ")");
    }
}
