/* svg.c — a laid-out picture as an SVG document: the header band (title, subtitle, legend), then per panel its
 * label, column and row numbers, and its cells: with texts, one group per cell (data-pos, data-kind, a <title>;
 * a rect, the texts); compact, one path per colour and sampled labels; then the tile outlines, one path a level. */
#include "draw_impl.h"

#include <stdlib.h>
#include <string.h>

#define LL(x) ((long long)(x))

/* Appends a coordinate: an integer, or one decimal (the outlines run at half pixels). */
static void num(Buf *o, double v)
{
    long long t = (long long)(v * 2 + (v < 0 ? -0.5 : 0.5));
    if (t % 2 == 0)
        buf_printf(o, "%lld", t / 2);
    else
        buf_printf(o, "%s%lld.5", t < 0 && t / 2 == 0 ? "-" : "", t / 2);
}

/* The header band: title, subtitle and the legend's swatches. */
static void header(const Pic *pic, Buf *o)
{
    buf_printf(o, "<text class=\"t\" x=\"%d\" y=\"22\">", PIC_MARGIN);
    buf_xml(o, pic_str(pic, pic->title));
    buf_printf(o, "</text>\n<text class=\"s\" x=\"%d\" y=\"40\">", PIC_MARGIN);
    buf_xml(o, pic_str(pic, pic->subtitle));
    buf_puts(o, "</text>\n<g class=\"legend\">");
    int64_t x = PIC_MARGIN;
    for (int i = 0; i < pic->nlegend; i++) {
        const char *label = pic_str(pic, pic->legend[i].label);
        buf_printf(o, "<rect x=\"%lld\" y=\"48\" width=\"12\" height=\"12\" fill=\"#%06x\" stroke=\"#555\"/>"
                      "<text class=\"s\" x=\"%lld\" y=\"58\">",
                   LL(x), (unsigned)pic->legend[i].rgb, LL(x + 16));
        buf_xml(o, label);
        buf_puts(o, "</text>");
        x += 16 + (int64_t)strlen(label) * PIC_SMALL_W + 14;
    }
    buf_puts(o, "</g>\n");
}

static const char *const mark_name[] = {"", " data-mark=\"differ\"", " data-mark=\"first\""};

/* The tooltip of a cell: its own, or "position P: TEXT" ("... vs TEXT2" in a diff). */
static void cell_title(const Pic *pic, const PicCell *c, Buf *o)
{
    if (c->title != PIC_NONE && c->title != 0) {
        buf_xml(o, pic_str(pic, c->title));
        return;
    }
    buf_printf(o, "position %llu: ", (unsigned long long)c->pos);
    buf_xml(o, pic_str(pic, c->text));
    if (c->text2 != PIC_NONE) {
        buf_puts(o, " vs ");
        buf_xml(o, pic_str(pic, c->text2));
    }
}

