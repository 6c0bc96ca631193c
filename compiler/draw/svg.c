/* svg.c — a laid-out picture as an SVG document: the header band (title, subtitle, legend), then per panel its
 * label, column and row numbers and one group per cell (data-pos, data-kind; a rect, the position, the cell). */
#include "draw_impl.h"

#include <string.h>

#define LL(x) ((long long)(x))

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

/* One cell: its group, rect (a stroke for a diff mark) and texts. */
static void cell(const Pic *pic, const PicPanel *pn, size_t i, Buf *o)
{
    const PicCell *c = &pic->cells[pn->first_cell + i];
    int64_t x, y;
    pic_cell_xy(pic, pn, i, &x, &y);
    buf_printf(o, "<g data-pos=\"%llu\" data-kind=\"%s\"%s%s><rect x=\"%lld\" y=\"%lld\" width=\"%d\" height=\"%d\" "
                  "fill=\"#%06x\"",
               (unsigned long long)c->pos, cell_kind_name((CellKind)c->kind), mark_name[c->mark],
               pal_dark(c->rgb) ? " class=\"w\"" : "", LL(x), LL(y), pic->g.cell_w, pic->g.cell_h, (unsigned)c->rgb);
    if (c->mark == MARK_DIFFER)
        buf_puts(o, " stroke=\"#b00000\" stroke-width=\"2\"");
    else if (c->mark == MARK_FIRST)
        buf_puts(o, " stroke=\"#000000\" stroke-width=\"3\"");
    buf_printf(o, "/><text class=\"p\" x=\"%lld\" y=\"%lld\">%llu</text><text class=\"c\" x=\"%lld\" y=\"%lld\">",
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

/* One panel: label, column numbers, row numbers, cells. */
static void panel(const Pic *pic, const PicPanel *pn, Buf *o)
{
    buf_printf(o, "<g class=\"panel\" data-rows=\"%llu\" data-cols=\"%llu\" data-first=\"%llu\" data-count=\"%llu\"",
               (unsigned long long)pn->rows, (unsigned long long)pn->cols, (unsigned long long)pn->first,
               (unsigned long long)pn->count);
    if (pn->label != PIC_NONE) {
        buf_puts(o, " data-label=\"");
        buf_xml(o, pic_str(pic, pn->label));
        buf_printf(o, "\">\n<text class=\"l\" x=\"%lld\" y=\"%lld\">", LL(pn->x), LL(pn->y - 20));
        buf_xml(o, pic_str(pic, pn->label));
        buf_puts(o, "</text>");
    } else {
        buf_puts(o, ">");
    }
    buf_puts(o, "\n<g class=\"hdr\">");
    int pw = pic->g.cell_w + pic->g.gap, ph = pic->g.cell_h + pic->g.gap;
    for (uint64_t j = 0; j < pn->cols; j++)
        buf_printf(o, "<text x=\"%lld\" y=\"%lld\">%llu</text>", LL(pn->x + (int64_t)j * pw + 2), LL(pn->y - 4),
                   (unsigned long long)j);
    for (uint64_t r = 0; r < pn->rows; r++)
        buf_printf(o, "<text x=\"%lld\" y=\"%lld\" text-anchor=\"end\">%llu</text>", LL(pn->x - 4),
                   LL(pn->y + (int64_t)r * ph + pic->g.cell_h / 2 + 4), (unsigned long long)r);
    buf_puts(o, "</g>\n");
    for (size_t i = 0; i < pn->rows * pn->cols; i++)
        cell(pic, pn, i, o);
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
                ".w text{fill:#fff}</style>\n");
    buf_printf(o, "<rect width=\"%lld\" height=\"%lld\" fill=\"#ffffff\"/>\n", LL(pic->g.width), LL(pic->g.height));
    header(pic, o);
    for (size_t i = 0; i < pic->npanels; i++)
        panel(pic, &pic->panels[i], o);
    buf_puts(o, "</svg>\n");
}
