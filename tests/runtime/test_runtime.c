/* test_runtime.c — the runtime against the interpreter: host/HBM/DM round trips over generated complete
 * layouts for every element type, padding semantics, tile views (docs/language.md §5 and the seed), and errors. */
#include "harness.h"
#include "rt.h"
#include "front/front.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static Rng rng; /* seeded from SEED */

/* A random complete layout of the named axes: each axis split into digits (X / s % m), the digits
 * shuffled, some padded (all kinds), some groups padded; every index is held exactly once. */
static void complete_layout(char *out, size_t size, const char *const *names, const uint64_t *sizes, int n)
{
    char digits[32][64];
    int nd = 0;
    for (int a = 0; a < n; a++) {
        uint64_t rest = sizes[a], stride = 1;
        while (rest > 1) {
            uint64_t m = rest;
            if (rng_below(&rng, 2)) /* split off a divisor */
                for (uint64_t d = 2; d < rest; d++)
                    if (rest % d == 0 && rng_below(&rng, 2)) {
                        m = d;
                        break;
                    }
            if (stride == 1 && m == sizes[a])
                snprintf(digits[nd], sizeof digits[nd], "%s", names[a]);
            else if (stride == 1)
                snprintf(digits[nd], sizeof digits[nd], "%s %% %llu", names[a], (unsigned long long)m);
            else if (m * stride == sizes[a])
                snprintf(digits[nd], sizeof digits[nd], "%s / %llu", names[a], (unsigned long long)stride);
            else
                snprintf(digits[nd], sizeof digits[nd], "%s / %llu %% %llu", names[a], (unsigned long long)stride,
                         (unsigned long long)m);
            /* pad some digits: size m -> m + 1 or 2, any kind */
            if (rng_below(&rng, 4) == 0) {
                static const char *const kinds[] = {"#", "#{0}", "#{!}", "#{*}"};
                size_t l = strlen(digits[nd]);
                snprintf(digits[nd] + l, sizeof digits[nd] - l, " %s %llu", kinds[rng_below(&rng, 4)],
                         (unsigned long long)(m + 1 + rng_below(&rng, 2)));
            }
            nd++;
            stride *= m;
            rest /= m;
        }
    }
    for (int i = nd - 1; i > 0; i--) { /* shuffle */
        int j = (int)rng_below(&rng, (uint64_t)i + 1);
        char tmp[64];
        memcpy(tmp, digits[i], sizeof tmp);
        memcpy(digits[i], digits[j], sizeof tmp);
        memcpy(digits[j], tmp, sizeof tmp);
    }
    out[0] = 0;
    harness_cat(out, size, "m![");
    if (nd == 0)
        harness_cat(out, size, "1");
    for (int i = 0; i < nd; i++)
        harness_cat(out, size, "%s%s", i ? ", " : "", digits[i]);
    harness_cat(out, size, "]");
    if (nd > 1 && rng_below(&rng, 5) == 0) { /* pad the whole element layout too */
        out[strlen(out) - 1] = 0;
        harness_cat(out, size, "] # {PADDED}]");
    }
}

static const Map *parse(Prog *p, const char *text)
{
    const Map *m = prog_parse_map(p, "<test>", text);
    if (!m) {
        for (const Diag *d = p->diags.head; d; d = d->next)
            fprintf(stderr, "  %s\n", d->msg);
        fprintf(stderr, "  cannot parse %s\n", text);
    }
    return m;
}

/* A program of the declarations text (one case: they parse) and in *rt its runtime context with cfg
 * (NULL: the defaults). */
static Prog *declare(const char *text, const RtConfig *cfg, RtContext **rt)
{
    Prog *p = prog_new();
    CHECK_EQ_INT(prog_parse(p, "<test>", text, strlen(text)), 0, "the declarations parse: %s", text);
    *rt = rt_new(p, cfg);
    return p;
}

