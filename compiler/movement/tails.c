/* tails.c — the DMA tails of two mappings (docs/movement.md): the common prefix of equal cells and each side's packet grown through its own pad(top). */
#include "mv_impl.h"

#include <stdlib.h>
#include <string.h>

/* The cells of one side: its factor list when it flattens, else the reference interpreter. */
typedef struct Side {
    const Map *m;
    MvList *l;          /* NULL: use the interpreter */
    Evaluator *ev;
    uint64_t *coord;
} Side;

static bool side_cell(Side *s, int naxes, uint64_t q, CellKind *kind, MvDiag *d)
{
    if (s->l) {
        mv_list_cell(s->l, naxes, q, kind, s->coord);
        return true;
    }
    Cell c = {.coord = s->coord};
    if (eval_cell(s->ev, s->m, q, &c) != EVAL_OK) {
        mv_fail(d, MV_UNSUPPORTED, "tails: %s", eval_error(s->ev));
        return false;
    }
    *kind = c.kind;
    return true;
}

/* The volume of the identical minor factors of both lists without padding: positions below it hold equal live
 * cells on both sides (their major digits are 0). */
static uint64_t shared_suffix(const MvList *a, const MvList *b)
{
    uint64_t v = 1;
    for (int i = a->n - 1, j = b->n - 1; i >= 0 && j >= 0; i--, j--) {
        const MvFactor *f = &a->f[i], *g = &b->f[j];
        if (f->axis != g->axis || f->s != g->s || f->x != g->x || f->r != f->x || g->r != g->x)
            break;
        v *= f->x;
    }
    return v;
}

static bool tails(const Prog *p, Side *s, uint64_t out[3], MvDiag *d)
{
    int n = p->naxes;
    uint64_t lim = s[0].m->size < s[1].m->size ? s[0].m->size : s[1].m->size;
    uint64_t c = s[0].l && s[1].l ? shared_suffix(s[0].l, s[1].l) : 1;
    if (c > lim)
        c = lim;
    uint64_t *ca = s[0].coord, *cb = s[1].coord;
    for (uint64_t q = c; q < lim; q++) {
        CellKind ka, kb;
        if (!side_cell(&s[0], n, q, &ka, d) || !side_cell(&s[1], n, q, &kb, d))
            return false;
        if (ka != kb || ka == CELL_PAD_BOTTOM || ka == CELL_PAD_ZERO || ka >= CELL_OOB ||
            (ka == CELL_LIVE && memcmp(ca, cb, (size_t)n * sizeof *ca) != 0))
            break;
        c = q + 1;
    }
    out[2] = c;
    for (int k = 0; k < 2; k++) {
        uint64_t q = c;
        for (; q < s[k].m->size; q++) {
            CellKind kind;
            if (!side_cell(&s[k], n, q, &kind, d))
                return false;
            if (kind != CELL_PAD_TOP)
                break;
        }
        out[k] = q;
    }
    return true;
}

bool mv_tails(const Prog *p, const Map *src, const Map *dst, uint64_t out[3], MvDiag *d)
{
    Side s[2] = {{.m = src}, {.m = dst}};
    Evaluator *ev = NULL;
    for (int k = 0; k < 2; k++) {
        s[k].coord = mem_calloc((size_t)p->naxes + 1, sizeof *s[k].coord);
        s[k].l = mem_calloc(1, sizeof *s[k].l);
        MvDiag ignored;
        if (mv_flatten(p, s[k].m, MV_PART_BUF, s[k].l, &ignored) != MV_OK) {
            free(s[k].l);
            s[k].l = NULL;
            if (!ev)
                ev = eval_new(p);
            s[k].ev = ev;
        }
    }
    bool ok = tails(p, s, out, d);
    for (int k = 0; k < 2; k++) {
        free(s[k].coord);
        free(s[k].l);
    }
    if (ev)
        eval_free(ev);
    return ok;
}
