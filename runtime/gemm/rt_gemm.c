/* rt_gemm.c — a declared GEMM kernel over HBM tensors: operand access (in place or staged), the units of
 * its grid (one block of C each), the run. */
#include "desc/desc.h"
#include "rt_gemm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Positions scanned at most to find where the unit indices of a layout live. */
#define UNIT_SCAN_LIMIT (1u << 22)

struct RtGemm {
    RtContext *rt;
    const KernelDecl *k;
    RtTensor *t[3];             /* A, B, C as given */
    RtTensor *stage[3];         /* owned row-major staging tensors of staged operands */
    RtGemmAccess acc[3];
    GemmView view[3];
    GemmTiling tiling;
    GemmUnit *units;            /* owned: the grid's live units, a replicated block once */
    size_t nunits;
    uint64_t grid_units;        /* positions of the grid (live, idle and replicas) */
    Gemm *engine;               /* owned */
    bool is_int;
    double stage_seconds;       /* time spent in staging moves by the last run */
};

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static const GemmRole operand_roles[3][2] = {{GEMM_M, GEMM_K}, {GEMM_K, GEMM_N}, {GEMM_M, GEMM_N}};
static const char *const operand_names[3] = {"A", "B", "C"};

static GemmType gemm_type_of(ElemType e)
{
    switch (e) {
    case ELEM_BF16: return GEMM_BF16;
    case ELEM_F16: return GEMM_F16;
    case ELEM_I8: return GEMM_I8;
    case ELEM_I32: return GEMM_I32;
    default: return GEMM_F32;
    }
}

/* The smallest position of m whose cell is live with coordinate x on axis ax, y on ay and 0 on every
 * other axis; false if none among the first UNIT_SCAN_LIMIT positions (or the interpreter cannot say). */
static bool find_unit(RtContext *rt, Evaluator *ev, const Map *m, int ax, uint64_t x, int ay, uint64_t y,
                      uint64_t *pos)
{
    int n = rt_prog(rt)->naxes;
    uint64_t *coord = calloc((size_t)n + 1, sizeof *coord);
    if (!coord)
        return false;
    Cell c = {.coord = coord};
    uint64_t end = m->size < UNIT_SCAN_LIMIT ? m->size : UNIT_SCAN_LIMIT;
    bool found = false;
    for (uint64_t p = 0; p < end && !found; p++) {
        if (eval_cell(ev, m, p, &c) != EVAL_OK)
            break;
        if (c.kind != CELL_LIVE)
            continue;
        found = true;
        for (int i = 0; i < n && found; i++)
            found = coord[i] == (i == ax ? x : i == ay ? y : 0);
        if (found)
            *pos = p;
    }
    free(coord);
    return found;
}

/* Whether the flat layout m over the axes (ax, ay) is strided: every index (i, j) is live exactly at
 * base + i*rs + j*cs and every other position is pad(top). Candidate strides come from the positions
 * of the unit indices; the candidate is then decided equivalent (isl) to m. */
static bool recognize_strided(RtContext *rt, Eqv *q, const Map *m, int ax, int ay, RtGemmAccess *acc)
{
    Prog *p = rt_prog(rt);
    Evaluator *ev = eqv_evaluator(q);
    uint64_t sx = p->axes[ax].size, sy = p->axes[ay].size, o, px = 0, py = 0;
    if (!find_unit(rt, ev, m, ax, 0, ay, 0, &o) || o != 0)
        return false; /* a base offset has no strided mapping; staging handles it */
    if ((sx > 1 && !find_unit(rt, ev, m, ax, 1, ay, 0, &px)) || (sy > 1 && !find_unit(rt, ev, m, ax, 0, ay, 1, &py)))
        return false;
    uint64_t rs = sx > 1 ? px : sy > 1 ? py * sy : 1, cs = sy > 1 ? py : 1;
    if (sx == 1 && sy == 1)
        rs = cs = 1;
    Desc d = {.kind = DESC_KIND_STRIDED, .rank = 2, .axes = (int[]){ax, ay}, .extent = (uint64_t[]){sx, sy},
              .strides = (uint64_t[]){rs, cs}, .loc = m->loc};
    Diags scratch;
    diags_init(&scratch, &p->arena);
    const Map *cand = desc_to_map(p, &d, &scratch);
    if (!cand)
        return false;
    if (cand->size < m->size) {
        MapWhy why;
        cand = map_make_op(&p->arena, MAP_PAD, PAD_TOP, cand, m->size, m->loc, why);
        if (!cand)
            return false;
    }
    if (eqv_same(q, m, cand) != 1)
        return false;
    *acc = (RtGemmAccess){.strided = true, .rs = (int64_t)rs, .cs = (int64_t)cs, .base = 0};
    return true;
}

