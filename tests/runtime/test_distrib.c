/* test_distrib.c — generated distributions of tensors over chips, clusters, slices and elements (docs/language.md §5),
 * checked against the reference interpreter: the static rules (overlap and missing indices reported exactly
 * where an enumeration of the layout finds them), the positions holding an index (mapc where), and DMA
 * between random pairs of distributions of one logical tensor, element by element, replicas included,
 * padding poisoned, on 1 and 2 threads.
 *
 * Usage: test_distrib [SEED [COUNT]] — COUNT distributions (and COUNT / 8 moves). */
#include "algebra/algebra.h"
#include "front/front.h"
#include "harness.h"
#include "prog_text.h"
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

enum { MAX_AXES = 3, MAX_DIGITS = 12, POISON = 0xA5 };

static Rng rng;

static uint64_t below(uint64_t n) { return n ? rng_below(&rng, n) : 0; }

/* ---- generating distributions ---- */

typedef struct GAxis {
    char name;
    uint64_t size, padded;      /* padded > size: the digits are of {PADDED_X} = m![X # padded] */
} GAxis;

typedef struct Digit {
    int axis;                   /* -1: a broadcast (replication) of count */
    uint64_t stride, count;
    int dim;                    /* 0 Chip, 1 Cluster, 2 Slice, 3 Element (HBM: 0 Chip, 3 Element) */
} Digit;

typedef struct Dist {
    MemKind mem;
    Digit d[MAX_DIGITS];
    int n;
    bool foreign;               /* a digit of the axis F replicates the tensor (its axes are named) */
    uint64_t pad[4];            /* a padding of each mapping to this size (0: none) */
    enum { KIND_VALID, KIND_OVERLAP, KIND_PARTIAL } kind;
} Dist;

/* Factors n into a chain of digit counts, major to minor (each > 1; n = 1 has none). */
static int factor_chain(uint64_t n, uint64_t *c)
{
    int k = 0;
    while (n > 1) {
        uint64_t f = n;
        for (uint64_t d = 2; d < n; d++) /* a random divisor, or n itself */
            if (n % d == 0 && below(3) == 0) {
                f = d;
                break;
            }
        c[k++] = f;
        n /= f;
    }
    for (int i = 0; i < k / 2; i++) { /* as drawn: minor digits first; reverse to major first */
        uint64_t t = c[i];
        c[i] = c[k - 1 - i];
        c[k - 1 - i] = t;
    }
    return k;
}

/* A distribution of the axes over the memory's dimensions: each axis (padded when axes[i].padded) cut
 * into digits, each digit placed in a random dimension; then, by kind, one digit claimed twice (overlap)
 * or one dropped (partial); sometimes a broadcast or a foreign axis replicates the tensor, sometimes a
 * mapping is padded. */
