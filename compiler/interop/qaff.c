/* qaff.c — quasi-affine layouts (MLIR affine maps, TVM index maps): expressions over the dimensions read into
 * sums of multiples of digits (d floordiv s) mod m, placed row-major over the results' extents; and a mapping's
 * digits grouped back into results. */
#include "interop_impl.h"

#include <stdlib.h>
#include <string.h>

typedef enum { QE_NUM, QE_DIM, QE_SYM, QE_NEG, QE_ADD, QE_SUB, QE_MUL, QE_DIV, QE_MOD, QE_CEILDIV } QKind;

struct QExpr {
    QKind k;
    uint64_t num;           /* QE_NUM */
    int dim;                /* QE_DIM, QE_SYM: index into the names */
    const QExpr *l, *r;
    const char *at, *end;   /* its text in the body */
};

bool iop_qnames(IopScan *s, QNames *out, const char *close, const char *what)
{
    out->n = 0;
    while (!iop_peek(s, close)) {
        const char *id;
        size_t len;
        if (!iop_ident(s, &id, &len))
            return iop_fail(s, s->cur, "expected a %s name, found %s", what, iop_near(s));
        for (int i = 0; i < out->n; i++)
            if (out->len[i] == len && memcmp(out->s[i], id, len) == 0)
                return iop_fail(s, id, "%s '%.*s' is declared twice", what, (int)len, id);
        if (out->n == IOP_MAX_DIGITS / 2)
            return iop_fail(s, id, "more than %d %ss", IOP_MAX_DIGITS / 2, what);
        out->s[out->n] = id;
        out->len[out->n++] = len;
        if (!iop_accept(s, ","))
            break;
    }
    return true;
}

static QExpr *node(IopScan *s, QKind k, const QExpr *l, const QExpr *r, const char *at)
{
    QExpr *e = arena_alloc(&s->p->arena, sizeof *e);
    *e = (QExpr){.k = k, .l = l, .r = r, .at = at, .end = s->cur};
    return e;
}

static const QExpr *expr(IopScan *s, const QSyntax *syn, const QNames *dims, const QNames *syms, int depth);

static int find(const QNames *n, const char *id, size_t len)
{
    for (int i = 0; n && i < n->n; i++)
        if (n->len[i] == len && memcmp(n->s[i], id, len) == 0)
            return i;
    return -1;
}

/* primary := NUM | NAME | '(' expr ')';  unary := '-' unary | primary */
static const QExpr *unary(IopScan *s, const QSyntax *syn, const QNames *dims, const QNames *syms, int depth)
{
    const char *at = iop_skip(s);
    if (depth > 64)
        return iop_fail(s, at, "the expression nests deeper than 64 levels"), NULL;
    if (iop_accept(s, "-")) {
        const QExpr *e = unary(s, syn, dims, syms, depth + 1);
        return e ? node(s, QE_NEG, e, NULL, at) : NULL;
    }
    if (iop_accept(s, "(")) {
        const QExpr *e = expr(s, syn, dims, syms, depth + 1);
        if (!e || !iop_expect(s, ")", "to close the parenthesis"))
            return NULL;
        QExpr *g = node(s, e->k, e->l, e->r, at);
        g->num = e->num;
        g->dim = e->dim;
        return g;
    }
    uint64_t v;
    if (iop_number(s, &v, NULL)) {
        QExpr *e = node(s, QE_NUM, NULL, NULL, at);
        e->num = v;
        return e;
    }
    const char *id;
    size_t len;
    if (s->failed || !iop_ident(s, &id, &len))
        return iop_fail(s, at, "expected a number, a %s or '(' in %s, found %s", syn->dimension, syn->layout,
                        iop_near(s)), NULL;
    int d = find(dims, id, len), y = find(syms, id, len);
    if (d < 0 && y < 0)
        return iop_fail(s, id, "'%.*s' is not a %s of %s", (int)len, id, syn->dimension, syn->layout), NULL;
    QExpr *e = node(s, d >= 0 ? QE_DIM : QE_SYM, NULL, NULL, at);
    e->dim = d >= 0 ? d : y;
    return e;
}

