/* rt_gemm.c — a declared GEMM kernel over HBM tensors: operand access (in place or staged), the units of
 * its grid (one block of C each), the run. */
#include "chip_reduce.h"
#include "gemm_impl.h"
#include "rt_gemm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct RtGemm {
    RtContext *rt;
    const KernelDecl *k;
    RtTensor *t[3];             /* A, B, C as given */
    RtTensor *stage[3];         /* owned row-major staging tensors of staged operands */
    RtGemmAccess acc[3];
    GemmView view[3];
    GemmTiling tiling;
    GemmUnit *units;            /* owned: the grid's live units, a replicated block once, by part of K */
    KernelBlock *blocks;        /* owned: per unit, its block of C, part of K and chip */
    size_t nunits;
    int nparts;                 /* parts of K over the chips (1: no chip digit of K) */
    void **partial;             /* owned, with nparts > 1: each part's row-major M x N product */
    GemmUnit *own;              /* owned: the units of the chips this process holds, by part */
    size_t *own_first;          /* owned: part j's are [own_first[j], own_first[j + 1]) */
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

/* The row-major HBM staging tensor m![X, Y] of operand i (one chip). */
static RtTensor *staging_tensor(RtGemm *g, int i)
{
    RtContext *rt = g->rt;
    Prog *p = rt_prog(rt);
    MapWhy why;
    const Map *e = kernel_staging_layout(p, g->k, i, why);
    const Map *chip = e ? map_make_bcast(&p->arena, 1, g->k->loc, why) : NULL;
    if (!chip) {
        rt_fail(rt, "kernel %s: cannot describe the staging layout of %s: %s", g->k->name, operand_names[i], why);
        return NULL;
    }
    RtTensor *t = rt_tensor_new(rt, MEM_HBM, rt_tensor_elem(g->t[i]), (const Map *[]){chip, e}, 2);
    if (t) /* each process stages its own chip's part */
        rt_tensor_make_local(t);
    return t;
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
        return rt_fail_memory(rt, "out of memory");
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

/* The grid's units: the plan's blocks of C per part of K, each with its rows of A and columns of B over the
 * part's K values; with more than one part each part's units write its partial product. Then the units
 * this process computes (its chip's under a transport). 0, or -1. */
static int make_units(RtGemm *g, const KernelPlan *pl)
{
    RtContext *rt = g->rt;
    uint64_t M = g->view[2].rows, N = g->view[2].cols;
    size_t n = pl->npart_blocks;
    g->grid_units = pl->grid_units;
    g->nparts = pl->nparts;
    g->units = calloc(n + 1, sizeof *g->units);
    g->blocks = calloc(n + 1, sizeof *g->blocks);
    g->own = calloc(n + 1, sizeof *g->own);
    g->own_first = calloc((size_t)g->nparts + 1, sizeof *g->own_first);
    g->partial = calloc((size_t)g->nparts, sizeof *g->partial);
    if (!g->units || !g->blocks || !g->own || !g->own_first || !g->partial)
        return rt_fail_memory(rt, "out of memory");
    /* the partial products: row-major M x N, touched only where this process computes or receives */
    for (int j = 0; j < g->nparts && g->nparts > 1; j++)
        if (!(g->partial[j] = calloc(M * N > 0 ? M * N : 1, gemm_type_size(g->view[2].type))))
            return rt_fail(rt, "out of memory for the partial products of %d parts of K", g->nparts);
    size_t nown = 0;
    for (size_t i = 0; i < n; i++) {
        const KernelBlock *x = &pl->part_blocks[i];
        GemmView cv = g->nparts > 1 ? gemm_view(g->partial[x->part], M * N, M, N, (int64_t)N, 1, g->view[2].type)
                                    : g->view[2];
        g->blocks[i] = *x;
        g->units[i] = (GemmUnit){.a = gemm_sub_view(&g->view[0], x->m0, x->k0, x->rows, x->depth),
                                 .b = gemm_sub_view(&g->view[1], x->k0, x->n0, x->depth, x->cols),
                                 .c = gemm_sub_view(&cv, x->m0, x->n0, x->rows, x->cols)};
        if (rt_holds_chip(rt, x->chip))
            g->own[nown++] = g->units[i];
        g->own_first[x->part + 1] = nown; /* blocks come by part, every part with blocks */
    }
    g->nunits = n;
    return 0;
}

/* The product over this process's units: C <- alpha*A*B + beta*C (integers for i8 kernels); with parts of K,
 * each part's partial product, beta applied in part 0 only. */
static int run_units(RtGemm *g, double alpha, double beta, char *err, size_t cap)
{
    for (int j = 0; j < g->nparts; j++) {
        const GemmUnit *u = g->own + g->own_first[j];
        size_t n = g->own_first[j + 1] - g->own_first[j];
        double b = j == 0 ? beta : 0.0;
        if (!n)
            continue;
        int r = g->is_int ? gemm_i8_units(g->engine, &g->tiling, (int32_t)alpha, (int32_t)b, u, n, err, cap)
                          : gemm_f32_units(g->engine, &g->tiling, (float)alpha, (float)b, u, n, err, cap);
        if (r)
            return r;
    }
    return 0;
}

/* With parts of K: C's values into part 0's product (where beta scales them), by C's strides. */
static void seed_partial(RtGemm *g)
{
    const GemmView *c = &g->view[2];
    size_t es = gemm_type_size(c->type);
    for (uint64_t i = 0; i < c->rows; i++)
        for (uint64_t j = 0; j < c->cols; j++)
            memcpy((char *)g->partial[0] + (i * c->cols + j) * es,
                   (const char *)c->data + (uint64_t)((int64_t)i * c->rs + (int64_t)j * c->cs) * es, es);
}

RtGemm *rt_gemm_new(RtContext *rt, const KernelDecl *k, RtTensor *a, RtTensor *b, RtTensor *c)
{
    RtGemm *g = calloc(1, sizeof *g);
    if (!g) {
        rt_fail_memory(rt, "out of memory");
        return NULL;
    }
    g->rt = rt;
    g->k = k;
    g->t[0] = a;
    g->t[1] = b;
    g->t[2] = c;
    g->is_int = k->a->elem == ELEM_I8;
    bool ok = true;
    for (int i = 0; i < 3 && ok; i++)
        ok = check_operand(rt, k, i, g->t[i]) == 0;
    KernelPlan pl = {0};
    char err[256];
    const Map *layouts[3] = {rt_tensor_map(a), rt_tensor_map(b), rt_tensor_map(c)};
    if (ok && kernel_plan(rt_prog(rt), k, layouts, &pl, err, sizeof err)) {
        rt_fail(rt, "%s", err);
        ok = false;
    }
    for (int i = 0; i < 3 && ok; i++) {
        int ax, ay;
        kernel_operand_axes(k, i, &ax, &ay);
        g->acc[i] = pl.acc[i];
        if (!g->acc[i].strided && !(g->stage[i] = staging_tensor(g, i)))
            ok = false;
        if (ok) {
            RtTensor *t = g->stage[i] ? g->stage[i] : g->t[i];
            const Prog *p = rt_prog(rt);
            g->view[i] = gemm_view((char *)rt_tensor_data(t) + g->acc[i].base * elem_type_size(rt_tensor_elem(t)),
                                   rt_tensor_elems(t) - g->acc[i].base, p->axes[ax].size, p->axes[ay].size,
                                   g->acc[i].rs, g->acc[i].cs, gemm_type_of(rt_tensor_elem(t)));
        }
    }
    ok = ok && make_units(g, &pl) == 0;
    kernel_plan_free(&pl);
    g->tiling = (GemmTiling){.mr = k->mr, .nr = k->nr, .kgroup = k->kgroup, .mc = (int64_t)k->tile[GEMM_M],
                             .nc = (int64_t)k->tile[GEMM_N], .kc = (int64_t)k->tile[GEMM_K],
                             .order = {k->order[0], k->order[1], k->order[2]},
                             .split = k->split == GEMM_N};
    /* the kernels of the ISA the declaration was checked for */
    if (ok && !(g->engine = gemm_new(&(GemmOptions){.threads = rt_threads(rt), .isa = k->isa}, err, sizeof err))) {
        rt_fail(rt, "kernel %s: %s", k->name, err);
        ok = false;
    }
    /* a declared K group whose instruction this CPU lacks runs widened (the DM layout stays as declared) */
    if (ok)
        g->tiling.kgroup = gemm_runnable_kgroup(g->engine, g->view[0].type, g->tiling.kgroup);
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
    free(g->blocks);
    for (int j = 0; g->partial && j < g->nparts; j++)
        free(g->partial[j]);
    free(g->partial);
    free(g->own);
    free(g->own_first);
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
    if (g->nparts > 1 && beta != 0.0)
        seed_partial(g);
    int r = run_units(g, alpha, beta, err, sizeof err);
    if (r)
        return rt_fail(rt, "kernel %s: %s", g->k->name, err);
    /* parts of K: the partial products summed over the chips, in chip order */
    if (g->nparts > 1 && chip_reduce(rt, g->blocks, g->nunits, g->nparts, g->partial, g->view[2].rows,
                                     g->view[2].cols, g->is_int, &g->view[2]) != 0)
        return -1;
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

int rt_gemm_kgroup(const RtGemm *g)
{
    return g->tiling.kgroup;
}

const char *rt_gemm_isa_name(const RtGemm *g)
{
    return target_isa_name(gemm_isa(g->engine));
}
