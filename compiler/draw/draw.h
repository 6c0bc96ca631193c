/* draw.h — pictures of layouts: a mapping or a device tensor as a grid of cells (each buffer position with its
 * cell), coloured by a coordinate, by padding or by unit, rendered to SVG, PNG (cairo) or HTML in memory; the
 * picture of where two mappings differ; and the 2-D split of a mapping that pictures and tables share. */
#ifndef MAPC_DRAW_H
#define MAPC_DRAW_H

#include "algebra/algebra.h"
#include "core/ast.h"

#include <stddef.h>
#include <stdint.h>

typedef enum { DRAW_SVG, DRAW_PNG, DRAW_HTML } DrawFormat;

/* The most cells a picture may have by default: every panel's rows x columns, including the oob cells that
 * complete a last row. Larger pictures are refused before anything is evaluated or allocated. */
#define DRAW_MAX_CELLS (UINT64_C(1) << 18)

/* The most columns of a picture's default split: the table's, so that both show one grid. */
#define DRAW_MAX_COLS 16

/* What a picture's grid shows: the buffer's positions in the split of draw_split (each cell the index it holds), or
 * the tensor's coordinates (each index the position that holds it); AUTO: the index view for a layout over two
 * axes or more, the buffer view otherwise. */
typedef enum { DRAW_VIEW_AUTO, DRAW_VIEW_BUFFER, DRAW_VIEW_INDEX } DrawView;

typedef struct DrawOptions {
    DrawFormat format;
    const char *color;  /* the colour key (draw_key_parse's syntax); NULL: the view's default */
    uint64_t rows;      /* buffer view: rows of the split (of each unit's panel for a tensor); 0: the mapping's own */
    uint64_t max_cells; /* 0: DRAW_MAX_CELLS */
    DrawView view;
    const char *axes;   /* index view: "M,N", the axes of the rows and of the columns (one name: a row of that axis
                         * wrapped); NULL: the first two axes the layout uses, in declaration order */
} DrawOptions;

/* A rendered picture: len bytes at data, malloc'ed (the caller frees data with free()). */
typedef struct DrawBytes {
    unsigned char *data;
    size_t len;
} DrawBytes;

/* What draw_diff found: whether the two mappings are equivalent, and otherwise the smallest position where
 * they differ (from the equivalence decision when it decides, else from the cells drawn) and how many of the
 * drawn positions differ. */
typedef struct DrawDiff {
    bool equivalent;
    bool sizes_differ;
    uint64_t first;     /* the smallest differing position (also when only the sizes differ: the smaller size) */
    uint64_t differing; /* positions drawn whose cells differ (by_index: indices whose holders differ) */
    bool by_index;      /* drawn in the index view */
} DrawDiff;

/* Frees the caches PNG drawing leaves in cairo and fontconfig, for leak checkers: call it at most once, before the
 * process exits, when no thread draws any more (the mapc command does). */
void draw_release(void);

/* Whether this build can write PNG (cairo was found when it was configured). */
bool draw_png_available(void);

/* The 2-D split of m used by pictures and tables: with rows_wanted > 0, that many rows of ceil(|m| / rows)
 * columns; otherwise the mapping's own major/minor split: the factors of its top-level pairs, major to minor,
 * the minor-most ones (as many as fit in max_cols, the most major always left as rows) as columns, times the
 * largest divisor of the next factor that still fits when that brings the columns to at least max_cols / 4; a
 * minor-most factor too wide alone with no such divisor is kept whole. A mapping that is not a pair is wrapped at
 * min(max_cols, |m|, max(16, the power of two at or above sqrt |m|)) columns. rows * cols >= |m| (the cells past
 * |m| are oob); false when that product overflows. */
bool draw_split(const Map *m, uint64_t rows_wanted, uint64_t max_cols, uint64_t *rows, uint64_t *cols);

/* Draws the mapping m of p (title: its name as given) into *out, in the options' view. The buffer view has a cell
 * per position (its cell as mapc eval prints it); the index view a grid over two axes (more axes: one panel per
 * value of the others), each index labelled with the smallest position holding it, tiles of the digit structure
 * outlined (draw_tiles). false with why (a sentence) for an unknown colour key or axis, a picture of more than
 * the options' cell limit, rows out of range, an undecidable cell, or PNG without cairo. Evaluates every cell
 * with the reference interpreter. */
bool draw_map(Prog *p, const char *title, const Map *m, const DrawOptions *o, DrawBytes *out, char *why,
              size_t size);

/* Draws a device tensor. Buffer view: one panel per unit (chip, cluster, slice), each the unit's element positions
 * split by the Element mapping, with the cells of the tensor's layout. Index view: the tensor's coordinates, each
 * index labelled unit:element (its first holder), units' regions and the Element mapping's tiles outlined.
 * Errors as draw_map. */
bool draw_tensor(Prog *p, const TensorDecl *t, const DrawOptions *o, DrawBytes *out, char *why, size_t size);

/* Draws where mappings a and b (titled name_a, name_b) differ; fills *d. Buffer view: positions 0..max(|a|, |b|)
 * split like a, each cell with both cells. Index view: the grid over two axes of either, each index with the
 * positions holding it in a and in b (DRAW_VIEW_AUTO falls back to the buffer view when only padding or the sizes
 * differ, which the grid cannot show). The differing ones are marked, the smallest counterexample of the
 * equivalence decision distinctly. Errors as draw_map (o->color is not used). */
bool draw_diff(Prog *p, const char *name_a, const Map *a, const char *name_b, const Map *b, const DrawOptions *o,
               DrawDiff *d, DrawBytes *out, char *why, size_t size);

/* ---- the walk of a sequencer config (walk.c) ---- */

/* A config as plain arrays: count entries n[i]:stride[i], outermost first, and its printed form (the title). */
typedef struct DrawWalk {
    const uint64_t *n;
    const int64_t *stride;
    int count;
    const char *config;
} DrawWalk;

/* Draws the buffer buf (titled title) as the stream of w visits it: each position coloured by the order of its
 * first visit (dark first, light last), marked when visited again (a broadcast read), in its padding shade when
 * never visited. Errors as draw_map, and a walk of more than 64 times the cell limit of stream positions. */
bool draw_walk(Prog *p, const char *title, const Map *buf, const DrawWalk *w, const DrawOptions *o, DrawBytes *out,
               char *why, size_t size);

#endif