/* One cell with texts: its group, rect (a stroke for a diff mark), title and texts. */
static void cell(const Pic *pic, const PicPanel *pn, size_t i, Buf *o)
{
    const PicCell *c = &pic->cells[pn->first_cell + i];
    if (pic->bare && c->title == PIC_NONE)
        return; /* the index view's cells past a wrapped axis: no index */
    int64_t x, y;
    pic_cell_xy(pic, pn, i, &x, &y);
    buf_puts(o, "<g");
    if (c->pos != UINT64_MAX)
        buf_printf(o, " data-pos=\"%llu\"", (unsigned long long)c->pos);
    buf_printf(o, " data-kind=\"%s\"%s%s><rect x=\"%lld\" y=\"%lld\" width=\"%d\" height=\"%d\" fill=\"#%06x\"",
               pic->bare && c->pos == UINT64_MAX ? "none" : cell_kind_name((CellKind)c->kind), mark_name[c->mark],
               pal_dark(c->rgb) ? " class=\"w\"" : "", LL(x), LL(y), pic->g.cell_w, pic->g.cell_h, (unsigned)c->rgb);
    if (c->mark == MARK_DIFFER)
        buf_puts(o, " stroke=\"#b00000\" stroke-width=\"2\"");
    else if (c->mark == MARK_FIRST)
        buf_puts(o, " stroke=\"#000000\" stroke-width=\"3\"");
    buf_puts(o, "/><title>");
    cell_title(pic, c, o);
    buf_puts(o, "</title>");
    if (pic->bare) { /* the index view: the label (both labels of a diff), centred */
        int64_t cx = x + pic->g.cell_w / 2;
        buf_printf(o, "<text class=\"c\" x=\"%lld\" y=\"%lld\" text-anchor=\"middle\">", LL(cx),
                   LL(y + (c->text2 != PIC_NONE ? 14 : pic->g.cell_h / 2 + 4)));
        buf_xml(o, pic_str(pic, c->text));
        buf_puts(o, "</text>");
        if (c->text2 != PIC_NONE) {
            buf_printf(o, "<text class=\"c\" x=\"%lld\" y=\"%lld\" text-anchor=\"middle\">", LL(cx), LL(y + 27));
            buf_xml(o, pic_str(pic, c->text2));
            buf_puts(o, "</text>");
        }
        buf_puts(o, "</g>\n");
        return;
    }
    buf_printf(o, "<text class=\"p\" x=\"%lld\" y=\"%lld\">%llu</text><text class=\"c\" x=\"%lld\" y=\"%lld\">",
               LL(x + 4), LL(y + 11), (unsigned long long)c->pos, LL(x + 4), LL(y + 25));
    buf_xml(o, pic_str(pic, c->text));
    buf_puts(o, "</text>");
    if (c->text2 != PIC_NONE) {
        buf_printf(o, "<text class=\"c\" x=\"%lld\" y=\"%lld\">", LL(x + 4), LL(y + 39));
        buf_xml(o, pic_str(pic, c->text2));
        buf_puts(o, "</text>");
    }
    buf_puts(o, "</g>\n");
}

/* The row and column numbers of a panel, every `step`-th. */
static void headers(const Pic *pic, const PicPanel *pn, uint64_t step, Buf *o)
{
    buf_puts(o, "\n<g class=\"hdr\">");
    int pw = pic->g.cell_w + pic->g.gap, ph = pic->g.cell_h + pic->g.gap;
    uint64_t rs = pic->row_step ? pic->row_step : 1;
    for (uint64_t j = 0; j < pn->cols; j += step)
        buf_printf(o, "<text x=\"%lld\" y=\"%lld\">%llu</text>", LL(pn->x + (int64_t)j * pw + (pic->g.text ? 2 : 0)),
                   LL(pn->y - 4), (unsigned long long)j);
    for (uint64_t r = 0; r < pn->rows; r += step)
        buf_printf(o, "<text x=\"%lld\" y=\"%lld\" text-anchor=\"end\">%llu</text>", LL(pn->x - 4),
                   LL(pn->y + (int64_t)r * ph + (pic->g.text ? pic->g.cell_h / 2 + 4 : 8)), (unsigned long long)(r * rs));
    buf_puts(o, "</g>\n");
}

/* The opening of a panel's group with its attributes and label. */
static void panel_open(const Pic *pic, const PicPanel *pn, Buf *o)
{
    buf_printf(o, "<g class=\"panel\" data-rows=\"%llu\" data-cols=\"%llu\" data-first=\"%llu\" data-count=\"%llu\" "
                  "data-x=\"%lld\" data-y=\"%lld\" data-pitch=\"%d %d\"",
               (unsigned long long)pn->rows, (unsigned long long)pn->cols, (unsigned long long)pn->first,
               (unsigned long long)pn->count, LL(pn->x), LL(pn->y), pic->g.cell_w + pic->g.gap,
               pic->g.cell_h + pic->g.gap);
    if (pn->label != PIC_NONE) {
        buf_puts(o, " data-label=\"");
        buf_xml(o, pic_str(pic, pn->label));
        buf_printf(o, "\">\n<text class=\"l\" x=\"%lld\" y=\"%lld\">", LL(pn->x), LL(pn->y - 20));
        buf_xml(o, pic_str(pic, pn->label));
        buf_puts(o, "</text>");
    } else {
        buf_puts(o, ">");
    }
}

/* The segments of one outline path. */
typedef struct Path {
    Buf *o;
} Path;

static void seg(void *ctx, double x0, double y0, double x1, double y1)
{
    Buf *o = ((Path *)ctx)->o;
    buf_puts(o, "M");
    num(o, x0);
    buf_puts(o, " ");
    num(o, y0);
    buf_puts(o, x0 == x1 ? "V" : "H");
    num(o, x0 == x1 ? y1 : x1);
}

