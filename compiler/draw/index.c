/* index.c — pictures in the tensor's coordinates (the index view): a grid over two axes (the others one panel per
 * value), each index labelled with the smallest position that holds it (a tensor's: unit:element), coloured by a
 * key, the tiles of the digit structure outlined; the same grid for where two mappings differ. */
#include "draw_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))
#define NONE UINT64_MAX
#define WRAP_COLS 16 /* the columns of a one-axis grid */

/* The grid: rows and columns over two axes (or one axis wrapped), panels over the other axes used. */
typedef struct Grid {
    int row, col;       /* the axes; row -1: the column axis wrapped at `cols` */
    int other[64];      /* the panels' axes, in declaration order */
    int nother;
    uint64_t rows, cols, panels, cells;
} Grid;

/* What an index holds, gathered from every position of the layout. */
typedef struct Held {
    uint64_t *pos;      /* the smallest position holding each cell of the grid, or NONE */
    uint32_t *count;    /* how many positions hold it (saturating) */
    uint32_t *rgb;      /* the colour of its first holder */
} Held;

/* Finds axis `name` (len characters) among the non-local axes; -1 if none. */
static int axis_named(const Prog *p, const char *name, size_t len)
{
    const Name *n = prog_lookup_n(p, name, len);
    return n && n->kind == NAME_AXIS && !p->axes[n->axis].local ? n->axis : -1;
}

/* Chooses the grid of layouts a (and b, may be NULL) from the option `axes`; false with why. */
static bool grid_choose(const Prog *p, const Map *a, const Map *b, const DrawOptions *o, Grid *g, char *why,
                        size_t size)
{
    bool *used = mem_calloc((size_t)p->naxes + 1, 1);
    map_mark_axes(a, used);
    if (b)
        map_mark_axes(b, used);
    int first[2] = {-1, -1}, nused = 0;
    for (int i = 0; i < p->naxes; i++)
        if (used[i] && !p->axes[i].local && nused++ < 2)
            first[nused - 1] = i;
    *g = (Grid){.row = first[0], .col = first[1]};
    if (o->axes) {
        const char *comma = strchr(o->axes, ',');
        size_t l1 = comma ? (size_t)(comma - o->axes) : strlen(o->axes);
        g->row = axis_named(p, o->axes, l1);
        g->col = comma ? axis_named(p, comma + 1, strlen(comma + 1)) : -2;
        if (g->row < 0 || g->col == -1 || g->row == g->col || (comma && strchr(comma + 1, ','))) {
            Text t = {why, size, 0};
            text_printf(&t, "the axes to draw (--axes) are one or two distinct axes, as ROWS,COLUMNS, not '%s' (axes:", o->axes);
            for (int i = 0; i < p->naxes; i++)
                if (!p->axes[i].local)
                    text_printf(&t, " %s", p->axes[i].name);
            text_printf(&t, ")");
            free(used);
            return false;
        }
        if (!comma) { /* one axis: wrapped */
            g->col = g->row;
            g->row = -1;
        }
    } else if (first[0] < 0) {
        snprintf(why, size, "the layout uses no axis, so it has no index grid; draw it with --view buffer");
        free(used);
        return false;
    } else if (first[1] < 0) {
        g->col = first[0];
        g->row = -1;
    }
    for (int i = 0; i < p->naxes && g->nother < 64; i++)
        if (used[i] && !p->axes[i].local && i != g->row && i != g->col)
            g->other[g->nother++] = i;
    free(used);
    uint64_t csize = p->axes[g->col].size;
    if (g->row < 0) {
        g->cols = csize < WRAP_COLS ? csize : WRAP_COLS;
        g->rows = csize / g->cols + (csize % g->cols != 0);
    } else {
        g->rows = p->axes[g->row].size;
        g->cols = csize;
    }
    uint64_t max = o->max_cells ? o->max_cells : DRAW_MAX_CELLS;
    bool ok = u64_mul(g->rows, g->cols, &g->cells);
    g->panels = 1;
    for (int i = 0; ok && i < g->nother; i++)
        ok = u64_mul(g->panels, p->axes[g->other[i]].size, &g->panels);
    ok = ok && u64_mul(g->cells, g->panels, &g->cells);
    if (!ok || g->cells > max) {
        snprintf(why, size, "the picture would have %s%llu cells (the grid of the axes drawn, times a panel per value "
                            "of the other axes), more than the limit of %llu",
                 ok ? "" : "over ", U(ok ? g->cells : UINT64_MAX), U(max));
        return false;
    }
    uint64_t positions = a->size > (b ? b->size : 0) ? a->size : b->size;
    if (positions > max) {
        snprintf(why, size, "the picture would evaluate %llu positions, more than the limit of %llu", U(positions), U(max));
        return false;
    }
    if (o->format == DRAW_PNG && !draw_png_available())
        return png_write(NULL, NULL, why, size);
    return true;
}

