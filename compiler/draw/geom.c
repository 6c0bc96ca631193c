/* geom.c — the geometry of a picture (cell sizes, panels in a near-square grid, the header band with title and
 * legend), its string pool, titles and legend, and the dispatch to the SVG, HTML and PNG writers. */
#include "draw_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PNG pictures with text are drawn at full size up to this many pixels; larger ones with plain squares. */
#define PNG_MAX_PIXELS (UINT64_C(16) << 20)
#define PNG_MAX_SIDE 16000
/* Compact SVG pictures get the largest cells (at most 12 pixels) within this many pixels. */
#define SVG_MAX_PIXELS (UINT64_C(9) << 20)

size_t pic_add_str(Pic *pic, const char *s)
{
    if (pic->strings.len == 0) /* offset 0 is the empty text, so a zero-initialized field names no text */
        buf_put(&pic->strings, "", 1);
    size_t off = pic->strings.len;
    buf_put(&pic->strings, s, strlen(s) + 1);
    return off;
}

void pic_free(Pic *pic)
{
    free(pic->strings.data);
    free(pic->panels);
    free(pic->cells);
}

char *pic_map_text(const Prog *p, const Map *m)
{
    size_t n = map_format(p, m, NULL, 0);
    char *s = mem_alloc(n + 1);
    map_format(p, m, s, n + 1);
    return s;
}

size_t pic_add_title(Pic *pic, const Prog *p, const char *name, const Map *m)
{
    char *mt = pic_map_text(p, m);
    Buf t = {0};
    if (strcmp(name, mt) == 0)
        buf_puts(&t, mt);
    else
        buf_printf(&t, "%s = %s", name, mt);
    size_t off = pic_add_str(pic, (const char *)t.data);
    free(t.data);
    free(mt);
    return off;
}

size_t pic_add_tensor_title(Pic *pic, const Prog *p, const TensorDecl *t)
{
    Buf tt = {0};
    buf_printf(&tt, "tensor %s: %s<%s", t->name, mem_kind_tensor(t->mem), elem_type_name(t->elem));
    for (int i = 0; i < mem_kind_maps(t->mem); i++) {
        char *mt = pic_map_text(p, t->maps[i]);
        buf_printf(&tt, ", %s", mt);
        free(mt);
    }
    buf_puts(&tt, ">");
    size_t off = pic_add_str(pic, (const char *)tt.data);
    free(tt.data);
    return off;
}

