/* test_kernel.c — declared GEMM kernels (`kernel` statements run by rt_gemm) against a double-precision reference.
 *
 * Each generated case writes a .map program: axes M, N, K of awkward sizes (1, 2, 3, primes, non-multiples,
 * powers of two; M·N·K <= 2^21); HBM tensors A, B, C of one of the four type triples, each in a layout drawn
 * so that every (operand, type, layout) pair meets within 28 cases: row-major, column-major, a padded leading
 * dimension, blocked (padded where the block does not divide), a tiled![...] descriptor, a whole axis on the
 * Chip mapping (an axis may also be split between Chip and Element, docs/language.md §5; chip_split_case checks that it is
 * accepted), replicated over 2 chips (m![2]); and a kernel with random tiles
 * (1..64) or none (the cache model's, for the host's caches or small ones), pack panels, order and split, some
 * clauses left to their defaults. It parses the program without
 * diagnostics, runs the kernel through rt_gemm on 1 or 2 threads, and checks:
 *   - the KernelDecl: tiles, order, split (and their defaults), the recognized panel geometry lays the tile out
 *     as the panels written;
 *   - each operand's access: in place, with the expected strides, exactly when the layout is strided;
 *   - every element of C against the reference (see compare for the bound; i8 exact, i32 wrap-around);
 *     A and B never written, C's padding cells never written, NaN in A's and B's padding never read, both
 *     copies of a replicated C written; a second run from the same C bit-identical.
 * Fixed cases: 1x1x1, 1xN, Mx1 and K = 1 products, column-major and staged C (with beta != 0), degenerate pack
 * panels, every kernel of samples/gemm/gemm.map at M = N = K = 97 (prog_override_axis), and the error messages
 * of rt_gemm_new and rt_gemm_run. Usage: test_kernel [SEED [COUNT]] (COUNT generated cases, default 300).
 */
#include "harness.h"
#include "gemm/rt_gemm.h"
#include "front/front.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MAPC_SAMPLES
#define MAPC_SAMPLES "samples"
#endif

#define U(x) ((unsigned long long)(x))

static Rng rng; /* seeded from SEED */

static uint64_t round_up(uint64_t n, uint64_t m) { return (n + m - 1) / m * m; }

/* ---- operand layouts ---- */

typedef enum { L_ROW, L_COL, L_LD, L_BLOCK, L_TILED, L_CHIP, L_REPL, NLAYOUTS } LayoutKind;
static const char *const layout_names[NLAYOUTS] = {"row-major", "column-major", "leading-dim", "blocked",
                                                   "tiled",     "chip-axis",    "replicated"};

/* A layout of a matrix with rows X (size sx) and columns Y (size sy). "swap" exchanges the parts of the
 * axes: U is the major axis (X, or Y when swapped), V the other one. */
typedef struct Layout {
    LayoutKind kind;
    bool swap;
    uint64_t ld;        /* L_LD, L_CHIP: V padded to ld (ld == |V| when unpadded) */
    uint64_t reps;      /* L_REPL: copies, one per chip */
    uint64_t b, pb;     /* L_BLOCK: U in blocks of b, padded to pb (a multiple of b) */
    uint64_t tx, ty;    /* L_TILED: tile extents along X and Y */
    bool ocol, icol;    /* L_TILED: tiles in column-major order; elements column-major inside a tile */
} Layout;

/* Buffer positions of the layout: the size of the flat mapping, and the position of (i, j) in copy c. */
static uint64_t layout_size(const Layout *l, uint64_t sx, uint64_t sy)
{
    uint64_t su = l->swap ? sy : sx, sv = l->swap ? sx : sy;
    switch (l->kind) {
    case L_ROW:
    case L_COL: return su * sv;
    case L_LD:
    case L_CHIP: return su * l->ld;
    case L_BLOCK: return l->pb * sv;
    case L_TILED: return round_up(sx, l->tx) * round_up(sy, l->ty);
    case L_REPL: return l->reps * su * sv;
    default: return 0;
    }
}

static int layout_copies(const Layout *l) { return l->kind == L_REPL ? (int)l->reps : 1; }

static uint64_t layout_pos(const Layout *l, uint64_t sx, uint64_t sy, uint64_t i, uint64_t j, int c)
{
    uint64_t su = l->swap ? sy : sx, sv = l->swap ? sx : sy, u = l->swap ? j : i, v = l->swap ? i : j;
    switch (l->kind) {
    case L_ROW:
    case L_COL: return u * sv + v;
    case L_LD:
    case L_CHIP: return u * l->ld + v;
    case L_BLOCK: return u / l->b * sv * l->b + v * l->b + u % l->b;
    case L_TILED: {
        uint64_t ntx = round_up(sx, l->tx) / l->tx, nty = round_up(sy, l->ty) / l->ty;
        uint64_t ti = i / l->tx, tj = j / l->ty, ei = i % l->tx, ej = j % l->ty;
        uint64_t t = l->ocol ? tj * ntx + ti : ti * nty + tj, e = l->icol ? ej * l->tx + ei : ei * l->ty + ej;
        return t * l->tx * l->ty + e;
    }
    case L_REPL: return (uint64_t)c * su * sv + u * sv + v;
    default: return 0;
    }
}

/* Whether the layout is strided (every (i, j) at i*rs + j*cs, everything else padding), with the strides;
 * a stride along an extent of 1 is arbitrary and left at 0. */
static bool layout_strided(const Layout *l, uint64_t sx, uint64_t sy, int64_t *rs, int64_t *cs)
{
    if (layout_copies(l) != 1 || layout_pos(l, sx, sy, 0, 0, 0) != 0)
        return false;
    uint64_t r = sx > 1 ? layout_pos(l, sx, sy, 1, 0, 0) : 0, c = sy > 1 ? layout_pos(l, sx, sy, 0, 1, 0) : 0;
    for (uint64_t i = 0; i < sx; i++)
        for (uint64_t j = 0; j < sy; j++)
            if (layout_pos(l, sx, sy, i, j, 0) != i * r + j * c)
                return false;
    *rs = (int64_t)r;
    *cs = (int64_t)c;
    return true;
}

/* Appends "CHIP, ELEMENT" (the two mappings of an HbmTensor) of layout l over axes x and y. */
static void layout_text(char *buf, size_t size, const Layout *l, const char *x, uint64_t sx, const char *y,
                        uint64_t sy)
{
    const char *u = l->swap ? y : x, *v = l->swap ? x : y;
    uint64_t su = l->swap ? sy : sx, sv = l->swap ? sx : sy;
    switch (l->kind) {
    case L_ROW:
    case L_COL: harness_cat(buf, size, "m![1], m![%s, %s]", u, v); break;
    case L_LD: harness_cat(buf, size, "m![1], m![%s, %s # %llu]", u, v, U(l->ld)); break;
    case L_BLOCK:
        if (l->pb == su)
            harness_cat(buf, size, "m![1], m![%s / %llu, %s, %s %% %llu]", u, U(l->b), v, u, U(l->b));
        else
            harness_cat(buf, size, "m![1], m![%s # %llu / %llu, %s, %s # %llu %% %llu]", u, U(l->pb), U(l->b), v, u,
                U(l->pb), U(l->b));
        break;
    case L_TILED:
        harness_cat(buf, size, "m![1], tiled![shape: [%s, %s], tile: [%llu, %llu], outer: %s, inner: %s]", x, y,
                    U(l->tx), U(l->ty), l->ocol ? "col_major" : "row_major", l->icol ? "col_major" : "row_major");
        break;
    case L_CHIP:
        if (l->ld == sv)
            harness_cat(buf, size, "m![%s], m![%s]", u, v);
        else
            harness_cat(buf, size, "m![%s], m![%s # %llu]", u, v, U(l->ld));
        break;
    case L_REPL: harness_cat(buf, size, "m![%llu], m![%s, %s]", U(l->reps), u, v); break;
    default: break;
    }
}

