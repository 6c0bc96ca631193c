/* desc_prop.c — property tests of layout descriptors on seeded random descriptors: the mapping's
 * cells agree with the direct offset formula everywhere, the generated inverse (E_offset) and the
 * interpreter's element_offset agree with it, and recognition round-trips.
 * usage: desc_prop [SEED [COUNT]]   (defaults 20261130, 300 programs) */
#include "codegen/codegen.h"
#include "desc/desc.h"
#include "eval/eval.h"
#include "front/front.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static Rng rng; /* seeded from SEED */
static int coverage[8]; /* tags seen: outer 1..3 at [1..3], inner 1..4 at [4..7] (index tag+3) */
static int deepest, nondiv, recognized, reordered, jit_checked;

/* Strides that no mapping expression rejects: dimensions in a random order, each starting at
 * or past the footprint of the previous ones (sometimes with a gap). n[i] are the extents. */
static uint64_t *rep_strides(Arena *a, int r, const uint64_t *n, bool gaps, uint64_t *footprint)
{
    uint64_t *s = arena_alloc(a, (size_t)r * sizeof *s);
    int ord[16];
    for (int i = 0; i < r; i++)
        ord[i] = i;
    for (int i = r - 1; i > 0; i--) {
        int j = (int)rng_below(&rng, (uint64_t)i + 1), t = ord[i];
        ord[i] = ord[j];
        ord[j] = t;
    }
    uint64_t f = 1;
    for (int k = 0; k < r; k++) {
        int i = ord[k];
        if (n[i] == 1) {
            s[i] = rng_below(&rng, 4);
            continue;
        }
        s[i] = f + (gaps && rng_below(&rng, 3) == 0 ? rng_below(&rng, 3) + 1 : 0);
        f += (n[i] - 1) * s[i];
    }
    *footprint = f;
    return s;
}

/* A random tiled level over extents s (rank r) at depth (1 = outermost). */
static DescLevel *gen_level(Arena *a, int r, const uint64_t *s, int depth, int maxdepth)
{
    DescLevel *L = arena_alloc(a, sizeof *L);
    L->tile = arena_alloc(a, (size_t)r * sizeof *L->tile);
    uint64_t g[16], te = 1;
    for (int i = 0; i < r; i++) {
        uint64_t t;
        switch (rng_below(&rng, depth < maxdepth ? 5 : 4)) {
        case 0: t = s[i]; break;                         /* one tile */
        case 1: t = 1; break;
        case 2: t = 1 + rng_below(&rng, s[i] + 1); break;          /* anything, up to one past the extent */
        default: {                                       /* a divisor */
            uint64_t d[16];
            int nd = 0;
            for (uint64_t x = 1; x <= s[i] && nd < 16; x++)
                if (s[i] % x == 0)
                    d[nd++] = x;
            t = d[rng_below(&rng, (uint64_t)nd)];
        }
        }
        L->tile[i] = t;
        g[i] = s[i] / t + (s[i] % t != 0);
        if (s[i] % t)
            nondiv++;
        te *= t;
    }
    uint64_t f;
    L->outer = (DescOrder)(1 + rng_below(&rng, 3));
    if (L->outer == DESC_STRIDED)
        L->outer_strides = rep_strides(a, r, g, true, &f);
    L->inner = (DescOrder)(1 + rng_below(&rng, depth < maxdepth ? 4 : 3));
    if (maxdepth == DESC_MAX_DEPTH && depth < maxdepth && rng_below(&rng, 8) != 0)
        L->inner = DESC_NESTED; /* deep mode: nest all the way down, mostly */
    if (L->inner == DESC_STRIDED) {
        L->inner_strides = rep_strides(a, r, L->tile, true, &f);
        if (f > te) /* a gap would spill out of the tile: none then */
            L->inner_strides = rep_strides(a, r, L->tile, false, &f);
    }
    if (L->inner == DESC_NESTED)
        L->nested = gen_level(a, r, L->tile, depth + 1, maxdepth);
    coverage[L->outer]++;
    coverage[L->inner + 3]++;
    if (depth > deepest)
        deepest = depth;
    return L;
}