/* The tile outlines of a panel: one path per level, the coarsest thickest. */
static void outlines(const Pic *pic, const PicPanel *pn, Buf *o)
{
    static const char *const width[PIC_LEVELS] = {"2.5", "1.2"};
    for (int l = 0; l < pic->levels && l < PIC_LEVELS; l++) {
        buf_printf(o, "<path class=\"tile\" data-level=\"%d\" fill=\"none\" stroke=\"#111\" stroke-width=\"%s\" d=\"", l,
                   pic->levels == 1 ? "2" : width[l]);
        Path pa = {o};
        pic_outline(pic, pn, l, seg, &pa);
        buf_puts(o, "\"/>\n");
    }
}

/* One panel with texts: label, column numbers, row numbers, cells, outlines. */
static void panel(const Pic *pic, const PicPanel *pn, Buf *o)
{
    panel_open(pic, pn, o);
    headers(pic, pn, 1, o);
    for (size_t i = 0; i < pn->rows * pn->cols; i++)
        cell(pic, pn, i, o);
    outlines(pic, pn, o);
    buf_puts(o, "</g>\n");
}

/* The fills of a compact picture: a path per colour of rectangles, each the cells of one colour in a run of a row
 * merged with the same runs of the rows below (a tile of one colour is one rectangle). */
typedef struct Fill {
    uint32_t rgb;       /* the colour + 1; 0: an empty slot */
    Buf d;
} Fill;

/* The fill of colour rgb in the open-addressed table (cap a power of two), added when new; NULL when full. */
static Fill *fill_of(Fill *t, size_t cap, size_t *n, uint32_t rgb)
{
    size_t h = (rgb * 2654435761u) & (cap - 1);
    for (; t[h].rgb; h = (h + 1) & (cap - 1))
        if (t[h].rgb == rgb + 1)
            return &t[h];
    if (*n + 1 >= cap / 2)
        return NULL;
    (*n)++;
    t[h].rgb = rgb + 1;
    return &t[h];
}

/* The table of fills, doubled in place when it fills up. */
typedef struct Fills {
    Fill *t;
    size_t cap, n;
} Fills;

/* Appends the rectangle of cells (r0..r1) x (c0..c1) of panel pn to its colour's path. */
static void rect(const Pic *pic, const PicPanel *pn, Fills *f, uint32_t rgb, uint64_t r0, uint64_t r1, uint64_t c0,
                 uint64_t c1)
{
    Fill *fl;
    while (!(fl = fill_of(f->t, f->cap, &f->n, rgb))) { /* rehash into a table twice the size */
        Fill *old = f->t;
        size_t oldcap = f->cap;
        f->cap *= 2;
        f->t = mem_calloc(f->cap, sizeof *f->t);
        f->n = 0;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].rgb) {
                size_t h = ((old[i].rgb - 1) * 2654435761u) & (f->cap - 1);
                while (f->t[h].rgb)
                    h = (h + 1) & (f->cap - 1);
                f->t[h] = old[i];
                f->n++;
            }
        free(old);
    }
    int64_t x0, y0, x1, y1;
    pic_cell_xy(pic, pn, (size_t)(r0 * pn->cols + c0), &x0, &y0);
    pic_cell_xy(pic, pn, (size_t)(r1 * pn->cols + c1), &x1, &y1);
    int64_t w = x1 + pic->g.cell_w - x0, h = y1 + pic->g.cell_h - y0;
    buf_printf(&fl->d, "M%lld %lldh%lldv%lldh-%lldz", LL(x0), LL(y0), LL(w), LL(h), LL(w));
}