/* A block or tile extent for an axis of size n: half the time one that divides it (if any), else any from
 * choices (the axis is then padded to a multiple). */
static uint64_t random_block(uint64_t n, const uint64_t *choices, int nchoices)
{
    if (rng_below(&rng, 2)) {
        uint64_t d[16];
        int nd = 0;
        for (int i = 0; i < nchoices; i++)
            if (n % choices[i] == 0)
                d[nd++] = choices[i];
        if (nd)
            return d[rng_below(&rng, (uint64_t)nd)];
    }
    return choices[rng_below(&rng, (uint64_t)nchoices)];
}

static Layout random_layout(LayoutKind kind, uint64_t sx, uint64_t sy)
{
    static const uint64_t blocks[] = {2, 3, 4, 5, 8, 16};
    static const uint64_t tiles[] = {1, 2, 3, 4, 8};
    Layout l = {.kind = kind, .swap = kind == L_COL || ((kind == L_LD || kind == L_BLOCK || kind == L_CHIP ||
                                                          kind == L_REPL) && rng_below(&rng, 2))};
    uint64_t su = l.swap ? sy : sx, sv = l.swap ? sx : sy;
    l.ld = kind == L_LD                             ? sv + 1 + rng_below(&rng, 5)
           : kind == L_CHIP && rng_below(&rng, 2) ? sv + 1 + rng_below(&rng, 3)
                                                  : sv;
    l.b = random_block(su, blocks, 6);
    l.pb = round_up(su, l.b);
    l.tx = random_block(sx, tiles, 5);
    l.ty = random_block(sy, tiles, 5);
    l.ocol = rng_below(&rng, 2);
    l.icol = rng_below(&rng, 2);
    l.reps = 2;
    return l;
}

/* ---- element types ---- */

typedef enum { T_F32, T_BF16, T_F16, T_I8, NTYPES } TypeTriple;
static const char *const in_types[NTYPES] = {"f32", "bf16", "f16", "i8"};


/* Writes a random input element of type e at h[idx]; returns its value. */
static double random_input(ElemType e, void *h, uint64_t idx)
{
    switch (e) {
    case ELEM_F32: {
        float x = (float)rng_signed_unit(&rng);
        ((float *)h)[idx] = x;
        return x;
    }
    case ELEM_BF16: {
        uint16_t x = gemm_f32_to_bf16((float)rng_signed_unit(&rng));
        ((uint16_t *)h)[idx] = x;
        return gemm_bf16_to_f32(x);
    }
    case ELEM_F16: {
        uint16_t x = gemm_f32_to_f16((float)rng_signed_unit(&rng));
        ((uint16_t *)h)[idx] = x;
        return gemm_f16_to_f32(x);
    }
    default: {
        int8_t x = (int8_t)(uint8_t)rng_next(&rng);
        ((int8_t *)h)[idx] = x;
        return x;
    }
    }
}

/* The ISA every program is checked for and run on (prog_set_target), and its table: the host's best, or the
 * one MAPC_ISA names (see main). Cases draw their micro-tiles and K groups from the table; a case whose
 * instruction the host lacks (vdpbf16ps, VNNI; rt_gemm_new says so) is skipped. */
static TargetIsa isa;
static const TargetInfo *target;
static int skipped;

/* ---- one kernel run ---- */

/* What the runner knows about a case beyond its text: the layouts it generated (NULL: not generated), the
 * panels it wrote (mr 0: none), the clauses it wrote, and the accesses it expects (-1: do not check). */
typedef struct Case {
    const char *text;
    const char *kernel;             /* name of the kernel to run */
    uint64_t override[3];           /* M, N, K sizes given to prog_override_axis (0: none) */
    int threads;
    double alpha, beta;
    const Layout *layout[3];        /* A, B, C */
    uint64_t tile[3];               /* M, N, K; 0: do not check */
    bool model_tile;                /* no tile clause: the cache model's tiles, for caches (l1d 0: the host's) */
    TargetCaches caches;
    int mr, nr, kgroup;             /* the pack clauses written (0: left to the defaults) */
    int order[3];                   /* -1: default */
    int split;                      /* -1: default */
    int strided[3];                 /* expected access: 1 in place, 0 staged, -1 unknown */
    bool other_diags;               /* diagnostics were checked by the caller: run k if it was declared */
} Case;

/* Coverage of the generated cases whose product ran, printed at the end. */
static struct {
    int cases, types[NTYPES], threads[3], layouts[3][NTYPES][NLAYOUTS], strided[3][2], beta_zero;
    int pack_defaults, order_defaults, split_defaults, model_tiles;
} cov;

/* Prints the diagnostics of p and the program text. */
static void print_diags(const Prog *p, const char *text)
{
    char buf[1024];
    for (const Diag *d = p->diags.head; d; d = d->next) {
        diag_format(d, buf, sizeof buf);
        fprintf(stderr, "%s", buf);
    }
    fprintf(stderr, "--- program:\n%s\n---\n", text);
}

static const KernelDecl *find_kernel(const Prog *p, const char *name)
{
    for (int i = 0; i < p->nkernels; i++)
        if (strcmp(p->kernels[i]->name, name) == 0)
            return p->kernels[i];
    return NULL;
}

/* The position of element (r, k) of a panel layout m![R / w, K / g, R % w, K % g] (R, K padded). */
static uint64_t panel_pos(uint64_t depth, int w, int g, uint64_t r, uint64_t k)
{
    uint64_t kp = round_up(depth, (uint64_t)g);
    return r / (uint64_t)w * (uint64_t)w * kp + k / (uint64_t)g * (uint64_t)w * (uint64_t)g +
           r % (uint64_t)w * (uint64_t)g + k % (uint64_t)g;
}

/* Whether panel geometries (w1, g1) and (w2, g2) lay out a rows x depth tile identically. */
static bool same_panel(uint64_t rows, uint64_t depth, int w1, int g1, int w2, int g2)
{
    if (round_up(rows, (uint64_t)w1) * round_up(depth, (uint64_t)g1) !=
        round_up(rows, (uint64_t)w2) * round_up(depth, (uint64_t)g2))
        return false;
    for (uint64_t r = 0; r < rows; r++)
        for (uint64_t k = 0; k < depth; k++)
            if (panel_pos(depth, w1, g1, r, k) != panel_pos(depth, w2, g2, r, k))
                return false;
    return true;
}

static const int roles[3][2] = {{GEMM_M, GEMM_K}, {GEMM_K, GEMM_N}, {GEMM_M, GEMM_N}};
static const char *const opnames[3] = {"A", "B", "C"};

/* One operand during a run: the tensor, its logical values ([i*sy + j]) and its dense host array. */
typedef struct Operand {
    RtTensor *t;
    uint64_t sx, sy;
    bool xmajor;        /* the host array is [x][y] (else [y][x]) */
    size_t es;
    unsigned char *host, *raw;     /* host array; the raw buffer right after rt_from_host */
    double *val;
} Operand;

static uint64_t host_index(const Operand *o, uint64_t i, uint64_t j)
{
    return o->xmajor ? i * o->sy + j : j * o->sx + i;
}

/* The target table's row of a kernel input type. */
static TargetInput input_of(ElemType t)
{
    return t == ELEM_I8 ? TARGET_IN_I8 : t == ELEM_BF16 ? TARGET_IN_BF16 : t == ELEM_F16 ? TARGET_IN_F16 : TARGET_IN_F32;
}

