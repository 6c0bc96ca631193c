/* interop_prop.c — property tests of the layouts of other systems on seeded generated layouts: each format's
 * meaning computed here from its documentation (CuTe's L(c) = sum c_i * d_i over colexicographic coordinates,
 * Triton's XOR of bases, affine floordiv/mod arithmetic laid out row-major, the TVM lambda) agrees with the
 * cells mapc reads the literal as, or mapc's refusal is right (two coordinates at one offset); every export
 * reads back equivalent (import . export is the identity up to equivalence, in every format that has a form);
 * and mapc's equivalence verdict between two imported layouts (a layout and the same one written otherwise, or
 * one moved a little: a CuTe mode split or a stride moved, Triton bases re-split or swapped, an affine map in
 * TVM's syntax or a coefficient moved) agrees with comparing their meanings.
 * usage: interop_prop [SEED [COUNT]]   (defaults 20261202 and 1500 layouts; MAPC_INTEROP_COUNT=N sets the
 * default COUNT, MAPC_TEST_COUNT lowers it) */
#include "algebra/algebra.h"
#include "front/front.h"
#include "harness.h"
#include "interop/interop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXAX 4
#define MAXSUB 12
#define MAXPOS (1 << 14)

static Rng rng;
static const char *const axis_name[MAXAX + 1] = {"A", "B", "C", "D", "O"};
static uint64_t exported[IOP_FORMATS], refused_right, accepted, verdicts_equal, verdicts_differ;

/* A generated layout: its literal, the axes it is over, and its meaning: cell[p] for p < size, each
 * (kind, coordinates), computed from the format's documentation; `collide` when two indices share a
 * position (the literal must then be refused as not injective), `interleaved` when the layout is injective
 * but mapc's class refuses it (CuTe and affine digits that interleave). */
typedef struct Layout {
    char lit[2048];
    int naxes;          /* axes A.. (and O for a tiler: tiler set) */
    uint64_t axis[MAXAX + 1];
    bool tiler;
    bool collide, interleaved;
    uint64_t size;
    int kind[MAXPOS];   /* 0 live, 1 pad(top) */
    uint64_t coord[MAXPOS][MAXAX + 1];
} Layout;

static void cat(char *buf, const char *fmt, ...) HARNESS_PRINTF(2, 3);
static void cat(char *buf, const char *fmt, ...)
{
    size_t n = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, 2048 - n, fmt, ap);
    va_end(ap);
}

/* The axis list "[A, B]" of the layout's axes. */
static void axis_list(char *buf, const Layout *L)
{
    cat(buf, "[");
    for (int i = 0; i < L->naxes; i++)
        cat(buf, "%s%s", i ? ", " : "", L->tiler ? "O" : axis_name[i]);
    cat(buf, "]");
}

/* Starts a buffer-view meaning of `size` positions, all pad(top). */
static void holes(Layout *L, uint64_t size)
{
    L->size = size;
    for (uint64_t p = 0; p < size; p++)
        L->kind[p] = 1;
}

/* Records index x (naxes coordinates) at position p of a buffer view; marks collisions. */
static void place(Layout *L, uint64_t p, const uint64_t *x)
{
    if (L->kind[p] == 0)
        L->collide = true;
    L->kind[p] = 0;
    memcpy(L->coord[p], x, sizeof L->coord[p]);
}

/* ---- CuTe ---- */

typedef struct Cute {
    int rank, nsub[MAXAX];
    uint64_t shape[MAXAX][MAXSUB], stride[MAXAX][MAXSUB];
} Cute;

/* One mode's entries as "t" or "(t0, t1)". */
static void cute_mode(char *buf, const uint64_t *v, int n)
{
    if (n == 1) {
        cat(buf, "%llu", (unsigned long long)v[0]);
        return;
    }
    cat(buf, "(");
    for (int k = 0; k < n; k++)
        cat(buf, "%s%llu", k ? ", " : "", (unsigned long long)v[k]);
    cat(buf, ")");
}

static void cute_text(char *buf, const Cute *c, bool pycute)
{
    for (int half = 0; half < 2; half++) {
        if (half)
            cat(buf, pycute ? ", " : " : ");
        cat(buf, "(");
        for (int i = 0; i < c->rank; i++) {
            if (i)
                cat(buf, ", ");
            cute_mode(buf, half ? c->stride[i] : c->shape[i], c->nsub[i]);
        }
        cat(buf, c->rank == 1 ? ",)" : ")");
    }
}