/* The grid cell of an index (the coordinates of a live cell). */
static uint64_t grid_cell(const Prog *p, const Grid *g, const uint64_t *coord)
{
    uint64_t panel = 0, r, c;
    for (int i = 0; i < g->nother; i++)
        panel = panel * p->axes[g->other[i]].size + coord[g->other[i]];
    if (g->row < 0) {
        r = coord[g->col] / g->cols;
        c = coord[g->col] % g->cols;
    } else {
        r = coord[g->row];
        c = coord[g->col];
    }
    return (panel * g->rows + r) * g->cols + c;
}

/* The text "M=3, N=5" of grid cell i (its index), into t. */
static void index_text(const Prog *p, const Grid *g, uint64_t i, Buf *t)
{
    uint64_t c = i % g->cols, r = i / g->cols % g->rows, panel = i / g->cols / g->rows;
    uint64_t v[64];
    for (int k = g->nother - 1; k >= 0; k--) {
        uint64_t s = p->axes[g->other[k]].size;
        v[k] = panel % s;
        panel /= s;
    }
    if (g->row < 0)
        buf_printf(t, "%s=%llu", p->axes[g->col].name, U(r * g->cols + c));
    else
        buf_printf(t, "%s=%llu, %s=%llu", p->axes[g->row].name, U(r), p->axes[g->col].name, U(c));
    for (int k = 0; k < g->nother; k++)
        buf_printf(t, ", %s=%llu", p->axes[g->other[k]].name, U(v[k]));
}

/* The colour of position pos of a layout of `elements` positions per unit, by key k of n values (coord: the cell). */
static uint32_t key_rgb(const DrawKey *k, uint64_t n, uint64_t pos, const uint64_t *coord, uint64_t elements,
                        uint64_t tile)
{
    switch (k->kind) {
    case KEY_PADDING: return pal_kind(CELL_LIVE);
    case KEY_UNIT: return pal_value(pos / elements, n);
    case KEY_TILE: /* neighbouring tiles differ: the discrete colours, repeating past them */
        return pal_value(pos / tile % PAL_DISCRETE, n < PAL_DISCRETE ? n : PAL_DISCRETE);
    case KEY_DIGIT: break;
    }
    return pal_value(draw_key_digit(k, coord, pos % elements), n);
}

/* Evaluates every position of layout into h (allocated here, g->cells entries), colouring each index's first
 * holder by k. false with why for an undecidable cell. */
