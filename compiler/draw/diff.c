/* diff.c — the picture of where two mappings differ in the buffer view: every position with both cells (the
 * interpreter's), the differing ones marked, and the smallest counterexample of the equivalence decision marked
 * distinctly (the index view's is index.c's). */
#include "draw_impl.h"

#include <stdio.h>
#include <stdlib.h>

#define U(x) ((unsigned long long)(x))

/* Fills the cells of the one panel of pic (rows x cols from position 0) with both mappings' cells; d->first is
 * the counterexample to mark (UINT64_MAX: take the first difference met). Counts the differences in d. */
static bool fill(Prog *p, Evaluator *ev, const Map *a, const Map *b, Pic *pic, DrawDiff *d, char *why, size_t size)
{
    PicPanel *pn = &pic->panels[0];
    Cell ca = {.coord = mem_calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    Cell cb = {.coord = mem_calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    bool ok = true;
    for (uint64_t i = 0; i < pn->rows * pn->cols; i++) {
        if (eval_cell(ev, a, i, &ca) != EVAL_OK || eval_cell(ev, b, i, &cb) != EVAL_OK) {
            snprintf(why, size, "cannot evaluate position %llu: %s", U(i), eval_error(ev));
            ok = false;
            break;
        }
        bool differ = !cell_equal(&ca, &cb, p->naxes);
        if (differ && d->first == UINT64_MAX)
            d->first = i;
        d->differing += differ;
        PicCell *c = &pic->cells[pic->ncells++];
        *c = (PicCell){.pos = i, .kind = (uint8_t)ca.kind, .text = pic_add_cell(pic, p, &ca),
                       .text2 = pic_add_cell(pic, p, &cb), .title = PIC_NONE};
        c->mark = !differ ? MARK_NONE : i == d->first ? MARK_FIRST : MARK_DIFFER;
        c->rgb = !differ ? PAL_SAME : i == d->first ? PAL_FIRST : PAL_DIFFER;
    }
    free(ca.coord);
    free(cb.coord);
    return ok;
}

bool draw_diff(Prog *p, const char *name_a, const Map *a, const char *name_b, const Map *b, const DrawOptions *o,
               DrawDiff *d, DrawBytes *out, char *why, size_t size)
{
    uint64_t positions = a->size > b->size ? a->size : b->size, rows, cols;
    *d = (DrawDiff){.first = UINT64_MAX};
    if (pic_index_view(p, a, b, o)) {
        bool fallback;
        bool ok = index_draw_diff(p, name_a, a, name_b, b, o, d, out, &fallback, why, size);
        if (!ok || !fallback)
            return ok;
        *d = (DrawDiff){.first = UINT64_MAX}; /* only padding or sizes differ: the buffer view shows where */
    }
    if (!pic_check_split(o, positions, 1, a, &rows, &cols, why, size))
        return false;
    EqvResult r;
    Eqv *q = pic_decide(p, a, b, &r, d);
    Pic pic = {.lines = 3};
    pic.panels = mem_calloc(1, sizeof *pic.panels);
    pic.cells = mem_alloc((size_t)(rows * cols) * sizeof *pic.cells);
    pic.panels[0] = (PicPanel){.label = PIC_NONE, .rows = rows, .cols = cols, .count = positions};
    pic.npanels = 1;
    bool ok = fill(p, eqv_evaluator(q), a, b, &pic, d, why, size);
    free(r.c1.coord);
    free(r.c2.coord);
    eqv_free(q);
    d->sizes_differ = a->size != b->size;
    d->equivalent = ok && !d->sizes_differ && d->differing == 0;
    if (ok) {
        Buf t = {0};
        buf_printf(&t, "%s vs %s", name_a, name_b);
        pic.title = pic_add_str(&pic, (const char *)t.data);
        t.len = 0;
        if (d->equivalent)
            buf_printf(&t, "equivalent: all %llu positions hold the same cells", U(positions));
        else
            buf_printf(&t, "not equivalent%s: %llu of %llu positions differ, the first at %llu; upper cell: %s, lower: %s",
                       d->sizes_differ ? " (sizes differ)" : "", U(d->differing), U(positions), U(d->first), name_a,
                       name_b);
        pic.subtitle = pic_add_str(&pic, (const char *)t.data);
        free(t.data);
        pic_diff_legend(&pic, d->equivalent);
        ok = pic_render(&pic, o->format, out, why, size);
    }
    pic_free(&pic);
    return ok;
}