static Dist gen_dist(const GAxis *axes, int naxes, MemKind mem, int kind)
{
    Dist s = {.mem = mem, .kind = kind};
    int dims[4] = {0, 1, 2, 3}, ndims = mem == MEM_DM ? 4 : mem == MEM_HBM ? 2 : 1;
    if (mem == MEM_HBM)
        dims[1] = 3;
    if (mem == MEM_HOST)
        dims[0] = 3;
    uint64_t clusters = 1, slices = 1; /* at most 2 clusters and 256 slices */
    for (int a = 0; a < naxes; a++) {
        uint64_t c[16], base = axes[a].padded ? axes[a].padded : axes[a].size;
        int k = factor_chain(base, c);
        uint64_t stride = base;
        for (int i = 0; i < k && s.n < MAX_DIGITS; i++) {
            stride /= c[i];
            int dim = dims[below((uint64_t)ndims)];
            if ((dim == 1 && clusters * c[i] > 2) || (dim == 2 && slices * c[i] > 64))
                dim = 3;
            clusters *= dim == 1 ? c[i] : 1;
            slices *= dim == 2 ? c[i] : 1;
            s.d[s.n++] = (Digit){.axis = a, .stride = stride, .count = c[i], .dim = dim};
        }
    }
    if (mem != MEM_HOST && below(4) == 0 && s.n < MAX_DIGITS) /* replication by a broadcast */
        s.d[s.n++] = (Digit){.axis = -1, .count = 2, .dim = mem == MEM_DM && below(2) ? 2 : 0};
    if (mem != MEM_HOST && below(5) == 0 && s.n < MAX_DIGITS) { /* replication along a foreign axis */
        s.d[s.n++] = (Digit){.axis = MAX_AXES, .stride = 1, .count = 3, .dim = mem == MEM_DM ? 2 : 0};
        s.foreign = true;
    }
    int live[MAX_DIGITS], nlive = 0;
    for (int i = 0; i < s.n; i++)
        if (s.d[i].axis >= 0 && s.d[i].axis < MAX_AXES)
            live[nlive++] = i;
    if (kind == KIND_OVERLAP && nlive && s.n < MAX_DIGITS) {
        Digit twice = s.d[live[below((uint64_t)nlive)]];
        twice.dim = dims[below((uint64_t)ndims)];
        if (twice.dim == 1 && clusters * twice.count > 2)
            twice.dim = 3;
        s.d[s.n++] = twice;
    } else if (kind == KIND_PARTIAL && nlive) {
        int drop = live[below((uint64_t)nlive)];
        s.d[drop] = s.d[--s.n];
    } else if (kind != KIND_VALID) {
        s.kind = KIND_VALID; /* nothing to break: a tensor of size-1 axes */
    }
    for (int lim = 0; lim < 2; lim++) { /* within 2 clusters and 256 slices: move the excess to Element */
        int dim = lim == 0 ? 1 : 2;
        uint64_t cap = lim == 0 ? 2 : 256, prod = 1;
        for (int i = 0; i < s.n; i++)
            if (s.d[i].dim == dim && (prod *= s.d[i].count) > cap) {
                prod /= s.d[i].count;
                s.d[i].dim = 3;
            }
    }
    for (int i = s.n - 1; i > 0; i--) { /* shuffle: the order of digits within each mapping */
        int j = (int)below((uint64_t)i + 1);
        Digit t = s.d[i];
        s.d[i] = s.d[j];
        s.d[j] = t;
    }
    for (int k = 0; k < 4; k++) /* sometimes a mapping padded by 1 to 3 positions (never Cluster: <= 2) */
        if (k != 1 && below(8) == 0)
            s.pad[k] = 1 + below(3);
    return s;
}

/* Appends the mapping of dimension dim of s, as m![...]. */
static char *dim_text(char *out, const Dist *s, const GAxis *axes, int dim)
{
    char body[512] = "";
    uint64_t size = 1;
    bool any = false;
    for (int i = 0; i < s->n; i++) {
        const Digit *d = &s->d[i];
        if (d->dim != dim)
            continue;
        char b[64];
        if (d->axis < 0) {
            snprintf(b, sizeof b, "%llu", U(d->count));
        } else {
            const GAxis *x = d->axis == MAX_AXES ? &(GAxis){'F', 3, 0} : &axes[d->axis];
            uint64_t base = x->padded ? x->padded : x->size;
            char bs[16];
            if (x->padded)
                snprintf(bs, sizeof bs, "{P%c}", x->name);
            else
                snprintf(bs, sizeof bs, "%c", x->name);
            if (d->stride * d->count == base && d->stride == 1)
                snprintf(b, sizeof b, "%s", bs);
            else if (d->stride * d->count == base)
                snprintf(b, sizeof b, "%s / %llu", bs, U(d->stride));
            else if (d->stride == 1)
                snprintf(b, sizeof b, "%s %% %llu", bs, U(d->count));
            else
                snprintf(b, sizeof b, "%s / %llu %% %llu", bs, U(d->stride), U(d->count));
        }
        harness_cat(body, sizeof body, "%s%s", any ? ", " : "", b);
        any = true;
        size *= d->count;
    }
    if (!any)
        strcpy(body, "1");
    if (s->pad[dim])
        return harness_append(out, "m![[%s] # %llu]", body, U(size + s->pad[dim]));
    return harness_append(out, "m![%s]", body);
}

/* "tensor NAME[AXES]: KindTensor<ELEM, MAPS...>;" for s. */
static char *tensor_text(char *out, const char *name, const Dist *s, const GAxis *axes, int naxes, const char *elem)
{
    out = harness_append(out, "tensor %s", name);
    if (s->foreign) {
        out = harness_append(out, "[");
        for (int a = 0; a < naxes; a++)
            out = harness_append(out, "%s%c", a ? ", " : "", axes[a].name);
        out = harness_append(out, "]");
    }
    out = harness_append(out, ": %s<%s", mem_kind_tensor(s->mem), elem);
    static const int order[3][4] = {{3}, {0, 3}, {0, 1, 2, 3}};
    for (int i = 0; i < mem_kind_maps(s->mem); i++) {
        out = harness_append(out, ", ");
        out = dim_text(out, s, axes, order[s->mem][i]);
    }
    return harness_append(out, ">;\n");
}