/* Checks the KernelDecl against what the case wrote. */
static void check_decl(const Prog *p, const KernelDecl *k, const Case *cs)
{
    CHECK(strcmp(k->a->name, "A") == 0 && strcmp(k->b->name, "B") == 0 && strcmp(k->c->name, "C") == 0,
          "kernel %s operands %s, %s, %s", k->name, k->a->name, k->b->name, k->c->name);
    static const char *const axis_names[3] = {"M", "N", "K"};
    bool axes_ok = true, tiles_ok = true;
    for (int r = 0; r < 3; r++) {
        axes_ok &= strcmp(p->axes[k->axis[r]].name, axis_names[r]) == 0;
        uint64_t want = cs->model_tile ? k->model_tile[r] : cs->tile[r];
        tiles_ok &= k->tile[r] == want && p->axes[k->tile_axis[r]].size == want;
    }
    if (cs->model_tile) {
        /* the model's tiles: within each unit's block, whole panels unless one tile holds the block, fitting one
         * slice */
        uint64_t w[3] = {(uint64_t)k->mr, (uint64_t)k->nr, (uint64_t)k->kgroup};
        bool fit = k->tile_from_model && k->dm_bytes <= tensor_default_limits().dm_slice_bytes;
        for (int r = 0; r < 3; r++) {
            uint64_t n = p->axes[k->axis[r]].size, t = k->tile[r], b = k->block[r] < n ? k->block[r] : n;
            fit &= t >= 1 && t <= b && (t == b || t % w[r] == 0);
        }
        CHECK(fit, "model tiles %llu %llu %llu (axes %llu %llu %llu, micro-tile %dx%d g %d, %llu bytes of DM; caches "
              "%llu, %llu)", U(k->tile[0]), U(k->tile[1]), U(k->tile[2]), U(p->axes[k->axis[0]].size),
              U(p->axes[k->axis[1]].size), U(p->axes[k->axis[2]].size), k->mr, k->nr, k->kgroup, U(k->dm_bytes),
              U(p->caches.l1d), U(p->caches.l2));
    }
    CHECK(axes_ok, "kernel axes");
    CHECK(tiles_ok, "tiles %llu %llu %llu, declared %llu %llu %llu", U(k->tile[0]), U(k->tile[1]), U(k->tile[2]),
          U(cs->tile[0]), U(cs->tile[1]), U(cs->tile[2]));
    if (cs->mr) {
        /* several geometries may describe one mapping (mr 1, or a single K group): compare the layouts */
        bool pa = same_panel(cs->tile[GEMM_M], cs->tile[GEMM_K], cs->mr, cs->kgroup, k->pack_mr, k->pack_kgroup);
        bool pb = same_panel(cs->tile[GEMM_N], cs->tile[GEMM_K], cs->nr, cs->kgroup, k->pack_nr, k->pack_kgroup);
        CHECK(pa && pb, "packs written %dx%d (g %d), recognized %dx%d (g %d); tiles %llu %llu %llu", cs->mr, cs->nr,
              cs->kgroup, k->pack_mr, k->pack_nr, k->pack_kgroup, U(cs->tile[0]), U(cs->tile[1]), U(cs->tile[2]));
        /* generated panels are the target's own: its micro-kernel reads them as they are */
        CHECK(k->pack_isa == isa && k->mr == k->pack_mr && k->nr == k->pack_nr && k->kgroup == k->pack_kgroup,
              "micro-tile %dx%d g %d, DM panels %dx%d g %d of %s", k->mr, k->nr, k->kgroup, k->pack_mr, k->pack_nr,
              k->pack_kgroup, target_isa_name(k->pack_isa));
    }
    CHECK(k->isa == isa && target_tile_ok(target, k->mr, k->nr) && target_group(target, input_of(k->a->elem), k->kgroup),
          "panel geometry %dx%d g %d for %s", k->mr, k->nr, k->kgroup, target->name);
    int want_order[3] = {GEMM_N, GEMM_K, GEMM_M};
    if (cs->order[0] >= 0)
        memcpy(want_order, cs->order, sizeof want_order);
    CHECK((int)k->order[0] == want_order[0] && (int)k->order[1] == want_order[1] &&
              (int)k->order[2] == want_order[2],
          "order %d %d %d, want %d %d %d", k->order[0], k->order[1], k->order[2], want_order[0], want_order[1],
          want_order[2]);
    int want_split = cs->split >= 0 ? cs->split
                     : p->axes[k->axis[GEMM_M]].size >= p->axes[k->axis[GEMM_N]].size ? GEMM_M : GEMM_N;
    CHECK_EQ_INT(k->split, want_split, "the split axis");
}

/* Compares C (host array of o) with the reference from the initial C (c0, same indexing); returns ok. */
static bool compare(const Case *cs, bool is_int, const Operand *o, const Operand *a, const Operand *b,
                    const unsigned char *c0, uint64_t kk)
{
    uint64_t bad = 0, first_i = 0, first_j = 0;
    double got0 = 0, want0 = 0, tol0 = 0;
    for (uint64_t i = 0; i < o->sx; i++)
        for (uint64_t j = 0; j < o->sy; j++) {
            uint64_t h = host_index(o, i, j);
            double got, want, tol = 0;
            bool ok;
            if (is_int) {
                int64_t s = 0;
                for (uint64_t l = 0; l < kk; l++)
                    s += (int64_t)a->val[i * a->sy + l] * (int64_t)b->val[l * b->sy + j];
                int32_t cin;
                memcpy(&cin, c0 + h * 4, 4);
                int64_t w = (int64_t)cs->alpha * s + (int64_t)cs->beta * cin;
                int32_t want32 = (int32_t)(uint32_t)(uint64_t)w, got32;
                memcpy(&got32, o->host + h * 4, 4);
                got = got32;
                want = want32;
                ok = got32 == want32;
            } else {
                /* |c - ref| <= (k + 2)·2^-24·(|alpha|·Σ|a·b| + |beta·c0|): bf16 and f16 products are exact in
                 * f32, an f32 dot product of k terms is within γ_k = k·2^-24 (to first order) of the sum of the
                 * magnitudes, and the alpha scale and the beta term add one rounding each (the betas used are
                 * powers of two, so beta·c0 is exact). No absolute slack: inputs lie in [-1, 1), far from the
                 * subnormals, and an exact zero must come out exact. */
                double s = 0, sa = 0;
                for (uint64_t l = 0; l < kk; l++) {
                    double pr = a->val[i * a->sy + l] * b->val[l * b->sy + j];
                    s += pr;
                    sa += fabs(pr);
                }
                float cin, g;
                memcpy(&cin, c0 + h * 4, 4);
                memcpy(&g, o->host + h * 4, 4);
                double bc = cs->beta != 0 ? cs->beta * (double)cin : 0; /* beta = 0 ignores C, even NaN */
                want = cs->alpha * s + bc;
                tol = (double)(kk + 2) * ldexp(1.0, -24) * (fabs(cs->alpha) * sa + fabs(bc));
                got = g;
                ok = !isnan(got) && fabs(got - want) <= tol;
            }
            if (!ok && bad++ == 0) {
                first_i = i, first_j = j;
                got0 = got, want0 = want, tol0 = tol;
            }
        }
    CHECK(bad == 0, "%s: %llu of %llux%llu elements wrong; C[%llu][%llu] = %.9g, reference %.9g (tolerance %.3g)",
          cs->kernel, U(bad), U(o->sx), U(o->sy), U(first_i), U(first_j), got0, want0, tol0);
    return bad == 0;
}