/* Random shapes; strides that chain (each sub-mode past the span of the ones with smaller strides, gaps now
 * and then) or, when wild, anything from 0 to 6. */
static void gen_cute(Cute *c, bool wild, uint64_t *total)
{
    c->rank = 1 + (int)rng_below(&rng, 3);
    int order[MAXAX * MAXSUB][2], n = 0;
    *total = 1;
    for (int i = 0; i < c->rank; i++) {
        c->nsub[i] = 1 + (int)rng_below(&rng, 3);
        for (int k = 0; k < c->nsub[i]; k++) {
            c->shape[i][k] = 1 + rng_below(&rng, 4);
            *total *= c->shape[i][k];
            order[n][0] = i;
            order[n++][1] = k;
        }
    }
    for (int j = n - 1; j > 0; j--) {
        int r = (int)rng_below(&rng, (uint64_t)j + 1), t0 = order[j][0], t1 = order[j][1];
        order[j][0] = order[r][0];
        order[j][1] = order[r][1];
        order[r][0] = t0;
        order[r][1] = t1;
    }
    uint64_t foot = 1;
    for (int j = 0; j < n; j++) {
        int i = order[j][0], k = order[j][1];
        uint64_t t = c->shape[i][k];
        if (wild)
            c->stride[i][k] = rng_below(&rng, 7);
        else if (t == 1)
            c->stride[i][k] = rng_below(&rng, 5);
        else
            c->stride[i][k] = foot + (rng_below(&rng, 3) == 0 ? 1 + rng_below(&rng, 2) : 0);
        if (t > 1 && !wild)
            foot += (t - 1) * c->stride[i][k];
    }
}

/* The coordinates of colexicographic index i: sub-coordinate (m, k) into sub[m][k], and each mode's 1-D
 * coordinate (colexicographic within the mode) into x[m]; returns the offset sum c * d. */
static uint64_t cute_at(const Cute *c, uint64_t i, uint64_t *x)
{
    uint64_t off = 0;
    for (int m = 0; m < c->rank; m++) {
        uint64_t w = 1;
        x[m] = 0;
        for (int k = 0; k < c->nsub[m]; k++) {
            uint64_t v = i % c->shape[m][k];
            i /= c->shape[m][k];
            off += v * c->stride[m][k];
            x[m] += v * w;
            w *= c->shape[m][k];
        }
    }
    return off;
}

static bool chains(const uint64_t *w, const uint64_t *cnt, int n);

/* Whether the sub-modes chain by stride (mapc's class); for an injective layout that does not, mapc refuses
 * as interleaved. */
static bool cute_chains(const Cute *c)
{
    uint64_t st[MAXAX * MAXSUB], sz[MAXAX * MAXSUB];
    int n = 0;
    for (int m = 0; m < c->rank; m++)
        for (int k = 0; k < c->nsub[m]; k++) {
            st[n] = c->stride[m][k];
            sz[n++] = c->shape[m][k];
        }
    return chains(st, sz, n);
}

/* The literal and meaning of CuTe layout c (the tiler view over an offset axis `extra` past its cosize);
 * false when it is too large to enumerate. */
static bool build_cute(Layout *L, const Cute *c, bool tiler, bool pycute, bool named, uint64_t extra)
{
    uint64_t total = 1, cosize = 1, x[MAXAX + 1];
    for (int m = 0; m < c->rank; m++)
        for (int k = 0; k < c->nsub[m]; k++)
            total *= c->shape[m][k];
    if (total > MAXPOS)
        return false;
    for (uint64_t i = 0; i < total; i++) {
        uint64_t off = cute_at(c, i, x);
        if (off + 1 > cosize)
            cosize = off + 1;
    }
    if (cosize > MAXPOS)
        return false;
    memset(L, 0, offsetof(Layout, kind));
    L->tiler = tiler;
    snprintf(L->lit, sizeof L->lit, "%s![", tiler ? "cute_tiler" : "cute");
    if (pycute)
        cat(L->lit, "Layout(");
    cute_text(L->lit, c, pycute);
    cat(L->lit, pycute ? ")]" : "]");
    if (tiler) {
        L->naxes = 1;
        L->axis[0] = cosize + extra;
        L->size = total;
        for (uint64_t i = 0; i < total; i++) {
            L->kind[i] = 0;
            memset(L->coord[i], 0, sizeof L->coord[i]);
            L->coord[i][0] = cute_at(c, i, x);
        }
    } else {
        L->naxes = c->rank;
        for (int m = 0; m < c->rank; m++) {
            L->axis[m] = 1;
            for (int k = 0; k < c->nsub[m]; k++)
                L->axis[m] *= c->shape[m][k];
        }
        holes(L, cosize);
        for (uint64_t i = 0; i < total; i++) {
            uint64_t xx[MAXAX + 1] = {0};
            place(L, cute_at(c, i, xx), xx);
        }
        L->interleaved = !L->collide && !cute_chains(c);
    }
    if (tiler || named)
        axis_list(L->lit, L);
    return true;
}

