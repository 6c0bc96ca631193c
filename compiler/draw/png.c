/* png.c — a picture as a PNG, drawn with cairo (a clear error in builds without it), with the cell geometry
 * recorded in a tEXt chunk "mapc-grid" so that readers can find every cell. */
#include "draw_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef MAPC_HAVE_CAIRO
#include <cairo.h>
#include <fontconfig/fontconfig.h>

bool draw_png_available(void) { return true; }

void draw_release(void)
{
    cairo_debug_reset_static_data(); /* cairo's font caches, which hold fontconfig's patterns */
    FcFini();
}

/* cairo's write callback: appends to the Buf. */
static cairo_status_t put(void *closure, const unsigned char *data, unsigned int len)
{
    buf_put(closure, data, len);
    return CAIRO_STATUS_SUCCESS;
}

static void rgb(cairo_t *cr, uint32_t c)
{
    cairo_set_source_rgb(cr, ((c >> 16) & 0xff) / 255.0, ((c >> 8) & 0xff) / 255.0, (c & 0xff) / 255.0);
}

/* Shows s at (x, y) in the monospace face at size (bold or not); the face is set only when it changes. */
static void text_at(cairo_t *cr, double x, double y, double size, bool bold, const char *s)
{
    cairo_font_face_t *face = cairo_get_font_face(cr);
    cairo_matrix_t m;
    cairo_get_font_matrix(cr, &m);
    if (m.xx != size || cairo_toy_font_face_get_weight(face) != (bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL) ||
        strcmp(cairo_toy_font_face_get_family(face), "DejaVu Sans Mono") != 0) {
        cairo_select_font_face(cr, "DejaVu Sans Mono", CAIRO_FONT_SLANT_NORMAL,
                               bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
        cairo_set_font_size(cr, size);
    }
    cairo_move_to(cr, x, y);
    cairo_show_text(cr, s);
}

/* The header band: title, subtitle, legend (the same places as the SVG's). */
static void header(cairo_t *cr, const Pic *pic)
{
    rgb(cr, 0);
    text_at(cr, PIC_MARGIN, 22, 14, true, pic_str(pic, pic->title));
    text_at(cr, PIC_MARGIN, 40, 10, false, pic_str(pic, pic->subtitle));
    double x = PIC_MARGIN;
    for (int i = 0; i < pic->nlegend; i++) {
        const char *label = pic_str(pic, pic->legend[i].label);
        rgb(cr, pic->legend[i].rgb);
        cairo_rectangle(cr, x, 48, 12, 12);
        cairo_fill(cr);
        rgb(cr, 0);
        text_at(cr, x + 16, 58, 10, false, label);
        x += 16 + (double)strlen(label) * PIC_SMALL_W + 14;
    }
}

/* One outline segment (cairo_t *ctx). */
static void seg(void *ctx, double x0, double y0, double x1, double y1)
{
    cairo_move_to(ctx, x0, y0);
    cairo_line_to(ctx, x1, y1);
}

/* A cell's texts: the position and the cell(s) (buffer view), or the label(s) centred (index view). */
static void cell_texts(cairo_t *cr, const Pic *pic, const PicCell *c, int64_t x, int64_t y)
{
    char num[32];
    rgb(cr, pal_dark(c->rgb) ? 0xffffff : 0x000000);
    if (pic->bare) {
        const char *t1 = pic_str(pic, c->text), *t2 = c->text2 != PIC_NONE ? pic_str(pic, c->text2) : NULL;
        double cx = (double)x + pic->g.cell_w / 2.0;
        text_at(cr, cx - (double)strlen(t1) * 3.3, (double)y + (t2 ? 14 : pic->g.cell_h / 2.0 + 4), 11, false, t1);
        if (t2)
            text_at(cr, cx - (double)strlen(t2) * 3.3, (double)y + 27, 11, false, t2);
        return;
    }
    snprintf(num, sizeof num, "%llu", (unsigned long long)c->pos);
    text_at(cr, (double)x + 4, (double)y + 11, 9, false, num);
    text_at(cr, (double)x + 4, (double)y + 25, 11, false, pic_str(pic, c->text));
    if (c->text2 != PIC_NONE)
        text_at(cr, (double)x + 4, (double)y + 39, 11, false, pic_str(pic, c->text2));
}

/* A panel: its cells (fills, then marks and texts when the geometry has text; sampled labels otherwise), its tile
 * outlines, and its numbers (every k-th when compact) and label. */
static void panel(cairo_t *cr, const Pic *pic, const PicPanel *pn)
{
    char num[32];
    uint64_t step = pic_label_step(pic), rs = pic->row_step ? pic->row_step : 1;
    for (size_t i = 0; i < pn->rows * pn->cols; i++) {
        const PicCell *c = &pic->cells[pn->first_cell + i];
        int64_t x, y;
        pic_cell_xy(pic, pn, i, &x, &y);
        rgb(cr, c->rgb);
        cairo_rectangle(cr, (double)x, (double)y, pic->g.cell_w, pic->g.cell_h);
        cairo_fill(cr);
        if (c->mark != MARK_NONE && pic->g.cell_w >= 6) {
            rgb(cr, c->mark == MARK_FIRST ? 0x000000 : 0xb00000);
            cairo_set_line_width(cr, c->mark == MARK_FIRST ? 3 : 2);
            cairo_rectangle(cr, (double)x + 1.5, (double)y + 1.5, pic->g.cell_w - 3, pic->g.cell_h - 3);
            cairo_stroke(cr);
        }
        if (pic->g.text)
            cell_texts(cr, pic, c, x, y);
    }
    for (int l = 0; l < pic->levels; l++) {
        rgb(cr, 0x111111);
        cairo_set_line_width(cr, pic->levels == 1 ? 2 : l == 0 ? 2.5 : 1.2);
        pic_outline(pic, pn, l, seg, cr);
        cairo_stroke(cr);
    }
    if (!pic->g.text && pic->bare) { /* the index view's sampled labels, on a white halo (the buffer view's positions
                                      * are its headers') */
        for (uint64_t r = 0; r < pn->rows; r += step)
            for (uint64_t c = 0; c < pn->cols; c += step) {
                size_t i = (size_t)(r * pn->cols + c);
                const PicCell *pc = &pic->cells[pn->first_cell + i];
                int64_t x, y;
                pic_cell_xy(pic, pn, i, &x, &y);
                snprintf(num, sizeof num, "%s", pic_str(pic, pc->text));
                rgb(cr, 0xffffff);
                cairo_rectangle(cr, (double)x, (double)y, (double)strlen(num) * 4.9 + 2, 9);
                cairo_fill(cr);
                rgb(cr, 0);
                text_at(cr, (double)x + 1, (double)y + 8, 8, false, num);
            }
    }
    rgb(cr, 0x777777);
    int pw = pic->g.cell_w + pic->g.gap, ph = pic->g.cell_h + pic->g.gap;
    for (uint64_t j = 0; j < pn->cols; j += step) {
        snprintf(num, sizeof num, "%llu", (unsigned long long)j);
        text_at(cr, (double)(pn->x + (int64_t)j * pw + (pic->g.text ? 2 : 0)), (double)(pn->y - 4), 9, false, num);
    }
    for (uint64_t r = 0; r < pn->rows; r += step) {
        snprintf(num, sizeof num, "%llu", (unsigned long long)(r * rs));
        text_at(cr, (double)pn->x - 4 - (double)strlen(num) * 5.4,
                (double)(pn->y + (int64_t)r * ph + (pic->g.text ? pic->g.cell_h / 2 + 4 : 8)), 9, false, num);
    }
    if (pn->label != PIC_NONE) {
        rgb(cr, 0);
        text_at(cr, (double)pn->x, (double)(pn->y - 20), 10, true, pic_str(pic, pn->label));
    }
}

/* The CRC of PNG chunks (ISO 3309) over type and data. */
static uint32_t crc32(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
    }
    return c ^ 0xffffffffu;
}