/* Replaces the {PADDED} placeholder by a padding size: |inner| + 3 (computed by parsing without it). */
static const Map *parse_layout(Prog *p, char *text)
{
    char *ph = strstr(text, "] # {PADDED}]");
    if (!ph)
        return parse(p, text);
    *ph = 0;
    char tmp[600];
    snprintf(tmp, sizeof tmp, "m![%s]", text + 3);
    const Map *m = parse(p, tmp);
    if (!m)
        return NULL;
    char full[700];
    snprintf(full, sizeof full, "m![[%s] # %llu]", text + 3, (unsigned long long)(m->size + 3));
    strcpy(text, full);
    return parse(p, full);
}

/* Fills a host array with distinct recognizable values of the element size. */
static void fill_host(unsigned char *h, uint64_t n, size_t es, uint64_t salt)
{
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = (i * 2654435761u + salt) | 1; /* never 0, so zero padding is visible */
        memcpy(h + i * es, &v, es);
        if (es == 1 && h[i] == 0)
            h[i] = 1;
    }
}

static void test_round_trips(int count)
{
    static const char *const names[] = {"K", "S", "A", "B"};
    static const uint64_t sizes[] = {2, 4, 6, 4};
    for (int iter = 0; iter < count; iter++) {
        RtConfig cfg = rt_default_config();
        cfg.limits.max_slices = 4;
        cfg.limits.dm_slice_bytes = 4096;
        cfg.threads = 1 + iter % 2;
        RtContext *rt;
        Prog *p = declare("axes![K = 2, S = 4, A = 6, B = 4];", &cfg, &rt);
        ElemType elem = (ElemType)(iter % ELEM_COUNT);
        size_t es = elem_type_size(elem);
        bool cluster_axis = iter % 3 == 0; /* K spread over clusters, or inside each slice */
        char l1[700], l2[700], l3[700];
        complete_layout(l1, sizeof l1, names, sizes, 4);
        if (cluster_axis)
            complete_layout(l2, sizeof l2, names + 2, sizes + 2, 2);
        else
            complete_layout(l2, sizeof l2, (const char *const[]){"K", "A", "B"}, (const uint64_t[]){2, 6, 4}, 3);
        complete_layout(l3, sizeof l3, names, sizes, 4);
        const Map *one = parse(p, "m![1]"), *m1 = parse_layout(p, l1), *m2 = parse_layout(p, l2),
                  *m3 = parse_layout(p, l3);
        const Map *cluster = parse(p, cluster_axis ? "m![K]" : "m![1]");
        const Map *slice = parse(p, "m![S]");
        if (!one || !m1 || !m2 || !m3 || !cluster || !slice) {
            FAIL("the layouts do not parse");
            rt_free(rt);
            prog_free(p);
            continue;
        }
        const Map *hbm1[] = {one, m1}, *dm[] = {one, cluster, slice, m2}, *hbm3[] = {one, m3};
        RtTensor *t1 = rt_tensor_new(rt, MEM_HBM, elem, hbm1, 2);
        RtTensor *t2 = rt_tensor_new(rt, MEM_DM, elem, dm, 4);
        RtTensor *t3 = rt_tensor_new(rt, MEM_HBM, elem, hbm3, 2);
        CHECK(t1 && t2 && t3, "tensors: %s", rt_error(rt));
        if (!t1 || !t2 || !t3)
            goto next;
        uint64_t n = 2 * 4 * 6 * 4;
        unsigned char *in = malloc(n * es), *out = calloc(n, es);
        fill_host(in, n, es, (uint64_t)iter);
        /* poison the DM buffer to see that bottom padding stays untouched and zero padding is written */
        memset(rt_tensor_data(t2), 0xA5, rt_tensor_elems(t2) * es);
        RtView v1 = rt_view(t1, true), v2 = rt_view(t2, true), v3 = rt_view(t3, true);
        int rc = rt_from_host(rt, &v1, in);
        CHECK(rc == 0, "from_host: %s", rt_error(rt));
        rc = rc ? rc : rt_dma(rt, &v2, &v1);
        CHECK(rc == 0, "HBM->DM %s -> %s: %s", l1, l2, rt_error(rt));
        rc = rc ? rc : rt_dma(rt, &v3, &v2);
        CHECK(rc == 0, "DM->HBM: %s", rt_error(rt));
        rc = rc ? rc : rt_to_host(rt, &v3, out);
        CHECK(rc == 0 && memcmp(in, out, n * es) == 0, "round trip %s: %s -> %s -> %s", elem_type_name(elem), l1, l2, l3);
        /* every DM cell against the interpreter: live = host element, zero = 0, top/bottom = poison */
        Evaluator *ev = eval_new(p);
        Cell c = {.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
        const Map *flat = rt_tensor_map(t2);
        const unsigned char *d = rt_tensor_data(t2);
        bool ok = true;
        unsigned char poison[8];
        memset(poison, 0xA5, sizeof poison);
        static const unsigned char zero[8];
        for (uint64_t q = 0; q < flat->size && ok; q++) {
            eval_cell(ev, flat, q, &c);
            const unsigned char *want = poison;
            if (c.kind == CELL_LIVE)
                want = in + (((c.coord[0] * 4 + c.coord[1]) * 6 + c.coord[2]) * 4 + c.coord[3]) * es;
            else if (c.kind == CELL_PAD_ZERO)
                want = zero;
            ok = memcmp(d + q * es, want, es) == 0;
            if (!ok)
                fprintf(stderr, "  DM position %llu (cell kind %d) of %s\n", (unsigned long long)q, c.kind, l2);
        }
        CHECK(ok, "DM contents match the interpreter (%s)", l2);
        free(c.coord);
        eval_free(ev);
        free(in);
        free(out);
    next:
        rt_tensor_free(t1);
        rt_tensor_free(t2);
        rt_tensor_free(t3);
        rt_free(rt);
        prog_free(p);
    }
}

/* Tiles of docs/language.md §5 and the seed: expected mappings, offsets, and the data they see. */
static void test_tiles(void)
{
    RtContext *rt;
    Prog *p = declare("axes![A = 8, B = 512];", NULL, &rt);
    const Map *one = parse(p, "m![1]"), *e = parse(p, "m![A, B]");
    const Map *maps[] = {one, e};
    RtTensor *t = rt_tensor_new(rt, MEM_HBM, ELEM_BF16, maps, 2);
    RtView v = rt_view(t, false), tile;
    /* view.tile::<m![B], 2, m![A, B = 2 # 512]>(0) and (2) */
    for (uint64_t start = 0; start <= 2; start += 2) {
        int rc = rt_tile(rt, &v, parse(p, "m![B]"), 2, start, parse(p, "m![A, B = 2 # 512]"), &tile);
        CHECK(rc == 0, "seed tile m![B] x2 from %llu: %s", (unsigned long long)start, rt_error(rt));
        CHECK(rc == 0 && tile.pos_offset == start && tile.index_offset[1] == start, "tile offsets");
    }
    /* overlapping tiles of two 32-blocks: tile::<m![B / 32], 2, m![A, B / 32 = 2 # 16, B % 32]>(i) */
    for (uint64_t i = 0; i < 15; i++) {
        int rc = rt_tile(rt, &v, parse(p, "m![B / 32]"), 2, i, parse(p, "m![A, B / 32 = 2 # 16, B % 32]"), &tile);
        CHECK(rc == 0 && tile.pos_offset == 32 * i && tile.index_offset[1] == 32 * i, "block tile %llu: %s",
              (unsigned long long)i, rt_error(rt));
    }
    int rc = rt_tile(rt, &v, parse(p, "m![B / 32]"), 2, 15, NULL, &tile);
    CHECK(rc != 0 && strstr(rt_error(rt), "does not fit"), "tile past the end is rejected: %s", rt_error(rt));
    rc = rt_tile(rt, &v, parse(p, "m![B]"), 2, 0, parse(p, "m![A, B = 3 # 512]"), &tile);
    CHECK(rc != 0 && strstr(rt_error(rt), "expected m![A, B = 2 # 512]"), "a wrong E2 names the expected one: %s",
          rt_error(rt));
    rc = rt_tile(rt, &v, parse(p, "m![[A, B] / 2]"), 1, 0, NULL, &tile);
    CHECK(rc != 0, "a non-digit tile index is rejected");
    rt_tensor_free(t);

    /* docs/language.md §5: m![A, B] (A = 8, B = 32) tiled by B / 16, LEN 1 is m![A, 1 # 2, B % 16] */
    RtContext *rq;
    Prog *q = declare("axes![A = 8, B = 32];", NULL, &rq);
    const Map *maps2[] = {parse(q, "m![1]"), parse(q, "m![A, B]")};
    RtTensor *tt = rt_tensor_new(rq, MEM_HBM, ELEM_F32, maps2, 2);
    RtView w = rt_view(tt, true), wt;
    rc = rt_tile(rq, &w, parse(q, "m![B / 16]"), 1, 1, NULL, &wt);
    CHECK(rc == 0, "documented tile: %s", rt_error(rq));
    /* the write tile has bottom padding outside; its read counterpart is m![A, 1 # 2, B % 16] */
    RtView r = rt_view(tt, false), rtile;
    rc = rt_tile(rq, &r, parse(q, "m![B / 16]"), 1, 1, parse(q, "m![A, 1 # 2, B % 16]"), &rtile);
    CHECK(rc == 0 && rtile.pos_offset == 16 && rtile.index_offset[1] == 16, "documented read tile: %s", rt_error(rq));
    rc = rt_tile(rq, &w, parse(q, "m![B / 16]"), 1, 1, parse(q, "m![A, 1 #{!} 2, B % 16]"), &wt);
    CHECK(rc == 0, "documented write tile with bottom padding: %s", rt_error(rq));
    /* fill the tensor through the write tile only: B in 16..31 gets data, the rest stays 0 */
    float host[8 * 32], back[8 * 32];
    for (int i = 0; i < 8 * 32; i++)
        host[i] = (float)(i + 1);
    rc = rt_from_host(rq, &wt, host);
    CHECK(rc == 0, "from_host through a tile: %s", rt_error(rq));
    const float *data = rt_tensor_data(tt);
    bool ok = true;
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 32; b++)
            ok &= data[a * 32 + b] == (b >= 16 ? host[a * 32 + b] : 0.0f);
    CHECK(ok, "a write tile writes exactly its cells");
    /* a tile of the tile: B % 16 from 4, LEN 8 */
    RtView tt2;
    rc = rt_tile(rq, &wt, parse(q, "m![B % 16]"), 8, 4, NULL, &tt2);
    CHECK(rc == 0 && tt2.pos_offset == 20 && tt2.index_offset[1] == 20, "tile of a tile: %s (%llu)", rt_error(rq),
          (unsigned long long)tt2.pos_offset);
    memset(back, 0, sizeof back);
    rc = rt_to_host(rq, &tt2, back);
    ok = rc == 0;
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 32; b++)
            ok &= back[a * 32 + b] == (b >= 20 && b < 28 ? host[a * 32 + b] : 0.0f);
    CHECK(ok, "reading a tile of a tile sees exactly its indices");
    rt_tensor_free(tt);
    rt_free(rq);
    prog_free(q);
    rt_free(rt);
    prog_free(p);
}

