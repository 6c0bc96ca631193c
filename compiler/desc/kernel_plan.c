/* kernel_plan.c — how a declared GEMM kernel reaches its operands (in place through strides, or staged) and
 * which blocks of C its grid's units compute; shared by the runtime and `mapc emit`. */
#include "algebra/algebra.h"
#include "desc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Positions scanned at most to find where the unit indices of a layout live. */
#define UNIT_SCAN_LIMIT (1u << 22)

static const GemmRole operand_roles[3][2] = {{GEMM_M, GEMM_K}, {GEMM_K, GEMM_N}, {GEMM_M, GEMM_N}};

static int fail(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return -1;
}

void kernel_operand_axes(const KernelDecl *k, int operand, int *rows, int *cols)
{
    *rows = k->axis[operand_roles[operand][0]];
    *cols = k->axis[operand_roles[operand][1]];
}

/* The smallest position of m whose cell is live with coordinate x on axis ax, y on ay and 0 on every
 * other axis; false if none among the first UNIT_SCAN_LIMIT positions (or the interpreter cannot say). */
static bool find_unit(const Prog *p, Evaluator *ev, const Map *m, int ax, uint64_t x, int ay, uint64_t y,
                      uint64_t *pos)
{
    uint64_t *coord = calloc((size_t)p->naxes + 1, sizeof *coord);
    if (!coord)
        return false;
    Cell c = {.coord = coord};
    uint64_t end = m->size < UNIT_SCAN_LIMIT ? m->size : UNIT_SCAN_LIMIT;
    bool found = false;
    for (uint64_t q = 0; q < end && !found; q++) {
        if (eval_cell(ev, m, q, &c) != EVAL_OK)
            break;
        if (c.kind != CELL_LIVE)
            continue;
        found = true;
        for (int i = 0; i < p->naxes && found; i++)
            found = coord[i] == (i == ax ? x : i == ay ? y : 0);
        if (found)
            *pos = q;
    }
    free(coord);
    return found;
}

/* Whether the flat layout m over the axes (ax, ay) is strided: every index (i, j) is live exactly at
 * i*rs + j*cs and every other position is pad(top). Candidate strides come from the positions of the unit
 * indices; the candidate is then decided equivalent to m. */
static bool recognize_strided(Prog *p, Eqv *q, const Map *m, int ax, int ay, KernelAccess *acc)
{
    Evaluator *ev = eqv_evaluator(q);
    uint64_t sx = p->axes[ax].size, sy = p->axes[ay].size, o, px = 0, py = 0;
    if (!find_unit(p, ev, m, ax, 0, ay, 0, &o) || o != 0)
        return false; /* a base offset has no strided mapping; staging handles it */
    if ((sx > 1 && !find_unit(p, ev, m, ax, 1, ay, 0, &px)) || (sy > 1 && !find_unit(p, ev, m, ax, 0, ay, 1, &py)))
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
    *acc = (KernelAccess){.strided = true, .rs = (int64_t)rs, .cs = (int64_t)cs, .base = 0};
    return true;
}

/* The grid's blocks: for each position of the grid layout m![{chip}, {cluster}, {slice}] whose cell is live,
 * the block of C at that cell's (M, N) origin, block[0] x block[1] cut at C's edge; a block met again (a
 * broadcast of the grid replicates the work) is given once. The same per part of K (the cell's K origin,
 * block[2] values) into part_blocks, ordered by part. 0, or -1 with err. */