/* Whether recognition must succeed: always, but for axes of extent 1 (see below) and for a
 * nested tile larger than its parent's on some axis (a level of pure padding, invisible in the
 * digits). */
static bool recognizable(const Desc *d)
{
    /* axes of extent 1 vanish from the mapping (with none left, no shape is recoverable); when
     * tiles pad them, only anonymous paddings 1 # n remain, which no descriptor names */
    bool some = false;
    for (int i = 0; i < d->rank; i++) {
        some |= d->extent[i] > 1;
        for (const DescLevel *L = d->kind == DESC_KIND_TILED ? d->tiled : NULL; L && d->extent[i] == 1; L = L->nested)
            if (L->tile[i] > 1)
                return false;
    }
    if (!some)
        return false;
    for (const DescLevel *L = d->kind == DESC_KIND_TILED ? d->tiled : NULL; L && L->nested; L = L->nested)
        for (int i = 0; i < d->rank; i++)
            if (L->nested->tile[i] > L->tile[i])
                return false;
    return true;
}

/* One case: every position holds a live cell at its direct offset or pad(top), every index once. */
static void check_cells(Prog *p, Evaluator *ev, const Desc *d, const Map *m, const char *text)
{
    uint64_t size = 0;
    if (!desc_size(d, &size) || size != m->size) {
        FAIL("%s: size %llu, mapping size %llu", text, (unsigned long long)size, (unsigned long long)m->size);
        return;
    }
    Cell c = {.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    uint64_t idx[16], live = 0, want = 1;
    for (int i = 0; i < d->rank; i++)
        want *= d->extent[i];
    char why[256] = ""; /* the first problem */
    for (uint64_t q = 0; q < m->size && !why[0]; q++) {
        if (eval_cell(ev, m, q, &c) != EVAL_OK) {
            snprintf(why, sizeof why, "position %llu undecided: %s", (unsigned long long)q, eval_error(ev));
        } else if (c.kind == CELL_LIVE) {
            for (int i = 0; i < d->rank; i++)
                idx[i] = c.coord[d->axes[i]];
            uint64_t off = 0;
            if (!desc_offset(d, idx, &off) || off != q)
                snprintf(why, sizeof why, "position %llu holds an index whose direct offset is %llu",
                         (unsigned long long)q, (unsigned long long)off);
            live++;
        } else if (c.kind != CELL_PAD_TOP) {
            snprintf(why, sizeof why, "position %llu is neither an element nor pad(top) (kind %d)",
                     (unsigned long long)q, c.kind);
        }
    }
    if (!why[0] && live != want)
        snprintf(why, sizeof why, "%llu live positions for %llu indices", (unsigned long long)live,
                 (unsigned long long)want);
    free(c.coord);
    CHECK(!why[0], "%s: %s", text, why);
}

/* Four random indices through the interpreter's element_offset and (with jit) the JIT's E_offset, each
 * one case, up to the first failure. */
static void check_inverse(Prog *p, Evaluator *ev, const Desc *d, const Map *m, const char *name, Jit *jit,
                          const char *text)
{
    char sym[64];
    snprintf(sym, sizeof sym, "%s_offset", name);
    int64_t (*fn)(const int64_t *) = NULL;
    if (jit) {
        *(void **)&fn = jit_lookup(jit, sym);
        if (!CHECK(fn != NULL, "%s: JIT symbol %s", text, sym))
            return;
    }
    int64_t *coords = calloc((size_t)p->naxes + 1, sizeof *coords);
    bool ok = true;
    for (int k = 0; k < 4 && ok; k++) {
        uint64_t idx[16], off, pos;
        for (int i = 0; i < d->rank; i++) {
            idx[i] = rng_below(&rng, d->extent[i]);
            coords[d->axes[i]] = (int64_t)idx[i];
        }
        desc_offset(d, idx, &off);
        ok = CHECK(desc_element_offset(p, ev, d, m, idx, &pos) == 1, "%s: element_offset (interpreter) finds the index",
                   text) &&
             CHECK_EQ_U64(pos, off, "%s: element_offset (interpreter) against the direct offset", text);
        if (fn) {
            jit_checked++;
            ok = CHECK_EQ_I64(fn(coords), off, "%s: E_offset against the direct offset", text) && ok;
        }
    }
    free(coords);
}

/* desc -> m![...] -> desc: the recognized descriptor's mapping is equivalent, and its printed
 * text parses back to an equivalent mapping. */
static void check_roundtrip(Prog *p, Evaluator *ev, const Desc *d, const Map *m, int serial, const char *text)
{
    const char *note, *why;
    const Desc *r = desc_recognize(p, m, &note, &why);
    if (!r) {
        CHECK(!recognizable(d), "%s: not recognized: %s", text, why);
        return;
    }
    recognized++;
    char buf[4096];
    desc_format(p, r, buf, sizeof buf);
    /* the same layout with its shape reversed, and rotated by one: always expressible, and verified */
    for (int k = 0; k < 2 && r->rank > 1; k++) {
        int order[DESC_MAX_RANK];
        for (int i = 0; i < r->rank; i++)
            order[i] = r->axes[k ? (i + 1) % r->rank : r->rank - 1 - i];
        const char *rnote = note;
        const Desc *x = desc_reorder(p, m, r, order, r->rank, &rnote);
        CHECK(x != r && x->axes[0] == order[0], "%s: %s with its shape %s verifies", text, buf, k ? "rotated" : "reversed");
        reordered += x != r;
    }
    char src[4200];
    snprintf(src, sizeof src, "type R%d = %s;\n", serial, buf);
    int before = p->diags.count;
    prog_parse(p, "<roundtrip>", src, strlen(src));
    char rname[32];
    snprintf(rname, sizeof rname, "R%d", serial);
    const Name *n = prog_lookup(p, rname);
    if (!CHECK(p->diags.count == before && n && n->map, "%s: recognized as %s, which parses back", text, buf))
        return;
    EqvResult e = {.c1.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t)),
                   .c2.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    CHECK(eqv_exhaustive(ev, m, n->map, UINT64_MAX, &e) == EVAL_OK && e.verdict == EQV_EQUIVALENT,
          "%s: recognized as %s, which is equivalent", text, buf);
    free(e.c1.coord);
    free(e.c2.coord);
}