static void compact_fills(const Pic *pic, Buf *o)
{
    Fills f = {.cap = 256};
    f.t = mem_calloc(f.cap, sizeof *f.t);
    for (size_t k = 0; k < pic->npanels; k++) {
        const PicPanel *pn = &pic->panels[k];
        size_t cols = (size_t)pn->cols;
        /* the open rectangle starting at column c: its last column (UINT64_MAX: none), colour and first row */
        uint64_t *end = mem_alloc(cols * sizeof *end), *top = mem_alloc(cols * sizeof *top);
        uint32_t *rgb = mem_alloc(cols * sizeof *rgb);
        for (size_t c = 0; c < cols; c++)
            end[c] = UINT64_MAX;
        for (uint64_t r = 0; r < pn->rows; r++) {
            const PicCell *row = &pic->cells[pn->first_cell + (size_t)(r * cols)];
            for (uint64_t c = 0, e; c < cols; c = e) {
                for (e = c + 1; e < cols && row[e].rgb == row[c].rgb;)
                    e++;
                for (uint64_t j = c; j < e; j++) /* rectangles open over this run that it does not continue */
                    if (end[j] != UINT64_MAX && (j != c || end[j] != e - 1 || rgb[j] != row[c].rgb)) {
                        rect(pic, pn, &f, rgb[j], top[j], r - 1, j, end[j]);
                        end[j] = UINT64_MAX;
                    }
                if (end[c] == UINT64_MAX) {
                    end[c] = e - 1;
                    rgb[c] = row[c].rgb;
                    top[c] = r;
                }
            }
        }
        for (size_t j = 0; j < cols; j++) /* the last rows' */
            if (end[j] != UINT64_MAX)
                rect(pic, pn, &f, rgb[j], top[j], pn->rows - 1, j, end[j]);
        free(end);
        free(top);
        free(rgb);
    }
    buf_puts(o, "<g class=\"fills\" shape-rendering=\"crispEdges\">\n");
    for (size_t i = 0; i < f.cap; i++)
        if (f.t[i].rgb) {
            buf_printf(o, "<path fill=\"#%06x\" d=\"", (unsigned)(f.t[i].rgb - 1));
            buf_put(o, f.t[i].d.data, f.t[i].d.len);
            buf_puts(o, "\"/>\n");
            free(f.t[i].d.data);
        }
    buf_puts(o, "</g>\n");
    free(f.t);
}

/* The sampled labels of a compact index view: every step-th cell of every step-th row, and its tooltip. */
static void sampled(const Pic *pic, const PicPanel *pn, uint64_t step, Buf *o)
{
    buf_puts(o, "<g class=\"sl\">");
    for (uint64_t r = 0; r < pn->rows; r += step)
        for (uint64_t c = 0; c < pn->cols; c += step) {
            size_t i = (size_t)(r * pn->cols + c);
            const PicCell *pc = &pic->cells[pn->first_cell + i];
            if (pc->title == PIC_NONE)
                continue;
            int64_t x, y;
            pic_cell_xy(pic, pn, i, &x, &y);
            buf_printf(o, "<text x=\"%lld\" y=\"%lld\">", LL(x + 1), LL(y + 8));
            buf_xml(o, pic_str(pic, pc->text));
            buf_puts(o, "<title>");
            cell_title(pic, pc, o);
            buf_puts(o, "</title></text>");
        }
    buf_puts(o, "</g>\n");
}

void svg_write(const Pic *pic, bool standalone, Buf *o)
{
    if (standalone)
        buf_puts(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    buf_printf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%lld\" height=\"%lld\" viewBox=\"0 0 %lld %lld\" "
                  "font-family=\"DejaVu Sans Mono, monospace\">\n",
               LL(pic->g.width), LL(pic->g.height), LL(pic->g.width), LL(pic->g.height));
    buf_puts(o, "<style>text{font-size:11px;fill:#000}.t{font-size:14px;font-weight:bold}.s{font-size:10px}"
                ".l{font-size:10px;font-weight:bold}.p{font-size:9px;fill-opacity:0.7}.hdr text{font-size:9px;fill:#777}"
                ".w text{fill:#fff}.sl text{font-size:8px;paint-order:stroke;stroke:#fff;stroke-width:2px}</style>\n");
    buf_printf(o, "<rect width=\"%lld\" height=\"%lld\" fill=\"#ffffff\"/>\n", LL(pic->g.width), LL(pic->g.height));
    header(pic, o);
    if (pic->g.text) {
        for (size_t i = 0; i < pic->npanels; i++)
            panel(pic, &pic->panels[i], o);
    } else {
        compact_fills(pic, o);
        uint64_t step = pic_label_step(pic);
        for (size_t i = 0; i < pic->npanels; i++) {
            const PicPanel *pn = &pic->panels[i];
            panel_open(pic, pn, o);
            headers(pic, pn, step, o);
            outlines(pic, pn, o);
            if (pic->bare) /* the index view's labels; the buffer view's positions are its headers' */
                sampled(pic, pn, step, o);
            buf_puts(o, "</g>\n");
        }
    }
    buf_puts(o, "</svg>\n");
}
