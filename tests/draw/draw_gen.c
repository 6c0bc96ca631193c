/* draw_gen.c — pictures of generated mappings through the public API (mapc_draw), written for check_draw.py to
 * compare with the interpreter, and every PNG's pixels checked at each cell against the SVG's fill (cairo).
 *
 *   draw-gen DIR [SEED [COUNT]]     COUNT generated programs: DIR/case-I.map, .svg (and .html for some), the
 *                                   interpreter's cells (mapc_eval) in .cells, a line "I COLOR ROWS" each in
 *                                   DIR/manifest.txt; the PNGs of every other case checked, not kept
 *   draw-gen --check PNG SVG        one PNG against the SVG of the same picture
 * Ends with "N passed, N failed". */
#include "harness.h"
#include "mapc.h"
#include "mapgen.h"

#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool spill(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, len, f) == len;
    return f && fclose(f) == 0 && ok;
}

/* Reading a PNG held in memory, for cairo. */
typedef struct Reader {
    const unsigned char *p;
    size_t left;
} Reader;

static cairo_status_t read_png(void *closure, unsigned char *data, unsigned int len)
{
    Reader *r = closure;
    if (len > r->left)
        return CAIRO_STATUS_READ_ERROR;
    memcpy(data, r->p, len);
    r->p += len;
    r->left -= len;
    return CAIRO_STATUS_SUCCESS;
}

/* The text of the PNG's tEXt chunk "mapc-grid" (NUL-terminated copy), or NULL. */
static char *grid_chunk(const unsigned char *png, size_t len)
{
    for (size_t at = 8; at + 12 <= len;) {
        size_t n = (size_t)png[at] << 24 | (size_t)png[at + 1] << 16 | (size_t)png[at + 2] << 8 | png[at + 3];
        if (at + 12 + n > len)
            return NULL;
        if (memcmp(png + at + 4, "tEXt", 4) == 0 && n > 10 && memcmp(png + at + 8, "mapc-grid", 10) == 0) {
            char *s = malloc(n - 9);
            memcpy(s, png + at + 18, n - 10);
            s[n - 10] = 0;
            return s;
        }
        at += 12 + n;
    }
    return NULL;
}

/* Checks every cell of the PNG against the fill of the same cell in the SVG (cells in the same order: panel by
 * panel, row-major), or a diff mark's stroke: the pixel one in from the cell's top left corner. One case; what
 * differs first is told. */
static void check_png(const char *what, const unsigned char *png, size_t len, const char *svg)
{
    char *grid = grid_chunk(png, len);
    Reader r = {png, len};
    cairo_surface_t *s = cairo_image_surface_create_from_png_stream(read_png, &r);
    if (!grid || cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        FAIL("%s: the PNG does not decode or has no mapc-grid chunk", what);
        free(grid);
        cairo_surface_destroy(s);
        return;
    }
    const unsigned char *px = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s), w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    int cw, ch, gap, used;
    const char *g = grid;
    bool ok = sscanf(g, "cell %d %d %d\n%n", &cw, &ch, &gap, &used) == 3;
    g += used;
    const char *cell = svg;
    long long x0, y0;
    unsigned long long rows, cols;
    size_t cells = 0;
    char bad[256] = "";
    while (ok && !bad[0] && sscanf(g, "panel %lld %lld %llu %llu\n%n", &x0, &y0, &rows, &cols, &used) == 4) {
        g += used;
        for (unsigned long long i = 0; i < rows * cols && !bad[0]; i++, cells++) {
            cell = strstr(cell, "<g data-pos=");
            const char *fill = cell ? strstr(cell, "fill=\"#") : NULL;
            if (!fill) {
                snprintf(bad, sizeof bad, "the SVG has only %zu cells", cells);
                break;
            }
            /* a diff's marked cell is outlined when cells are 6 pixels wide or more: the pixel lies on its stroke
             * (#b00000, the first difference #000000) */
            const char *tag_end = strchr(cell, '>'), *mark = strstr(cell, "data-mark=\"");
            bool marked = mark && mark < tag_end && cw >= 6;
            unsigned want = marked ? (strncmp(mark + 11, "first", 5) == 0 ? 0x000000u : 0xb00000u)
                                   : (unsigned)strtoul(fill + 7, NULL, 16);
            cell = fill;
            long long x = x0 + (long long)(i % cols) * (cw + gap) + (cw >= 3), y = y0 + (long long)(i / cols) * (ch + gap) + (ch >= 3);
            if (x < 0 || y < 0 || x >= w || y >= h) {
                snprintf(bad, sizeof bad, "cell %zu at (%lld, %lld) is outside the %dx%d image", cells, x, y, w, h);
                break;
            }
            uint32_t got;
            memcpy(&got, px + y * stride + x * 4, 4);
            if ((got & 0xffffff) != want)
                snprintf(bad, sizeof bad, "cell %zu at (%lld, %lld): pixel #%06x, the SVG's fill #%06x", cells, x, y,
                         (unsigned)(got & 0xffffff), want);
        }
    }
    if (ok && !bad[0] && strstr(cell, "<g data-pos="))
        snprintf(bad, sizeof bad, "the SVG has more cells than the PNG's %zu", cells);
    CHECK(ok && !bad[0] && cells > 0, "%s: PNG pixels at the %zu cells: %s", what, cells, bad[0] ? bad : "no grid");
    free(grid);
    cairo_surface_destroy(s);
}