static void test_errors(void)
{
    RtContext *rt;
    Prog *p = declare("axes![S = 64, A = 8, B = 512, C = 3];", NULL, &rt);
    const Map *one = parse(p, "m![1]");
    const Map *big[] = {one, one, parse(p, "m![S]"), parse(p, "m![A, B, 64]")};
    CHECK(!rt_tensor_new(rt, MEM_DM, ELEM_F32, big, 4) && strstr(rt_error(rt), "1048576 bytes per slice (262144 f32 elements), more than the 524288 bytes of a slice"),
          "DM capacity names the sizes: %s", rt_error(rt));
    /* a tensor may use fewer slices than a cluster has (docs/language.md §5), but not more */
    const Map *few[] = {one, one, parse(p, "m![S % 8]"), parse(p, "m![S / 8, A]")};
    RtTensor *fs = rt_tensor_new(rt, MEM_DM, ELEM_F32, few, 4);
    CHECK(fs != NULL, "8 slices, S split between Slice and Element: %s", rt_error(rt));
    rt_tensor_free(fs);
    const Map *many[] = {one, one, parse(p, "m![B]"), parse(p, "m![A]")};
    CHECK(!rt_tensor_new(rt, MEM_DM, ELEM_F32, many, 4) &&
              strstr(rt_error(rt), "DM tensor spans 512 slices, more than the 256 of a cluster"),
          "slice count: %s", rt_error(rt));
    const Map *clusters[] = {one, parse(p, "m![C]"), parse(p, "m![S]"), parse(p, "m![A]")};
    CHECK(!rt_tensor_new(rt, MEM_DM, ELEM_F32, clusters, 4) && strstr(rt_error(rt), "3 clusters"), "clusters: %s",
          rt_error(rt));
    /* an axis split over chips and elements is one distribution; one digit claimed twice is an overlap */
    const Map *shared[] = {parse(p, "m![A / 2]"), parse(p, "m![A % 2, B]")};
    RtTensor *sh = rt_tensor_new(rt, MEM_HBM, ELEM_F32, shared, 2);
    CHECK(sh != NULL, "A split between Chip and Element: %s", rt_error(rt));
    rt_tensor_free(sh);
    const Map *overlap[] = {parse(p, "m![A]"), parse(p, "m![A, B]")};
    CHECK(!rt_tensor_new(rt, MEM_HBM, ELEM_F32, overlap, 2) &&
              strstr(rt_error(rt), "overflow at chip 1, element 3584: the Chip mapping gives {A:1}, the Element "
                                   "mapping gives {A:7}: together they claim one digit twice"),
          "overlap names the unit, the element and the parts: %s", rt_error(rt));
    const Map *half[] = {one, parse(p, "m![A / 2, B]")};
    CHECK(!rt_tensor_new(rt, MEM_HBM, ELEM_F32, half, 2) &&
              strstr(rt_error(rt), "the tensor holds index i![A: 1, B: 0] nowhere"),
          "a tensor holding half its indices names the smallest one missing: %s", rt_error(rt));
    const Map *ab[] = {one, parse(p, "m![A, B]")}, *abc[] = {one, parse(p, "m![A, B, C]")};
    RtTensor *x = rt_tensor_new(rt, MEM_HBM, ELEM_F32, ab, 2), *y = rt_tensor_new(rt, MEM_HBM, ELEM_F32, abc, 2),
             *z = rt_tensor_new(rt, MEM_HBM, ELEM_I8, ab, 2);
    RtView vx = rt_view(x, true), vy = rt_view(y, true), vz = rt_view(z, true), top;
    CHECK(rt_dma(rt, &vy, &vx) != 0 && strstr(rt_error(rt), "different axes"), "DMA into another logical tensor: %s",
          rt_error(rt));
    CHECK(rt_dma(rt, &vz, &vx) != 0 && strstr(rt_error(rt), "element type"), "DMA across element types: %s",
          rt_error(rt));
    /* the first half of A (a read tile) holds half the indices the whole destination needs */
    RtView rx = rt_view(x, false);
    CHECK(rt_tile(rt, &rx, parse(p, "m![A / 4]"), 1, 0, NULL, &top) == 0, "tile: %s", rt_error(rt));
    CHECK(rt_dma(rt, &vx, &top) != 0 && strstr(rt_error(rt), "which the source does not hold"),
          "DMA from a tile holding half the indices: %s", rt_error(rt));
    RtView wtop;
    CHECK(rt_tile(rt, &vx, parse(p, "m![A / 4]"), 1, 1, NULL, &wtop) == 0 && rt_dma(rt, &wtop, &top) == 0,
          "DMA of a tile into a tile: %s", rt_error(rt));
    RtView ro = rt_view(x, false);
    CHECK(rt_dma(rt, &ro, &vx) != 0 && strstr(rt_error(rt), "read view"), "DMA into a read view: %s", rt_error(rt));
    rt_tensor_free(x);
    rt_tensor_free(y);
    rt_tensor_free(z);
    rt_free(rt);
    prog_free(p);
}