static bool layout_cute(Layout *L, Cute *c, bool tiler)
{
    uint64_t total;
    gen_cute(c, tiler || rng_below(&rng, 4) == 0, &total);
    bool pycute = rng_below(&rng, 3) == 0, named = rng_below(&rng, 2); /* drawn in order: one stream per seed */
    uint64_t extra = rng_below(&rng, 4);
    return build_cute(L, c, tiler, pycute, named, extra);
}

/* A layout equal to c or close to it: a sub-mode of size a*b split into (a, b) with strides (d, a*d) (the same
 * layout), or one stride moved by one (usually another). */
static void mutate_cute(Cute *c)
{
    int m = (int)rng_below(&rng, (uint64_t)c->rank), k = (int)rng_below(&rng, (uint64_t)c->nsub[m]);
    uint64_t t = c->shape[m][k];
    if (rng_below(&rng, 2) && t % 2 == 0 && t > 2 && c->nsub[m] < MAXSUB) {
        memmove(&c->shape[m][k + 1], &c->shape[m][k], (size_t)(c->nsub[m] - k) * sizeof c->shape[m][k]);
        memmove(&c->stride[m][k + 1], &c->stride[m][k], (size_t)(c->nsub[m] - k) * sizeof c->stride[m][k]);
        c->nsub[m]++;
        c->shape[m][k] = 2;
        c->shape[m][k + 1] = t / 2;
        c->stride[m][k + 1] = 2 * c->stride[m][k];
    } else if (c->stride[m][k] > 0 && rng_below(&rng, 2)) {
        c->stride[m][k]--;
    } else {
        c->stride[m][k]++;
    }
}

/* ---- Triton ---- */

/* A Triton layout: its bases, bit b minor first, and the split of the bits into register, lane and warp. */
typedef struct Tri {
    int naxes, logs[MAXAX], nbits, cut1, cut2;
    bool attr;
    uint64_t base[16][MAXAX];
} Tri;

/* Axes of 1 to 8 coordinates; each basis zero or a bit no other basis has. */
static void gen_triton(Tri *t)
{
    int bits = 0;
    t->naxes = 1 + (int)rng_below(&rng, 3);
    for (int i = 0; i < t->naxes; i++) {
        t->logs[i] = (int)rng_below(&rng, 4);
        bits += t->logs[i];
    }
    t->nbits = (int)rng_below(&rng, (uint64_t)(bits < 10 ? bits + 3 : 12));
    bool used[MAXAX][8] = {{false}};
    for (int b = 0; b < t->nbits; b++) {
        memset(t->base[b], 0, sizeof t->base[b]);
        if (rng_below(&rng, 4) == 0)
            continue; /* a zero basis: a broadcast */
        for (int tries = 0; tries < 16; tries++) {
            int i = (int)rng_below(&rng, (uint64_t)t->naxes);
            if (!t->logs[i])
                continue;
            int k = (int)rng_below(&rng, (uint64_t)t->logs[i]);
            if (used[i][k])
                continue;
            used[i][k] = true;
            t->base[b][i] = UINT64_C(1) << k;
            break;
        }
    }
    t->cut1 = t->nbits ? (int)rng_below(&rng, (uint64_t)t->nbits + 1) : 0;
    t->cut2 = t->cut1 + (t->nbits - t->cut1 ? (int)rng_below(&rng, (uint64_t)(t->nbits - t->cut1) + 1) : 0);
    t->attr = rng_below(&rng, 2);
}