/* term := unary ((* | DIV | MOD | CEILDIV) unary)* */
static const QExpr *term(IopScan *s, const QSyntax *syn, const QNames *dims, const QNames *syms, int depth)
{
    const char *at = iop_skip(s);
    const QExpr *l = unary(s, syn, dims, syms, depth);
    while (l) {
        QKind k;
        if (iop_accept(s, syn->div))
            k = QE_DIV;
        else if (iop_accept(s, syn->mod))
            k = QE_MOD;
        else if (syn->ceildiv && iop_accept(s, syn->ceildiv))
            k = QE_CEILDIV;
        else if (iop_accept(s, "*"))
            k = QE_MUL;
        else if (iop_peek(s, "/"))
            return iop_fail(s, s->cur, "'/' is true division; %s divides with '%s'", syn->layout, syn->div), NULL;
        else
            break;
        const QExpr *r = unary(s, syn, dims, syms, depth);
        l = r ? node(s, k, l, r, at) : NULL;
    }
    return l;
}

/* expr := term ((+ | -) term)* */
static const QExpr *expr(IopScan *s, const QSyntax *syn, const QNames *dims, const QNames *syms, int depth)
{
    const char *at = iop_skip(s);
    const QExpr *l = term(s, syn, dims, syms, depth);
    while (l) {
        QKind k;
        if (iop_accept(s, "+"))
            k = QE_ADD;
        else if (iop_accept(s, "-"))
            k = QE_SUB;
        else
            break;
        const QExpr *r = term(s, syn, dims, syms, depth);
        l = r ? node(s, k, l, r, at) : NULL;
    }
    return l;
}

const QExpr *iop_qexpr(IopScan *s, const QSyntax *syn, const QNames *dims, const QNames *syms)
{
    return expr(s, syn, dims, syms, 0);
}

/* ---- Expressions to sums of digits ---- */

/* (x floordiv stride) mod mod of dimension dim (mod 0: none). */
typedef struct QAtom {
    int dim;
    uint64_t stride, mod;
} QAtom;

/* sum coef[k] * atom[k] + cst */
typedef struct QLin {
    int n;
    QAtom atom[IOP_MAX_DIGITS];
    int64_t coef[IOP_MAX_DIGITS];
    int64_t cst;
} QLin;

/* Reports e as outside the class, with the reason. */
static bool refuse(IopScan *s, const QSyntax *syn, const QExpr *e, const char *why)
{
    return iop_fail(s, e->at, "%s is outside the quasi-affine class mapc expresses: '%.*s' %s", syn->layout,
                    (int)(e->end - e->at), e->at, why);
}

static bool add_term(IopScan *s, const QSyntax *syn, const QExpr *e, QLin *out, QAtom a, int64_t c)
{
    for (int k = 0; k < out->n; k++)
        if (memcmp(&out->atom[k], &a, sizeof a) == 0) {
            if (__builtin_add_overflow(out->coef[k], c, &out->coef[k]))
                return refuse(s, syn, e, "overflows 64 bits");
            return true;
        }
    if (out->n == IOP_MAX_DIGITS)
        return refuse(s, syn, e, "has too many terms");
    out->atom[out->n] = a;
    out->coef[out->n++] = c;
    return true;
}

/* l := l + c * r */
static bool add_lin(IopScan *s, const QSyntax *syn, const QExpr *e, QLin *l, const QLin *r, int64_t c)
{
    int64_t t;
    if (__builtin_mul_overflow(r->cst, c, &t) || __builtin_add_overflow(l->cst, t, &l->cst))
        return refuse(s, syn, e, "overflows 64 bits");
    for (int k = 0; k < r->n; k++)
        if (__builtin_mul_overflow(r->coef[k], c, &t) || !add_term(s, syn, e, l, r->atom[k], t))
            return s->failed ? false : refuse(s, syn, e, "overflows 64 bits");
    return true;
}

