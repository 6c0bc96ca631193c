/* picture.c — the pictures of a mapping and of a device tensor: the split into panels of rows and columns, every
 * cell evaluated by the reference interpreter, its colour key and the legend; then rendered (geom.c). */
#include "draw_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

/* One picture being built. */
typedef struct Build {
    Prog *p;
    Evaluator *ev;
    Pic *pic;
    Cell c;
    DrawKey key;
    uint64_t units;     /* KEY_UNIT: how many */
    uint64_t values;    /* KEY_DIGIT: how many values the key takes */
    bool seen[CELL_OVERFLOW + 1];
    char *why;
    size_t size;
} Build;

/* Chooses the colour key from the option (NULL: the first axis the layout uses, else padding); false with why. */
static bool choose_color(Build *b, const char *color, const Map *layout, bool tensor)
{
    Prog *p = b->p;
    if (color) {
        if (!draw_key_parse(p, color, tensor, &b->key, b->why, b->size))
            return false;
        if (b->key.kind == KEY_TILE) {
            snprintf(b->why, b->size, "colour by tile is the index view's (--view index); the buffer view colours by "
                                      "an axis, a digit, position, padding%s", tensor ? " or unit" : "");
            return false;
        }
    } else {
        bool *used = mem_calloc((size_t)p->naxes + 1, 1);
        map_mark_axes(layout, used);
        b->key = (DrawKey){.kind = KEY_PADDING};
        snprintf(b->key.text, sizeof b->key.text, "padding");
        for (int a = 0; a < p->naxes; a++)
            if (used[a] && !p->axes[a].local) {
                b->key = (DrawKey){.kind = KEY_DIGIT, .axis = a, .div = 1};
                snprintf(b->key.text, sizeof b->key.text, "%s", p->axes[a].name);
                break;
            }
        free(used);
    }
    if (b->key.kind == KEY_DIGIT)
        b->values = draw_key_count(&b->key, b->key.axis < 0 ? layout->size : p->axes[b->key.axis].size);
    return true;
}

size_t pic_add_cell(Pic *pic, const Prog *p, const Cell *c)
{
    char small[512];
    size_t n = cell_format(p, c, small, sizeof small), off;
    if (n < sizeof small) {
        off = pic_add_str(pic, small);
    } else {
        char *s = mem_alloc(n + 1);
        cell_format(p, c, s, n + 1);
        off = pic_add_str(pic, s);
        free(s);
    }
    if (n > pic->widest)
        pic->widest = n;
    return off;
}

/* Evaluates positions first .. first + count of layout into the next rows x cols cells of the picture, as a
 * panel labelled label (may be NULL) of unit number unit; cells past count are oob. The cells show the position
 * minus `shown_base` (element positions within a unit). false with why when a cell is undecidable. */
static bool add_panel(Build *b, const Map *layout, uint64_t first, uint64_t count, uint64_t rows, uint64_t cols,
                      uint64_t unit, uint64_t shown_base, const char *label)
{
    Pic *pic = b->pic;
    PicPanel *pn = &pic->panels[pic->npanels++];
    *pn = (PicPanel){.label = label ? pic_add_str(pic, label) : PIC_NONE, .rows = rows, .cols = cols,
                     .first = first, .count = count, .first_cell = pic->ncells};
    for (uint64_t i = 0; i < rows * cols; i++) {
        uint64_t pos = first + i;
        if (i < count) {
            if (eval_cell(b->ev, layout, pos, &b->c) != EVAL_OK) {
                snprintf(b->why, b->size, "cannot evaluate position %llu: %s", U(pos), eval_error(b->ev));
                return false;
            }
        } else {
            b->c.kind = CELL_OOB;
        }
        PicCell *pc = &pic->cells[pic->ncells++];
        *pc = (PicCell){.pos = pos - shown_base, .text2 = PIC_NONE, .title = PIC_NONE, .kind = (uint8_t)b->c.kind};
        pc->text = pic_add_cell(pic, b->p, &b->c);
        b->seen[b->c.kind] = true;
        if (b->c.kind != CELL_LIVE || b->key.kind == KEY_PADDING)
            pc->rgb = pal_kind(b->c.kind);
        else if (b->key.kind == KEY_DIGIT)
            pc->rgb = pal_value(draw_key_digit(&b->key, b->c.coord, pos - shown_base), b->values);
        else
            pc->rgb = pal_value(unit, b->units);
    }
    return true;
}

/* The legend of the colour key, then the kinds met that are not live. */
static void add_legend(Build *b)
{
    if (b->key.kind == KEY_PADDING) {
        if (b->seen[CELL_LIVE])
            pic_legend(b->pic, pal_kind(CELL_LIVE), "live");
    } else {
        draw_key_legend(b->pic, &b->key, b->key.kind == KEY_UNIT ? b->units : b->values);
    }
    for (int k = CELL_PAD_TOP; k <= CELL_OVERFLOW; k++)
        if (b->seen[k])
            pic_legend(b->pic, pal_kind((CellKind)k), cell_kind_name((CellKind)k));
}

/* Sets up b and its picture for `cells` cells in `panels` panels. */
static void build_start(Build *b, Prog *p, Pic *pic, uint64_t panels, uint64_t cells)
{
    b->p = p;
    b->pic = pic;
    b->ev = eqv_evaluator_new(p);
    b->c.coord = mem_calloc((size_t)p->naxes + 1, sizeof(uint64_t));
    pic->lines = 2;
    pic->panels = mem_calloc((size_t)panels, sizeof *pic->panels);
    pic->cells = mem_alloc((size_t)cells * sizeof *pic->cells);
}