static void put_u32(Buf *b, uint32_t v)
{
    unsigned char be[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16), (unsigned char)(v >> 8), (unsigned char)v};
    buf_put(b, be, 4);
}

/* Inserts after IHDR the tEXt chunk "mapc-grid": "cell W H GAP" and a line "panel X Y ROWS COLS" per panel. */
static void add_grid_chunk(const Pic *pic, Buf *png)
{
    Buf t = {0};
    buf_put(&t, "tEXtmapc-grid", 14); /* type, keyword and its NUL */
    buf_printf(&t, "cell %d %d %d\n", pic->g.cell_w, pic->g.cell_h, pic->g.gap);
    for (size_t i = 0; i < pic->npanels; i++)
        buf_printf(&t, "panel %lld %lld %llu %llu\n", (long long)pic->panels[i].x, (long long)pic->panels[i].y,
                   (unsigned long long)pic->panels[i].rows, (unsigned long long)pic->panels[i].cols);
    Buf out = {0};
    const size_t ihdr_end = 8 + 25; /* signature, then IHDR: length, type, 13 bytes, CRC */
    buf_put(&out, png->data, ihdr_end);
    put_u32(&out, (uint32_t)(t.len - 4));
    buf_put(&out, t.data, t.len);
    put_u32(&out, crc32(t.data, t.len));
    buf_put(&out, png->data + ihdr_end, png->len - ihdr_end);
    free(t.data);
    free(png->data);
    *png = out;
}

bool png_write(Pic *pic, Buf *out, char *why, size_t size)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)pic->g.width, (int)pic->g.height);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        snprintf(why, size, "cairo cannot make a %lld x %lld image: %s", (long long)pic->g.width,
                 (long long)pic->g.height, cairo_status_to_string(cairo_surface_status(s)));
        cairo_surface_destroy(s);
        return false;
    }
    cairo_t *cr = cairo_create(s);
    rgb(cr, 0xffffff);
    cairo_paint(cr);
    header(cr, pic);
    for (size_t i = 0; i < pic->npanels; i++)
        panel(cr, pic, &pic->panels[i]);
    cairo_status_t st = cairo_status(cr);
    cairo_destroy(cr);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_write_to_png_stream(s, put, out);
    cairo_surface_destroy(s);
    if (st != CAIRO_STATUS_SUCCESS || out->len < 33) {
        snprintf(why, size, "cairo cannot draw the PNG: %s", cairo_status_to_string(st));
        return false;
    }
    add_grid_chunk(pic, out);
    return true;
}

#else

bool draw_png_available(void) { return false; }

void draw_release(void) {}

bool png_write(Pic *pic, Buf *out, char *why, size_t size)
{
    (void)pic;
    (void)out;
    snprintf(why, size, "PNG output needs cairo, which was not found when mapc was built (install libcairo2-dev and "
                        "configure again); SVG and HTML output work");
    return false;
}

#endif