/* The divisor of a floordiv or mod: a positive constant. */
static bool divisor(IopScan *s, const QSyntax *syn, const QExpr *e, const QLin *r, int64_t *c)
{
    if (r->n)
        return refuse(s, syn, e, "divides by a dimension: divisors are constants");
    if (r->cst <= 0)
        return refuse(s, syn, e, "divides by a constant below 1");
    *c = r->cst;
    return true;
}

/* floor(a / b) and the non-negative a mod b for b > 0. */
static int64_t floordiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && a < 0); }
static int64_t modulo(int64_t a, int64_t b) { return a - floordiv(a, b) * b; }

static bool lin(IopScan *s, const QSyntax *syn, const QExpr *e, QLin *out);

/* a floordiv c or a mod c (div) of one digit k * atom with k dividing c: the digit of stride s*c/k, or
 * k * ((x floordiv s) mod (c/k)) */
static bool divide(IopScan *s, const QSyntax *syn, const QExpr *e, const QLin *a, int64_t c, bool div, QLin *out)
{
    *out = (QLin){0};
    if (a->n == 0) {
        out->cst = div ? floordiv(a->cst, c) : modulo(a->cst, c);
        return true;
    }
    if (a->n != 1 || a->cst != 0 || a->coef[0] <= 0 || c % a->coef[0] != 0)
        return refuse(s, syn, e, div ? "divides a sum or a multiple: mapc's digits divide one digit of one dimension"
                                     : "takes the remainder of a sum or a multiple: mapc's digits take it of one digit "
                                       "of one dimension");
    uint64_t q = (uint64_t)(c / a->coef[0]);
    QAtom t = a->atom[0];
    if (div) {
        if (t.mod && t.mod % q != 0)
            return refuse(s, syn, e, "divides a remainder by a number that does not divide it");
        if (!u64_mul(t.stride, q, &t.stride))
            return refuse(s, syn, e, "overflows 64 bits");
        t.mod = t.mod ? t.mod / q : 0;
        out->coef[0] = 1;
    } else {
        if (t.mod && t.mod % q != 0 && q % t.mod != 0)
            return refuse(s, syn, e, "takes a remainder of a remainder by numbers that do not divide each other");
        t.mod = t.mod && t.mod < q ? t.mod : q;
        out->coef[0] = a->coef[0];
    }
    out->atom[0] = t;
    out->n = 1;
    return true;
}

/* The sum of multiples of digits that e is; false after refusing it. */
static bool lin(IopScan *s, const QSyntax *syn, const QExpr *e, QLin *out)
{
    *out = (QLin){0};
    QLin *a = NULL, *b = NULL;
    bool ok = true;
    switch (e->k) {
    case QE_NUM:
        if (e->num > INT64_MAX)
            return refuse(s, syn, e, "does not fit in 64 bits");
        out->cst = (int64_t)e->num;
        return true;
    case QE_DIM:
        out->n = 1;
        out->atom[0] = (QAtom){e->dim, 1, 0};
        out->coef[0] = 1;
        return true;
    case QE_SYM:
        return refuse(s, syn, e, "is a symbol: mapc needs every size and stride as a number");
    case QE_NEG:
        a = mem_calloc(1, sizeof *a);
        ok = lin(s, syn, e->l, a) && add_lin(s, syn, e, out, a, -1);
        break;
    case QE_ADD:
    case QE_SUB:
        a = mem_calloc(1, sizeof *a);
        ok = lin(s, syn, e->l, out) && lin(s, syn, e->r, a) && add_lin(s, syn, e, out, a, e->k == QE_ADD ? 1 : -1);
        break;
    case QE_MUL:
        a = mem_calloc(1, sizeof *a);
        b = mem_calloc(1, sizeof *b);
        ok = lin(s, syn, e->l, a) && lin(s, syn, e->r, b);
        if (ok && a->n && b->n)
            ok = refuse(s, syn, e, "multiplies two dimensions: a layout is affine in its dimensions");
        else if (ok)
            ok = a->n ? add_lin(s, syn, e, out, a, b->cst) : add_lin(s, syn, e, out, b, a->cst);
        break;
    case QE_DIV:
    case QE_MOD: {
        int64_t c = 1;
        a = mem_calloc(1, sizeof *a);
        b = mem_calloc(1, sizeof *b);
        ok = lin(s, syn, e->l, a) && lin(s, syn, e->r, b) && divisor(s, syn, e, b, &c) &&
             divide(s, syn, e, a, c, e->k == QE_DIV, out);
        break;
    }
    case QE_CEILDIV: {
        int64_t c = 1;
        a = mem_calloc(1, sizeof *a);
        b = mem_calloc(1, sizeof *b);
        ok = lin(s, syn, e->l, a) && lin(s, syn, e->r, b) && divisor(s, syn, e, b, &c);
        if (ok && a->n)
            ok = refuse(s, syn, e, "rounds up: mapc's digits round down (floordiv)");
        else if (ok)
            out->cst = floordiv(a->cst + c - 1, c);
        break;
    }
    }
    free(a);
    free(b);
    return ok;
}