static void build_end(Build *b)
{
    free(b->c.coord);
    eqv_evaluator_free(b->ev);
}

bool pic_check_split(const DrawOptions *o, uint64_t positions, uint64_t panels, const Map *m, uint64_t *rows,
                     uint64_t *cols, char *why, size_t size)
{
    uint64_t max = o->max_cells ? o->max_cells : DRAW_MAX_CELLS, total, per;
    if (o->format == DRAW_PNG && !draw_png_available())
        return png_write(NULL, NULL, why, size); /* its error */
    if (!u64_mul(positions, panels, &total) || total > max) {
        snprintf(why, size, "the picture would have %s%llu cells, more than the limit of %llu",
                 u64_mul(positions, panels, &total) ? "" : "over ", U(u64_sat_mul(positions, panels)), U(max));
        return false;
    }
    if (o->rows > positions) {
        snprintf(why, size, "%llu rows is more than the %llu positions to draw", U(o->rows), U(positions));
        return false;
    }
    draw_split(m, o->rows, DRAW_MAX_COLS, rows, cols);
    if (!o->rows) /* rows for every position (a diff's may outnumber m's); rows * cols < 2 * positions */
        *rows = positions / *cols + (positions % *cols != 0);
    else
        *cols = positions / o->rows + (positions % o->rows != 0);
    if (u64_mul(*rows, *cols, &per) && u64_mul(per, panels, &total) && total <= max)
        return true;
    snprintf(why, size, "the picture would have %llu panel%s of %llu rows x %llu columns, more than the limit of %llu cells",
             U(panels), panels == 1 ? "" : "s", U(*rows), U(*cols), U(max));
    return false;
}

bool draw_map(Prog *p, const char *title, const Map *m, const DrawOptions *o, DrawBytes *out, char *why, size_t size)
{
    if (pic_index_view(p, m, NULL, o))
        return index_draw_map(p, title, m, o, out, why, size);
    Build b = {.p = p, .why = why, .size = size};
    uint64_t rows, cols;
    if (!choose_color(&b, o->color, m, false) || !pic_check_split(o, m->size, 1, m, &rows, &cols, why, size))
        return false;
    Pic pic = {0};
    build_start(&b, p, &pic, 1, rows * cols);
    bool ok = add_panel(&b, m, 0, m->size, rows, cols, 0, 0, NULL);
    build_end(&b);
    if (ok) {
        add_legend(&b);
        char line[256];
        pic.title = pic_add_title(&pic, p, title, m);
        snprintf(line, sizeof line, "%llu positions: %llu rows x %llu columns, position = %llu*row + column; colour: %s",
                 U(m->size), U(rows), U(cols), U(cols), b.key.text);
        pic.subtitle = pic_add_str(&pic, line);
        ok = pic_render(&pic, o->format, out, why, size);
    }
    pic_free(&pic);
    return ok;
}

bool draw_tensor(Prog *p, const TensorDecl *t, const DrawOptions *o, DrawBytes *out, char *why, size_t size)
{
    Build b = {.p = p, .why = why, .size = size};
    MapWhy mwhy;
    const Map *layout = tensor_layout(&p->arena, t->mem, t->maps, mwhy);
    if (!layout) {
        snprintf(why, size, "the layout of tensor %s is too large: %s", t->name, mwhy);
        return false;
    }
    if (pic_index_view(p, layout, NULL, o))
        return index_draw_tensor(p, t, layout, o, out, why, size);
    TensorUnits u = tensor_units(t->mem, t->maps);
    const Map *elem = t->maps[mem_kind_maps(t->mem) - 1];
    b.units = u.chips * u.clusters * u.slices; /* the layout's size is their product with |Element|: no overflow */
    uint64_t rows, cols;
    if (!choose_color(&b, o->color, layout, true) || !pic_check_split(o, elem->size, b.units, elem, &rows, &cols, why, size))
        return false;
    Pic pic = {0};
    build_start(&b, p, &pic, b.units, b.units * rows * cols);
    bool ok = true;
    for (uint64_t k = 0; ok && k < b.units; k++) {
        char label[96];
        pic_unit_label(t->mem, u, k, label, sizeof label);
        ok = add_panel(&b, layout, k * u.elements, u.elements, rows, cols, k, k * u.elements, label);
    }
    build_end(&b);
    if (ok) {
        add_legend(&b);
        Buf tt = {0};
        pic.title = pic_add_tensor_title(&pic, p, t);
        buf_printf(&tt, "%llu unit%s (%llu chip%s x %llu cluster%s x %llu slice%s) of %llu elements, each %llu rows x "
                        "%llu columns; colour: %s",
                   U(b.units), b.units == 1 ? "" : "s", U(u.chips), u.chips == 1 ? "" : "s", U(u.clusters),
                   u.clusters == 1 ? "" : "s", U(u.slices), u.slices == 1 ? "" : "s", U(u.elements), U(rows), U(cols),
                   b.key.text);
        pic.subtitle = pic_add_str(&pic, (const char *)tt.data);
        free(tt.data);
        ok = pic_render(&pic, o->format, out, why, size);
    }
    pic_free(&pic);
    return ok;
}
