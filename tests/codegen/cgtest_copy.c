/* cgtest_copy.c — checks a JIT-compiled copy kernel against the reference interpreter: whole, in parts (each
 * part writing positions no other part writes) and in parts on two threads at once. */
#include "cgtest.h"
#include "harness.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { KEEP = -1, ZERO = -2, POISON_A = 0xA5, POISON_B = 0x5A };

static uint64_t hash_coords(const uint64_t *c, int n)
{
    uint64_t h = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < n; i++) {
        h ^= c[i] + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
        h *= 0xbf58476d1ce4e5b9u;
    }
    return h ^ (h >> 31);
}

int64_t *cgtest_copy_expected(const Prog *p, Evaluator *ev, const Copy *c, char *why, size_t cap)
{
    int na = p->naxes;
    uint64_t ns = c->src->size, nd = c->dst->size, slots = 16;
    while (slots < 2 * ns)
        slots *= 2;
    uint64_t *key = malloc((size_t)(slots * (uint64_t)(na + 1)) * sizeof *key);
    int64_t *at = malloc((size_t)slots * sizeof *at), *want = malloc((size_t)(nd + 1) * sizeof *want);
    Cell cell = {.coord = calloc((size_t)na + 1, sizeof(uint64_t))};
    memset(at, 0xff, (size_t)slots * sizeof *at); /* -1: empty */
    why[0] = 0;
    for (uint64_t q = 0; q < ns && !why[0]; q++) {
        if (eval_cell(ev, c->src, q, &cell) != EVAL_OK)
            snprintf(why, cap, "the interpreter cannot evaluate source position %llu", (unsigned long long)q);
        if (cell.kind != CELL_LIVE)
            continue;
        uint64_t h = hash_coords(cell.coord, na) & (slots - 1);
        while (at[h] >= 0 && memcmp(&key[h * (uint64_t)na], cell.coord, (size_t)na * sizeof *key) != 0)
            h = (h + 1) & (slots - 1);
        if (at[h] < 0) { /* the smallest source position of the index */
            at[h] = (int64_t)q;
            memcpy(&key[h * (uint64_t)na], cell.coord, (size_t)na * sizeof *key);
        }
    }
    for (uint64_t pos = 0; pos < nd && !why[0]; pos++) {
        if (eval_cell(ev, c->dst, pos, &cell) != EVAL_OK)
            snprintf(why, cap, "the interpreter cannot evaluate destination position %llu", (unsigned long long)pos);
        want[pos] = cell.kind == CELL_PAD_ZERO ? ZERO : KEEP;
        if (cell.kind != CELL_LIVE)
            continue;
        uint64_t h = hash_coords(cell.coord, na) & (slots - 1);
        while (at[h] >= 0 && memcmp(&key[h * (uint64_t)na], cell.coord, (size_t)na * sizeof *key) != 0)
            h = (h + 1) & (slots - 1);
        if (at[h] < 0)
            snprintf(why, cap, "destination position %llu has no source but the copy was accepted",
                     (unsigned long long)pos);
        want[pos] = at[h];
    }
    free(key);
    free(at);
    free(cell.coord);
    if (why[0]) {
        free(want);
        return NULL;
    }
    return want;
}

typedef void (*PartFn)(void *dst, const void *src, uint64_t part, uint64_t nparts);

typedef struct PartRun {
    PartFn fn;
    void *dst;
    const void *src;
    uint64_t part, nparts;
} PartRun;

static void *run_part(void *arg)
{
    PartRun *r = arg;
    r->fn(r->dst, r->src, r->part, r->nparts);
    return NULL;
}

/* The first position of dst (nd elements of es bytes) that differs from want over src, or "" (why). */
static void compare(const unsigned char *dst, const unsigned char *src, const int64_t *want, uint64_t nd, unsigned es,
                    int poison, char *why, size_t cap)
{
    for (uint64_t pos = 0; pos < nd; pos++) {
        unsigned char w[8];
        memset(w, want[pos] == ZERO ? 0 : poison, sizeof w);
        if (want[pos] >= 0)
            memcpy(w, src + (uint64_t)want[pos] * es, es);
        if (memcmp(dst + pos * es, w, es) != 0) {
            snprintf(why, cap, "destination position %llu wrong (%s)", (unsigned long long)pos,
                     want[pos] >= 0 ? "live" : want[pos] == ZERO ? "pad(zero): 0 expected" : "must stay untouched");
            return;
        }
    }
}