/* The values of a digit of an axis of `size` coordinates: (x floordiv stride) mod mod, x < size. */
static uint64_t atom_count(const QAtom *a, uint64_t size)
{
    uint64_t q = a->stride >= size ? 1 : size / a->stride + (size % a->stride != 0);
    return a->mod && a->mod < q ? a->mod : q;
}

/* The largest value of the result L over the domain: per dimension, the largest sum of its terms (by
 * enumeration for up to 2^22 coordinates when several terms share the dimension, else the sum of the terms'
 * largest values). */
static bool result_max(IopScan *s, const QSyntax *syn, const QExpr *e, const QLin *L, const uint64_t *size, int ndims,
                       uint64_t *max)
{
    *max = 0;
    for (int d = 0; d < ndims; d++) {
        int terms = 0;
        uint64_t bound = 0;
        for (int k = 0; k < L->n; k++)
            if (L->atom[k].dim == d) {
                terms++;
                bound = u64_sat_add(bound, u64_sat_mul((uint64_t)L->coef[k], atom_count(&L->atom[k], size[d]) - 1));
            }
        if (terms > 1 && size[d] <= (UINT64_C(1) << 22)) {
            bound = 0;
            for (uint64_t x = 0; x < size[d]; x++) {
                uint64_t v = 0;
                for (int k = 0; k < L->n; k++)
                    if (L->atom[k].dim == d) {
                        uint64_t q = x / L->atom[k].stride;
                        v += (uint64_t)L->coef[k] * (L->atom[k].mod ? q % L->atom[k].mod : q);
                    }
                if (v > bound)
                    bound = v;
            }
        }
        *max = u64_sat_add(*max, bound);
    }
    if (*max >= UINT64_MAX / 2)
        return refuse(s, syn, e, "reaches past 64-bit positions");
    return true;
}

/* The axes of the dimensions: those ax names; else those the dimensions are named after when every one is an
 * axis; else the program's axes in order. */
static bool dim_axes(IopScan *s, const QNames *dims, const IopAxes *ax, const QSyntax *syn, int *axes)
{
    if (!(ax && ax->n >= 0) && dims->n > 0) {
        bool named = true;
        for (int i = 0; i < dims->n && named; i++) {
            const Name *n = prog_lookup_n(s->p, dims->s[i], dims->len[i]);
            named = n && n->kind == NAME_AXIS && prog_public_index(s->p, n->axis) >= 0;
            if (named)
                axes[i] = n->axis;
        }
        if (named)
            return true;
    }
    return iop_axes(s, ax, dims->n, syn->layout, s->t.s, axes);
}