/* Parses, checks and runs one case; whether its product ran (and was compared). */
static bool run_case(const Case *cs)
{
    Prog *p = prog_new();
    prog_set_target(p, isa);
    if (cs->caches.l1d)
        prog_set_caches(p, &cs->caches);
    static const char *const axis_names[3] = {"M", "N", "K"};
    for (int r = 0; r < 3; r++)
        if (cs->override[r])
            prog_override_axis(p, axis_names[r], cs->override[r]);
    prog_parse(p, "<case>", cs->text, strlen(cs->text));
    bool clean = p->diags.head == NULL;
    if (!cs->other_diags)
        CHECK(clean, "%s: the program has diagnostics", cs->kernel);
    const KernelDecl *k = clean || cs->other_diags ? find_kernel(p, cs->kernel) : NULL;
    CHECK(!clean || k, "no kernel %s in p->kernels (%d kernels)", cs->kernel, p->nkernels);
    if (!k) {
        if (!cs->other_diags)
            print_diags(p, cs->text);
        prog_free(p);
        return false;
    }
    if (cs->tile[0] || cs->model_tile)
        check_decl(p, k, cs);

    RtConfig cfg = rt_default_config();
    cfg.threads = cs->threads;
    RtContext *rt = rt_new(p, &cfg);
    CHECK(rt != NULL, "rt_new");
    if (!rt) {
        prog_free(p);
        return false;
    }
    bool is_int = k->a->elem == ELEM_I8;
    const TensorDecl *decl[3] = {k->a, k->b, k->c};
    Operand op[3] = {{0}};
    RtGemm *g = NULL;
    unsigned char *c0 = NULL, *first = NULL;
    bool ok = true;
    int axes[64];
    for (int o = 0; o < 3 && ok; o++) {
        Operand *x = &op[o];
        int ax = k->axis[roles[o][0]], ay = k->axis[roles[o][1]];
        x->t = rt_tensor_declared(rt, decl[o]->name);
        CHECK(x->t != NULL, "%s: tensor %s: %s", cs->kernel, decl[o]->name, rt_error(rt));
        if (!(ok = x->t != NULL))
            break;
        x->sx = p->axes[ax].size;
        x->sy = p->axes[ay].size;
        /* both axes; an axis of size 1 the layout does not mention may be missing (its index is always 0,
         * so the host array is the same either way) */
        int n = p->naxes <= 64 ? rt_tensor_axes(x->t, axes) : 0;
        bool has_x = false, has_y = false, others = false;
        for (int i = 0; i < n; i++) {
            has_x |= axes[i] == ax;
            has_y |= axes[i] == ay;
            others |= axes[i] != ax && axes[i] != ay;
        }
        ok = !others && (has_x || x->sx == 1) && (has_y || x->sy == 1);
        CHECK(ok, "%s: tensor %s has %d axes, not %s and %s", cs->kernel, decl[o]->name, n, p->axes[ax].name,
              p->axes[ay].name);
        if (!ok)
            break;
        x->xmajor = n < 2 || axes[0] == ax;
        x->es = elem_type_size(decl[o]->elem);
        uint64_t elems = x->sx * x->sy, size = rt_tensor_elems(x->t);
        if (cs->layout[o])
            CHECK_EQ_U64(size, layout_size(cs->layout[o], x->sx, x->sy), "%s: positions of %s", cs->kernel, opnames[o]);
        x->host = malloc(elems * x->es);
        x->raw = malloc(size * x->es);
        x->val = malloc(elems * sizeof *x->val);
        for (uint64_t i = 0; i < x->sx; i++)
            for (uint64_t j = 0; j < x->sy; j++) {
                uint64_t h = host_index(x, i, j);
                if (o < 2) {
                    x->val[i * x->sy + j] = random_input(decl[o]->elem, x->host, h);
                } else if (is_int) {
                    int32_t v = (int32_t)(uint32_t)rng_next(&rng);
                    memcpy(x->host + h * 4, &v, 4);
                } else {
                    float v = cs->beta == 0 && rng_below(&rng, 2) ? NAN : (float)rng_signed_unit(&rng);
                    memcpy(x->host + h * 4, &v, 4);
                }
            }
        /* all-ones bytes in every cell the host array does not fill: NaN for the float types, so an
         * operand's padding read into the product shows, and C's padding must keep them */
        memset(rt_tensor_data(x->t), 0xff, size * x->es);
        RtView v = rt_view(x->t, true);
        CHECK(rt_from_host(rt, &v, x->host) == 0, "%s: rt_from_host %s: %s", cs->kernel, opnames[o], rt_error(rt));
        memcpy(x->raw, rt_tensor_data(x->t), size * x->es);
    }
    if (ok) {
        g = rt_gemm_new(rt, k, op[0].t, op[1].t, op[2].t);
        bool cannot = !g && strstr(rt_error(rt), "the host CPU lacks");
        if (cannot)
            skipped++;
        else
            CHECK(g != NULL, "%s: rt_gemm_new: %s", cs->kernel, rt_error(rt));
        ok = g != NULL;
    }
    for (int o = 0; o < 3 && ok; o++) {
        const RtGemmAccess *acc = rt_gemm_access(g, o);
        if (cs->layout[o])
            cov.strided[o][acc->strided]++;
        int want = cs->strided[o];
        int64_t rs = 0, cst = 0;
        if (cs->layout[o]) {
            want = layout_strided(cs->layout[o], op[o].sx, op[o].sy, &rs, &cst);
            if (want && acc->strided)
                CHECK((op[o].sx == 1 || acc->rs == rs) && (op[o].sy == 1 || acc->cs == cst) && acc->base == 0,
                      "%s: %s (%s) in place with strides %lld,%lld base %llu; want %lld,%lld", cs->kernel, opnames[o],
                      layout_names[cs->layout[o]->kind], (long long)acc->rs, (long long)acc->cs, U(acc->base),
                      (long long)rs, (long long)cst);
        }
        if (want >= 0)
            CHECK(acc->strided == (want == 1), "%s: %s (%s) is %s, want %s", cs->kernel, opnames[o],
                  cs->layout[o] ? layout_names[cs->layout[o]->kind] : "given", acc->strided ? "in place" : "staged",
                  want ? "in place" : "staged");
    }
    CHECK(!ok || strcmp(rt_gemm_isa_name(g), "") != 0, "isa name");
    Operand *c = &op[2];
    uint64_t csize = ok ? rt_tensor_elems(c->t) : 0;
    bool ran = ok;
    if (ok) {
        c0 = malloc(c->sx * c->sy * 4);
        first = malloc(c->sx * c->sy * 4);
        memcpy(c0, c->host, c->sx * c->sy * 4);
    }
    for (int run = 0; run < 2 && ok; run++) {
        if (run == 1) { /* from the same initial C */
            memcpy(c->raw, rt_tensor_data(c->t), csize * 4); /* the padding as it is after run 1 */
            RtView v = rt_view(c->t, true);
            ok = rt_from_host(rt, &v, c0) == 0;
            CHECK(ok, "%s: rt_from_host C again: %s", cs->kernel, rt_error(rt));
            if (!ok)
                break;
        }
        int rc = rt_gemm_run(g, cs->alpha, cs->beta);
        CHECK(rc == 0, "%s: rt_gemm_run(%g, %g): %s", cs->kernel, cs->alpha, cs->beta, rt_error(rt));
        RtView v = rt_view(c->t, false);
        memset(c->host, 0xa5, c->sx * c->sy * 4);
        ok = rc == 0 && rt_to_host(rt, &v, c->host) == 0;
        CHECK(rc != 0 || ok, "%s: rt_to_host C: %s", cs->kernel, rt_error(rt));
        if (!ok)
            break;
        if (run == 0) {
            compare(cs, is_int, c, &op[0], &op[1], c0, p->axes[k->axis[GEMM_K]].size);
            memcpy(first, c->host, c->sx * c->sy * 4);
        } else {
            CHECK(memcmp(first, c->host, c->sx * c->sy * 4) == 0, "%s: second run (%d threads) differs", cs->kernel,
                  cs->threads);
        }
        /* A and B untouched; C's cells outside its live positions untouched */
        for (int o = 0; o < 2; o++)
            CHECK(memcmp(op[o].raw, rt_tensor_data(op[o].t), rt_tensor_elems(op[o].t) * op[o].es) == 0,
                  "%s: run %d wrote into %s", cs->kernel, run + 1, opnames[o]);
        if (cs->layout[2]) {
            bool *live = calloc(csize, 1);
            const unsigned char *now = rt_tensor_data(c->t);
            for (uint64_t i = 0; i < c->sx; i++)
                for (uint64_t j = 0; j < c->sy; j++)
                    for (int cp = 0; cp < layout_copies(cs->layout[2]); cp++)
                        live[layout_pos(cs->layout[2], c->sx, c->sy, i, j, cp)] = true;
            uint64_t moved = 0;
            for (uint64_t pos = 0; pos < csize; pos++)
                moved += !live[pos] && memcmp(now + pos * 4, c->raw + pos * 4, 4) != 0;
            /* replicated: every copy holds C */
            uint64_t differ = 0;
            for (int cp = 1; cp < layout_copies(cs->layout[2]); cp++)
                for (uint64_t i = 0; i < c->sx; i++)
                    for (uint64_t j = 0; j < c->sy; j++)
                        differ += memcmp(now + layout_pos(cs->layout[2], c->sx, c->sy, i, j, 0) * 4,
                                         now + layout_pos(cs->layout[2], c->sx, c->sy, i, j, cp) * 4, 4) != 0;
            CHECK(moved == 0 && differ == 0, "%s: C (%s): %llu padding cells written, %llu copies differ",
                  cs->kernel, layout_names[cs->layout[2]->kind], U(moved), U(differ));
            free(live);
        }
    }
    free(c0);
    free(first);
    rt_gemm_free(g);
    for (int o = 0; o < 3; o++) {
        rt_tensor_free(op[o].t);
        free(op[o].host);
        free(op[o].raw);
        free(op[o].val);
    }
    rt_free(rt);
    prog_free(p);
    return ran;
}

