/* alg_ctx.c — the layout algebra's context, errors, and the cell sequences its operations compute and check. */
#include "alg_ops.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define U(x) ((unsigned long long)(x))

void alg_open(AlgCtx *c, Prog *p)
{
    c->prog = p;
    c->eqv = eqv_new(p);
    c->ev = eqv_evaluator(c->eqv);
    c->enum_limit = ALG_ENUM_LIMIT;
    c->code = NULL;
    c->msg[0] = 0;
}

void alg_close(AlgCtx *c)
{
    eqv_free(c->eqv);
    c->eqv = NULL;
    c->ev = NULL;
}

void *alg_fail(AlgCtx *c, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    c->code = code;
    return NULL;
}

const char *alg_pad_name(AlgPad k)
{
    return k == PAD_ZERO ? "pad(zero)" : k == PAD_BOTTOM ? "pad(bottom)" : "pad(top)";
}

/* Evaluates cell(e, pos) into cell (coord of naxes entries); false with an internal error when undecided. */
static bool cell_at(AlgCtx *c, const Map *e, uint64_t pos, Cell *cell)
{
    if (eval_cell(c->ev, e, pos, cell) != EVAL_OK) {
        alg_fail(c, ALG_ERR_INTERNAL, "cannot evaluate position %llu: %s", U(pos), eval_error(c->ev));
        return false;
    }
    return true;
}

AlgVal *alg_values(AlgCtx *c, const Map *e, int x, const char *what)
{
    if (e->size > c->enum_limit)
        return alg_fail(c, ALG_ERR_TOO_LARGE, "%s has %llu positions, more than the %llu this operation enumerates",
                        what, U(e->size), U(c->enum_limit));
    int na = c->prog->naxes;
    uint64_t *coord = calloc((size_t)na + 1, sizeof *coord);
    AlgVal *v = malloc((size_t)e->size * sizeof *v + 1);
    if (!coord || !v) {
        free(coord);
        free(v);
        return alg_fail(c, ALG_ERR_NOMEM, "out of memory");
    }
    Cell cell = {.coord = coord};
    for (uint64_t p = 0; p < e->size; p++) {
        if (!cell_at(c, e, p, &cell))
            goto fail;
        if (cell.kind == CELL_OVERFLOW) {
            alg_fail(c, ALG_ERR_OVERFLOW, "%s overflows at position %llu", what, U(p));
            goto fail;
        }
        if (cell.kind != CELL_LIVE) {
            v[p] = -(AlgVal)cell.kind;
            continue;
        }
        for (int a = 0; a < na; a++)
            if (a != x && coord[a]) {
                alg_fail(c, ALG_ERR_FOREIGN, "%s holds axis %s at position %llu (coordinate %llu), not only %s", what,
                         c->prog->axes[a].name, U(p), U(coord[a]), c->prog->axes[x].name);
                goto fail;
            }
        v[p] = (AlgVal)coord[x];
    }
    free(coord);
    return v;
fail:
    free(coord);
    free(v);
    return NULL;
}

bool alg_matches(AlgCtx *c, const Map *m, const AlgVal *v, uint64_t n, int x, uint64_t *at)
{
    *at = 0;
    if (m->size != n)
        return false;
    int na = c->prog->naxes;
    uint64_t *coord = calloc((size_t)na + 1, sizeof *coord);
    if (!coord)
        return false;
    Cell cell = {.coord = coord};
    bool ok = true;
    for (uint64_t p = 0; p < n && ok; p++) {
        *at = p;
        if (eval_cell(c->ev, m, p, &cell) != EVAL_OK) {
            ok = false;
            break;
        }
        if (v[p] < 0) {
            ok = cell.kind == (CellKind)-v[p];
            continue;
        }
        ok = cell.kind == CELL_LIVE && coord[x] == (uint64_t)v[p];
        for (int a = 0; a < na && ok; a++)
            if (a != x && coord[a])
                ok = false;
    }
    free(coord);
    return ok;
}