const Map *iop_qaff_map(IopScan *s, const QSyntax *syn, const QNames *dims, const IopAxes *ax,
                        const QExpr *const *res, int n)
{
    Prog *p = s->p;
    int axes[IOP_MAX_DIGITS];
    if (!dim_axes(s, dims, ax, syn, axes))
        return NULL;
    uint64_t size[IOP_MAX_DIGITS], ext[IOP_MAX_DIGITS];
    for (int i = 0; i < dims->n; i++)
        size[i] = p->axes[axes[i]].size;
    QLin *L = mem_calloc((size_t)n + 1, sizeof *L);
    bool ok = true;
    for (int k = 0; k < n && ok; k++) {
        ok = lin(s, syn, res[k], &L[k]);
        if (ok && L[k].cst != 0)
            ok = refuse(s, syn, res[k], arena_printf(&p->arena, "adds the constant %lld: an offset would leave "
                                                     "position 0 without an element, and a mapping's position 0 "
                                                     "always holds one", (long long)L[k].cst));
        for (int j = 0; j < L[k].n && ok; j++)
            if (L[k].coef[j] < 0)
                ok = refuse(s, syn, res[k], "has a negative coefficient: positions grow with every dimension");
        uint64_t max = 0;
        ok = ok && result_max(s, syn, res[k], &L[k], size, dims->n, &max);
        ext[k] = max + 1;
    }
    /* row-major over the extents: result k weighs the product of the extents after it */
    IopDigit d[IOP_MAX_DIGITS];
    int nd = 0;
    uint64_t w = 1;
    for (int k = n - 1; k >= 0 && ok; k--) {
        for (int j = 0; j < L[k].n && ok; j++) {
            if (L[k].coef[j] == 0)
                continue;
            if (nd == IOP_MAX_DIGITS) {
                ok = refuse(s, syn, res[k], "has too many terms");
                break;
            }
            const QAtom *a = &L[k].atom[j];
            uint64_t weight;
            if (!u64_mul((uint64_t)L[k].coef[j], w, &weight)) {
                ok = refuse(s, syn, res[k], "reaches past 64-bit positions");
                break;
            }
            d[nd++] = (IopDigit){.dim = a->dim, .stride = a->stride, .count = atom_count(a, size[a->dim]),
                                 .weight = weight, .at = res[k]->at};
        }
        if (ok && !u64_mul(w, ext[k], &w))
            ok = refuse(s, syn, res[k], "reaches past 64-bit positions");
    }
    free(L);
    if (!ok)
        return NULL;
    IopDomain dom = {dims->n, axes, syn->layout, "physical position"};
    return iop_place(s, &dom, d, nd, w);
}

/* ---- Mappings to results ---- */

/* The text of one digit: NAME, NAME DIV s, NAME MOD c or (NAME DIV s) MOD c, times coef. */
static void atom_text(IopBuf *b, const Prog *p, const QSyntax *syn, const IopLeaf *v, uint64_t coef)
{
    const Axis *a = &p->axes[v->axis];
    uint64_t above = v->stride >= a->size ? 1 : a->size / v->stride + (a->size % v->stride != 0);
    bool div = v->stride > 1, mod = v->count < above;
    bool paren = coef > 1 && (div || mod);
    iop_buf_printf(b, "%s%s", paren ? "(" : "", a->name);
    if (div)
        iop_buf_printf(b, " %s %llu", syn->div, U(v->stride));
    if (mod)
        iop_buf_printf(b, " %s %llu", syn->mod, U(v->count));
    if (paren)
        iop_buf_printf(b, ")");
    if (coef > 1)
        iop_buf_printf(b, " * %llu", U(coef));
}

/* The digits of m written as results: norm(m)'s digits (major first) into v, none a broadcast, each axis split
 * exactly; with split, a digit with more values than its axis gives (A # n, or a digit of a padded base that
 * reaches past the axis) as the two digits (A floordiv s*t) and (A floordiv s) mod t whose counts make its own,
 * with the largest such t (their extents pad it as the digit does; without, A # n is A and a gap). Their number,
 * or -1 with *why. */
