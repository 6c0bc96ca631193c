/* picture.c — the pictures of a mapping and of a device tensor: the split into panels of rows and columns, every
 * cell evaluated by the reference interpreter, its colour key and the legend; then rendered (geom.c). */
#include "draw_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

typedef enum { BY_AXIS, BY_PADDING, BY_UNIT } ColorBy;

/* One picture being built. */
typedef struct Build {
    Prog *p;
    Evaluator *ev;
    Pic *pic;
    Cell c;
    ColorBy by;
    int axis;           /* BY_AXIS: the axis */
    uint64_t units;     /* BY_UNIT: how many */
    bool seen[CELL_OVERFLOW + 1];
    char *why;
    size_t size;
} Build;

/* Chooses the colour key from the option (see DrawOptions.color); false with why. */
static bool choose_color(Build *b, const char *color, const Map *layout, bool tensor)
{
    Prog *p = b->p;
    if (!color) {
        bool *used = mem_calloc((size_t)p->naxes + 1, 1);
        map_mark_axes(layout, used);
        b->by = BY_PADDING;
        for (int a = 0; a < p->naxes; a++)
            if (used[a] && !p->axes[a].local) {
                b->by = BY_AXIS;
                b->axis = a;
                break;
            }
        free(used);
        return true;
    }
    if (strcmp(color, "padding") == 0) {
        b->by = BY_PADDING;
        return true;
    }
    if (strcmp(color, "unit") == 0) {
        if (!tensor) {
            snprintf(b->why, b->size, "colour by unit needs a tensor; this is a mapping (colour by an axis or padding)");
            return false;
        }
        b->by = BY_UNIT;
        return true;
    }
    const Name *n = prog_lookup(p, color);
    if (n && n->kind == NAME_AXIS && !p->axes[n->axis].local) {
        b->by = BY_AXIS;
        b->axis = n->axis;
        return true;
    }
    Text t = {b->why, b->size, 0};
    text_printf(&t, "cannot colour by '%s': it is not an axis, 'padding' or 'unit' (axes:", color);
    for (int a = 0; a < p->naxes; a++)
        if (!p->axes[a].local)
            text_printf(&t, " %s", p->axes[a].name);
    text_printf(&t, ")");
    return false;
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
        *pc = (PicCell){.pos = pos - shown_base, .text2 = PIC_NONE, .kind = (uint8_t)b->c.kind};
        pc->text = pic_add_cell(pic, b->p, &b->c);
        b->seen[b->c.kind] = true;
        if (b->c.kind != CELL_LIVE || b->by == BY_PADDING)
            pc->rgb = pal_kind(b->c.kind);
        else if (b->by == BY_AXIS)
            pc->rgb = pal_value(b->c.coord[b->axis], b->p->axes[b->axis].size);
        else
            pc->rgb = pal_value(unit, b->units);
    }
    return true;
}

/* Adds a legend entry. */
static void legend(Pic *pic, uint32_t rgb, const char *label)
{
    if (pic->nlegend < PIC_MAX_LEGEND)
        pic->legend[pic->nlegend++] = (PicLegend){rgb, pic_add_str(pic, label)};
}

/* The legend of the colour key (every value when there are at most 10, else five samples), then the kinds met
 * that are not live. */
static void add_legend(Build *b)
{
    char label[128];
    uint64_t n = b->by == BY_AXIS ? b->p->axes[b->axis].size : b->units;
    if (b->by == BY_PADDING) {
        if (b->seen[CELL_LIVE])
            legend(b->pic, pal_kind(CELL_LIVE), "live");
    } else {
        int samples = n <= 10 ? (int)n : 5;
        for (int i = 0; i < samples; i++) {
            uint64_t v = n <= 10 ? (uint64_t)i : (n - 1) * (uint64_t)i / 4;
            if (b->by == BY_AXIS)
                snprintf(label, sizeof label, "%s=%llu", b->p->axes[b->axis].name, U(v));
            else
                snprintf(label, sizeof label, "unit %llu", U(v));
            legend(b->pic, pal_value(v, n), label);
        }
    }
    for (int k = CELL_PAD_TOP; k <= CELL_OVERFLOW; k++)
        if (b->seen[k])
            legend(b->pic, pal_kind((CellKind)k), cell_kind_name((CellKind)k));
}

/* What the colour key is, for the subtitle. */
static const char *color_text(const Build *b)
{
    return b->by == BY_AXIS ? b->p->axes[b->axis].name : b->by == BY_UNIT ? "unit" : "padding";
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

/* The mapping as m![...] text, malloc'ed. */
static char *map_text(const Prog *p, const Map *m)
{
    size_t n = map_format(p, m, NULL, 0);
    char *s = mem_alloc(n + 1);
    map_format(p, m, s, n + 1);
    return s;
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
        char *mt = map_text(p, m);
        char line[256];
        if (strcmp(title, mt) == 0)
            pic.title = pic_add_str(&pic, mt);
        else {
            Buf t = {0};
            buf_printf(&t, "%s = %s", title, mt);
            pic.title = pic_add_str(&pic, (const char *)t.data);
            free(t.data);
        }
        free(mt);
        snprintf(line, sizeof line, "%llu positions: %llu rows x %llu columns, position = %llu*row + column; colour: %s",
                 U(m->size), U(rows), U(cols), U(cols), color_text(&b));
        pic.subtitle = pic_add_str(&pic, line);
        ok = pic_render(&pic, o->format, out, why, size);
    }
    pic_free(&pic);
    return ok;
}

/* "chip 0, cluster 1, slice 3" (DmTensor), "chip 2" (HbmTensor), "host" (HostTensor) for unit k. */
static void unit_label(MemKind mem, TensorUnits u, uint64_t k, char *buf, size_t size)
{
    uint64_t s = k % u.slices, l = k / u.slices % u.clusters, c = k / u.slices / u.clusters;
    if (mem == MEM_DM)
        snprintf(buf, size, "chip %llu, cluster %llu, slice %llu", U(c), U(l), U(s));
    else if (mem == MEM_HBM)
        snprintf(buf, size, "chip %llu", U(c));
    else
        snprintf(buf, size, "host");
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
        unit_label(t->mem, u, k, label, sizeof label);
        ok = add_panel(&b, layout, k * u.elements, u.elements, rows, cols, k, k * u.elements, label);
    }
    build_end(&b);
    if (ok) {
        add_legend(&b);
        Buf tt = {0};
        buf_printf(&tt, "tensor %s: %s<%s", t->name, mem_kind_tensor(t->mem), elem_type_name(t->elem));
        for (int i = 0; i < mem_kind_maps(t->mem); i++) {
            char *mt = map_text(p, t->maps[i]);
            buf_printf(&tt, ", %s", mt);
            free(mt);
        }
        buf_puts(&tt, ">");
        pic.title = pic_add_str(&pic, (const char *)tt.data);
        tt.len = 0;
        buf_printf(&tt, "%llu unit%s (%llu chip%s x %llu cluster%s x %llu slice%s) of %llu elements, each %llu rows x "
                        "%llu columns; colour: %s",
                   U(b.units), b.units == 1 ? "" : "s", U(u.chips), u.chips == 1 ? "" : "s", U(u.clusters),
                   u.clusters == 1 ? "" : "s", U(u.slices), u.slices == 1 ? "" : "s", U(u.elements), U(rows), U(cols),
                   color_text(&b));
        pic.subtitle = pic_add_str(&pic, (const char *)tt.data);
        free(tt.data);
        ok = pic_render(&pic, o->format, out, why, size);
    }
    pic_free(&pic);
    return ok;
}