/* The literal and the meaning of t: position p holds the XOR of the bases of its bits. */
static void build_triton(Layout *L, const Tri *t)
{
    memset(L, 0, offsetof(Layout, kind));
    L->naxes = t->naxes;
    for (int i = 0; i < t->naxes; i++)
        L->axis[i] = UINT64_C(1) << t->logs[i];
    snprintf(L->lit, sizeof L->lit, "triton![%s", t->attr ? "#ttg.linear<{" : "");
    const char *dims[3] = {"register", "lane", "warp"};
    int lo[4] = {0, t->cut1, t->cut2, t->nbits};
    for (int d = 0; d < 3; d++) {
        cat(L->lit, "%s%s = [", d ? ", " : "", dims[d]);
        for (int b = lo[d]; b < lo[d + 1]; b++) {
            cat(L->lit, "%s[", b > lo[d] ? ", " : "");
            for (int i = 0; i < L->naxes; i++)
                cat(L->lit, "%s%llu", i ? ", " : "", (unsigned long long)t->base[b][i]);
            cat(L->lit, "]");
        }
        cat(L->lit, "]");
    }
    cat(L->lit, "%s]", t->attr ? "}>" : "");
    axis_list(L->lit, L);
    L->size = UINT64_C(1) << t->nbits;
    for (uint64_t p = 0; p < L->size; p++) {
        L->kind[p] = 0;
        memset(L->coord[p], 0, sizeof L->coord[p]);
        for (int b = 0; b < t->nbits; b++)
            if (p >> b & 1)
                for (int i = 0; i < L->naxes; i++)
                    L->coord[p][i] ^= t->base[b][i];
    }
}

/* The same layout with its bits split otherwise among register, lane and warp, or two bases swapped (another
 * layout unless they are equal). */
static void mutate_triton(Tri *t)
{
    if (t->nbits >= 2 && rng_below(&rng, 2)) {
        int a = (int)rng_below(&rng, (uint64_t)t->nbits), b = (int)rng_below(&rng, (uint64_t)t->nbits);
        uint64_t x[MAXAX];
        memcpy(x, t->base[a], sizeof x);
        memcpy(t->base[a], t->base[b], sizeof x);
        memcpy(t->base[b], x, sizeof x);
    } else {
        t->cut1 = t->nbits ? (int)rng_below(&rng, (uint64_t)t->nbits + 1) : 0;
        t->cut2 = t->cut1;
    }
}

/* ---- Affine maps and index maps ---- */

/* A digit of dimension dim: (x floordiv s) mod m (m 0: none), times coef in its result. */
typedef struct QDig {
    int dim;
    uint64_t s, m, coef;
} QDig;

static uint64_t qvalue(const QDig *d, uint64_t x) { return d->m ? x / d->s % d->m : x / d->s; }

static uint64_t qcount(const QDig *d, uint64_t n)
{
    uint64_t q = (n + d->s - 1) / d->s;
    return d->m && d->m < q ? d->m : q;
}

/* The digit's text: "x", "x floordiv 4", "x mod 4", "(x floordiv 4) mod 2", or the TVM spellings. */
static void qdig_text(char *buf, const QDig *d, const char *name, bool tvm)
{
    const char *div = tvm ? "//" : "floordiv", *mod = tvm ? "%" : "mod";
    if (d->s > 1 && d->m)
        cat(buf, "(%s %s %llu) %s %llu", name, div, (unsigned long long)d->s, mod, (unsigned long long)d->m);
    else if (d->s > 1)
        cat(buf, "%s %s %llu", name, div, (unsigned long long)d->s);
    else if (d->m)
        cat(buf, "%s %s %llu", name, mod, (unsigned long long)d->m);
    else
        cat(buf, "%s", name);
}

/* Whether digits of counts cnt[] at weights w[] (n of them) chain: by weight, each past the span of the
 * lighter ones (mapc's class); a zero weight of a count over 1 never does. */
static bool chains(const uint64_t *w, const uint64_t *cnt, int n)
{
    uint64_t foot = 1;
    bool done[3 * MAXAX * MAXSUB] = {false};
    for (int k = 0; k < n; k++) {
        int best = -1;
        for (int j = 0; j < n; j++)
            if (!done[j] && cnt[j] > 1 && (best < 0 || w[j] < w[best]))
                best = j;
        if (best < 0)
            break;
        done[best] = true;
        if (w[best] < foot)
            return false;
        foot += (cnt[best] - 1) * w[best];
    }
    return true;
}

/* An affine map or index map: its digits d (in results start[r] .. start[r+1]), over axes of the given sizes. */
typedef struct Qaff {
    int naxes, nd, nres;
    uint64_t axis[MAXAX];
    QDig d[3 * MAXAX];
    int start[3 * MAXAX + 1];
    bool named;
} Qaff;