static int result_digits(Prog *p, const Map *m, const QSyntax *syn, const int *axes, int rank, bool split,
                         IopLeaf *v, const char **why)
{
    IopLeaf *all = v;
    bool gaps;
    int n = iop_leaves(p, m, all, IOP_MAX_DIGITS, &gaps, why), k = 0;
    if (n < 0)
        return -1;
    for (int j = 0; j < n; j++) { /* digits of one value are constants 0 */
        if (all[j].axis < 0) {
            *why = arena_printf(&p->arena, "it repeats every cell %llu times (a broadcast of %llu at position stride "
                                "%llu): %s maps each index to one physical position", U(all[j].count),
                                U(all[j].count), U(all[j].weight), syn->layout);
            return -1;
        }
        if (all[j].count > 1)
            v[k++] = all[j];
    }
    n = k;
    if ((*why = iop_whole(p, v, n, axes, rank, syn->layout)) != NULL)
        return -1;
    for (int j = n - 1; j >= 0 && split; j--) {
        uint64_t size = p->axes[v[j].axis].size;
        uint64_t a = v[j].stride >= size ? 1 : size / v[j].stride + (size % v[j].stride != 0);
        uint64_t slot = v[j].slot ? v[j].slot : v[j].count, t = a - 1;
        if (slot <= a || n == IOP_MAX_DIGITS)
            continue;
        while (t > 1 && !(slot % t == 0 && (a / t + (a % t != 0)) * t == slot))
            t--;
        if (t <= 1)
            continue;
        memmove(&v[j + 1], &v[j], (size_t)(n - j) * sizeof *v);
        n++;
        uint64_t s0 = v[j].stride, padded = u64_sat_mul(s0, slot);
        v[j] = (IopLeaf){v[j].axis, u64_sat_mul(s0, t), slot / t, u64_sat_mul(v[j].weight, t), padded, 0};
        v[j + 1] = (IopLeaf){v[j].axis, s0, t, v[j + 1].weight, padded, 0};
    }
    return n;
}

/* The extent (largest value + 1) of the result made of digits v[lo..hi) over the unit weight `unit`, each with
 * coefficient weight / unit, as the reading computes it (result_max): per axis the largest sum of its digits,
 * by enumeration for up to 2^22 coordinates when several digits share the axis. */
static uint64_t group_ext(const Prog *p, const IopLeaf *v, int lo, int hi, uint64_t unit)
{
    uint64_t max = 0;
    for (int k = lo; k < hi; k++) {
        bool first = true, several = false;
        for (int j = lo; j < k; j++)
            first &= v[j].axis != v[k].axis;
        for (int j = k + 1; j < hi; j++)
            several |= v[j].axis == v[k].axis;
        if (!first)
            continue;
        uint64_t size = p->axes[v[k].axis].size, bound = 0;
        if (several && size <= (UINT64_C(1) << 22)) {
            for (uint64_t x = 0; x < size; x++) {
                uint64_t sum = 0;
                for (int j = k; j < hi; j++)
                    if (v[j].axis == v[k].axis)
                        sum = u64_sat_add(sum, u64_sat_mul(v[j].weight / unit, x / v[j].stride % v[j].count));
                if (sum > bound)
                    bound = sum;
            }
        } else {
            for (int j = k; j < hi; j++)
                if (v[j].axis == v[k].axis)
                    bound = u64_sat_add(bound, u64_sat_mul(v[j].weight / unit, v[j].count - 1));
        }
        max = u64_sat_add(max, bound);
    }
    return u64_sat_add(max, 1);
}

/* The text of the digits v[0..n) (major first) grouped into results at the cuts: bit j of cuts starts a new
 * result at digit n-1-j (minor first; the most minor digit always starts one), the result's unit the previous
 * one's unit times its extent, which must divide the digit's weight (its coefficient); every other digit joins
 * the current result with coefficient weight / unit. NULL when the cuts do not fit the weights. */