/* Unit tiles (docs/language.md §5): slice_tile<C / 2, 4>(8) of the book's DM tensor is slices 8..11; a DMA into it fills
 * those slices alone, chip_tile selects chips of an HBM tensor split over them, and the dimension is checked. */
static void test_unit_tiles(void)
{
    RtContext *rt;
    Prog *p = declare("axes![N = 2, C = 64, H = 2, W = 4];\n"
                      "tensor Hb: HbmTensor<f32, m![1], m![N, C, H, W]>;\n"
                      "tensor D: DmTensor<f32, m![1], m![1], m![C / 2], m![N, H, W, C % 2]>;\n"
                      "tensor S: HbmTensor<f32, m![N], m![C, H, W]>;\n",
                      NULL, &rt);
    RtTensor *h = rt_tensor_declared(rt, "Hb"), *d = rt_tensor_declared(rt, "D"), *s = rt_tensor_declared(rt, "S");
    if (!CHECK(h && d && s, "declared: %s", rt_error(rt)))
        goto out;
    uint64_t n = 2 * 64 * 2 * 4;
    float *host = malloc(n * sizeof *host);
    for (uint64_t i = 0; i < n; i++)
        host[i] = (float)(i + 1);
    RtView wh = rt_view(h, true), rh = rt_view(h, false), wd = rt_view(d, true), tile, src;
    CHECK(rt_from_host(rt, &wh, host) == 0, "host -> H: %s", rt_error(rt));
    memset(rt_tensor_data(d), 0, rt_tensor_elems(d) * sizeof(float));
    const Map *c2 = parse(p, "m![C / 2]");
    CHECK(rt_unit_tile(rt, &wd, 2, c2, 4, 8, parse(p, "m![C / 2 = 4 #{!} 32]"), &tile) == 0,
          "slice_tile<C / 2, 4>(8): %s", rt_error(rt));
    CHECK_EQ_U64(tile.pos_offset, 8 * rt_tensor_units(d).elements, "the tile starts at slice 8");
    CHECK(rt_tile(rt, &rh, c2, 4, 8, NULL, &src) == 0 && rt_dma(rt, &tile, &src) == 0, "DMA into slices 8..11: %s",
          rt_error(rt));
    /* slices 8..11 hold C = 16..23, every other slice still 0 */
    uint64_t bad = 0, elems = rt_tensor_units(d).elements;
    for (uint64_t sl = 0; sl < 32; sl++) {
        const float *u = rt_tensor_unit(d, 0, 0, sl);
        for (uint64_t e = 0; e < elems; e++) {
            uint64_t nn = e / 16, hh = e / 8 % 2, ww = e / 2 % 4, c = 2 * sl + e % 2;
            float want = sl >= 8 && sl < 12 ? host[((nn * 64 + c) * 2 + hh) * 4 + ww] : 0.0f;
            bad += u[e] != want;
        }
    }
    CHECK_EQ_U64(bad, 0, "slices 8..11 hold their channels, the others nothing");
    CHECK(rt_tensor_unit(d, 0, 0, 32) == NULL && rt_tensor_unit(d, 0, 1, 0) == NULL, "units out of range");
    CHECK(rt_unit_tile(rt, &wd, 0, c2, 4, 8, NULL, &tile) != 0 && strstr(rt_error(rt), "not a digit"),
          "C / 2 is not in the Chip mapping: %s", rt_error(rt));
    RtView ws = rt_view(s, true);
    CHECK(rt_unit_tile(rt, &ws, 0, parse(p, "m![N]"), 1, 1, NULL, &tile) == 0 &&
              tile.pos_offset == rt_tensor_units(s).elements && tile.index_offset[0] == 1,
          "chip_tile<N, 1>(1) of an HBM tensor split over chips: %s", rt_error(rt));
    CHECK(rt_unit_tile(rt, &ws, 2, parse(p, "m![N]"), 1, 1, NULL, &tile) != 0 && strstr(rt_error(rt), "no Slice"),
          "an HBM tensor has no slices: %s", rt_error(rt));
    free(host);
out:
    rt_tensor_free(h);
    rt_tensor_free(d);
    rt_tensor_free(s);
    rt_free(rt);
    prog_free(p);
}