/* Axes of 1 to 10 coordinates split into one to three digits, shuffled into consecutive results whose
 * coefficients chain from the minor digit up (gaps now and then), or, wild, are anything from 0 to 5. */
static void gen_qaff(Qaff *q)
{
    q->naxes = 1 + (int)rng_below(&rng, 3);
    q->nd = 0;
    for (int i = 0; i < q->naxes; i++) {
        q->axis[i] = 1 + rng_below(&rng, 10);
        uint64_t t = 2 + rng_below(&rng, 3);
        switch (rng_below(&rng, 3)) {
        case 0:
            q->d[q->nd++] = (QDig){i, 1, 0, 1};
            break;
        case 1:
            q->d[q->nd++] = (QDig){i, t, 0, 1};
            q->d[q->nd++] = (QDig){i, 1, t, 1};
            break;
        default: {
            uint64_t t2 = 2 + rng_below(&rng, 2);
            q->d[q->nd++] = (QDig){i, 1, t, 1};
            q->d[q->nd++] = (QDig){i, t, t2, 1};
            q->d[q->nd++] = (QDig){i, t * t2, 0, 1};
        }
        }
    }
    for (int j = q->nd - 1; j > 0; j--) {
        int r = (int)rng_below(&rng, (uint64_t)j + 1);
        QDig x = q->d[j];
        q->d[j] = q->d[r];
        q->d[r] = x;
    }
    bool wild = rng_below(&rng, 5) == 0;
    q->nres = 0;
    for (int j = 0; j < q->nd; j++)
        if (j == 0 || rng_below(&rng, 2))
            q->start[q->nres++] = j;
    q->start[q->nres] = q->nd;
    for (int r = 0; r < q->nres; r++) {
        uint64_t foot = 1;
        for (int j = q->start[r + 1] - 1; j >= q->start[r]; j--) {
            uint64_t cnt = qcount(&q->d[j], q->axis[q->d[j].dim]);
            q->d[j].coef = wild ? rng_below(&rng, 6) : foot + (rng_below(&rng, 4) == 0 ? rng_below(&rng, 2) + 1 : 0);
            if (!wild)
                foot += q->d[j].coef * (cnt - 1);
        }
    }
    q->named = rng_below(&rng, 2);
}

/* The literal (affine![...] or, tvm, index_map![...]) and the meaning of q: every index's results, extents
 * (largest + 1), row-major positions; false when it is too large to enumerate. */
static bool build_qaff(Layout *L, const Qaff *q, bool tvm)
{
    memset(L, 0, offsetof(Layout, kind));
    L->naxes = q->naxes;
    memcpy(L->axis, q->axis, sizeof q->axis);
    const QDig *d = q->d;
    const int *start = q->start;
    int nres = q->nres, nd = q->nd;
    uint64_t total = 1, ext[3 * MAXAX];
    for (int i = 0; i < L->naxes; i++)
        total *= L->axis[i];
    for (int r = 0; r < nres; r++)
        ext[r] = 1;
    uint64_t x[MAXAX + 1];
    for (int pass = 0; pass < 2; pass++) {
        uint64_t size = 1;
        for (int r = 0; r < nres; r++)
            size *= ext[r];
        if (pass == 1) {
            if (size > MAXPOS)
                return false;
            holes(L, size);
        }
        for (uint64_t k = 0; k < total; k++) {
            uint64_t rem = k, pos = 0;
            memset(x, 0, sizeof x);
            for (int i = L->naxes - 1; i >= 0; i--) {
                x[i] = rem % L->axis[i];
                rem /= L->axis[i];
            }
            for (int r = 0; r < nres; r++) {
                uint64_t v = 0;
                for (int j = start[r]; j < start[r + 1]; j++)
                    v += d[j].coef * qvalue(&d[j], x[d[j].dim]);
                if (pass == 0 && v + 1 > ext[r])
                    ext[r] = v + 1;
                pos = pos * ext[r] + v;
            }
            if (pass == 1)
                place(L, pos, x);
        }
    }
    /* mapc's class: the digits chain by their position weights (coefficient times the result's row-major
     * weight); an injective map whose digits do not is refused as interleaved */
    uint64_t w[3 * MAXAX], cnt[3 * MAXAX], rw = 1;
    for (int r = nres - 1; r >= 0; r--) {
        for (int j = start[r]; j < start[r + 1]; j++) {
            w[j] = d[j].coef * rw;
            cnt[j] = qcount(&d[j], L->axis[d[j].dim]);
        }
        rw *= ext[r];
    }
    L->interleaved = !L->collide && !chains(w, cnt, nd);
    /* the text, dimensions named after the axes or d0.. with an axis list */
    char dim[MAXAX][16];
    for (int i = 0; i < L->naxes; i++)
        if (q->named)
            snprintf(dim[i], sizeof dim[i], "%s", axis_name[i]);
        else
            snprintf(dim[i], sizeof dim[i], "%c%d", tvm ? 'i' : 'd', i);
    snprintf(L->lit, sizeof L->lit, tvm ? "index_map![lambda " : "affine![(");
    for (int i = 0; i < L->naxes; i++)
        cat(L->lit, "%s%s", i ? ", " : "", dim[i]);
    cat(L->lit, tvm ? ": (" : ") -> (");
    for (int r = 0; r < nres; r++) {
        cat(L->lit, "%s", r ? ", " : "");
        for (int j = start[r]; j < start[r + 1]; j++) {
            if (j > start[r])
                cat(L->lit, " + ");
            if (d[j].coef != 1)
                cat(L->lit, "%llu * (", (unsigned long long)d[j].coef);
            qdig_text(L->lit, &d[j], dim[d[j].dim], tvm);
            if (d[j].coef != 1)
                cat(L->lit, ")");
        }
    }
    cat(L->lit, "%s)]", tvm && nres == 1 ? "," : "");
    if (!q->named)
        axis_list(L->lit, L);
    return true;
}