static const char *grouped(Prog *p, const QSyntax *syn, const int *axes, int rank, const IopLeaf *v, int n,
                           unsigned long cuts, const char *head, const char *mid, const char *tail)
{
    int start[IOP_MAX_DIGITS + 1], ng = 0, hi = n;
    uint64_t unit[IOP_MAX_DIGITS + 1], ext = 0;
    for (int j = n - 1; j >= 0; j--) {
        uint64_t end = ng ? u64_sat_mul(unit[ng - 1], ext) : 1;
        bool cut = ng == 0 || (n - 1 - j < 64 && (cuts >> (n - 1 - j) & 1));
        if (cut && (end == 0 || v[j].weight % end != 0))
            return NULL;
        if (!cut && v[j].weight % unit[ng - 1] != 0)
            return NULL;
        if (cut) {
            hi = ng ? start[ng - 1] : n;
            unit[ng] = end;
            start[ng++] = j;
        } else {
            start[ng - 1] = j;
        }
        ext = group_ext(p, v, j, hi, unit[ng - 1]);
    }
    IopBuf b;
    iop_buf_init(&b, &p->arena);
    iop_buf_printf(&b, "%s", head);
    for (int i = 0; i < rank; i++)
        iop_buf_printf(&b, "%s%s", i ? ", " : "", p->axes[axes[i]].name);
    iop_buf_printf(&b, "%s", mid);
    /* results major first: group g spans digits start[g] .. (start[g-1] or n) */
    for (int g = ng - 1; g >= 0; g--) {
        iop_buf_printf(&b, "%s", g < ng - 1 ? ", " : "");
        for (int k = start[g]; k < (g == 0 ? n : start[g - 1]); k++) {
            if (k > start[g])
                iop_buf_printf(&b, " + ");
            atom_text(&b, p, syn, &v[k], v[k].weight / unit[g]);
        }
    }
    iop_buf_printf(&b, "%s%s", ng ? "" : "0", tail);
    return b.s;
}

/* The cuts of the natural grouping: a result starts where the previous one's extent ends (dense, multiples
 * false) or at any multiple of it (multiples). */
static unsigned long natural_cuts(const Prog *p, const IopLeaf *v, int n, bool multiples)
{
    unsigned long cuts = 0;
    uint64_t unit = 1, ext = 0;
    int hi = n;
    for (int j = n - 1; j >= 0; j--) {
        uint64_t end = u64_sat_mul(unit, ext);
        if (j == n - 1 || v[j].weight == end || (multiples && end && v[j].weight % end == 0)) {
            if (j < n - 1 && n - 1 - j < 64)
                cuts |= 1ul << (n - 1 - j);
            unit = j == n - 1 ? 1 : end;
            hi = j + 1;
        } else if (v[j].weight % unit != 0) {
            continue;
        }
        ext = group_ext(p, v, j, hi, unit);
    }
    return cuts;
}

/* The search for results: what the candidates share, and the budget left. */
typedef struct Search {
    Prog *p;
    const Map *m;
    IopFormat f;
    const QSyntax *syn;
    const int *axes;
    int rank;
    const char *head, *mid, *tail;
    int reads, decisions;   /* candidates read back, and decided, so far */
    const char *first;      /* why the first candidate failed */
} Search;

enum { MAX_READS = 3000, MAX_DECISIONS = 24 };

/* Tries the groupings of digits v[0..n) into results: the dense one, the one at multiples, one result, then every
 * other way of cutting them (for at most 10 digits). A candidate whose reading has m's size is decided; the text
 * that is equivalent, else NULL. */