/* Tensors declared in the language: HBM -> DM tiles -> HBM through tile views, read back exactly. */
static void test_declared(void)
{
    const char *src = "axes![S = 64, A = 16, B = 128];\n"
                      "tensor H: HbmTensor<f32, m![1], m![A, S, B]>;\n"
                      "tensor T: DmTensor<f32, m![1], m![1], m![S], m![A / 4, B / 32, A % 4, B % 32]>;\n"
                      "tensor R: HbmTensor<f32, m![1], m![S, B, A]>;\n";
    RtContext *rt;
    Prog *p = declare(src, NULL, &rt);
    RtTensor *h = rt_tensor_declared(rt, "H"), *r = rt_tensor_declared(rt, "R"), *t = rt_tensor_declared(rt, "T");
    CHECK(h && r && t, "declared tensors: %s", rt_error(rt));
    CHECK(!rt_tensor_declared(rt, "Q") && strstr(rt_error(rt), "no tensor named 'Q'"), "unknown tensor name");
    if (!h || !r || !t)
        goto out;
    uint64_t n = 64 * 16 * 128;
    float *in = malloc(n * sizeof *in), *out = calloc(n, sizeof *out);
    for (uint64_t i = 0; i < n; i++)
        in[i] = (float)i; /* the host array is row-major over S, A, B (declaration order) */
    RtView vh = rt_view(h, true), vr = rt_view(r, true);
    CHECK(rt_from_host(rt, &vh, in) == 0, "fill H: %s", rt_error(rt));
    /* move H to R through DM, one 4 x 64 tile (A / 4, B / 64) of each side at a time */
    RtView hr = rt_view(h, false), wt = rt_view(t, true), rtv = rt_view(t, false);
    bool ok = true;
    const Map *a4 = prog_parse_map(p, "<t>", "m![A / 4]"), *b64 = prog_parse_map(p, "<t>", "m![B / 64]");
    for (uint64_t a = 0; a < 4 && ok; a++)
        for (uint64_t b = 0; b < 2 && ok; b++) {
            RtView ra, rab, ta, tab, ba, bab, wa, wab;
            ok &= rt_tile(rt, &hr, a4, 1, a, NULL, &ra) == 0 && rt_tile(rt, &ra, b64, 1, b, NULL, &rab) == 0;
            ok &= ok && rt_tile(rt, &wt, a4, 1, a, NULL, &ta) == 0 && rt_tile(rt, &ta, b64, 1, b, NULL, &tab) == 0;
            ok &= ok && rt_dma(rt, &tab, &rab) == 0;
            ok &= ok && rt_tile(rt, &rtv, a4, 1, a, NULL, &ba) == 0 && rt_tile(rt, &ba, b64, 1, b, NULL, &bab) == 0;
            ok &= ok && rt_tile(rt, &vr, a4, 1, a, NULL, &wa) == 0 && rt_tile(rt, &wa, b64, 1, b, NULL, &wab) == 0;
            ok &= ok && rt_dma(rt, &wab, &bab) == 0;
            if (!ok)
                fprintf(stderr, "  tile (%llu, %llu): %s\n", (unsigned long long)a, (unsigned long long)b, rt_error(rt));
        }
    CHECK(ok, "tiles moved HBM -> DM -> HBM");
    RtStats st = rt_stats(rt);
    CHECK(st.jit_moves == 16 && st.plan_moves == 0 && st.kernels_compiled == 3,
          "tile moves run JIT kernels, one per distinct pair of layouts, and one for the host transfer (%llu moves, "
          "%llu kernels)",
          (unsigned long long)st.jit_moves, (unsigned long long)st.kernels_compiled);
    CHECK(rt_to_host(rt, &vr, out) == 0 && memcmp(in, out, n * sizeof *in) == 0, "R reads back exactly what H held");
    free(in);
    free(out);
out:
    rt_tensor_free(h);
    rt_tensor_free(r);
    rt_tensor_free(t);
    rt_free(rt);
    prog_free(p);
}

int main(int argc, char **argv)
{
    HarnessArgs args = {.seed = 20261130, .count = 150};
    harness_args(argc, argv, "[SEED [COUNT]]", &args); /* COUNT: round trips */
    rng = rng_seeded(args.seed);
    fprintf(stderr, "seed %llu, %llu round trips\n", (unsigned long long)args.seed, (unsigned long long)args.count);
    test_round_trips((int)args.count);
    test_tiles();
    test_errors();
    test_unit_tiles();
    test_declared();
    return harness_report();
}