/* One program: a few axes and several descriptors over them. */
static void one_program(int prog_no, int ntypes, bool use_jit)
{
    Prog *p = prog_new();
    int naxes = 1 + (int)rng_below(&rng, 3);
    char src[512];
    size_t len = (size_t)snprintf(src, sizeof src, "axes![");
    for (int a = 0; a < naxes; a++)
        len += (size_t)snprintf(src + len, sizeof src - len, "%sX%d = %llu", a ? ", " : "", a,
                                (unsigned long long)(1 + rng_below(&rng, naxes == 1 ? 24 : naxes == 2 ? 9 : 5)));
    snprintf(src + len, sizeof src - len, "];\n");
    harness_context("%.*s", (int)strlen(src) - 1, src); /* the axes declaration, in every failure */
    if (prog_parse(p, "<axes>", src, strlen(src))) {
        FAIL("program %d: axes do not parse", prog_no);
        prog_free(p);
        return;
    }
    const Desc **descs = calloc((size_t)ntypes, sizeof *descs);
    char **texts = calloc((size_t)ntypes, sizeof *texts);
    for (int t = 0; t < ntypes; t++) {
        for (int attempt = 0;; attempt++) {
            Desc *d = arena_alloc(&p->arena, sizeof *d);
            d->rank = 1 + (int)rng_below(&rng, (uint64_t)naxes);
            d->axes = arena_alloc(&p->arena, (size_t)d->rank * sizeof *d->axes);
            d->extent = arena_alloc(&p->arena, (size_t)d->rank * sizeof *d->extent);
            int perm[3] = {0, 1, 2};
            for (int i = naxes - 1; i > 0; i--) {
                int j = (int)rng_below(&rng, (uint64_t)i + 1), x = perm[i];
                perm[i] = perm[j];
                perm[j] = x;
            }
            for (int i = 0; i < d->rank; i++) {
                d->axes[i] = perm[i];
                d->extent[i] = p->axes[perm[i]].size;
            }
            uint64_t f;
            if (rng_below(&rng, 5) == 0) {
                d->kind = DESC_KIND_STRIDED;
                d->strides = rep_strides(&p->arena, d->rank, d->extent, true, &f);
            } else {
                d->kind = DESC_KIND_TILED;
                int maxdepth = rng_below(&rng, 4) == 0 ? DESC_MAX_DEPTH : 1 + (int)rng_below(&rng, 3);
                d->tiled = gen_level(&p->arena, d->rank, d->extent, 1, maxdepth);
            }
            uint64_t size;
            if (desc_size(d, &size) && size <= 3000) {
                descs[t] = d;
                break;
            }
            if (attempt > 100) {
                FAIL("program %d: cannot generate a small descriptor", prog_no);
                prog_free(p);
                return;
            }
        }
        size_t n = desc_format(p, descs[t], NULL, 0);
        texts[t] = malloc(n + 32);
        len = (size_t)snprintf(texts[t], n + 32, "type D%d = ", t);
        desc_format(p, descs[t], texts[t] + len, n + 1);
        strcat(texts[t], ";\n");
        if (!CHECK(prog_parse(p, "<gen>", texts[t], strlen(texts[t])) == 0, "the descriptor converts: %s",
                   texts[t])) {
            char buf[512];
            diag_format(p->diags.head, buf, sizeof buf);
            harness_detail("%s", buf);
            prog_free(p);
            return;
        }
    }
    Jit *jit = NULL;
    if (use_jit) {
        Diags d;
        Arena a = {0};
        diags_init(&d, &a);
        CgOptions opt = {.opt_level = 0};
        jit = jit_new(p, &opt, &d);
        char buf[512] = "";
        if (!jit && d.head)
            diag_format(d.head, buf, sizeof buf);
        CHECK(jit != NULL, "program %d: the JIT compiles it: %s", prog_no, buf);
        arena_free(&a);
    }
    Evaluator *ev = eval_new(p);
    for (int t = 0; t < ntypes; t++) {
        char name[16];
        snprintf(name, sizeof name, "D%d", t);
        const Map *m = prog_lookup(p, name)->map;
        check_cells(p, ev, descs[t], m, texts[t]);
        if (use_jit && jit)
            check_inverse(p, ev, descs[t], m, name, jit, texts[t]);
        else if (t == 0)
            check_inverse(p, ev, descs[t], m, name, NULL, texts[t]);
        check_roundtrip(p, ev, descs[t], m, t, texts[t]);
        free(texts[t]);
    }
    eval_free(ev);
    if (jit)
        jit_free(jit);
    free(descs);
    free(texts);
    prog_free(p);
}