Eqv *pic_decide(Prog *p, const Map *a, const Map *b, EqvResult *r, DrawDiff *d)
{
    Eqv *q = eqv_new(p);
    *r = (EqvResult){.c1.coord = mem_calloc((size_t)p->naxes + 1, sizeof(uint64_t)),
                     .c2.coord = mem_calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    eqv_decide(q, a, b, r); /* its counterexample is the smallest; an undecided one leaves the cells to tell */
    if (r->verdict == EQV_CELLS_DIFFER)
        d->first = r->pos;
    return q;
}

void pic_diff_legend(Pic *pic, bool equivalent)
{
    pic_legend(pic, PAL_SAME, "same");
    if (!equivalent) {
        pic_legend(pic, PAL_DIFFER, "differs");
        pic_legend(pic, PAL_FIRST, "first difference");
    }
}

void pic_unit_label(MemKind mem, TensorUnits u, uint64_t k, char *buf, size_t size)
{
    uint64_t s = k % u.slices, l = k / u.slices % u.clusters, c = k / u.slices / u.clusters;
    if (mem == MEM_DM)
        snprintf(buf, size, "chip %llu, cluster %llu, slice %llu", (unsigned long long)c, (unsigned long long)l,
                 (unsigned long long)s);
    else if (mem == MEM_HBM)
        snprintf(buf, size, "chip %llu", (unsigned long long)c);
    else
        snprintf(buf, size, "host");
}

bool pic_index_view(const Prog *p, const Map *a, const Map *b, const DrawOptions *o)
{
    if (o->view != DRAW_VIEW_AUTO)
        return o->view == DRAW_VIEW_INDEX;
    bool *used = mem_calloc((size_t)p->naxes + 1, 1);
    map_mark_axes(a, used);
    if (b)
        map_mark_axes(b, used);
    int n = 0;
    for (int i = 0; i < p->naxes; i++)
        n += used[i] && !p->axes[i].local;
    free(used);
    return n >= 2;
}

void pic_legend(Pic *pic, uint32_t rgb, const char *label)
{
    if (pic->nlegend < PIC_MAX_LEGEND)
        pic->legend[pic->nlegend++] = (PicLegend){rgb, pic_add_str(pic, label)};
}

/* Decimal digits of v. */
static int digits(uint64_t v)
{
    int d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

/* The space a panel takes around its cells: the label above, column numbers, row numbers on the left (sampled in
 * a compact picture). */
static int label_h(const Pic *pic, const PicPanel *pn)
{
    (void)pic;
    return (pn->label != PIC_NONE ? 18 : 0) + 14;
}
static int rowhdr_w(const Pic *pic, const PicPanel *pn)
{
    uint64_t step = pic->row_step ? pic->row_step : 1;
    return digits(pn->rows ? (pn->rows - 1) * step : 0) * PIC_SMALL_W + 8;
}

/* The width the header band needs: the legend, and the title and subtitle up to 1600 pixels (a longer one runs
 * past the picture's edge rather than widening it). */
static int64_t header_w(const Pic *pic)
{
    int64_t t = (int64_t)strlen(pic_str(pic, pic->title)) * 8, s = (int64_t)strlen(pic_str(pic, pic->subtitle)) * PIC_SMALL_W;
    int64_t l = 0;
    for (int i = 0; i < pic->nlegend; i++)
        l += 16 + (int64_t)strlen(pic_str(pic, pic->legend[i].label)) * PIC_SMALL_W + 14;
    int64_t w = t > s ? t : s;
    if (w > 1600)
        w = 1600;
    return (w > l ? w : l) + 2 * PIC_MARGIN;
}

/* Places the panels (all of one size) for the current cell size; sets width and height. */
static void place(Pic *pic)
{
    PicGeom *g = &pic->g;
    const PicPanel *p0 = &pic->panels[0];
    int64_t spacing = g->text ? 16 : 4;
    int64_t bw = rowhdr_w(pic, p0) + (int64_t)p0->cols * (g->cell_w + g->gap);
    int64_t bh = label_h(pic, p0) + (int64_t)p0->rows * (g->cell_h + g->gap);
    size_t per_row = 1; /* the fewest panels a row that make the grid at least as wide as it is high */
    while (per_row < pic->npanels && (int64_t)per_row * bw < (int64_t)((pic->npanels + per_row - 1) / per_row) * bh)
        per_row++;
    size_t prow = (pic->npanels + per_row - 1) / per_row;
    for (size_t i = 0; i < pic->npanels; i++) {
        PicPanel *pn = &pic->panels[i];
        pn->x = PIC_MARGIN + (int64_t)(i % per_row) * (bw + spacing) + rowhdr_w(pic, pn);
        pn->y = PIC_HEADER_H + (int64_t)(i / per_row) * (bh + spacing) + label_h(pic, pn);
    }
    g->width = 2 * PIC_MARGIN + (int64_t)per_row * (bw + spacing) - spacing;
    int64_t hw = header_w(pic);
    if (g->width < hw)
        g->width = hw;
    g->height = PIC_HEADER_H + (int64_t)prow * (bh + spacing) - spacing + PIC_MARGIN;
}

void pic_layout(Pic *pic, bool text, uint64_t max_pixels)
{
    PicGeom *g = &pic->g;
    g->text = text;
    if (text) {
        size_t widest = pic->widest;
        for (size_t i = 0; !pic->bare && i < pic->ncells; i++) { /* the buffer view's position numbers: small text */
            size_t w = ((size_t)digits(pic->cells[i].pos) * PIC_SMALL_W + PIC_CHAR_W - 1) / PIC_CHAR_W;
            if (w > widest)
                widest = w;
        }
        int least = pic->bare ? 30 : 44;
        g->cell_w = (int)(widest * PIC_CHAR_W + 8 < (size_t)least ? (size_t)least : widest * PIC_CHAR_W + 8);
        g->cell_h = pic->bare ? (pic->lines == 1 ? 22 : 34) : pic->lines == 2 ? 32 : 46;
        g->gap = 1;
        place(pic);
        return;
    }
    for (int s = 12;; s--) {
        g->cell_w = g->cell_h = s;
        g->gap = s >= 4 ? 1 : 0;
        place(pic);
        if (s == 1 || ((uint64_t)g->width * (uint64_t)g->height <= max_pixels && g->width <= PNG_MAX_SIDE &&
                       g->height <= PNG_MAX_SIDE))
            return;
    }
}

bool pic_render(Pic *pic, DrawFormat f, DrawBytes *out, char *why, size_t size)
{
    Buf b = {0};
    if (f == DRAW_PNG) {
        pic_layout(pic, true, 0);
        if ((uint64_t)pic->g.width * (uint64_t)pic->g.height > PNG_MAX_PIXELS || pic->g.width > PNG_MAX_SIDE ||
            pic->g.height > PNG_MAX_SIDE)
            pic_layout(pic, false, PNG_MAX_PIXELS);
        if (pic->g.width > PNG_MAX_SIDE || pic->g.height > PNG_MAX_SIDE) {
            snprintf(why, size, "the PNG would be %lld x %lld pixels even with 1-pixel cells, more than %d a side; draw "
                     "it as SVG, or choose a split with --rows", (long long)pic->g.width, (long long)pic->g.height,
                     PNG_MAX_SIDE);
            return false;
        }
        if (!png_write(pic, &b, why, size)) {
            free(b.data);
            return false;
        }
    } else {
        pic_layout(pic, pic->ncells <= PIC_TEXT_CELLS, SVG_MAX_PIXELS);
        if (f == DRAW_SVG)
            svg_write(pic, true, &b);
        else
            html_write(pic, &b);
    }
    out->data = b.data;
    out->len = b.len;
    return true;
}