/* The program declaring the axes (and the padded bases), F, and the tensors. */
static char *program_text(const GAxis *axes, int naxes)
{
    char *t = harness_append(NULL, "axes![");
    for (int a = 0; a < naxes; a++)
        t = harness_append(t, "%c = %llu, ", axes[a].name, U(axes[a].size));
    t = harness_append(t, "F = 3];\n");
    for (int a = 0; a < naxes; a++)
        if (axes[a].padded)
            t = harness_append(t, "type P%c = m![%c # %llu];\n", axes[a].name, axes[a].name, U(axes[a].padded));
    return t;
}

static void gen_axes(GAxis *axes, int *naxes)
{
    static const uint64_t sizes[] = {1, 2, 3, 4, 5, 6, 8, 12};
    *naxes = 1 + (int)below(MAX_AXES);
    for (int a = 0; a < *naxes; a++) {
        axes[a] = (GAxis){.name = (char)('A' + a), .size = sizes[below(8)]};
        if (axes[a].size > 1 && below(5) == 0)
            axes[a].padded = axes[a].size + 1 + below(3); /* an axis cut as a padded composite base */
    }
}

/* ---- the oracle: enumerating a layout with the interpreter ---- */

/* The smallest overflow position of the layout (1 with *pos), or 0. */
static int first_overflow(const Prog *p, Evaluator *ev, const Map *m, uint64_t *pos)
{
    Cell c = {.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    int found = 0;
    for (uint64_t i = 0; i < m->size && !found; i++)
        if (eval_cell(ev, m, i, &c) == EVAL_OK && c.kind == CELL_OVERFLOW) {
            *pos = i;
            found = 1;
        }
    free(c.coord);
    return found;
}

/* The dense row-major number of the index c over the marked axes (every other coordinate ignored). */
static uint64_t dense(const Prog *p, const bool *axes, const uint64_t *c)
{
    uint64_t r = 0;
    for (int a = 0; a < p->naxes; a++)
        if (axes[a])
            r = r * p->axes[a].size + c[a];
    return r;
}

/* Marks in held[] (one entry per dense index) every index a live cell of m holds. */
static void held_indices(const Prog *p, Evaluator *ev, const Map *m, const bool *axes, bool *held)
{
    Cell c = {.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    for (uint64_t i = 0; i < m->size; i++)
        if (eval_cell(ev, m, i, &c) == EVAL_OK && c.kind == CELL_LIVE)
            held[dense(p, axes, c.coord)] = true;
    free(c.coord);
}

/* ---- the rules ---- */

/* The unit text tensor_check uses for layout position pos. */
static void unit_of(char *buf, size_t size, MemKind mem, TensorUnits u, uint64_t pos)
{
    uint64_t e = pos % u.elements, k = pos / u.elements;
    if (mem == MEM_DM)
        snprintf(buf, size, "chip %llu, cluster %llu, slice %llu, element %llu", U(k / u.slices / u.clusters),
                 U(k / u.slices % u.clusters), U(k % u.slices), U(e));
    else if (mem == MEM_HBM)
        snprintf(buf, size, "chip %llu, element %llu", U(k), U(e));
    else
        snprintf(buf, size, "element %llu", U(e));
}

/* One generated distribution: the declaration's verdict against the enumeration, then where for a few
 * indices. */
static void check_rules(uint64_t index)
{
    GAxis axes[MAX_AXES];
    int naxes;
    gen_axes(axes, &naxes);
    MemKind mem = (MemKind)below(3);
    Dist s = gen_dist(axes, naxes, mem, below(10) < 6 ? KIND_VALID : below(2) ? KIND_OVERLAP : KIND_PARTIAL);
    char *text = program_text(axes, naxes);
    text = tensor_text(text, "T", &s, axes, naxes, "f32");
    harness_case(index);
    harness_context("%s", text);
    Prog *q = prog_new();
    int errors = prog_parse(q, "<dist>", text, strlen(text));
    const TensorDecl *td = q->ntensors ? q->tensors[0] : NULL;
    Evaluator *ev = eqv_evaluator_new(q);
    /* the tensor's mappings, parsed one by one (a rejected declaration leaves none) */
    int nm = mem_kind_maps(mem);
    static const int order[3][4] = {{3}, {0, 3}, {0, 1, 2, 3}};
    const Map *tm[4] = {0};
    for (int i = 0; i < nm; i++) {
        char *m = dim_text(NULL, &s, axes, order[mem][i]);
        tm[i] = prog_parse_map(q, "<map>", m);
        free(m);
    }
    bool all_maps = true;
    for (int i = 0; i < nm; i++)
        all_maps &= tm[i] != NULL;
    if (!all_maps) {
        FAIL("the generated mappings parse");
        goto out;
    }
    MapWhy why;
    const Map *layout = tensor_layout(&q->arena, mem, tm, why);
    TensorUnits u = tensor_units(mem, tm);
    /* the tensor's axes: named (A, B, C: F only replicates it), else those its layout uses */
    bool own[8] = {0};
    if (s.foreign)
        for (int a = 0; a < naxes; a++)
            own[a] = true;
    else
        map_mark_axes(layout, own);
    uint64_t over = 0;
    int has_over = first_overflow(q, ev, layout, &over);
    uint64_t total = 1;
    for (int a = 0; a < naxes; a++)
        total *= own[a] ? axes[a].size : 1;
    bool *held = calloc(total + 1, 1);
    held_indices(q, ev, layout, own, held);
    uint64_t missing = total;
    for (uint64_t i = 0; i < total && missing == total; i++)
        if (!held[i])
            missing = i;
    free(held);
    const char *diag = q->diags.head ? q->diags.head->msg : "";
    (void)td;
    if (has_over) {
        char want[192], unit[128];
        unit_of(unit, sizeof unit, mem, u, over);
        snprintf(want, sizeof want, "overflow at %s:", unit);
        CHECK(errors == 1 && strstr(diag, want), "an overflow cell at %s is rejected there: %s", unit, diag);
    } else if (missing < total) {
        char want[160] = "holds index i![";
        uint64_t rest = missing, c[MAX_AXES] = {0};
        for (int a = naxes - 1; a >= 0; a--)
            if (own[a]) {
                c[a] = rest % axes[a].size;
                rest /= axes[a].size;
            }
        bool first = true;
        for (int a = 0; a < naxes; a++)
            if (own[a]) {
                harness_cat(want, sizeof want, "%s%c: %llu", first ? "" : ", ", axes[a].name, U(c[a]));
                first = false;
            }
        harness_cat(want, sizeof want, "] nowhere");
        CHECK(errors == 1 && strstr(diag, want), "the smallest missing index is named (%s): %s", want, diag);
    } else {
        CHECK(errors == 0 && td, "a distribution without overflow or missing index is accepted: %s", diag);
    }
    CHECK(s.kind != KIND_OVERLAP || has_over || s.kind == KIND_VALID, "an overlap case has an overflow cell");
    if (td && !has_over && missing == total) {
        /* where: every position holding a random index, against the enumeration */
        Eqv *e = eqv_new(q);
        Cell c = {.coord = calloc((size_t)q->naxes + 1, sizeof(uint64_t))};
        uint64_t idx[8] = {0}, out[64];
        for (int t = 0; t < 1; t++) {
            for (int a = 0; a < naxes; a++)
                idx[a] = own[a] ? below(axes[a].size) : 0;
            int64_t n = layout_positions(e, layout, own, idx, out, 64);
            uint64_t k = 0;
            bool same = n >= 0;
            for (uint64_t pos = 0; pos < layout->size && same; pos++) {
                if (eval_cell(ev, layout, pos, &c) != EVAL_OK || c.kind != CELL_LIVE)
                    continue;
                bool match = true;
                for (int a = 0; a < naxes; a++)
                    match &= !own[a] || c.coord[a] == idx[a];
                if (!match)
                    continue;
                same = k < 64 ? out[k] == pos : true;
                k++;
            }
            CHECK(same && (int64_t)k == n, "where: %lld positions, the enumeration %llu", (long long)n, U(k));
        }
        free(c.coord);
        eqv_free(e);
    }
out:
    eqv_evaluator_free(ev);
    prog_free(q);
    free(text);
    harness_context("%s", "");
}

/* ---- moves ---- */

/* The byte pattern of element number i (an index's dense number) of size es, never all POISON. */
static void pattern(unsigned char *dst, uint64_t i, size_t es)
{
    uint64_t v = (i + 1) * 0x9E3779B97F4A7C15u;
    for (size_t b = 0; b < es; b++)
        dst[b] = (unsigned char)(v >> (8 * b)) == POISON ? 0x11 : (unsigned char)(v >> (8 * b));
}

/* Checks every position of tensor t (layout m, whose own axes are marked) after a move of the host array
 * host: live cells hold their index's element, pad(zero) 0, other cells the poison. Returns the bad count. */
static uint64_t verify(const Prog *p, Evaluator *ev, RtTensor *t, const bool *own, const unsigned char *host,
                       size_t es)
{
    const Map *m = rt_tensor_map(t);
    const unsigned char *d = rt_tensor_data(t);
    Cell c = {.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    uint64_t bad = 0;
    unsigned char zero[8] = {0}, poison[8];
    memset(poison, POISON, sizeof poison);
    for (uint64_t i = 0; i < m->size; i++) {
        if (eval_cell(ev, m, i, &c) != EVAL_OK) {
            bad++;
            continue;
        }
        const unsigned char *want = c.kind == CELL_LIVE ? host + dense(p, own, c.coord) * es
                                    : c.kind == CELL_PAD_ZERO ? zero : poison;
        bad += memcmp(d + i * es, want, es) != 0;
    }
    free(c.coord);
    return bad;
}

/* Host -> a random distribution -> another one of the same logical tensor -> host, verified at each step. */
static void check_move(uint64_t index)
{
    GAxis axes[MAX_AXES];
    int naxes;
    gen_axes(axes, &naxes);
    static const char *const elems[] = {"f32", "bf16", "i8", "i32", "f64"};
    int ei = (int)below(5);
    Dist a = gen_dist(axes, naxes, (MemKind)below(3), KIND_VALID), b = gen_dist(axes, naxes, (MemKind)below(3), KIND_VALID);
    b.foreign = a.foreign = a.foreign || b.foreign; /* both name their axes, or neither */
    char *text = program_text(axes, naxes);
    text = tensor_text(text, "S", &a, axes, naxes, elems[ei]);
    text = tensor_text(text, "D", &b, axes, naxes, elems[ei]);
    harness_case(index);
    harness_context("%s", text);
    Prog *p = prog_new();
    if (prog_parse(p, "<move>", text, strlen(text)) != 0) {
        /* a padded digit of a broadcast can leave an index out: not a move case */
        prog_free(p);
        free(text);
        harness_context("%s", "");
        return;
    }
    RtConfig cfg = rt_default_config();
    cfg.threads = 1 + (int)(index % 2);
    RtContext *rt = rt_new(p, &cfg);
    RtTensor *s = rt_tensor_declared(rt, "S"), *d = rt_tensor_declared(rt, "D");
    if (!CHECK(s && d, "declared tensors: %s", rt_error(rt)))
        goto out;
    size_t es = elem_type_size(rt_tensor_elem(s));
    uint64_t total = 1;
    for (int i = 0; i < naxes; i++)
        total *= axes[i].size;
    unsigned char *host = malloc(total * es + 1), *back = malloc(total * es + 1);
    for (uint64_t i = 0; i < total; i++)
        pattern(host + i * es, i, es);
    memset(back, POISON, total * es);
    memset(rt_tensor_data(s), POISON, rt_tensor_elems(s) * es);
    memset(rt_tensor_data(d), POISON, rt_tensor_elems(d) * es);
    bool own[8] = {0};
    for (int i = 0; i < naxes; i++)
        own[i] = true;
    Evaluator *ev = eqv_evaluator_new(p);
    RtView ws = rt_view(s, true), wd = rt_view(d, true), rs = rt_view(s, false), rd = rt_view(d, false);
    CHECK(rt_from_host(rt, &ws, host) == 0, "host -> S: %s", rt_error(rt));
    CHECK_EQ_U64(verify(p, ev, s, own, host, es), 0, "cells of S wrong after the host transfer (every replica)");
    CHECK(rt_dma(rt, &wd, &rs) == 0, "S -> D: %s", rt_error(rt));
    CHECK_EQ_U64(verify(p, ev, d, own, host, es), 0, "cells of D wrong after the DMA (every replica)");
    CHECK(rt_to_host(rt, &rd, back) == 0 && memcmp(host, back, total * es) == 0, "D -> host reads the tensor back: %s",
          rt_error(rt));
    eqv_evaluator_free(ev);
    free(host);
    free(back);
out:
    rt_tensor_free(s);
    rt_tensor_free(d);
    rt_free(rt);
    prog_free(p);
    free(text);
    harness_context("%s", "");
}

int main(int argc, char **argv)
{
    HarnessArgs args = {.seed = 20261201, .count = 2000};
    harness_args(argc, argv, "[SEED [COUNT]]", &args);
    rng = rng_seeded(args.seed);
    harness_report_limit(30);
    for (uint64_t i = 0; i < args.count; i++)
        check_rules(i);
    for (uint64_t i = 0; i < args.count / 8; i++)
        check_move(args.count + i);
    return harness_report();
}