/* The row-major HBM staging tensor m![X, Y] of operand i (one chip). */
static RtTensor *staging_tensor(RtGemm *g, int i)
{
    RtContext *rt = g->rt;
    Prog *p = rt_prog(rt);
    int ax = g->k->axis[operand_roles[i][0]], ay = g->k->axis[operand_roles[i][1]];
    MapWhy why;
    Loc at = g->k->loc;
    const Map *x = map_make_sym(&p->arena, ax, p->axes[ax].size, at, why);
    const Map *y = x ? map_make_sym(&p->arena, ay, p->axes[ay].size, at, why) : NULL;
    const Map *e = y ? map_make_pair(&p->arena, x, y, at, why) : NULL;
    const Map *chip = e ? map_make_bcast(&p->arena, 1, at, why) : NULL;
    if (!chip) {
        rt_fail(rt, "kernel %s: cannot describe the staging layout of %s: %s", g->k->name, operand_names[i], why);
        return NULL;
    }
    return rt_tensor_new(rt, MEM_HBM, rt_tensor_elem(g->t[i]), (const Map *[]){chip, e}, 2);
}

/* Checks that tensor t can stand for operand i of k: its element type and its axes. */
static int check_operand(RtContext *rt, const KernelDecl *k, int i, const RtTensor *t)
{
    const TensorDecl *d = i == 0 ? k->a : i == 1 ? k->b : k->c;
    if (rt_tensor_elem(t) != d->elem)
        return rt_fail(rt, "kernel %s: operand %s holds %s elements, not %s", k->name, operand_names[i],
                       elem_type_name(rt_tensor_elem(t)), elem_type_name(d->elem));
    /* the tensor's axes, less any of size 1 its layout leaves out (they only ever have index 0) */
    const Prog *p = rt_prog(rt);
    int *axes = calloc((size_t)p->naxes + 1, sizeof *axes);
    if (!axes)
        return rt_fail(rt, "out of memory");
    int n = rt_tensor_axes(t, axes), ax = k->axis[operand_roles[i][0]], ay = k->axis[operand_roles[i][1]];
    bool has_x = false, has_y = false, ok = n <= 2;
    for (int j = 0; j < n && ok; j++) {
        has_x |= axes[j] == ax;
        has_y |= axes[j] == ay;
        ok = axes[j] == ax || axes[j] == ay;
    }
    ok = ok && (has_x || p->axes[ax].size == 1) && (has_y || p->axes[ay].size == 1);
    free(axes);
    if (!ok)
        return rt_fail(rt, "kernel %s: operand %s must hold axes %s and %s", k->name, operand_names[i],
                       rt_prog(rt)->axes[ax].name, rt_prog(rt)->axes[ay].name);
    return 0;
}

/* The rows [r0, r0 + rows) and columns [c0, c0 + cols) of view v. */
static GemmView sub_view(const GemmView *v, uint64_t r0, uint64_t c0, uint64_t rows, uint64_t cols)
{
    uint64_t off = r0 * (uint64_t)v->rs + c0 * (uint64_t)v->cs;
    return gemm_view((char *)v->data + off * gemm_type_size(v->type), v->len > off ? v->len - off : 0, rows, cols,
                     v->rs, v->cs, v->type);
}

/* The grid's units: for each position of the grid layout m![{chip}, {cluster}, {slice}] whose cell is live,
 * the block of C at that cell's (M, N) origin, block[0] x block[1] cut at C's edge, with its rows of A and
 * columns of B; a block met again (a broadcast of the grid replicates the work) is given once. 0, or -1. */