bool cgtest_check_copy(const Prog *p, Jit *j, const Copy *c, const int64_t *want, CgtestRun how, int shift,
                       const char *label)
{
    unsigned es = (unsigned)elem_type_size(c->elem);
    uint64_t ns = c->src->size, nd = c->dst->size;
    size_t bytes = (size_t)(nd * es + 64 * 2);
    unsigned char *src = malloc((size_t)(ns * es) + 1), *bufa = aligned_alloc(64, (bytes + 63) / 64 * 64),
                  *bufb = aligned_alloc(64, (bytes + 63) / 64 * 64);
    unsigned char *dst = bufa + (size_t)shift * es, *dstb = bufb + (size_t)shift * es;
    for (uint64_t q = 0; q < ns * es; q++)
        src[q] = (unsigned char)(q * 131 + 7 + (q >> 8) * 17);
    char why[256] = "";
    char name[600];
    snprintf(name, sizeof name, "%s_part", c->name);
    void (*whole)(void *, const void *) = (void (*)(void *, const void *))jit_lookup(j, c->name);
    PartFn part = (PartFn)jit_lookup(j, name);
    memset(bufa, POISON_A, bytes);
    if (!whole || !part) {
        snprintf(why, sizeof why, "the JIT has no %.100s or its _part", c->name);
    } else if (how == CGTEST_WHOLE) {
        whole(dst, src);
        compare(dst, src, want, nd, es, POISON_A, why, sizeof why);
    } else if (how == CGTEST_THREADS) {
        PartRun r[2] = {{part, dst, src, 0, 2}, {part, dst, src, 1, 2}};
        pthread_t t;
        if (pthread_create(&t, NULL, run_part, &r[1]) != 0) {
            run_part(&r[1]);
        } else {
            run_part(&r[0]);
            pthread_join(t, NULL);
            r[0].fn = NULL;
        }
        if (r[0].fn)
            run_part(&r[0]);
        compare(dst, src, want, nd, es, POISON_A, why, sizeof why);
    } else {
        /* three parts, each alone on two poisons: what it writes, which no other part may write */
        enum { NP = 3 };
        signed char *owner = malloc((size_t)nd + 1);
        memset(owner, -1, (size_t)nd + 1);
        for (int k = NP - 1; k >= 0 && !why[0]; k--) {
            memset(bufa, POISON_A, bytes);
            memset(bufb, POISON_B, bytes);
            part(dst, src, (uint64_t)k, NP);
            part(dstb, src, (uint64_t)k, NP);
            for (uint64_t pos = 0; pos < nd && !why[0]; pos++) {
                bool wrote = false;
                for (unsigned e = 0; e < es; e++)
                    wrote = wrote || dst[pos * es + e] != POISON_A || dstb[pos * es + e] != POISON_B;
                if (wrote && owner[pos] >= 0)
                    snprintf(why, sizeof why, "parts %d and %d of %d both write destination position %llu", k,
                             owner[pos], NP, (unsigned long long)pos);
                if (wrote)
                    owner[pos] = (signed char)k;
            }
        }
        for (uint64_t pos = 0; pos < nd && !why[0]; pos++)
            if ((owner[pos] >= 0) != (want[pos] != KEEP))
                snprintf(why, sizeof why, "destination position %llu is %s by the parts", (unsigned long long)pos,
                         owner[pos] >= 0 ? "written (it must stay untouched)" : "never written");
        /* all parts (in reverse order) on one poisoned destination; part NP writes nothing */
        memset(bufa, POISON_A, bytes);
        for (int k = NP; k >= 0 && !why[0]; k--)
            part(dst, src, (uint64_t)k, NP);
        if (!why[0])
            compare(dst, src, want, nd, es, POISON_A, why, sizeof why);
        free(owner);
    }
    /* nothing before the destination's first element or past its last */
    for (size_t i = 0; i < bytes && !why[0]; i++)
        if ((i < (size_t)shift * es || i >= (size_t)shift * es + (size_t)nd * es) && bufa[i] != POISON_A)
            snprintf(why, sizeof why, "byte %lld outside the destination written",
                     (long long)i - (long long)shift * es);
    static const char *const hows[] = {"whole", "in 3 parts", "in 2 parts on 2 threads"};
    bool ok = CHECK(!why[0], "%s: copy %s as %s %s (destination at +%d elements): %s", label, c->name,
                    elem_type_name(c->elem), hows[how], shift, why);
    if (!ok) {
        char b1[2048], b2[2048];
        map_format(p, c->src, b1, sizeof b1);
        map_format(p, c->dst, b2, sizeof b2);
        harness_detail("src %s", b1);
        harness_detail("dst %s", b2);
    }
    free(src);
    free(bufa);
    free(bufb);
    return ok;
}