/* ---- generated cases ---- */

static uint64_t random_extent(void)
{
    static const uint64_t sizes[] = {1,  2,  3,  5,  7,  13, 17, 31, 37, 61,  97,  131, /* primes, tiny */
                                     24, 50, 33, 65, 100, 129,                          /* non-multiples */
                                     16, 64, 128, 256};                                 /* powers of two */
    return sizes[rng_below(&rng, sizeof sizes / sizeof *sizes)];
}

/* A tile size: often not dividing the axis, sometimes larger than it. */
static uint64_t random_tile(void)
{
    return 1 + rng_below(&rng, 64);
}

/* "m![R / w, K / g, R % w, K % g]" over the tile axes, padded where w or g does not divide. */
static void panel_text(char *buf, size_t size, const char *r, uint64_t rows, int w, uint64_t depth, int g)
{
    char rb[32], kb[32];
    bool brackets = rng_below(&rng, 3) == 0;
    if (rows % (uint64_t)w)
        snprintf(rb, sizeof rb, brackets ? "[%s # %llu]" : "%s # %llu", r, U(round_up(rows, (uint64_t)w)));
    else
        snprintf(rb, sizeof rb, "%s", r);
    if (depth % (uint64_t)g)
        snprintf(kb, sizeof kb, brackets ? "[K # %llu]" : "K # %llu", U(round_up(depth, (uint64_t)g)));
    else
        snprintf(kb, sizeof kb, "K");
    if (g == 1)
        harness_cat(buf, size, "m![%s / %d, K, %s %% %d]", rb, w, rb, w);
    else
        harness_cat(buf, size, "m![%s / %d, %s / %d, %s %% %d, %s %% %d]", rb, w, kb, g, rb, w, kb, g);
}

/* The micro-kernel geometry and block order of a case. The JIT compiles one kernel per geometry, order and type
 * (process-wide cache), which costs far more than a case's arithmetic: each type draws from a pool of a few
 * geometries fixed at the start of the run, and one case in 8 draws a fresh one. Tiles, layouts, sizes, split,
 * threads and scales stay random in every case. */
typedef struct Geometry {
    bool packs;                 /* pack clauses written (else the defaults) */
    int mr, nr, kgroup;
    int order[3];               /* order[0] < 0: the default order */
} Geometry;

static Geometry random_geometry(TypeTriple ty)
{
    Geometry ge = {.packs = rng_below(&rng, 5) != 0, .order = {-1, -1, -1}};
    /* a micro-tile of the target: nr a multiple of the lanes, mr within the register budget (at most 16) */
    ge.nr = target->lanes * (1 + (int)rng_below(&rng, (uint64_t)target->max_nv));
    int mr_max = target_max_mr(target, ge.nr);
    ge.mr = 1 + (int)rng_below(&rng, (uint64_t)(mr_max < 16 ? mr_max : 16));
    const TargetGroups *gs = &target->inputs[ty == T_BF16 ? TARGET_IN_BF16 : ty == T_I8 ? TARGET_IN_I8
                                             : ty == T_F16 ? TARGET_IN_F16 : TARGET_IN_F32];
    ge.kgroup = gs->group[gs->count == 1 ? 0 : (int)rng_below(&rng, (uint64_t)gs->count)].g;
    if (rng_below(&rng, 4)) {
        int o[3] = {GEMM_M, GEMM_N, GEMM_K};
        for (int i = 2; i > 0; i--) {
            int j = (int)rng_below(&rng, (uint64_t)i + 1), t = o[i];
            o[i] = o[j];
            o[j] = t;
        }
        memcpy(ge.order, o, sizeof o);
    }
    return ge;
}

enum { POOL = 6 };
static Geometry pool[NTYPES][POOL];
static bool pool_ready;

static const Geometry *geometry(TypeTriple ty)
{
    static Geometry fresh;
    if (!pool_ready) {
        for (int t = 0; t < NTYPES; t++)
            for (int i = 0; i < POOL; i++)
                pool[t][i] = random_geometry((TypeTriple)t);
        pool_ready = true;
    }
    if (rng_below(&rng, 8) == 0) {
        fresh = random_geometry(ty);
        return &fresh;
    }
    return &pool[ty][rng_below(&rng, POOL)];
}