static int make_blocks(Prog *p, const KernelDecl *k, KernelPlan *pl, char *err, size_t cap)
{
    MapWhy why;
    const Map *grid = NULL;
    for (int d = 2; d >= 0; d--)
        if (k->grid[d]->size > 1 || (d == 0 && !grid))
            grid = grid ? map_make_pair(&p->arena, k->grid[d], grid, k->loc, why) : k->grid[d];
    if (!grid)
        return fail(err, cap, "kernel %s: the grid's layout: %s", k->name, why);
    uint64_t M = p->axes[k->axis[GEMM_M]].size, N = p->axes[k->axis[GEMM_N]].size, K = p->axes[k->axis[GEMM_K]].size;
    uint64_t h = k->block[0], w = k->block[1], bm = (M + h - 1) / h, bn = (N + w - 1) / w;
    uint64_t kb = k->block[2] && k->block[2] < K ? k->block[2] : K, parts = K ? (K + kb - 1) / kb : 1;
    uint64_t per_chip = k->grid[1]->size * k->grid[2]->size;
    size_t n = grid->size ? grid->size : 1;
    pl->grid_units = grid->size;
    pl->nparts = (int)parts;
    pl->blocks = calloc(n, sizeof *pl->blocks);
    pl->part_blocks = calloc(n, sizeof *pl->part_blocks);
    KernelBlock *found = calloc(n, sizeof *found);
    bool *seen = calloc(bm * bn + 1, 1), *seen_part = calloc(bm * bn * parts + 1, 1);
    Evaluator *ev = eqv_evaluator_new(p);
    Cell c = {.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    size_t nfound = 0;
    int r = 0;
    if (!pl->blocks || !pl->part_blocks || !found || !seen || !seen_part || !ev || !c.coord)
        r = fail(err, cap, "out of memory");
    for (uint64_t u = 0; r == 0 && u < grid->size; u++) {
        if (eval_cell(ev, grid, u, &c) != EVAL_OK) {
            r = fail(err, cap, "kernel %s: cannot evaluate its grid: %s", k->name, eval_error(ev));
            break;
        }
        if (c.kind != CELL_LIVE)
            continue; /* an idle unit: padding of the grid */
        uint64_t m0 = c.coord[k->axis[GEMM_M]], n0 = c.coord[k->axis[GEMM_N]], k0 = c.coord[k->axis[GEMM_K]];
        if (m0 >= M || n0 >= N || (K && k0 >= K))
            continue;
        uint64_t at = m0 / h * bn + n0 / w, part = k0 / kb;
        KernelBlock b = {.m0 = m0, .n0 = n0, .rows = M - m0 < h ? M - m0 : h, .cols = N - n0 < w ? N - n0 : w,
                         .k0 = 0, .depth = K, .chip = u / per_chip, .part = 0};
        if (!seen[at]) {
            seen[at] = true;
            pl->blocks[pl->nblocks++] = b;
        }
        if (!seen_part[part * bm * bn + at]) {
            seen_part[part * bm * bn + at] = true;
            b.k0 = k0;
            b.depth = K - k0 < kb ? K - k0 : kb;
            b.part = (int)part;
            found[nfound++] = b;
        }
    }
    if (r == 0 && nfound != bm * bn * parts)
        r = fail(err, cap, "kernel %s: its grid leaves %llu of %llu blocks of C to no unit", k->name,
                 (unsigned long long)(bm * bn * parts - nfound), (unsigned long long)(bm * bn * parts));
    for (uint64_t j = 0; j < parts && r == 0; j++) /* by part, in the grid's order within a part */
        for (size_t i = 0; i < nfound; i++)
            if (found[i].part == (int)j)
                pl->part_blocks[pl->npart_blocks++] = found[i];
    free(found);
    free(seen);
    free(seen_part);
    free(c.coord);
    eqv_evaluator_free(ev);
    return r;
}

int kernel_plan(Prog *p, const KernelDecl *k, const Map *const layout[3], KernelPlan *out, char *err, size_t cap)
{
    *out = (KernelPlan){0};
    Eqv *q = eqv_new(p);
    if (!q)
        return fail(err, cap, "out of memory");
    for (int i = 0; i < 3; i++) {
        int ax, ay;
        kernel_operand_axes(k, i, &ax, &ay);
        if (!recognize_strided(p, q, layout[i], ax, ay, &out->acc[i]))
            out->acc[i] = (KernelAccess){.strided = false, .rs = (int64_t)p->axes[ay].size, .cs = 1};
    }
    eqv_free(q);
    int r = make_blocks(p, k, out, err, cap);
    if (r)
        kernel_plan_free(out);
    return r;
}

void kernel_plan_free(KernelPlan *pl)
{
    free(pl->blocks);
    free(pl->part_blocks);
    *pl = (KernelPlan){0};
}

const Map *kernel_staging_layout(Prog *p, const KernelDecl *k, int operand, MapWhy why)
{
    int ax, ay;
    kernel_operand_axes(k, operand, &ax, &ay);
    const Map *x = map_make_sym(&p->arena, ax, p->axes[ax].size, k->loc, why);
    const Map *y = x ? map_make_sym(&p->arena, ay, p->axes[ay].size, k->loc, why) : NULL;
    return y ? map_make_pair(&p->arena, x, y, k->loc, why) : NULL;
}
