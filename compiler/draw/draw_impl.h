/* draw_impl.h — what the files of compiler/draw share: the picture model (panels of cells with their texts,
 * colours and tile groups, a legend), its geometry, the palette, colour keys, the digit structure's tiles, and a
 * growable byte buffer. */
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

/* Levels of tile outlines: 0 the coarsest (units of a tensor, outer tiles), drawn thicker than 1. */
#define PIC_LEVELS 2

typedef struct PicCell {
    uint64_t pos;       /* buffer view: the position shown (of the layout, for a tensor); index view: the position
                         * holding the index (data-pos), or UINT64_MAX */
    size_t text, text2; /* offsets of the cell's text in Pic.strings; text2: the second mapping's (diffs), or PIC_NONE */
    size_t title;       /* the cell's tooltip in Pic.strings; PIC_NONE or 0 (the empty text): "position POS: TEXT" */
    uint32_t rgb;       /* fill, 0xRRGGBB */
    uint32_t group[PIC_LEVELS]; /* tile outlines: neighbours whose groups differ at a level are separated by a
                                 * line of that level (0 everywhere: no outlines) */
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

#define PIC_MAX_LEGEND 40

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
    int lines;          /* text lines per cell: buffer view 2 (position, cell) or 3 (position, both cells of a
                         * diff); index view (bare) 1 (the label) or 2 (both labels of a diff) */
    bool bare;          /* the index view: no position line, the texts alone */
    int levels;         /* tile outline levels in use (0..PIC_LEVELS) */
    uint64_t row_step;  /* row r's header shows r * row_step (0 means 1) */
    size_t widest;      /* the longest text of a cell, in characters */
    PicGeom g;
} Pic;

/* The text at offset off of the picture's strings. */
static inline const char *pic_str(const Pic *pic, size_t off) { return (const char *)pic->strings.data + off; }
/* Adds a NUL-terminated text to the picture's strings; its offset (never 0: offset 0 is the empty text, so that
 * text fields of a zero-initialized cell or panel are empty). */
size_t pic_add_str(Pic *pic, const char *s);
void pic_free(Pic *pic);
/* The mapping as m![...] text, malloc'ed. */
char *pic_map_text(const Prog *p, const Map *m);
/* Adds the title "NAME = m![...]" (just the text when NAME is it); its offset. */
size_t pic_add_title(Pic *pic, const Prog *p, const char *name, const Map *m);
/* Adds the title "tensor T: DmTensor<f32, m![...], ...>"; its offset. */
size_t pic_add_tensor_title(Pic *pic, const Prog *p, const TensorDecl *t);
/* Decides a against b for a diff: *r with coordinates allocated (the caller frees r->c1.coord and r->c2.coord, and
 * the returned decision with eqv_free), d->first the decision's counterexample when it found one. */
Eqv *pic_decide(Prog *p, const Map *a, const Map *b, EqvResult *r, DrawDiff *d);
/* The legend of a diff: same, and unless equivalent, differs and the first difference. */
void pic_diff_legend(Pic *pic, bool equivalent);
/* "chip 0, cluster 1, slice 3" (DmTensor), "chip 2" (HbmTensor), "host" (HostTensor) for unit k. */
void pic_unit_label(MemKind mem, TensorUnits u, uint64_t k, char *buf, size_t size);
/* Whether the options' view of the layout a (and b, of a diff; may be NULL) is the index view: as asked, or for
 * DRAW_VIEW_AUTO whether they use two axes or more. */
bool pic_index_view(const Prog *p, const Map *a, const Map *b, const DrawOptions *o);
/* Adds a legend entry (past PIC_MAX_LEGEND entries: dropped). */
void pic_legend(Pic *pic, uint32_t rgb, const char *label);

/* The most cells a picture with texts in every cell may have; larger ones are drawn compact (SVG: one path per
 * colour, no per-cell elements) with sampled labels. */
#define PIC_TEXT_CELLS 4096

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

/* (outline.c) Calls seg for every line of tile outline `level` of panel pn: the merged runs of cell edges between neighbours
 * whose groups differ, and the panel's border around cells of a group, in pixels (at the gap's middle). */
void pic_outline(const Pic *pic, const PicPanel *pn, int level,
                 void (*seg)(void *ctx, double x0, double y0, double x1, double y1), void *ctx);
/* Every k-th row and column is labelled in a compact picture: the smallest power of two with k cells at least
 * 40 pixels (1 with texts). */
uint64_t pic_label_step(const Pic *pic);

/* ---- palette (palette.c) ---- */