/* One coefficient moved by one (usually another layout; perhaps one mapc refuses). */
static void mutate_qaff(Qaff *q)
{
    int j = (int)rng_below(&rng, (uint64_t)q->nd);
    q->d[j].coef += q->d[j].coef > 1 && rng_below(&rng, 2) ? (uint64_t)-1 : 1;
}

/* ---- The checks ---- */

/* A program declaring the layout's axes; the caller parses its types into it. */
static Prog *program(const Layout *L)
{
    char text[512] = "axes![";
    for (int i = 0; i < L->naxes; i++)
        cat(text, "%s%s = %llu", i ? ", " : "", L->tiler ? "O" : axis_name[i], (unsigned long long)L->axis[i]);
    cat(text, "];\n");
    Prog *p = prog_new();
    prog_parse(p, "<axes>", text, strlen(text));
    return p;
}

/* Parses "type NAME = LIT;" into p: the mapping, or NULL with the first new diagnostic in *msg. */
static const Map *define(Prog *p, const char *name, const char *lit, const char **msg)
{
    char text[8192];
    int len = snprintf(text, sizeof text, "type %s = %s;\n", name, lit);
    if (len < 0 || (size_t)len >= sizeof text) {
        *msg = "the literal is longer than the test's buffer";
        return NULL;
    }
    int before = p->diags.count;
    prog_parse(p, name, text, strlen(text));
    *msg = NULL;
    if (p->diags.count > before) {
        const Diag *d = p->diags.head;
        for (int i = 0; i < before; i++)
            d = d->next;
        *msg = d->msg;
        return NULL;
    }
    const Name *n = prog_lookup(p, name);
    return n ? n->map : NULL;
}