static int make_units(RtGemm *g)
{
    RtContext *rt = g->rt;
    Prog *p = rt_prog(rt);
    const KernelDecl *k = g->k;
    MapWhy why;
    const Map *grid = NULL;
    for (int d = 2; d >= 0; d--)
        if (k->grid[d]->size > 1 || (d == 0 && !grid))
            grid = grid ? map_make_pair(&p->arena, k->grid[d], grid, k->loc, why) : k->grid[d];
    if (!grid)
        return rt_fail(rt, "kernel %s: the grid's layout: %s", k->name, why);
    uint64_t M = p->axes[k->axis[GEMM_M]].size, N = p->axes[k->axis[GEMM_N]].size, K = p->axes[k->axis[GEMM_K]].size;
    uint64_t h = k->block[0], w = k->block[1], bm = (M + h - 1) / h, bn = (N + w - 1) / w;
    g->grid_units = grid->size;
    g->units = calloc(grid->size ? grid->size : 1, sizeof *g->units);
    bool *seen = calloc(bm * bn + 1, 1);
    Evaluator *ev = eqv_evaluator_new(p);
    Cell c = {.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    int r = 0;
    if (!g->units || !seen || !ev || !c.coord)
        r = rt_fail(rt, "out of memory");
    for (uint64_t u = 0; r == 0 && u < grid->size; u++) {
        if (eval_cell(ev, grid, u, &c) != EVAL_OK) {
            r = rt_fail(rt, "kernel %s: cannot evaluate its grid: %s", k->name, eval_error(ev));
            break;
        }
        if (c.kind != CELL_LIVE)
            continue; /* an idle unit: padding of the grid */
        uint64_t m0 = c.coord[k->axis[GEMM_M]], n0 = c.coord[k->axis[GEMM_N]];
        if (m0 >= M || n0 >= N || seen[m0 / h * bn + n0 / w])
            continue;
        seen[m0 / h * bn + n0 / w] = true;
        uint64_t rows = M - m0 < h ? M - m0 : h, cols = N - n0 < w ? N - n0 : w;
        g->units[g->nunits++] = (GemmUnit){.a = sub_view(&g->view[0], m0, 0, rows, K),
                                           .b = sub_view(&g->view[1], 0, n0, K, cols),
                                           .c = sub_view(&g->view[2], m0, n0, rows, cols)};
    }
    if (r == 0 && g->nunits != bm * bn)
        r = rt_fail(rt, "kernel %s: its grid leaves %llu of %llu blocks of C to no unit", k->name,
                    (unsigned long long)(bm * bn - g->nunits), (unsigned long long)(bm * bn));
    free(seen);
    free(c.coord);
    eqv_evaluator_free(ev);
    return r;
}

/* The product over the units: C <- alpha*A*B + beta*C (integers for i8 kernels). */
static int run_units(RtGemm *g, double alpha, double beta, char *err, size_t cap)
{
    if (g->is_int)
        return gemm_i8_units(g->engine, &g->tiling, (int32_t)alpha, (int32_t)beta, g->units, g->nunits, err, cap);
    return gemm_f32_units(g->engine, &g->tiling, (float)alpha, (float)beta, g->units, g->nunits, err, cap);
}

RtGemm *rt_gemm_new(RtContext *rt, const KernelDecl *k, RtTensor *a, RtTensor *b, RtTensor *c)
{
    RtGemm *g = calloc(1, sizeof *g);
    Eqv *q = eqv_new(rt_prog(rt));
    if (!g || !q) {
        free(g);
        eqv_free(q);
        rt_fail(rt, "out of memory");
        return NULL;
    }
    g->rt = rt;
    g->k = k;
    g->t[0] = a;
    g->t[1] = b;
    g->t[2] = c;
    g->is_int = k->a->elem == ELEM_I8;
    bool ok = true;
    for (int i = 0; i < 3 && ok; i++) {
        ok = check_operand(rt, k, i, g->t[i]) == 0;
        int ax = k->axis[operand_roles[i][0]], ay = k->axis[operand_roles[i][1]];
        if (ok && !recognize_strided(rt, q, rt_tensor_map(g->t[i]), ax, ay, &g->acc[i])) {
            g->stage[i] = staging_tensor(g, i);
            ok = g->stage[i] != NULL;
            g->acc[i] = (RtGemmAccess){.strided = false, .rs = (int64_t)rt_prog(rt)->axes[ay].size, .cs = 1};
        }
        if (ok) {
            RtTensor *t = g->stage[i] ? g->stage[i] : g->t[i];
            const Prog *p = rt_prog(rt);
            g->view[i] = gemm_view((char *)rt_tensor_data(t) + g->acc[i].base * elem_type_size(rt_tensor_elem(t)),
                                   rt_tensor_elems(t) - g->acc[i].base, p->axes[ax].size, p->axes[ay].size,
                                   g->acc[i].rs, g->acc[i].cs, gemm_type_of(rt_tensor_elem(t)));
        }
    }
    eqv_free(q);
    g->tiling = (GemmTiling){.mr = k->mr, .nr = k->nr, .kgroup = k->kgroup, .mc = (int64_t)k->tile[GEMM_M],
                             .nc = (int64_t)k->tile[GEMM_N], .kc = (int64_t)k->tile[GEMM_K],
                             .order = {k->order[0], k->order[1], k->order[2]},
                             .split = k->split == GEMM_N};
    char err[256];
    /* the kernels of the ISA the declaration was checked for */
    if (ok && !(g->engine = gemm_new(&(GemmOptions){.threads = rt_threads(rt), .isa = k->isa}, err, sizeof err))) {
        rt_fail(rt, "kernel %s: %s", k->name, err);
        ok = false;
    }
    ok = ok && make_units(g) == 0;
    /* a zero-scale product of the operands compiles the kernels now (C is left as it is) */
    if (ok && run_units(g, 0, 1, err, sizeof err)) {
        rt_fail(rt, "kernel %s: %s", k->name, err);
        ok = false;
    }
    if (!ok) {
        rt_gemm_free(g);
        return NULL;
    }
    return g;
}

void rt_gemm_free(RtGemm *g)
{
    if (!g)
        return;
    for (int i = 0; i < 3; i++)
        rt_tensor_free(g->stage[i]);
    free(g->units);
    gemm_free(g->engine);
    free(g);
}

int rt_gemm_run(RtGemm *g, double alpha, double beta)
{
    RtContext *rt = g->rt;
    double t0 = now_seconds();
    for (int i = 0; i < 3; i++)
        if (g->stage[i] && (i < 2 || beta != 0.0)) {
            RtView dst = rt_view(g->stage[i], true), src = rt_view(g->t[i], false);
            if (rt_dma(rt, &dst, &src))
                return -1;
        }
    g->stage_seconds = now_seconds() - t0;
    char err[256];
    if (g->is_int && (alpha != floor(alpha) || beta != floor(beta) || alpha < INT32_MIN || alpha > INT32_MAX ||
                      beta < INT32_MIN || beta > INT32_MAX))
        return rt_fail(rt, "kernel %s computes in i32: alpha (%g) and beta (%g) must be 32-bit integers", g->k->name,
                       alpha, beta);
    int r = run_units(g, alpha, beta, err, sizeof err);
    if (r)
        return rt_fail(rt, "kernel %s: %s", g->k->name, err);
    if (g->stage[2]) {
        t0 = now_seconds();
        RtView dst = rt_view(g->t[2], true), src = rt_view(g->stage[2], false);
        if (rt_dma(rt, &dst, &src))
            return -1;
        g->stage_seconds += now_seconds() - t0;
    }
    return 0;
}

const RtGemmAccess *rt_gemm_access(const RtGemm *g, int operand)
{
    return &g->acc[operand];
}

double rt_gemm_stage_seconds(const RtGemm *g)
{
    return g->stage_seconds;
}

size_t rt_gemm_units(const RtGemm *g, uint64_t *grid_units)
{
    if (grid_units)
        *grid_units = g->grid_units;
    return g->nunits;
}

const char *rt_gemm_isa_name(const RtGemm *g)
{
    return target_isa_name(gemm_isa(g->engine));
}
