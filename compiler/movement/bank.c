/* bank.c — the DM bank run of a sequencer's accesses (docs/movement.md), from per-bank run summaries composed over the loop nest. */
#include "mv_impl.h"

#include <stdlib.h>
#include <string.h>

enum { BANKS = 16, PERIOD_BITS = 1024 }; /* 16 banks of 8 bytes: the bank pattern repeats every 128 bytes */

/* The runs of one access sequence, per bank: how many accesses at its start (pre) and its end (suf) touch the
 * bank, the longest run anywhere (best), and the length. Concatenation is associative. */
typedef struct Sum {
    uint64_t pre[BANKS], suf[BANKS], best[BANKS], len;
} Sum;

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t m = a > b ? a : b;
    return m > c ? m : c;
}

/* a := a followed by b. */
static void concat(Sum *a, const Sum *b)
{
    for (int k = 0; k < BANKS; k++) {
        uint64_t pre = a->pre[k] == a->len ? u64_sat_add(a->len, b->pre[k]) : a->pre[k];
        uint64_t suf = b->suf[k] == b->len ? u64_sat_add(b->len, a->suf[k]) : b->suf[k];
        a->best[k] = max3(a->best[k], b->best[k], u64_sat_add(a->suf[k], b->pre[k]));
        a->pre[k] = pre;
        a->suf[k] = suf;
    }
    a->len = u64_sat_add(a->len, b->len);
}

static void empty(Sum *s) { memset(s, 0, sizeof *s); }

/* s := s repeated times times (times >= 1), by squaring. */
static void power(Sum *s, uint64_t times)
{
    Sum base = *s, acc;
    empty(&acc);
    for (; times; times >>= 1) {
        if (times & 1)
            concat(&acc, &base);
        Sum sq = base;
        concat(&sq, &base);
        base = sq;
    }
    *s = acc;
}

typedef struct Walk {
    const MvEntry *e;
    int n;
    unsigned bits;
    uint64_t span_bits[2]; /* the bits one access covers: [0] strided, [1] broadcast innermost */
    Sum **memo;            /* [level * PERIOD_BITS + offset] */
} Walk;

/* The summary of the accesses of the loops from level on, starting at bit offset off (mod 128 bytes). */
static const Sum *summary(Walk *w, int level, uint64_t off)
{
    Sum **slot = &w->memo[(size_t)level * PERIOD_BITS + off];
    if (*slot)
        return *slot;
    Sum *s = mem_alloc(sizeof *s);
    empty(s);
    if (level == w->n) {
        uint64_t span = w->span_bits[w->n > 0 && w->e[w->n - 1].s == 0];
        uint64_t first = off / 8, last = (off + span - 1) / 8;
        bool hit[BANKS] = {false};
        for (uint64_t byte = first; byte <= last && byte < first + 8 * BANKS; byte++)
            hit[(byte >> 3) & (BANKS - 1)] = true;
        for (int k = 0; k < BANKS; k++)
            s->pre[k] = s->suf[k] = s->best[k] = hit[k];
        s->len = 1;
        *slot = s;
        return s;
    }
    uint64_t n = w->e[level].n;
    uint64_t step = (uint64_t)w->e[level].s % PERIOD_BITS * w->bits % PERIOD_BITS;
    uint64_t period = 1;
    while (period < n && (off + period * step) % PERIOD_BITS != off)
        period++;
    /* one period of children, repeated, then the rest (the offsets of a period return to off) */
    for (uint64_t k = 0; k < period && k < n; k++)
        concat(s, summary(w, level + 1, (off + k * step) % PERIOD_BITS));
    if (n > period) {
        power(s, n / period);
        for (uint64_t k = 0; k < n % period; k++)
            concat(s, summary(w, level + 1, (off + k * step) % PERIOD_BITS));
    }
    *slot = s;
    return s;
}

uint64_t mv_bank_run(const MvEntry *e, int n, uint64_t read_size, unsigned bits)
{
    /* the access sequence: the innermost loop steps by read_size positions */
    MvEntry acc[MV_MAX_RAW];
    memcpy(acc, e, (size_t)n * sizeof *e);
    if (n > 0 && read_size > 1) {
        acc[n - 1].s *= (int64_t)read_size;
        acc[n - 1].n /= read_size;
    }
    Walk w = {acc, n, bits, {read_size * bits, bits}, NULL};
    w.memo = mem_calloc((size_t)(n + 1) * PERIOD_BITS, sizeof *w.memo);
    const Sum *s = summary(&w, 0, 0);
    uint64_t best = 0;
    for (int k = 0; k < BANKS; k++)
        if (s->best[k] > best)
            best = s->best[k];
    for (size_t i = 0; i < (size_t)(n + 1) * PERIOD_BITS; i++)
        free(w.memo[i]);
    free(w.memo);
    return best;
}
