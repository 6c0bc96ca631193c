/* rt_gemm.c — a declared GEMM kernel over HBM tensors: operand access (in place or staged), the run. */
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
    /* a zero-scale product of the operands compiles the kernels now (C is left as it is) */
    if (ok && (g->is_int ? gemm_i8_tiled(g->engine, &g->tiling, 0, &g->view[0], &g->view[1], 1, &g->view[2], err,
                                         sizeof err)
                         : gemm_f32_tiled(g->engine, &g->tiling, 0.0f, &g->view[0], &g->view[1], 1.0f, &g->view[2],
                                          err, sizeof err))) {
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
    int r;
    if (g->is_int) {
        if (alpha != floor(alpha) || beta != floor(beta) || fabs(alpha) > INT32_MAX || fabs(beta) > INT32_MAX)
            return rt_fail(rt, "kernel %s computes in i32: alpha (%g) and beta (%g) must be 32-bit integers",
                           g->k->name, alpha, beta);
        r = gemm_i8_tiled(g->engine, &g->tiling, (int32_t)alpha, &g->view[0], &g->view[1], (int32_t)beta, &g->view[2],
                          err, sizeof err);
    } else {
        r = gemm_f32_tiled(g->engine, &g->tiling, (float)alpha, &g->view[0], &g->view[1], (float)beta, &g->view[2],
                           err, sizeof err);
    }
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

const char *rt_gemm_isa_name(const RtGemm *g)
{
    return target_isa_name(gemm_isa(g->engine));
}