int main(int argc, char **argv)
{
    HarnessArgs a = {.seed = 20261130, .count = 300};
    harness_args(argc, argv, "[SEED [COUNT]]", &a);
    harness_report_limit(20);
    rng = rng_seeded(a.seed);
    int count = (int)a.count;
    for (int i = 0; i < count; i++)
        one_program(i, 8, i % 10 == 0);
    harness_context(NULL);
    /* coverage: every tag, deep nesting and non-divisible tiles must have been generated */
    static const char *const tag[] = {"", "outer row-major", "outer column-major", "outer strided",
                                      "inner row-major", "inner column-major", "inner strided", "inner tiled"};
    for (int k = 1; k < 8; k++)
        CHECK(coverage[k] > 0, "coverage: %s generated", tag[k]);
    CHECK(deepest >= DESC_MAX_DEPTH, "coverage: deepest nesting generated is %d, at least %d", deepest,
          DESC_MAX_DEPTH);
    CHECK(nondiv > 0, "coverage: a non-divisible tile generated");
    CHECK(reordered > 0, "coverage: a recognized descriptor reordered");
    printf("seed %llu: %d programs, %d recognized round trips (%d reordered shapes), %d indices through E_offset, "
           "deepest nesting %d, %d non-divisible tiles\n", (unsigned long long)a.seed, count, recognized, reordered,
           jit_checked, deepest, nondiv);
    return harness_report();
}