/* Whether m's cells are the meaning of L at every position (the first difference into *bad). */
static bool same_cells(Prog *p, const Map *m, const Layout *L, uint64_t *bad)
{
    if (m->size != L->size) {
        *bad = UINT64_MAX;
        return false;
    }
    Evaluator *ev = eqv_evaluator_new(p);
    Cell c = {.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    bool ok = true;
    for (uint64_t q = 0; q < L->size && ok; q++) {
        ok = eval_cell(ev, m, q, &c) == EVAL_OK && (int)c.kind == (L->kind[q] ? CELL_PAD_TOP : CELL_LIVE);
        for (int i = 0; i < L->naxes && ok && !L->kind[q]; i++)
            ok = c.coord[i] == L->coord[q][i];
        if (!ok)
            *bad = q;
    }
    free(c.coord);
    eqv_evaluator_free(ev);
    return ok;
}

static bool contains(const char *s, const char *w) { return s && strstr(s, w); }

/* The literal that reads export text back: KIND![text][axes], or for MLIR's strided<[a, b]> the
 * strided![shape: [axes], strides: [a, b]] it means. The axes are the mapping's, in declaration order. */
static void reread(char *buf, size_t cap, Prog *p, const Map *m, IopFormat f, const char *text)
{
    bool *used = calloc((size_t)p->naxes + 1, sizeof *used);
    map_mark_axes(m, used);
    char axes[256] = "";
    for (int a = 0; a < p->naxes; a++)
        if (used[a])
            snprintf(axes + strlen(axes), sizeof axes - strlen(axes), "%s%s", axes[0] ? ", " : "", p->axes[a].name);
    free(used);
    if (f == IOP_STRIDED) {
        const char *open = strchr(text, '['), *close = strchr(text, ']');
        snprintf(buf, cap, "strided![shape: [%s], strides: [%.*s]]", axes, (int)(close - open - 1), open + 1);
    } else {
        snprintf(buf, cap, "%s![%s][%s]", iop_literal_name(f), text, axes);
    }
}

/* Exports m to every format: each text read back must be equivalent to m (decided) and have L's meaning
 * (enumerated); the literal's own format must have a form. */
static void round_trips(Prog *p, const Map *m, const Layout *L, IopFormat own)
{
    for (int f = 0; f < IOP_FORMATS; f++) {
        IopOptions o = {0, 0, 0};
        if (f == IOP_TRITON && rng_below(&rng, 2) && m->size >= 4)
            o.lanes = 2, o.warps = m->size >= 8 ? 2 : 0;
        const char *why = NULL, *text = iop_export(p, m, (IopFormat)f, &o, &why);
        bool *used = calloc((size_t)p->naxes + 1, sizeof *used), any = false;
        map_mark_axes(m, used);
        for (int k = 0; k < p->naxes; k++)
            any |= used[k];
        free(used);
        /* the literal's own format has a form, unless the cells hold no axis at all (m![4]) */
        if (f == (int)own && any && !CHECK(text != NULL, "%s exports to its own format", L->lit))
            harness_detail("%s", why);
        if (!text)
            continue;
        exported[f]++;
        char lit[4096], name[16];
        reread(lit, sizeof lit, p, m, (IopFormat)f, text);
        snprintf(name, sizeof name, "R%d", f);
        const char *msg;
        const Map *r = define(p, name, lit, &msg);
        if (!CHECK(r != NULL, "%s exported as %s reads back", L->lit, lit)) {
            harness_detail("%s", msg);
            continue;
        }
        Eqv *q = eqv_new(p);
        EqvResult res = {.c1.coord = calloc((size_t)p->naxes + 1, 8), .c2.coord = calloc((size_t)p->naxes + 1, 8)};
        eqv_decide(q, m, r, &res);
        CHECK(res.verdict == EQV_EQUIVALENT, "%s exported as %s is equivalent (verdict %d)", L->lit, lit, res.verdict);
        free(res.c1.coord);
        free(res.c2.coord);
        eqv_free(q);
        uint64_t bad = 0;
        if (!CHECK(same_cells(p, r, L, &bad), "%s exported as %s has the layout's meaning", L->lit, lit))
            harness_detail("first difference at position %llu", (unsigned long long)bad);
    }
}

/* One literal against its meaning: refused exactly when it is not injective (or, injective, interleaved),
 * else the same cells, then the round trips. The mapping, or NULL when refused. */
static const Map *check_layout(Prog *p, const char *name, const Layout *L, IopFormat own, bool trips)
{
    const char *msg;
    const Map *m = define(p, name, L->lit, &msg);
    if (L->collide) {
        CHECK(!m && contains(msg, "not injective"), "%s (not injective) is refused as such: %s", L->lit,
              msg ? msg : "(accepted)");
        refused_right += !m;
        return NULL;
    }
    if (L->interleaved) {
        CHECK(!m && contains(msg, "interleaved"), "%s (injective, interleaved) is refused as such: %s", L->lit,
              msg ? msg : "(accepted)");
        refused_right += !m;
        return NULL;
    }
    if (!CHECK(m != NULL, "%s is read", L->lit)) {
        harness_detail("%s", msg);
        return NULL;
    }
    accepted++;
    uint64_t bad = 0;
    if (!CHECK(same_cells(p, m, L, &bad), "%s has its documented meaning", L->lit))
        harness_detail("first difference at position %llu (size %llu vs %llu)", (unsigned long long)bad,
                       (unsigned long long)m->size, (unsigned long long)L->size);
    else if (trips)
        round_trips(p, m, L, own);
    return m;
}

/* mapc's verdict on two imported layouts against comparing their meanings. */
static void check_verdict(Prog *p, const Map *a, const Map *b, const Layout *La, const Layout *Lb)
{
    bool same = La->size == Lb->size;
    for (uint64_t q = 0; q < La->size && same; q++) {
        same = La->kind[q] == Lb->kind[q];
        for (int i = 0; i < La->naxes && same && !La->kind[q]; i++)
            same = La->coord[q][i] == Lb->coord[q][i];
    }
    Eqv *q = eqv_new(p);
    EqvResult res = {.c1.coord = calloc((size_t)p->naxes + 1, 8), .c2.coord = calloc((size_t)p->naxes + 1, 8)};
    eqv_decide(q, a, b, &res);
    CHECK((res.verdict == EQV_EQUIVALENT) == same && res.verdict != EQV_UNKNOWN,
          "verdict on %s vs %s: %d, meanings %s", La->lit, Lb->lit, res.verdict, same ? "equal" : "differ");
    verdicts_equal += same;
    verdicts_differ += !same;
    free(res.c1.coord);
    free(res.c2.coord);
    eqv_free(q);
}

int main(int argc, char **argv)
{
    HarnessArgs a = {.seed = 20261202, .count = 1500};
    const char *more = getenv("MAPC_INTEROP_COUNT");
    if (more && *more)
        a.count = strtoull(more, NULL, 10);
    harness_args(argc, argv, "[SEED [COUNT [FIRST]]]", &a);
    Layout *L = malloc(sizeof *L), *L2 = malloc(sizeof *L2);
    for (uint64_t i = a.first; i < a.first + a.count; i++) {
        harness_case(i);
        rng = rng_seeded(rng_case_seed(a.seed, i, RNG_KEY_CASE));
        int kind = (int)(i % 5);
        IopFormat own = kind == 0 ? IOP_CUTE : kind == 1 ? IOP_CUTE_TILER : kind == 2 ? IOP_TRITON
                      : kind == 3 ? IOP_AFFINE : IOP_INDEX_MAP;
        Cute c;
        Tri t;
        Qaff q;
        memset(L, 0, offsetof(Layout, kind));
        bool ok = true;
        if (kind <= 1)
            ok = layout_cute(L, &c, kind == 1);
        else if (kind == 2)
            gen_triton(&t), build_triton(L, &t);
        else
            gen_qaff(&q), ok = build_qaff(L, &q, kind == 4);
        if (!ok)
            continue;
        Prog *p = program(L);
        const Map *m = check_layout(p, "L", L, own, true);
        /* a second layout over the same axes, equal or close, for the verdict: a CuTe layout with a mode split
         * or a stride moved, a Triton layout split otherwise or with two bases swapped, an affine map in TVM's
         * syntax (or the reverse) or with a coefficient moved */
        if (m) {
            bool built;
            if (kind <= 1) {
                Cute c2 = c;
                mutate_cute(&c2);
                built = build_cute(L2, &c2, kind == 1, false, true, 0);
                if (built && kind == 1)
                    L2->axis[0] = L->axis[0];
            } else if (kind == 2) {
                Tri t2 = t;
                mutate_triton(&t2);
                build_triton(L2, &t2);
                built = true;
            } else {
                Qaff q2 = q;
                bool other = rng_below(&rng, 2);
                if (!other)
                    mutate_qaff(&q2);
                built = build_qaff(L2, &q2, other ? kind == 3 : kind == 4);
            }
            bool fits = built && L2->naxes == L->naxes;
            for (int k = 0; k < L->naxes && fits; k++)
                fits = L2->axis[k] == L->axis[k];
            if (kind == 1)
                for (uint64_t r = 0; r < L2->size && fits; r++)
                    fits = L2->coord[r][0] < L->axis[0];
            const Map *m2 = fits ? check_layout(p, "L2", L2, own, false) : NULL;
            if (m2)
                check_verdict(p, m, m2, L, L2);
        }
        prog_free(p);
    }
    free(L);
    free(L2);
    printf("%llu layouts read, %llu refused as they should be; exports (cute, cute-tiler, triton, affine, strided, "
           "index-map):", (unsigned long long)accepted, (unsigned long long)refused_right);
    for (int f = 0; f < IOP_FORMATS; f++)
        printf(" %llu", (unsigned long long)exported[f]);
    printf("; verdicts: %llu equal, %llu different\n", (unsigned long long)verdicts_equal,
           (unsigned long long)verdicts_differ);
    return harness_report();
}
