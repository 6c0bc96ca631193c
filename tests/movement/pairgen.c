/* pairgen.c — seeded generator of buffer/stream mapping pairs for the sequencer's property tests. */
#include "pairgen.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char *const axis_names[] = {"A", "B", "C"};

/* Appends to buf[cap] like printf. */
static void __attribute__((format(printf, 3, 4))) add(char *buf, size_t cap, const char *fmt, ...)
{
    size_t n = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, cap - n, fmt, ap);
    va_end(ap);
}

/* A random ordered factorization of n into digits (sizes major first, each >= 2 unless n is 1), at most 4. */
static int factorize(Rng *r, uint64_t n, uint64_t *d)
{
    int k = 0;
    while (n > 1 && k < 3) {
        uint64_t divs[32];
        int nd = 0;
        for (uint64_t q = 2; q < n && nd < 32; q++)
            if (n % q == 0)
                divs[nd++] = q;
        if (nd == 0 || rng_below(r, 3) == 0)
            break;
        uint64_t q = divs[rng_below(r, (uint64_t)nd)];
        d[k++] = q; /* a major digit of size q; the rest is minor */
        n /= q;
    }
    d[k++] = n;
    return k;
}

/* The text of digit (stride s, count m) of an axis of size size. */
static void digit(char *out, size_t cap, const char *axis, uint64_t s, uint64_t m, uint64_t size)
{
    out[0] = 0;
    if (s == 1 && m == size)
        add(out, cap, "%s", axis);
    else if (s == 1)
        add(out, cap, "%s %% %llu", axis, (unsigned long long)m);
    else if (s * m == size)
        add(out, cap, "%s / %llu", axis, (unsigned long long)s);
    else
        add(out, cap, "%s / %llu %% %llu", axis, (unsigned long long)s, (unsigned long long)m);
}

typedef struct Term {
    char text[96];
} Term;

static void shuffle(Rng *r, Term *t, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_below(r, (uint64_t)i + 1);
        Term x = t[i];
        t[i] = t[j];
        t[j] = x;
    }
}

/* Decorates a term with a resize or a padding now and then (stream: top or zero padding, resizes; buffer: any
 * kind, resizes); size is the term's size. */
static void decorate(Rng *r, Term *t, uint64_t size, int stream)
{
    static const char *const kinds[] = {"#", "#{0}", "#{!}"};
    uint64_t pick = rng_below(r, 16);
    if (pick == 0 && size > 2) {
        add(t->text, sizeof t->text, " = %llu", (unsigned long long)(size - 1 - rng_below(r, size - 2)));
    } else if (pick <= 2) {
        const char *k = pick == 2 ? "#" : kinds[rng_below(r, stream ? 2 : 3)];
        add(t->text, sizeof t->text, " %s %llu", k, (unsigned long long)(size + 1 + rng_below(r, size)));
    }
}

void pairgen(Rng *r, Pair *c, uint64_t max_buf, int big)
{
    int naxes = 1 + (int)rng_below(r, 3);
    uint64_t size[3];
    uint64_t total = 1;
    static const uint64_t sizes[] = {2, 3, 4, 6, 8, 12, 16, 24, 32};
    for (int a = 0; a < naxes; a++) {
        size[a] = sizes[rng_below(r, sizeof sizes / sizeof *sizes)];
        if (total * size[a] > max_buf / 4)
            size[a] = 2;
        total *= size[a];
    }
    if (big)
        size[0] = 65536 * 2 * (1 + rng_below(r, 2));
    uint64_t tsize = 2 + rng_below(r, 3);
    snprintf(c->program, sizeof c->program, "axes![");
    for (int a = 0; a < naxes; a++)
        add(c->program, sizeof c->program, "%s = %llu, ", axis_names[a], (unsigned long long)size[a]);
    add(c->program, sizeof c->program, "T = %llu];\n", (unsigned long long)tsize);
    /* the buffer: every axis as digits, permuted, perhaps with a broadcast, decorated */
    Term bt[16], st[16];
    int nb = 0, ns = 0;
    for (int a = 0; a < naxes; a++) {
        uint64_t d[4];
        bool whole = big && a == 0; /* the axis over 65536 stays one digit on both sides */
        int k = whole ? 1 : factorize(r, size[a], d);
        if (whole)
            d[0] = size[a];
        uint64_t s = size[a];
        for (int i = 0; i < k; i++) {
            s /= d[i];
            digit(bt[nb].text, sizeof bt[nb].text, axis_names[a], s, d[i], size[a]);
            if (!whole)
                decorate(r, &bt[nb], d[i], 0);
            nb++;
        }
        /* the stream: this axis split its own way (or the same), rarely missing a digit */
        if (rng_below(r, 3) != 0 && !whole)
            k = factorize(r, size[a], d);
        uint64_t s2 = size[a];
        for (int i = 0; i < k; i++) {
            s2 /= d[i];
            if (rng_below(r, 40) == 0)
                continue;
            digit(st[ns].text, sizeof st[ns].text, axis_names[a], s2, d[i], size[a]);
            if (!whole)
                decorate(r, &st[ns], d[i], 1);
            ns++;
        }
    }
    if (rng_below(r, 6) == 0)
        snprintf(bt[nb++].text, sizeof bt[0].text, "%llu", (unsigned long long)(2 + rng_below(r, 2)));
    if (rng_below(r, 5) == 0)
        snprintf(st[ns++].text, sizeof st[0].text, "T");
    if (rng_below(r, 8) == 0)
        snprintf(st[ns++].text, sizeof st[0].text, "%llu", (unsigned long long)(2 + rng_below(r, 2)));
    shuffle(r, bt, nb);
    if (rng_below(r, 4) != 0)
        shuffle(r, st, ns);
    snprintf(c->buf, sizeof c->buf, "m![");
    for (int i = 0; i < nb; i++)
        add(c->buf, sizeof c->buf, "%s%s", i ? ", " : "", bt[i].text);
    add(c->buf, sizeof c->buf, "]");
    int cut = ns ? (int)rng_below(r, (uint64_t)ns + 1) : 0;
    snprintf(c->time, sizeof c->time, "m![");
    snprintf(c->packet, sizeof c->packet, "m![");
    for (int i = 0; i < ns; i++) {
        char *dst = i < cut ? c->time : c->packet;
        size_t cap = i < cut ? sizeof c->time : sizeof c->packet;
        int first = i == 0 || i == cut;
        add(dst, cap, "%s%s", first ? "" : ", ", st[i].text);
    }
    add(c->time, sizeof c->time, "%s]", cut == 0 ? "1" : "");
    add(c->packet, sizeof c->packet, "%s]", cut == ns ? "1" : "");
}
