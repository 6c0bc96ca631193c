/* draw_impl.h — what the files of compiler/draw share: the picture model (panels of cells with their texts and
 * colours, a legend), its geometry, the palette, and a growable byte buffer. */
#ifndef MAPC_DRAW_IMPL_H
#define MAPC_DRAW_IMPL_H

#include "draw.h"

#include <stdarg.h>

/* ---- a growable byte buffer (buf.c); allocation failure unwinds to the out-of-memory guard ---- */

typedef struct Buf {
    unsigned char *data;
    size_t len, cap;
} Buf;

void buf_put(Buf *b, const void *s, size_t n);
void buf_puts(Buf *b, const char *s);
void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s with &, <, > and " escaped for XML text and attributes. */
void buf_xml(Buf *b, const char *s);

/* ---- the picture model (picture.c builds it, svg.c, html.c and png.c render it) ---- */

#define PIC_NONE SIZE_MAX /* no text */

enum { MARK_NONE, MARK_DIFFER, MARK_FIRST };

typedef struct PicCell {
    uint64_t pos;       /* the position of the mapping (of the layout, for a tensor) */
    size_t text, text2; /* offsets of the cell's text in Pic.strings; text2: the second mapping's (diffs), or PIC_NONE */
    uint32_t rgb;       /* fill, 0xRRGGBB */
    uint8_t kind, mark; /* the CellKind (of the first mapping in a diff); MARK_* */
} PicCell;

typedef struct PicPanel {
    size_t label;       /* "chip 0, cluster 0, slice 3", or PIC_NONE */
    uint64_t rows, cols;
    uint64_t first, count; /* the layout position of its cell 0, and how many of its cells are positions */
    size_t first_cell;  /* index of its row 0, column 0 in Pic.cells; rows x cols cells, row-major */
    int64_t x, y;       /* geometry: the top left corner of its cell 0 */
} PicPanel;

typedef struct PicLegend {
    uint32_t rgb;
    size_t label;
} PicLegend;

#define PIC_MAX_LEGEND 24

/* Geometry in pixels (SVG user units are pixels too). */
typedef struct PicGeom {
    bool text;          /* cell texts, row and column numbers and panel labels drawn (otherwise plain squares) */
    int cell_w, cell_h, gap;
    int64_t width, height;
} PicGeom;

typedef struct Pic {
    Buf strings;        /* NUL-terminated texts */
    size_t title, subtitle;
    PicPanel *panels;
    size_t npanels;
    PicCell *cells;
    size_t ncells;
    PicLegend legend[PIC_MAX_LEGEND];
    int nlegend;
    int lines;          /* text lines per cell: 2 (position, cell) or 3 (position, both cells of a diff) */
    size_t widest;      /* the longest text of a cell, in characters */
    PicGeom g;
} Pic;

/* The text at offset off of the picture's strings. */
static inline const char *pic_str(const Pic *pic, size_t off) { return (const char *)pic->strings.data + off; }
/* Adds a NUL-terminated text to the picture's strings; its offset. */
size_t pic_add_str(Pic *pic, const char *s);
void pic_free(Pic *pic);

/* Font metrics the geometry assumes (monospace): the advance of one character of cell text and of small text. */
#define PIC_CHAR_W 7
#define PIC_SMALL_W 6
#define PIC_MARGIN 12
#define PIC_HEADER_H 70

/* Adds the printed form of a cell to the picture's strings (keeping Pic.widest); its offset. */
size_t pic_add_cell(Pic *pic, const Prog *p, const Cell *c);
/* The split of `positions` positions per panel, in `panels` panels, by m's split (draw_split, at most DRAW_MAX_COLS
 * columns; rows enough for the positions), checked before anything is allocated: PNG in a build without cairo,
 * the cell limit of o, rows within the positions. false with why. */
bool pic_check_split(const DrawOptions *o, uint64_t positions, uint64_t panels, const Map *m, uint64_t *rows,
                     uint64_t *cols, char *why, size_t size);

/* Lays the picture out: with text, cells wide enough for the widest text; without, square cells of the largest
 * size (at most 12 pixels) that keeps width x height within max_pixels. Panels go in a near-square grid. */
void pic_layout(Pic *pic, bool text, uint64_t max_pixels);
/* The top left corner of a cell (index into the panel's cells). */
static inline void pic_cell_xy(const Pic *pic, const PicPanel *pn, size_t i, int64_t *x, int64_t *y)
{
    *x = pn->x + (int64_t)(i % pn->cols) * (pic->g.cell_w + pic->g.gap);
    *y = pn->y + (int64_t)(i / pn->cols) * (pic->g.cell_h + pic->g.gap);
}

/* ---- palette (palette.c) ---- */

/* The fill of value v of n values (a coordinate, a unit): ten distinct hues for n <= 10, else a gradient. */
uint32_t pal_value(uint64_t v, uint64_t n);
/* The fill of a cell of kind k that is not live, or of a live cell coloured by padding. */
uint32_t pal_kind(CellKind k);
/* Fills of a diff: equal cells, differing cells, the smallest counterexample. */
enum { PAL_SAME = 0xe3eee4, PAL_DIFFER = 0xf4a3a3, PAL_FIRST = 0xd62728 };
/* Whether text on the fill should be white. */
bool pal_dark(uint32_t rgb);

/* ---- renderers ---- */

/* The SVG document of a laid-out picture (with the XML declaration when standalone; without it for HTML). */
void svg_write(const Pic *pic, bool standalone, Buf *out);
void html_write(const Pic *pic, Buf *out);
/* The PNG (cairo): false with why when this build has no cairo or cairo fails. Lays the picture out itself. */
bool png_write(Pic *pic, Buf *out, char *why, size_t size);

/* Renders pic in the format into *out (laying it out first); false with why. Frees nothing. */
bool pic_render(Pic *pic, DrawFormat f, DrawBytes *out, char *why, size_t size);

#endif