/* Draws a program's E in one format; the bytes, or NULL after a failed check. */
static unsigned char *draw(mapc_program *p, const mapc_draw_options *o, size_t *len, const char *what)
{
    unsigned char *out = NULL;
    mapc_status s = mapc_draw(p, "E", o, &out, len);
    if (!CHECK(s == MAPC_OK && out && *len > 0, "%s: mapc_draw format %d: %s", what, (int)o->format, mapc_status_string(s))) {
        for (size_t i = 0; i < mapc_diag_count(p); i++)
            harness_detail("%s", mapc_diag_text(p, i));
        free(out);
        return NULL;
    }
    return out;
}

/* Writes the cells of every position of E, one line each: "KIND C0 C1 ..." (mapc_eval's kind and coordinates). */
static bool write_cells(mapc_program *p, uint64_t size, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    int n = mapc_axis_count(p), kind = 0;
    int64_t coords[16];
    for (uint64_t pos = 0; pos < size; pos++) {
        if (mapc_eval(p, "E", pos, &kind, coords) != MAPC_OK)
            kind = -1;
        fprintf(f, "%d", kind);
        for (int a = 0; a < n; a++)
            fprintf(f, " %lld", (long long)coords[a]);
        fprintf(f, "\n");
    }
    return fclose(f) == 0;
}

static int generated(const char *dir, uint64_t seed, uint64_t count)
{
    MapGen g;
    mapgen_init(&g, seed, NULL);
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    FILE *manifest = fopen(path, "w");
    if (!manifest) {
        FAIL("cannot write %s", path);
        return harness_report();
    }
    for (uint64_t i = 0; i < count; i++) {
        harness_case(i);
        char *src = mapgen_program(&g), what[64];
        snprintf(what, sizeof what, "case %llu", (unsigned long long)i);
        snprintf(path, sizeof path, "%s/case-%llu.map", dir, (unsigned long long)i);
        mapc_program *p = NULL;
        if (!spill(path, src, strlen(src)) || mapc_compile_string(path, src, strlen(src), &p) != MAPC_OK) {
            FAIL("%s: the generated program does not compile or cannot be written", what);
            mapc_program_free(p);
            free(src);
            continue;
        }
        /* colour: the default, padding, or an axis; rows: the own split, or some */
        const char *color = NULL;
        if (i % 3 == 1)
            color = "padding";
        else if (i % 3 == 2)
            mapc_axis(p, (int)mapgen_below(&g, (uint64_t)mapc_axis_count(p)), &color, NULL);
        uint64_t size = 0;
        mapc_type_size(p, "E", &size);
        int64_t rows = i % 4 == 3 ? (int64_t)(1 + mapgen_below(&g, size)) : 0;
        mapc_draw_options o = {MAPC_DRAW_SVG, color, rows, MAPC_DRAW_BUFFER, NULL};
        size_t svg_len = 0, png_len = 0;
        unsigned char *svg = draw(p, &o, &svg_len, what);
        o.format = MAPC_DRAW_PNG; /* every other case: encoding PNGs is most of the time */
        unsigned char *png = svg && i % 2 == 0 ? draw(p, &o, &png_len, what) : NULL;
        if (png)
            check_png(what, png, png_len, (const char *)svg);
        snprintf(path, sizeof path, "%s/case-%llu.svg", dir, (unsigned long long)i);
        if (svg && !spill(path, svg, svg_len))
            FAIL("cannot write %s", path);
        snprintf(path, sizeof path, "%s/case-%llu.cells", dir, (unsigned long long)i);
        if (svg && !write_cells(p, size, path))
            FAIL("cannot write %s", path);
        if (svg && i % 25 == 0) {
            o.format = MAPC_DRAW_HTML;
            size_t html_len = 0;
            unsigned char *html = draw(p, &o, &html_len, what);
            snprintf(path, sizeof path, "%s/case-%llu.html", dir, (unsigned long long)i);
            if (html && !spill(path, html, html_len))
                FAIL("cannot write %s", path);
            free(html);
        }
        if (svg)
            fprintf(manifest, "%llu %s %lld\n", (unsigned long long)i, color ? color : "-", (long long)rows);
        free(svg);
        free(png);
        mapc_program_free(p);
        free(src);
    }
    fclose(manifest);
    return harness_report();
}

/* Frees the caches cairo and fontconfig keep (mapc_draw's PNGs and the decoding here), for leak checkers. */
static int done(int status)
{
    cairo_debug_reset_static_data();
    FcFini();
    return status;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--check") == 0) {
        size_t plen = 0, slen = 0;
        unsigned char *png = (unsigned char *)harness_read_file(argv[2], &plen);
        char *svg = harness_read_file(argv[3], &slen);
        if (png && svg)
            check_png(argv[2], png, plen, svg);
        else
            FAIL("cannot read %s or %s", argv[2], argv[3]);
        free(png);
        free(svg);
        return done(harness_report());
    }
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: draw-gen DIR [SEED [COUNT]] | draw-gen --check PNG SVG\n");
        return 2;
    }
    return done(generated(argv[1], argc > 2 ? strtoull(argv[2], NULL, 10) : 1, argc > 3 ? strtoull(argv[3], NULL, 10) : 200));
}