static void generated_case(int n)
{
    Case cs = {.kernel = "kn", .order = {-1, -1, -1}, .split = -1, .strided = {-1, -1, -1}};
    TypeTriple ty = (TypeTriple)(n % NTYPES);
    /* every (type, layout) pair meets every operand within 4 * NLAYOUTS cases */
    LayoutKind lk[3];
    for (int o = 0; o < 3; o++)
        lk[o] = (LayoutKind)((n / NTYPES + o * (1 + n / (NTYPES * NLAYOUTS))) % NLAYOUTS);
    uint64_t size[3];
    do {
        for (int r = 0; r < 3; r++)
            size[r] = random_extent();
    } while (size[0] * size[1] * size[2] > (1u << 21));
    static const char *const axis_names[3] = {"M", "N", "K"};
    char text[4096] = "axes![";
    int perm[3] = {0, 1, 2};
    if (rng_below(&rng, 4) == 0) /* sometimes declare the axes in another order */
        for (int i = 2; i > 0; i--) {
            int j = (int)rng_below(&rng, (uint64_t)i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
    for (int i = 0; i < 3; i++)
        harness_cat(text, sizeof text, "%s%s = %llu", i ? ", " : "", axis_names[perm[i]], U(size[perm[i]]));
    harness_cat(text, sizeof text, "];\n");
    /* The work follows C over chips (docs/language.md §6): C on one chip, replicated over 2, or one axis on chips; A and
     * B are then on the chips the work projects onto their axes (replicated along the axis they lack). */
    Layout lay[3];
    lay[2] = random_layout(lk[2], size[roles[2][0]], size[roles[2][1]]);
    for (int o = 0; o < 2; o++) {
        if (lay[2].kind == L_REPL) {
            lk[o] = L_REPL;
        } else if (lay[2].kind == L_CHIP) {
            GemmRole chips = lay[2].swap ? GEMM_N : GEMM_M; /* the axis C has on its chips */
            bool has = roles[o][0] == (int)chips || roles[o][1] == (int)chips;
            lk[o] = has ? L_CHIP : L_REPL;
        } else if (lk[o] == L_CHIP || lk[o] == L_REPL) {
            lk[o] = lk[o] == L_CHIP ? L_BLOCK : L_ROW;
        }
        lay[o] = random_layout(lk[o], size[roles[o][0]], size[roles[o][1]]);
        if (lay[2].kind == L_CHIP) {
            GemmRole chips = lay[2].swap ? GEMM_N : GEMM_M;
            if (lk[o] == L_CHIP) { /* the chips' axis major: it is on the Chip mapping; the other one padded or not */
                lay[o].swap = roles[o][1] == (int)chips;
                uint64_t sv = size[roles[o][lay[o].swap ? 0 : 1]];
                lay[o].ld = rng_below(&rng, 2) ? sv : sv + 1 + rng_below(&rng, 3);
            } else {
                lay[o].reps = size[chips];
            }
        }
    }
    for (int o = 0; o < 3; o++) {
        int rx = roles[o][0], ry = roles[o][1];
        cs.layout[o] = &lay[o];
        harness_cat(text, sizeof text, "tensor %s: HbmTensor<%s, ", opnames[o],
            o < 2 ? in_types[ty] : ty == T_I8 ? "i32" : "f32");
        layout_text(text, sizeof text, &lay[o], axis_names[rx], size[rx], axis_names[ry], size[ry]);
        harness_cat(text, sizeof text, ">;\n");
    }
    for (int r = 0; r < 3; r++)
        cs.tile[r] = random_tile();
    char packs[400] = "";
    const Geometry *ge = geometry(ty);
    if (ge->packs) {
        cs.mr = ge->mr;
        cs.nr = ge->nr;
        cs.kgroup = ge->kgroup;
        if (rng_below(&rng, 4) == 0) /* a tile of whole panels */
            cs.tile[GEMM_M] = (uint64_t)cs.mr * (1 + rng_below(&rng, (uint64_t)(64 / cs.mr)));
        harness_cat(packs, sizeof packs, "    pack A = ");
        panel_text(packs, sizeof packs, "M", cs.tile[GEMM_M], cs.mr, cs.tile[GEMM_K], cs.kgroup);
        harness_cat(packs, sizeof packs, ";\n    pack B = ");
        panel_text(packs, sizeof packs, "N", cs.tile[GEMM_N], cs.nr, cs.tile[GEMM_K], cs.kgroup);
        harness_cat(packs, sizeof packs, ";\n");
    }
    if (!ge->packs && rng_below(&rng, 5) == 0) {
        /* no tile clause: the cache model's tiles, for the host's caches or small ones (several blocks) */
        cs.model_tile = true;
        if (rng_below(&rng, 2)) {
            static const uint64_t l1[] = {4 << 10, 8 << 10, 32 << 10, 48 << 10}, l2[] = {64 << 10, 256 << 10, 2 << 20};
            cs.caches = (TargetCaches){.l1d = l1[rng_below(&rng, 4)], .l2 = l2[rng_below(&rng, 3)], .source = "test"};
        }
        harness_cat(text, sizeof text, "kernel kn: C[M, N] = A[M, K] * B[K, N] {\n");
    } else {
        harness_cat(text, sizeof text,
                    "kernel kn: C[M, N] = A[M, K] * B[K, N] {\n    tile M = %llu, N = %llu, K = %llu;\n%s",
                    U(cs.tile[0]), U(cs.tile[1]), U(cs.tile[2]), packs);
    }
    if (ge->order[0] >= 0) {
        memcpy(cs.order, ge->order, sizeof cs.order);
        harness_cat(text, sizeof text, "    order %s, %s, %s;\n", axis_names[cs.order[0]], axis_names[cs.order[1]],
            axis_names[cs.order[2]]);
    }
    int spread = (int)rng_below(&rng, 8);
    if (spread < 4) {
        cs.split = rng_below(&rng, 2) ? GEMM_M : GEMM_N;
        harness_cat(text, sizeof text, "    split %s;\n", axis_names[cs.split]);
    } else if (spread < 7 && lay[2].kind != L_CHIP) {
        /* a grid of slices over the top digits of M and N (C on one chip or replicated: the grid may not use
         * the chips' axis again), sometimes padded, sometimes over 2 clusters or one of 2 */
        char g[160] = "";
        for (int r = 0; r < 2; r++) {
            /* a block of d rows (columns): at most 16 blocks per axis, so at most 256 slices */
            uint64_t s = size[r], least = (s + 15) / 16, d = least + rng_below(&rng, least + 7), pad = (s + d - 1) / d * d;
            if (d == 1 || d == s)
                continue;
            if (pad == s)
                harness_cat(g, sizeof g, "%s%s / %llu", *g ? ", " : "", axis_names[r], U(d));
            else
                harness_cat(g, sizeof g, "%s[%s # %llu] / %llu", *g ? ", " : "", axis_names[r], U(pad), U(d));
        }
        const char *cl = rng_below(&rng, 3) == 0 ? "cluster = m![1 # 2], " : rng_below(&rng, 4) == 0 ? "cluster = m![2], " : "";
        harness_cat(text, sizeof text, "    grid %sslice = m![%s];\n", cl, *g ? g : "1");
        cs.split = -2; /* a grid: no split to check */
    }
    harness_cat(text, sizeof text, "}\n");
    cs.text = text;
    cs.threads = 1 + (int)rng_below(&rng, 2);
    static const double fab[][2] = {{1, 0}, {-0.5, 2}, {2, 1}, {1, 1}, {0.25, -1}, {0, 0.5}, {1.5, 0}};
    static const double iab[][2] = {{1, 0}, {-1, 2}, {2, 1}, {3, -2}, {0, 1}, {-2, 0}};
    const double *ab = ty == T_I8 ? iab[rng_below(&rng, 6)] : fab[rng_below(&rng, 7)];
    cs.alpha = ab[0];
    cs.beta = ab[1];
    long before = harness_failed();
    if (run_case(&cs)) {
        cov.cases++;
        cov.types[ty]++;
        cov.threads[cs.threads]++;
        cov.beta_zero += cs.beta == 0;
        cov.pack_defaults += !ge->packs;
        cov.model_tiles += cs.model_tile;
        cov.order_defaults += ge->order[0] < 0;
        cov.split_defaults += cs.split < 0;
        for (int o = 0; o < 3; o++)
            cov.layouts[o][ty][lk[o]]++;
    }
    if (harness_failed() != before)
        fprintf(stderr, "  in case %d (threads %d, alpha %g, beta %g):\n%s", n, cs.threads, cs.alpha, cs.beta, text);
}

/* ---- fixed cases ---- */

/* Every kernel of samples/gemm/gemm.map as written, with M = N = K = 97 (prog_override_axis), on 1 and 2
 * threads. Its pack clauses are AVX-512 panels: another target keeps them as the DM layout and computes with
 * its own micro-tile (k->pack_isa, the repacked geometry checked here). */
static void sample_cases(void)
{
    const char *path = MAPC_SAMPLES "/gemm/gemm.map";
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "cannot open %s", path);
    if (!f)
        return;
    char *text = calloc(1, 1 << 16);
    size_t len = fread(text, 1, (1 << 16) - 1, f);
    fclose(f);
    text[len] = 0;
    Prog *p = prog_new();
    prog_set_target(p, isa);
    for (int r = 0; r < 3; r++)
        prog_override_axis(p, (const char *[]){"M", "N", "K"}[r], 97);
    prog_parse(p, path, text, len);
    CHECK(p->diags.head == NULL && p->nkernels >= 1, "%s (M = N = K = 97): %d kernels, diagnostics:", path,
          p->nkernels);
    if (p->diags.head)
        print_diags(p, "(the sample)");
    static const double ab[][2] = {{1, 0}, {-0.5, 2}, {2, 1}, {3, -1}};
    for (int i = 0; i < p->nkernels; i++) {
        const KernelDecl *k = p->kernels[i];
        bool own = isa == TARGET_ISA_AVX512;
        if (k->tile_from_model) { /* no tile or pack clause: the target's own default panels */
            CHECK(k->pack_isa == k->isa && k->pack_mr == target->default_mr && k->pack_nr == target->default_nr &&
                      k->mr == target->default_mr && k->nr == target->default_nr,
                  "sample kernel %s on %s: DM panels %dx%d of %s, micro-tile %dx%d", k->name, target->name,
                  k->pack_mr, k->pack_nr, target_isa_name(k->pack_isa), k->mr, k->nr);
            continue;
        }
        CHECK(k->pack_isa == TARGET_ISA_AVX512 && k->pack_mr == 12 && k->pack_nr == 32 &&
                  (own ? k->mr == 12 && k->nr == 32 && k->kgroup == k->pack_kgroup
                       : k->mr == target->default_mr && k->nr == target->default_nr && k->kgroup == 1),
              "sample kernel %s on %s: DM panels %dx%d g %d of %s, micro-tile %dx%d g %d", k->name, target->name,
              k->pack_mr, k->pack_nr, k->pack_kgroup, target_isa_name(k->pack_isa), k->mr, k->nr, k->kgroup);
    }
    for (int i = 0; i < p->nkernels; i++)
        for (int threads = 1; threads <= 2; threads++) {
            bool is_int = p->kernels[i]->a->elem == ELEM_I8;
            Case cs = {.text = text, .kernel = p->kernels[i]->name, .override = {97, 97, 97}, .threads = threads,
                       .alpha = ab[is_int ? 3 : i % 3][0], .beta = ab[is_int ? 3 : i % 3][1], .other_diags = true,
                       .strided = {-1, -1, -1}};
            run_case(&cs);
        }
    prog_free(p);
    free(text);
}

/* Pack panels that several geometries describe (the front end must accept any equivalent mapping): one row
 * per panel with K groups, a K tile of 1, a K tile padded to one multiple of 2 and 4. A case is skipped on a
 * target whose table lacks the K group or the B panel width it writes. */
static void panel_cases(void)
{
    static const struct {
        const char *type, *ctype;
        TargetInput in;
        int g, nr;              /* the K group and the B panel width written */
        const char *body;
    } ps[] = {
        {"bf16", "f32", TARGET_IN_BF16, 2, 16, "tile M = 8, N = 16, K = 4; pack A = m![M / 1, K / 2, M % 1, K % 2]; "
                                               "pack B = m![N / 16, K / 2, N % 16, K % 2];"},
        {"f32", "f32", TARGET_IN_F32, 1, 16,
         "tile M = 24, N = 48, K = 1; pack A = m![M / 12, K, M % 12]; pack B = m![N / 16, K, N % 16];"},
        {"i8", "i32", TARGET_IN_I8, 4, 48, "tile M = 45, N = 48, K = 35; pack A = m![M / 1, K # 36 / 4, M % 1, K # 36 % 4]; "
                                           "pack B = m![N / 48, K # 36 / 4, N % 48, K # 36 % 4];"},
    };
    for (size_t i = 0; i < sizeof ps / sizeof *ps; i++) {
        if (!target_group(target, ps[i].in, ps[i].g) || !target_nr_ok(target, ps[i].nr)) {
            printf("panel case %zu (K groups of %d, %d-column B panels): not on %s, skipped\n", i, ps[i].g, ps[i].nr,
                   target->name);
            continue;
        }
        char text[1024];
        snprintf(text, sizeof text,
                 "axes![M = 37, N = 61, K = 50];\n"
                 "tensor A: HbmTensor<%s, m![1], m![M, K]>;\n"
                 "tensor B: HbmTensor<%s, m![1], m![K, N]>;\n"
                 "tensor C: HbmTensor<%s, m![1], m![M, N]>;\n"
                 "kernel panel: C[M, N] = A[M, K] * B[K, N] { %s }\n",
                 ps[i].type, ps[i].type, ps[i].ctype, ps[i].body);
        Case cs = {.text = text, .kernel = "panel", .threads = 1 + (int)(i % 2), .alpha = 1, .beta = 1,
                   .strided = {1, 1, 1}};
        run_case(&cs);
    }
}

/* A case over row-major A and B with the given C layout text. */
/* A kernel over A and B on the chips ab_chips (row-major on each) and C with the mappings c_maps. */
static void small_case_on(const char *what, uint64_t m, uint64_t n, uint64_t k, const char *type, const char *ctype,
                          const char *ab_chips, const char *c_maps, int c_strided, double alpha, double beta,
                          int threads)
{
    char text[1024];
    snprintf(text, sizeof text,
             "axes![M = %llu, N = %llu, K = %llu];\n"
             "tensor A: HbmTensor<%s, %s, m![M, K]>;\n"
             "tensor B: HbmTensor<%s, %s, m![K, N]>;\n"
             "tensor C: HbmTensor<%s, %s>;\n"
             "kernel %s: C[M, N] = A[M, K] * B[K, N] {\n    tile M = 16, N = 32, K = 8;\n}\n",
             U(m), U(n), U(k), type, ab_chips, type, ab_chips, ctype, c_maps, what);
    int ab_strided = strcmp(ab_chips, "m![1]") == 0;
    Case cs = {.text = text, .kernel = what, .threads = threads, .alpha = alpha, .beta = beta,
               .strided = {ab_strided, ab_strided, c_strided}};
    run_case(&cs);
}

static void small_case(const char *what, uint64_t m, uint64_t n, uint64_t k, const char *type, const char *ctype,
                       const char *c_maps, int c_strided, double alpha, double beta, int threads)
{
    small_case_on(what, m, n, k, type, ctype, "m![1]", c_maps, c_strided, alpha, beta, threads);
}

static void edge_cases(void)
{
    for (int threads = 1; threads <= 2; threads++) {
        small_case("one", 1, 1, 1, "f32", "f32", "m![1], m![M, N]", 1, 2, 1, threads);
        small_case("one_i8", 1, 1, 1, "i8", "i32", "m![1], m![M, N]", 1, -3, 2, threads);
        small_case("row", 1, 37, 13, "bf16", "f32", "m![1], m![M, N]", 1, 1, 0, threads);
        small_case("col", 61, 1, 5, "f16", "f32", "m![1], m![M, N]", 1, -0.5, 2, threads);
        small_case("k1", 33, 50, 1, "f32", "f32", "m![1], m![M, N]", 1, 1, 1, threads);
        small_case("ccol", 37, 29, 19, "f32", "f32", "m![1], m![N, M]", 1, 1, 1, threads);
        small_case("ccol_i8", 37, 29, 19, "i8", "i32", "m![1], m![N, M # 40]", 1, 2, -1, threads);
        /* staged C with beta != 0: C must be read in before the product; replicated over 2 chips (the work and
         * A and B with it), every copy written */
        small_case("cstaged", 37, 29, 19, "f32", "f32",
                   "m![1], tiled![shape: [M, N], tile: [4, 8], outer: row_major, inner: col_major]", 0, 1, 2, threads);
        small_case_on("crepl", 37, 29, 19, "f32", "f32", "m![2]", "m![2], m![M, N]", 0, 1, 2, threads);
        small_case("cblocked", 40, 24, 17, "bf16", "f32", "m![1], m![N / 8, M, N % 8]", 0, 0.5, -1, threads);
        small_case("cblocked_i8", 40, 24, 17, "i8", "i32", "m![1], m![M / 8, N, M % 8]", 0, 1, 3, threads);
    }
}

/* Layouts that leave out an axis of size 1 (a Chip mapping of the axis, a tiled![...] descriptor): both hold every
 * index, the axis only has index 0, and rt_gemm_new must accept them. */
static void unit_axis_cases(void)
{
    static const char *const bs[] = {
        "m![N], m![K]",
        "m![1], tiled![shape: [K, N], tile: [2, 2], outer: row_major, inner: col_major]",
    };
    for (int i = 0; i < 2; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "axes![M = 13, N = 1, K = 7];\n"
                 "tensor A: HbmTensor<f32, m![1], m![M, K]>;\n"
                 "tensor B: HbmTensor<f32, %s>;\n"
                 "tensor C: HbmTensor<f32, m![1], m![M, N]>;\n"
                 "kernel unit: C[M, N] = A[M, K] * B[K, N] {\n    tile M = 8, N = 16, K = 4;\n}\n",
                 bs[i]);
        Case cs = {.text = text, .kernel = "unit", .threads = 1, .alpha = 1, .beta = 1, .strided = {1, -1, 1}};
        run_case(&cs);
    }
}