/* Values up to this many get distinct colours of a colour-blind-safe list; more a cyclic map. */
#define PAL_DISCRETE 24

/* The fill of value v of n values (a digit, a unit, a tile). */
uint32_t pal_value(uint64_t v, uint64_t n);
/* The fill of a cell of kind k that is not live, or of a live cell coloured by padding. */
uint32_t pal_kind(CellKind k);
/* Fills of a diff: equal cells, differing cells, the smallest counterexample. */
enum { PAL_SAME = 0xe3eee4, PAL_DIFFER = 0xf4a3a3, PAL_FIRST = 0xd62728 };
/* The fill of an index no position holds (index view). */
enum { PAL_UNHELD = 0xf7f7f7 };
/* Whether text on the fill should be white. */
bool pal_dark(uint32_t rgb);

/* ---- colour keys (key.c) ---- */

typedef enum { KEY_DIGIT, KEY_PADDING, KEY_UNIT, KEY_TILE } KeyKind;

/* What colours the cells: a digit of an axis or of the position (TERM [/ D] [% M], TERM an axis or `position`,
 * D and M decimal or 0x hex), padding (the kinds' shades only), the unit of a tensor, or the finest tile. */
typedef struct DrawKey {
    KeyKind kind;
    int axis;           /* KEY_DIGIT: the axis, or -1 for the position (a tensor's: within its unit) */
    uint64_t div, mod;  /* KEY_DIGIT: value = term / div % mod (mod 0: none) */
    char text[80];      /* how the subtitle and the legend name it: "M / 8", "unit", ... */
} DrawKey;

/* Parses a colour key (NULL: *k untouched, true). tensor: whether `unit` is allowed. false with why. */
bool draw_key_parse(const Prog *p, const char *s, bool tensor, DrawKey *k, char *why, size_t size);
/* A digit key's value for a cell with these coordinates at this position. */
uint64_t draw_key_digit(const DrawKey *k, const uint64_t *coord, uint64_t pos);
/* How many values a digit key takes when the term ranges over 0..range-1. */
uint64_t draw_key_count(const DrawKey *k, uint64_t range);
/* Adds the legend of a key of n values named by k->text: every value when n <= PAL_DISCRETE and it fits, else
 * five samples. */
void draw_key_legend(Pic *pic, const DrawKey *k, uint64_t n);

/* ---- the digit structure (split.c) ---- */

#define DRAW_MAX_FACTORS 64 /* factors of size >= 2 multiply to at most 2^64 */

/* The factors of m's top-level pairs of size >= 2, major to minor (their sizes multiply to |m|); how many. */
int draw_factors(const Map *m, const Map **f, int max);

/* The tiles of m drawn over axes row and col: the sizes (in positions, coarsest first) of the minor blocks of
 * factors after a cut where both the major and the minor factors use both axes (the 4 x 4 blocks of
 * m![M / 4, N / 4, M % 4, N % 4]: 16); at most PIC_LEVELS of them (the coarsest and the finest). How many. */
int draw_tiles(const Prog *p, const Map *m, int row, int col, uint64_t *tile);

/* ---- the index view (index.c): draw_map, draw_tensor and draw_diff in the tensor's coordinates ---- */

bool index_draw_map(Prog *p, const char *title, const Map *m, const DrawOptions *o, DrawBytes *out, char *why,
                    size_t size);
bool index_draw_tensor(Prog *p, const TensorDecl *t, const Map *layout, const DrawOptions *o, DrawBytes *out,
                       char *why, size_t size);
/* The index view of a diff; with DRAW_VIEW_AUTO, when every index is held alike but the mappings differ (padding,
 * sizes: invisible in the grid), draws nothing and sets *fallback for the buffer view. */
bool index_draw_diff(Prog *p, const char *name_a, const Map *a, const char *name_b, const Map *b,
                     const DrawOptions *o, DrawDiff *d, DrawBytes *out, bool *fallback, char *why, size_t size);

/* ---- renderers ---- */

/* The SVG document of a laid-out picture (with the XML declaration when standalone; without it for HTML). */
void svg_write(const Pic *pic, bool standalone, Buf *out);
void html_write(const Pic *pic, Buf *out);
/* The PNG (cairo): false with why when this build has no cairo or cairo fails. Lays the picture out itself. */
bool png_write(Pic *pic, Buf *out, char *why, size_t size);

/* Renders pic in the format into *out (laying it out first); false with why. Frees nothing. */
bool pic_render(Pic *pic, DrawFormat f, DrawBytes *out, char *why, size_t size);

#endif