static const char *search_cuts(Search *S, const IopLeaf *v, int n)
{
    unsigned long tried[3] = {natural_cuts(S->p, v, n, false), natural_cuts(S->p, v, n, true), 0};
    unsigned long all = n > 1 && n <= 10 ? 1ul << n : 0;
    for (unsigned long k = 0; k < 3 + all && S->decisions < MAX_DECISIONS && S->reads < MAX_READS; k++) {
        unsigned long cuts = k < 3 ? tried[k] : (k - 3) << 1; /* the most minor digit always starts a result */
        if (k >= 3 && (cuts == tried[0] || cuts == tried[1] || cuts == 0 || cuts >= all))
            continue;
        const char *text = grouped(S->p, S->syn, S->axes, S->rank, v, n, cuts, S->head, S->mid, S->tail);
        if (!text)
            continue;
        S->reads++;
        Source *src = arena_alloc(&S->p->arena, sizeof *src);
        *src = (Source){.name = "<export>", .text = text, .len = strlen(text)};
        Diags scratch;
        diags_init(&scratch, &S->p->arena);
        IopAxes ax = {S->axes, S->rank, {src, 1, 1}};
        const Map *c = iop_import(S->p, S->f, (IopText){text, src->len, {src, 1, 1}}, &ax, &scratch);
        if (!c || c->size != S->m->size) {
            if (!S->first)
                S->first = iop_verify(S->p, S->m, S->f, text, S->axes, S->rank);
            continue;
        }
        S->decisions++;
        const char *why = iop_verify_map(S->p, S->m, c, text);
        if (!why)
            return text;
        if (!S->first)
            S->first = why;
    }
    return NULL;
}

const char *iop_qaff_export(Prog *p, const Map *m, IopFormat f, const char *head, const char *mid, const char *tail,
                            const char **why)
{
    const QSyntax *syn = f == IOP_AFFINE ? &iop_affine_syntax : &iop_tvm_syntax;
    int axes[IOP_MAX_DIGITS];
    int rank = iop_layout_axes(p, m, syn->layout, axes, why);
    if (rank < 0)
        return NULL;
    Search S = {p, m, f, syn, axes, rank, head, mid, tail, 0, 0, NULL};
    /* the digits as they are, then with padded ones split; then with one digit split in two as well (a digit
     * the normal form merged from two results: (x floordiv s*t) above (x floordiv s) mod t) */
    IopLeaf *v[2], *w = arena_alloc(&p->arena, (IOP_MAX_DIGITS + 1) * sizeof *w);
    int n[2];
    for (int split = 0; split < 2; split++) {
        v[split] = arena_alloc(&p->arena, IOP_MAX_DIGITS * sizeof *v[split]);
        if ((n[split] = result_digits(p, m, syn, axes, rank, split, v[split], why)) < 0)
            return NULL;
        const char *text = search_cuts(&S, v[split], n[split]);
        if (text)
            return text;
    }
    for (int split = 0; split < 2; split++)
        for (int j = 0; j < n[split] && n[split] < IOP_MAX_DIGITS; j++)
            for (uint64_t t = 2; t < v[split][j].count && S.decisions < MAX_DECISIONS && S.reads < MAX_READS; t++) {
                const IopLeaf *g = &v[split][j];
                if (g->count % t)
                    continue;
                memcpy(w, v[split], (size_t)j * sizeof *w);
                w[j] = (IopLeaf){g->axis, u64_sat_mul(g->stride, t), g->count / t, u64_sat_mul(g->weight, t),
                                 g->padded, 0};
                w[j + 1] = (IopLeaf){g->axis, g->stride, t, g->weight, g->padded, 0};
                memcpy(&w[j + 2], &v[split][j + 1], (size_t)(n[split] - j - 1) * sizeof *w);
                const char *text = search_cuts(&S, w, n[split] + 1);
                if (text)
                    return text;
            }
    *why = S.first ? S.first : "no grouping of its digits into results fits its digits' weights";
    return NULL;
}

const QSyntax iop_affine_syntax = {"floordiv", "mod", "ceildiv", "the affine map", "dimension"};
const QSyntax iop_tvm_syntax = {"//", "%", NULL, "the index map", "parameter"};