/* rt_gemm_new and rt_gemm_run refuse operands and scales, naming them. */
static void error_cases(void)
{
    const char *text = "axes![M = 8, N = 16, K = 4];\n"
                       "tensor A: HbmTensor<bf16, m![1], m![M, K]>;\n"
                       "tensor B: HbmTensor<bf16, m![1], m![K, N]>;\n"
                       "tensor C: HbmTensor<f32, m![1], m![M, N]>;\n"
                       "tensor F: HbmTensor<f32, m![1], m![M, K]>;\n"
                       "tensor Q: HbmTensor<i8, m![1], m![M, K]>;\n"
                       "tensor R: HbmTensor<i8, m![1], m![K, N]>;\n"
                       "tensor S: HbmTensor<i32, m![1], m![M, N]>;\n"
                       "tensor T: HbmTensor<f32, m![1], m![N, M]>;\n"
                       "kernel kh: C[M, N] = A[M, K] * B[K, N] {\n"
                       "    tile M = 8, N = 16, K = 4; pack A = m![M / 4, K, M % 4]; pack B = m![N / 16, K, N % 16];\n"
                       "}\n"
                       "kernel ki: S[M, N] = Q[M, K] * R[K, N] {\n"
                       "    tile M = 8, N = 16, K = 4; pack A = m![M / 4, K, M % 4]; pack B = m![N / 16, K, N % 16];\n"
                       "}\n";
    Prog *p = prog_new();
    prog_set_target(p, isa);
    prog_parse(p, "<errors>", text, strlen(text));
    CHECK(p->diags.head == NULL, "error program has diagnostics");
    const KernelDecl *kh = find_kernel(p, "kh"), *ki = find_kernel(p, "ki");
    if (!kh || !ki) {
        FAIL("no kernels kh and ki");
        print_diags(p, text);
        prog_free(p);
        return;
    }
    RtContext *rt = rt_new(p, NULL);
    static const char *const names[] = {"A", "B", "C", "F", "Q", "R", "S", "T"};
    RtTensor *t[8];
    for (int i = 0; i < 8; i++)
        t[i] = rt_tensor_declared(rt, names[i]);
    RtTensor *A = t[0], *B = t[1], *C = t[2], *F = t[3], *Q = t[4], *R = t[5], *S = t[6], *T = t[7];
    struct {
        const KernelDecl *k;
        RtTensor *a, *b, *c;
        const char *want;
    } bad[] = {
        {kh, F, B, C, "kernel kh: operand A holds f32 elements, not bf16"},
        {kh, A, F, C, "kernel kh: operand B holds f32 elements, not bf16"},
        {kh, A, B, S, "kernel kh: operand C holds i32 elements, not f32"},
        {kh, A, B, F, "kernel kh: operand C must hold axes M and N"},
        {ki, Q, R, T, "kernel ki: operand C holds f32 elements, not i32"},
        {ki, R, R, S, "kernel ki: operand A must hold axes M and K"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        RtGemm *g = rt_gemm_new(rt, bad[i].k, bad[i].a, bad[i].b, bad[i].c);
        CHECK(g == NULL && strcmp(rt_error(rt), bad[i].want) == 0, "want \"%s\", got %s \"%s\"", bad[i].want,
              g ? "success" : "", g ? "" : rt_error(rt));
        rt_gemm_free(g);
    }
    /* a transposed C (column-major) is a C like any other */
    RtGemm *g = rt_gemm_new(rt, kh, A, B, T);
    CHECK(g != NULL && rt_gemm_access(g, 2)->strided && rt_gemm_access(g, 2)->rs == 1 &&
              rt_gemm_access(g, 2)->cs == 8,
          "column-major C in place: %s", g ? "" : rt_error(rt));
    rt_gemm_free(g);
    /* i8 kernels take integer scales only */
    g = rt_gemm_new(rt, ki, Q, R, S);
    CHECK(g != NULL, "ki: %s", rt_error(rt));
    if (g) {
        CHECK(rt_gemm_run(g, 0.5, 0) == -1 &&
                  strcmp(rt_error(rt), "kernel ki computes in i32: alpha (0.5) and beta (0) must be 32-bit integers") ==
                      0,
              "fractional alpha: %s", rt_error(rt));
        CHECK(rt_gemm_run(g, 1, 4294967296.0) == -1 && strstr(rt_error(rt), "must be 32-bit integers"),
              "beta out of range: %s", rt_error(rt));
        CHECK(rt_gemm_run(g, 1, 0) == 0, "integer scales run: %s", rt_error(rt));
    }
    rt_gemm_free(g);
    for (int i = 0; i < 8; i++)
        rt_tensor_free(t[i]);
    rt_free(rt);
    prog_free(p);
}

/* docs/language.md §5: the mappings of a tensor use disjoint axes, so an axis cannot be split between Chip and Element. */
static void chip_split_case(void)
{
    const char *text = "axes![M = 8, N = 16, K = 4];\n"
                       "tensor A: HbmTensor<f32, m![M / 4], m![M % 4, K]>;\n";
    Prog *p = prog_new();
    prog_set_target(p, isa);
    prog_parse(p, "<chip>", text, strlen(text));
    CHECK(!p->diags.head && p->ntensors == 1, "an axis split over Chip and Element is one distribution (docs/language.md §5): %s",
          p->diags.head ? p->diags.head->msg : "accepted");
    prog_free(p);
}

int main(int argc, char **argv)
{
    HarnessArgs args = {.seed = 0x6b65726eu, .count = 300};
    harness_args(argc, argv, "[SEED [COUNT]]", &args);
    rng = rng_seeded(args.seed);
    int cases = (int)args.count;
    /* MAPC_ISA=avx512|avx2|portable (test code only) checks and runs every program for that ISA instead of
     * the host's best, as on a host that has nothing better */
    const char *env = getenv("MAPC_ISA");
    if (env && *env && !target_isa_parse(env, &isa)) {
        fprintf(stderr, "test_kernel: MAPC_ISA takes avx512, avx2 or portable, not '%s'\n", env);
        return 2;
    }
    isa = target_resolve(isa);
    target = target_info(isa);
    fprintf(stderr, "seed %llu, %d generated cases, target %s\n", U(args.seed), cases, target->name);
    chip_split_case();
    error_cases();
    edge_cases();
    panel_cases();
    unit_axis_cases();
    sample_cases();
    for (int n = 0; n < cases; n++)
        generated_case(n);
    printf("generated: %d cases, %d ran (%d f32, %d bf16, %d f16, %d i8; %d on 1 thread, %d on 2; %d with beta 0;"
           " defaults: tile %d, pack %d, order %d, split %d)\n",
           cases, cov.cases, cov.types[0], cov.types[1], cov.types[2], cov.types[3], cov.threads[1], cov.threads[2],
           cov.beta_zero, cov.model_tiles, cov.pack_defaults, cov.order_defaults, cov.split_defaults);
    if (skipped)
        printf("skipped: %d cases whose kernels the host cannot run\n", skipped);
    for (int o = 0; o < 3; o++) {
        printf("  %s: in place %d, staged %d; by layout (f32/bf16/f16/i8):", opnames[o], cov.strided[o][1],
               cov.strided[o][0]);
        for (int l = 0; l < NLAYOUTS; l++) {
            printf(" %s", layout_names[l]);
            for (int t = 0; t < NTYPES; t++)
                printf("%s%d", t ? "/" : " ", cov.layouts[o][t][l]);
        }
        printf("\n");
    }
    return harness_report();
}
