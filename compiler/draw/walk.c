/* walk.c — the picture of a sequencer walk: a buffer's cells coloured by the order a config's stream first visits them (dark first, light last), broadcast re-reads marked, cells never visited in their padding shade. */
#include "draw_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

/* A gradient from dark (t = 0) to light (t = 1): the order of first visits. */
static uint32_t order_shade(uint64_t k, uint64_t n)
{
    static const uint32_t dark = 0x08306b, light = 0xdeebf7;
    double t = n > 1 ? (double)k / (double)(n - 1) : 0.0;
    uint32_t rgb = 0;
    for (int sh = 0; sh <= 16; sh += 8) {
        double a = (dark >> sh) & 0xff, b = (light >> sh) & 0xff;
        rgb |= (uint32_t)(a + (b - a) * t + 0.5) << sh;
    }
    return rgb;
}

/* The stream positions of the walk: the product of the entries' counts, or false when it overflows or exceeds
 * the picture's limit of positions to walk. */
static bool walk_size(const DrawWalk *w, uint64_t limit, uint64_t *total)
{
    uint64_t t = 1;
    for (int i = 0; i < w->count; i++)
        if (!u64_mul(t, w->n[i], &t) || t > limit)
            return false;
    *total = t;
    return true;
}

bool draw_walk(Prog *p, const char *title, const Map *buf, const DrawWalk *w, const DrawOptions *o, DrawBytes *out,
               char *why, size_t size)
{
    uint64_t rows, cols, total;
    if (!pic_check_split(o, buf->size, 1, buf, &rows, &cols, why, size))
        return false;
    uint64_t limit = (o->max_cells ? o->max_cells : DRAW_MAX_CELLS) * 64;
    if (!walk_size(w, limit, &total)) {
        snprintf(why, size, "the walk has more than %llu stream positions", U(limit));
        return false;
    }
    /* the first visit of every buffer position, in stream order, and how often it is visited */
    uint64_t *order = mem_alloc((size_t)buf->size * sizeof *order), *visits = mem_calloc((size_t)buf->size, sizeof *visits);
    uint64_t firsts = 0, past = 0;
    for (uint64_t pos = 0; pos < total; pos++) {
        int64_t a = 0;
        uint64_t rest = pos;
        for (int i = w->count - 1; i >= 0; i--) {
            a += (int64_t)(rest % w->n[i]) * w->stride[i];
            rest /= w->n[i];
        }
        if (a < 0 || (uint64_t)a >= buf->size) {
            past++;
            continue;
        }
        if (visits[a]++ == 0)
            order[a] = firsts++;
    }
    Pic pic = {0};
    pic.lines = 2;
    pic.panels = mem_calloc(1, sizeof *pic.panels);
    pic.cells = mem_alloc((size_t)(rows * cols) * sizeof *pic.cells);
    pic.panels[0] = (PicPanel){.label = PIC_NONE, .rows = rows, .cols = cols, .count = buf->size};
    pic.npanels = 1;
    Evaluator *ev = eqv_evaluator_new(p);
    Cell c = {.coord = mem_calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    bool ok = true, seen[CELL_OVERFLOW + 1] = {false}, again = false;
    for (uint64_t i = 0; ok && i < rows * cols; i++) {
        c.kind = CELL_OOB;
        if (i < buf->size && eval_cell(ev, buf, i, &c) != EVAL_OK) {
            snprintf(why, size, "cannot evaluate position %llu: %s", U(i), eval_error(ev));
            ok = false;
            break;
        }
        PicCell *pc = &pic.cells[pic.ncells++];
        *pc = (PicCell){.pos = i, .text2 = PIC_NONE, .kind = (uint8_t)c.kind};
        char text[64];
        if (i < buf->size && visits[i]) {
            snprintf(text, sizeof text, visits[i] > 1 ? "#%llu x%llu" : "#%llu", U(order[i]), U(visits[i]));
            pc->text = pic_add_str(&pic, text);
            pc->rgb = order_shade(order[i], firsts);
            if (visits[i] > 1) {
                pc->mark = MARK_DIFFER;
                again = true;
            }
        } else {
            pc->text = pic_add_cell(&pic, p, &c);
            pc->rgb = pal_kind(c.kind == CELL_LIVE ? CELL_PAD_ZERO : c.kind);
            seen[c.kind] = true;
        }
        size_t len = strlen(pic_str(&pic, pc->text));
        if (len > pic.widest)
            pic.widest = len;
    }
    free(c.coord);
    eqv_evaluator_free(ev);
    if (ok) {
        pic.legend[pic.nlegend++] = (PicLegend){order_shade(0, 2), pic_add_str(&pic, "visited first")};
        pic.legend[pic.nlegend++] = (PicLegend){order_shade(1, 2), pic_add_str(&pic, "visited last")};
        if (again)
            pic.legend[pic.nlegend++] = (PicLegend){order_shade(0, 2), pic_add_str(&pic, "read again (marked)")};
        if (seen[CELL_LIVE])
            pic.legend[pic.nlegend++] = (PicLegend){pal_kind(CELL_PAD_ZERO), pic_add_str(&pic, "live, never visited")};
        for (int k = CELL_PAD_TOP; k <= CELL_OVERFLOW; k++)
            if (seen[k])
                pic.legend[pic.nlegend++] = (PicLegend){pal_kind((CellKind)k), pic_add_str(&pic, cell_kind_name((CellKind)k))};
        Buf t = {0};
        buf_printf(&t, "%s walked by %s", title, w->config);
        pic.title = pic_add_str(&pic, (const char *)t.data);
        t.len = 0;
        buf_printf(&t, "%llu stream positions visit %llu of %llu buffer positions", U(total), U(firsts), U(buf->size));
        if (past)
            buf_printf(&t, " (%llu reads past the buffer)", U(past));
        buf_printf(&t, "; #k: the k-th position visited, xN: visited N times");
        pic.subtitle = pic_add_str(&pic, (const char *)t.data);
        free(t.data);
        ok = pic_render(&pic, o->format, out, why, size);
    }
    free(order);
    free(visits);
    pic_free(&pic);
    return ok;
}
