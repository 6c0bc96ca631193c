/* cover.c — a static proof that one mapping holds every index another holds, from their digits alone:
 * the question behind copy statements, DMA and kernel operands (is every destination cell reachable?). */
#include "algebra.h"

#include <stdlib.h>

/* Records the digits of a mapping whose bases are all symbols, or padded symbols: per axis, a
 * bitmask-free list of (stride, count) pairs. A padded symbol A # P counts as A: below |A| its
 * coordinate is A's, and a coordinate the proof picks is always below |A|. Returns false for what
 * the static coverage check does not handle: other composite bases, or a resize that truncates
 * (some coordinates then have no position). */
typedef struct CopyDigit {
    int axis;
    uint64_t stride, count;
} CopyDigit;

/* The axis of a digit's base that is a symbol, padded any number of times; -1 for other bases. */
static int copy_base_axis(const Map *x)
{
    while (x->kind == MAP_PAD)
        x = x->l;
    return x->kind == MAP_SYM ? x->axis : -1;
}

static bool copy_digits(const Map *m, CopyDigit *d, int *n, int cap)
{
    switch (m->kind) {
    case MAP_BCAST:
        return true;
    case MAP_SYM:
    case MAP_STRIDE:
    case MAP_MOD: {
        uint64_t s;
        int axis = copy_base_axis(map_digit_root(m, &s));
        if (axis < 0 || *n == cap)
            return false;
        d[(*n)++] = (CopyDigit){axis, s, m->size};
        return true;
    }
    case MAP_RESIZE:
        if (m->l->kind == MAP_SYM || m->l->kind == MAP_STRIDE || m->l->kind == MAP_MOD) {
            /* the first n values of one digit (a tile): positions 0..n-1 are exactly those values */
            if (!copy_digits(m->l, d, n, cap))
                return false;
            d[*n - 1].count = m->n;
            return true;
        }
        return m->n == m->l->size && copy_digits(m->l, d, n, cap);
    case MAP_PAD:
        return copy_digits(m->l, d, n, cap);
    case MAP_PAIR:
        return copy_digits(m->l, d, n, cap) && copy_digits(m->r, d, n, cap);
    }
    return false;
}

/* Static proof that every live cell of dst has a source position: for every axis dst mentions,
 * src's digits of it chain from stride 1 (strides 1, m1, m1·m2, ...) far enough to hold every
 * coordinate dst can hold: the whole axis, or, when dst is made of digits of axes only, one more
 * than the largest sum of dst's digits of that axis (a tile). Each such coordinate then has a
 * position: its mixed-radix digits in the chain, every other digit 0. */
bool cover_proved(const Prog *p, const Map *src, const Map *dst)
{
    enum { CAP = 256 };
    CopyDigit d[CAP], dd[CAP];
    int n = 0, nd = 0;
    if (!copy_digits(src, d, &n, CAP))
        return false;
    bool dst_digits = copy_digits(dst, dd, &nd, CAP);
    bool *used = mem_calloc((size_t)p->naxes + 1, sizeof *used);
    map_mark_axes(dst, used);
    bool ok = true;
    for (int a = 0; a < p->naxes && ok; a++) {
        if (!used[a] || p->axes[a].size == 1)
            continue;
        uint64_t next = 1; /* the stride the next digit must start at */
        for (;;) {
            int found = -1;
            for (int i = 0; i < n; i++)
                if (d[i].axis == a && d[i].stride == next && d[i].count > 1)
                    found = i;
            if (found < 0)
                break;
            next *= d[found].count; /* <= the axis size: a digit never exceeds its base */
        }
        uint64_t need = p->axes[a].size;
        if (dst_digits) {
            need = 1;
            for (int i = 0; i < nd; i++)
                if (dd[i].axis == a)
                    need = u64_sat_add(need, u64_sat_mul(dd[i].count - 1, dd[i].stride));
            if (need > p->axes[a].size)
                need = p->axes[a].size;
        }
        ok = next >= need;
    }
    free(used);
    return ok;
}


/* A digit for the overflow proof: its base (the symbol node's axis, and the padded node when the base is a
 * padded symbol, NULL for the symbol itself), stride and count. */
typedef struct BaseDigit {
    int axis;
    const Map *padded;
    uint64_t stride, count;
} BaseDigit;

static bool base_digits(const Map *m, BaseDigit *d, int *n, int cap)
{
    switch (m->kind) {
    case MAP_BCAST:
        return true;
    case MAP_SYM:
    case MAP_STRIDE:
    case MAP_MOD: {
        uint64_t s;
        const Map *x = map_digit_root(m, &s), *padded = x->kind == MAP_PAD ? x : NULL;
        while (x->kind == MAP_PAD)
            x = x->l;
        if (x->kind != MAP_SYM || *n == cap)
            return false;
        d[(*n)++] = (BaseDigit){x->axis, padded, s, m->size};
        return true;
    }
    case MAP_RESIZE: /* the first n values: a digit's values only get smaller */
    case MAP_PAD:
        return base_digits(m->l, d, n, cap);
    case MAP_PAIR:
        return base_digits(m->l, d, n, cap) && base_digits(m->r, d, n, cap);
    }
    return false;
}

bool cover_no_overflow(const Prog *p, const Map *m)
{
    (void)p;
    enum { CAP = 256 };
    BaseDigit d[CAP];
    int n = 0;
    if (!base_digits(m, d, &n, CAP))
        return false;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i == j || d[i].axis != d[j].axis)
                continue;
            if (d[i].padded != d[j].padded)
                return false; /* two bases of one axis: their coordinates add after decoding */
            /* disjoint ranges of one base: the one below ends where the other begins, or before */
            bool below = d[i].stride * d[i].count <= d[j].stride, above = d[j].stride * d[j].count <= d[i].stride;
            if (!below && !above)
                return false;
        }
    return true; /* each axis: disjoint digits of one base, whose values sum below the base's size */
}