static bool gather(Prog *p, Evaluator *ev, const Map *layout, const Grid *g, const DrawKey *k, uint64_t n,
                   uint64_t elements, uint64_t tile, Held *h, char *why, size_t size)
{
    h->pos = mem_alloc((size_t)g->cells * sizeof *h->pos);
    h->count = mem_calloc((size_t)g->cells, sizeof *h->count);
    h->rgb = mem_alloc((size_t)g->cells * sizeof *h->rgb);
    for (uint64_t i = 0; i < g->cells; i++)
        h->pos[i] = NONE;
    Cell c = {.coord = mem_calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    bool ok = true;
    for (uint64_t pos = 0; pos < layout->size; pos++) {
        if (eval_cell(ev, layout, pos, &c) != EVAL_OK) {
            snprintf(why, size, "cannot evaluate position %llu: %s", U(pos), eval_error(ev));
            ok = false;
            break;
        }
        if (c.kind != CELL_LIVE)
            continue;
        uint64_t i = grid_cell(p, g, c.coord);
        if (h->pos[i] == NONE) {
            h->pos[i] = pos;
            h->rgb[i] = key_rgb(k, n, pos, c.coord, elements, tile);
        }
        if (h->count[i] < UINT32_MAX)
            h->count[i]++;
    }
    free(c.coord);
    return ok;
}

static void held_free(Held *h)
{
    free(h->pos);
    free(h->count);
    free(h->rgb);
}

/* The panels of the grid in pic (labelled by the other axes' values), their cells not yet filled. */
static void add_panels(const Prog *p, const Grid *g, Pic *pic)
{
    pic->panels = mem_calloc((size_t)g->panels, sizeof *pic->panels);
    pic->cells = mem_calloc((size_t)g->cells, sizeof *pic->cells);
    pic->ncells = (size_t)g->cells;
    pic->bare = true;
    pic->row_step = g->row < 0 ? g->cols : 1;
    uint64_t per = g->rows * g->cols;
    for (uint64_t k = 0; k < g->panels; k++) {
        PicPanel *pn = &pic->panels[pic->npanels++];
        *pn = (PicPanel){.label = PIC_NONE, .rows = g->rows, .cols = g->cols, .first = k * per, .count = per,
                         .first_cell = (size_t)(k * per)};
        if (g->nother) {
            Buf t = {0};
            uint64_t v = k, vals[64];
            for (int i = g->nother - 1; i >= 0; i--) {
                vals[i] = v % p->axes[g->other[i]].size;
                v /= p->axes[g->other[i]].size;
            }
            for (int i = 0; i < g->nother; i++)
                buf_printf(&t, "%s%s=%llu", i ? ", " : "", p->axes[g->other[i]].name, U(vals[i]));
            pn->label = pic_add_str(pic, (const char *)t.data);
            free(t.data);
        }
    }
}

/* Tile groups of a cell held at pos: level i the tile of tiles[first + i] positions (0: not held). */
static void set_groups(Pic *pic, PicCell *c, uint64_t pos, const uint64_t *tiles, int ntiles)
{
    int levels = ntiles > PIC_LEVELS ? PIC_LEVELS : ntiles;
    for (int l = 0; l < levels; l++) {
        uint64_t t = tiles[l == levels - 1 ? ntiles - 1 : l]; /* the coarsest, and the finest */
        c->group[l] = pos == NONE ? 0 : (uint32_t)(pos / t + 1);
    }
    pic->levels = levels;
}

/* The tiles of a layout: the units' regions (when there are several), then the digit structure's tiles of elem
 * (the layout itself for a mapping); coarsest first; how many. */
static int layout_tiles(const Prog *p, const Grid *g, const Map *elem, uint64_t units, uint64_t *tiles)
{
    int n = 0;
    if (units > 1)
        tiles[n++] = elem->size;
    if (g->row >= 0)
        n += draw_tiles(p, elem, g->row, g->col, tiles + n);
    return n;
}

/* The key for an index view: the option's, else the unit (a tensor of several units), the finest tile, or the
 * position's major digit. n receives how many values it takes. */
static bool index_key(const Prog *p, const DrawOptions *o, bool tensor, uint64_t units, const Map *layout,
                      uint64_t elements, const uint64_t *tiles, int ntiles, DrawKey *k, uint64_t *n, char *why,
                      size_t size)
{
    const Map *f[DRAW_MAX_FACTORS];
    int nf = draw_factors(layout, f, DRAW_MAX_FACTORS);
    uint64_t fine = ntiles ? tiles[ntiles - 1] : 0;
    *k = (DrawKey){.kind = KEY_DIGIT, .axis = -1, .div = 1};
    if (o->color) {
        if (!draw_key_parse(p, o->color, tensor, k, why, size))
            return false;
        if (k->kind == KEY_TILE && !fine) {
            snprintf(why, size, "colour by tile needs tiles, and this layout has none over the axes drawn");
            return false;
        }
    } else if (tensor && units > 1) {
        *k = (DrawKey){.kind = KEY_UNIT};
        snprintf(k->text, sizeof k->text, "unit");
    } else if (fine) {
        *k = (DrawKey){.kind = KEY_TILE};
        uint64_t count = layout->size / fine;
        if (count > PAL_DISCRETE)
            snprintf(k->text, sizeof k->text, "tile of %llu positions (%d colours, repeating)", U(fine), PAL_DISCRETE);
        else
            snprintf(k->text, sizeof k->text, "tile of %llu positions", U(fine));
    } else if (nf > 0) {
        k->div = elements / f[0]->size;
        if (k->div > 1)
            snprintf(k->text, sizeof k->text, "position / %llu", U(k->div));
        else
            snprintf(k->text, sizeof k->text, "position");
    } else {
        snprintf(k->text, sizeof k->text, "position");
    }
    switch (k->kind) {
    case KEY_UNIT: *n = units; break;
    case KEY_TILE: *n = layout->size / fine; break;
    case KEY_PADDING: *n = 1; break;
    case KEY_DIGIT: *n = draw_key_count(k, k->axis < 0 ? elements : p->axes[k->axis].size); break;
    }
    return true;
}

/* The subtitle of an index view, into t: the grid, what cells show, the key and the outlines. */
static void index_subtitle(const Prog *p, const Grid *g, const char *label, const DrawKey *k, const uint64_t *tiles,
                           int ntiles, Buf *t)
{
    if (g->row < 0)
        buf_printf(t, "index %s (%llu) in rows of %llu", p->axes[g->col].name, U(p->axes[g->col].size), U(g->cols));
    else
        buf_printf(t, "rows %s (%llu) x columns %s (%llu)", p->axes[g->row].name, U(g->rows), p->axes[g->col].name,
                   U(g->cols));
    if (g->nother)
        buf_printf(t, ", a panel per %s", g->nother > 1 ? "combination of the other axes" : p->axes[g->other[0]].name);
    buf_printf(t, "; each index: %s; colour: %s", label, k->text);
    if (ntiles) {
        buf_puts(t, "; outlines: ");
        int levels = ntiles > PIC_LEVELS ? PIC_LEVELS : ntiles;
        for (int l = 0; l < levels; l++)
            buf_printf(t, "%s%llu positions", l ? ", " : "", U(tiles[l == levels - 1 ? ntiles - 1 : l]));
    }
}

/* The cells of a one-layout index view from h: label each held index with its first holder (label_of), the
 * replicas counted; unheld ones pale. */
static void fill_cells(const Prog *p, const Grid *g, const Held *h, Pic *pic, const uint64_t *tiles, int ntiles,
                       uint64_t elements, const TensorDecl *t, TensorUnits u)
{
    char text[96];
    Buf title = {0};
    bool unheld = false;
    for (uint64_t i = 0; i < g->cells; i++) {
        PicCell *c = &pic->cells[i];
        uint64_t pos = h->pos[i];
        *c = (PicCell){.pos = pos, .text2 = PIC_NONE, .kind = pos == NONE ? CELL_OOB : CELL_LIVE,
                       .rgb = pos == NONE ? PAL_UNHELD : h->rgb[i]};
        if (g->row < 0 && i % (g->rows * g->cols) >= p->axes[g->col].size) { /* past the wrapped axis: no index */
            *c = (PicCell){.pos = NONE, .text = pic_add_str(pic, ""), .text2 = PIC_NONE, .title = PIC_NONE,
                           .kind = CELL_OOB, .rgb = 0xffffff};
            continue;
        }
        title.len = 0;
        index_text(p, g, i, &title);
        if (pos == NONE) {
            snprintf(text, sizeof text, "-");
            buf_puts(&title, ": held by no position");
            unheld = true;
        } else if (t) {
            snprintf(text, sizeof text, "%llu:%llu%s", U(pos / elements), U(pos % elements), h->count[i] > 1 ? "+" : "");
            char unit[96];
            pic_unit_label(t->mem, u, pos / elements, unit, sizeof unit);
            buf_printf(&title, ": %s, element %llu", unit, U(pos % elements));
        } else {
            snprintf(text, sizeof text, "%llu%s", U(pos), h->count[i] > 1 ? "+" : "");
            buf_printf(&title, ": position %llu", U(pos));
        }
        if (pos != NONE && h->count[i] > 1)
            buf_printf(&title, " (held by %llu positions; the first shown)", U(h->count[i]));
        c->text = pic_add_str(pic, text);
        c->title = pic_add_str(pic, (const char *)title.data);
        if (strlen(text) > pic->widest)
            pic->widest = strlen(text);
        set_groups(pic, c, pos, tiles, ntiles);
    }
    free(title.data);
    if (unheld)
        pic_legend(pic, PAL_UNHELD, "held by no position");
}

/* What one layout's index view is drawn from. */
typedef struct View {
    const Map *layout;
    uint64_t elements;  /* positions per unit (the layout's size for a mapping) */
    const TensorDecl *t; /* NULL for a mapping */
    TensorUnits u;
    uint64_t tiles[DRAW_MAX_FACTORS];
    int ntiles;
    DrawKey k;
    uint64_t n;         /* the key's values */
} View;

/* Evaluates v's layout over grid g into pic (panels, legend, cells) and renders it with the title and the
 * subtitle that start in the pic and in sub; false with why. */
static bool index_render(Prog *p, const Grid *g, View *v, const char *label, Pic *pic, Buf *sub, DrawFormat f,
                         DrawBytes *out, char *why, size_t size)
{
    Evaluator *ev = eqv_evaluator_new(p);
    Held h = {0};
    bool ok = gather(p, ev, v->layout, g, &v->k, v->n, v->elements, v->ntiles ? v->tiles[v->ntiles - 1] : 1, &h,
                     why, size);
    eqv_evaluator_free(ev);
    if (ok) {
        add_panels(p, g, pic);
        if (v->k.kind != KEY_PADDING)
            draw_key_legend(pic, &v->k, v->n);
        fill_cells(p, g, &h, pic, v->tiles, v->ntiles, v->elements, v->t, v->u);
        index_subtitle(p, g, label, &v->k, v->tiles, v->ntiles, sub);
        pic->subtitle = pic_add_str(pic, (const char *)sub->data);
        ok = pic_render(pic, f, out, why, size);
    }
    held_free(&h);
    return ok;
}

bool index_draw_map(Prog *p, const char *title, const Map *m, const DrawOptions *o, DrawBytes *out, char *why,
                    size_t size)
{
    Grid g;
    View v = {.layout = m, .elements = m->size};
    if (!grid_choose(p, m, NULL, o, &g, why, size))
        return false;
    v.ntiles = layout_tiles(p, &g, m, 1, v.tiles);
    if (!index_key(p, o, false, 1, m, m->size, v.tiles, v.ntiles, &v.k, &v.n, why, size))
        return false;
    Pic pic = {.lines = 1};
    pic.title = pic_add_title(&pic, p, title, m);
    Buf sub = {0};
    bool ok = index_render(p, &g, &v, "the smallest position holding it (+: more hold it)", &pic, &sub, o->format, out,
                           why, size);
    free(sub.data);
    pic_free(&pic);
    return ok;
}

bool index_draw_tensor(Prog *p, const TensorDecl *t, const Map *layout, const DrawOptions *o, DrawBytes *out,
                       char *why, size_t size)
{
    Grid g;
    if (!grid_choose(p, layout, NULL, o, &g, why, size))
        return false;
    View v = {.layout = layout, .t = t, .u = tensor_units(t->mem, t->maps)};
    const Map *elem = t->maps[mem_kind_maps(t->mem) - 1];
    uint64_t units = v.u.chips * v.u.clusters * v.u.slices;
    v.elements = v.u.elements;
    v.ntiles = layout_tiles(p, &g, elem, units, v.tiles);
    if (!index_key(p, o, true, units, elem, v.elements, v.tiles, v.ntiles, &v.k, &v.n, why, size))
        return false;
    if (v.k.kind == KEY_TILE)
        v.n = layout->size / v.tiles[v.ntiles - 1];
    Pic pic = {.lines = 1};
    pic.title = pic_add_tensor_title(&pic, p, t);
    Buf sub = {0};
    buf_printf(&sub, "%llu unit%s of %llu elements; ", U(units), units == 1 ? "" : "s", U(v.elements));
    bool ok = index_render(p, &g, &v, "unit:element of its first holder (+: replicated)", &pic, &sub, o->format, out,
                           why, size);
    free(sub.data);
    pic_free(&pic);
    return ok;
}

bool index_draw_diff(Prog *p, const char *name_a, const Map *a, const char *name_b, const Map *b,
                     const DrawOptions *o, DrawDiff *d, DrawBytes *out, bool *fallback, char *why, size_t size)
{
    *fallback = false;
    Grid g;
    if (!grid_choose(p, a, b, o, &g, why, size))
        return false;
    d->by_index = true;
    uint64_t tiles[DRAW_MAX_FACTORS];
    int ntiles = layout_tiles(p, &g, a, 1, tiles);
    DrawKey k = {.kind = KEY_PADDING};
    EqvResult r;
    Eqv *q = pic_decide(p, a, b, &r, d);
    Held ha = {0}, hb = {0};
    bool ok = gather(p, eqv_evaluator(q), a, &g, &k, 1, a->size, 1, &ha, why, size) &&
              gather(p, eqv_evaluator(q), b, &g, &k, 1, b->size, 1, &hb, why, size);
    /* the smallest position whose cells differ, when the decision did not say, and the index to mark */
    uint64_t mark = NONE, npos = a->size > b->size ? a->size : b->size;
    for (uint64_t pos = 0; ok && pos < npos && (d->first == NONE || mark == NONE); pos++) {
        if (eval_cell(eqv_evaluator(q), a, pos, &r.c1) != EVAL_OK || eval_cell(eqv_evaluator(q), b, pos, &r.c2) != EVAL_OK) {
            snprintf(why, size, "cannot evaluate position %llu: %s", U(pos), eval_error(eqv_evaluator(q)));
            ok = false;
        } else if (!cell_equal(&r.c1, &r.c2, p->naxes) && (d->first == NONE || d->first == pos)) {
            d->first = pos;
            mark = r.c1.kind == CELL_LIVE ? grid_cell(p, &g, r.c1.coord) : r.c2.kind == CELL_LIVE ? grid_cell(p, &g, r.c2.coord) : NONE;
            if (mark == NONE)
                break;
        }
    }
    free(r.c1.coord);
    free(r.c2.coord);
    eqv_free(q);
    d->sizes_differ = a->size != b->size;
    Pic pic = {.lines = 2};
    if (ok) {
        add_panels(p, &g, &pic);
        Buf title = {0};
        char ta[48], tb[48];
        for (uint64_t i = 0; i < g.cells; i++) {
            PicCell *c = &pic.cells[i];
            uint64_t pa = ha.pos[i], pb = hb.pos[i];
            bool differ = pa != pb || ha.count[i] != hb.count[i];
            d->differing += differ;
            if (pa == NONE)
                snprintf(ta, sizeof ta, "-");
            else
                snprintf(ta, sizeof ta, "%llu%s", U(pa), ha.count[i] > 1 ? "+" : "");
            if (pb == NONE)
                snprintf(tb, sizeof tb, "-");
            else
                snprintf(tb, sizeof tb, "%llu%s", U(pb), hb.count[i] > 1 ? "+" : "");
            title.len = 0;
            index_text(p, &g, i, &title);
            buf_printf(&title, ": %s %s, %s %s", name_a, ta, name_b, tb);
            *c = (PicCell){.pos = pa, .kind = pa == NONE ? CELL_OOB : CELL_LIVE, .text = pic_add_str(&pic, ta),
                           .text2 = pic_add_str(&pic, tb), .title = pic_add_str(&pic, (const char *)title.data)};
            c->mark = !differ ? MARK_NONE : i == mark ? MARK_FIRST : MARK_DIFFER;
            c->rgb = !differ ? PAL_SAME : i == mark ? PAL_FIRST : PAL_DIFFER;
            size_t w = strlen(ta) > strlen(tb) ? strlen(ta) : strlen(tb);
            if (w > pic.widest)
                pic.widest = w;
            set_groups(&pic, c, pa, tiles, ntiles);
        }
        free(title.data);
        d->equivalent = !d->sizes_differ && d->differing == 0 && d->first == NONE;
        if (!d->equivalent && d->differing == 0 && o->view == DRAW_VIEW_AUTO) {
            /* only padding or sizes differ, which the index grid cannot show: the buffer view does */
            held_free(&ha);
            held_free(&hb);
            pic_free(&pic);
            *fallback = true;
            return true;
        }
        if (d->first == NONE)
            d->first = a->size < b->size ? a->size : b->size;
        Buf t = {0};
        buf_printf(&t, "%s vs %s", name_a, name_b);
        pic.title = pic_add_str(&pic, (const char *)t.data);
        t.len = 0;
        if (d->equivalent)
            buf_printf(&t, "equivalent: every index is held by the same positions; ");
        else
            buf_printf(&t, "not equivalent%s: %llu of %llu indices are held differently, the first difference at "
                           "position %llu; upper: %s, lower: %s; ",
                       d->sizes_differ ? " (sizes differ)" : "", U(d->differing), U(g.cells), U(d->first), name_a, name_b);
        index_subtitle(p, &g, "the smallest position holding it in each", &(DrawKey){.text = "same or differs"}, tiles,
                       ntiles, &t);
        pic.subtitle = pic_add_str(&pic, (const char *)t.data);
        free(t.data);
        pic_diff_legend(&pic, d->equivalent);
        ok = pic_render(&pic, o->format, out, why, size);
    }
    held_free(&ha);
    held_free(&hb);
    pic_free(&pic);
    return ok;
}
