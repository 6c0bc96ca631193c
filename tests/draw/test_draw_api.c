/* test_draw_api.c — mapc_draw through the shared library: what each format starts with, the cells of a small
 * picture against mapc_eval, and every refusal (status and diagnostic). */
#include "harness.h"
#include "mapc.h"

#ifdef HAVE_CAIRO
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char source[] = "axes![A = 3, B = 4, X = 600];\n"
                             "type E = m![A, B # 5];\n"
                             "type Big = m![X, X];\n"
                             "tensor T: DmTensor<f32, m![1], m![1], m![A], m![B]>;\n";

/* The last diagnostic's text, or "". */
static const char *last_diag(mapc_program *p)
{
    size_t n = mapc_diag_count(p);
    return n ? mapc_diag_text(p, n - 1) : "";
}

/* Draws and checks the status; a refusal must add a diagnostic containing `says` (when not NULL). */
static unsigned char *expect(mapc_program *p, const char *name, const mapc_draw_options *o, mapc_status want,
                             const char *says, size_t *len)
{
    unsigned char *out = (unsigned char *)"untouched";
    size_t before = mapc_diag_count(p);
    mapc_status s = mapc_draw(p, name, o, &out, len);
    CHECK_EQ_INT(s, want, "mapc_draw %s: %s", name, mapc_status_string(s));
    if (s != MAPC_OK) {
        CHECK(out == NULL && *len == 0, "mapc_draw %s: a refusal leaves *out NULL", name);
        if (says)
            CHECK(mapc_diag_count(p) > before && strstr(last_diag(p), says), "mapc_draw %s: the diagnostic '%s' says '%s'",
                  name, last_diag(p), says);
        return NULL;
    }
    return out;
}

/* The text of the n-th cell group's second text (the cell) in an SVG, into buf. */
static bool nth_cell(const char *svg, size_t n, char *buf, size_t size)
{
    const char *g = svg;
    for (size_t i = 0; i <= n; i++) {
        if (!(g = strstr(g, "<g data-pos=")))
            return false;
        if (i < n)
            g++;
    }
    const char *c = strstr(g, "class=\"c\"");
    if (!c)
        return false;
    c = strchr(c, '>') + 1;
    const char *end = strstr(c, "</text>");
    snprintf(buf, size, "%.*s", (int)(end - c), c);
    return true;
}

int main(int argc, char **argv)
{
    HarnessArgs a = {.seed = 1, .count = 1};
    harness_args(argc, argv, "", &a);
    mapc_program *p = NULL;
    if (mapc_compile_string("draw.map", source, strlen(source), &p) != MAPC_OK) {
        FAIL("the program does not compile");
        return harness_report();
    }
    size_t len = 0;
    mapc_draw_options svg = {MAPC_DRAW_SVG, NULL, 0, MAPC_DRAW_BUFFER, NULL}, png = {MAPC_DRAW_PNG, "padding", 0, MAPC_DRAW_BUFFER, NULL},
                      html = {MAPC_DRAW_HTML, "B", 2, MAPC_DRAW_BUFFER, NULL};
    unsigned char *out = expect(p, "E", &svg, MAPC_OK, NULL, &len);
    if (out) {
        CHECK(len > 100 && strncmp((char *)out, "<?xml", 5) == 0 && strlen((char *)out) == len, "SVG starts with <?xml");
        /* every cell against the interpreter: 3 rows of 5 (A, B # 5), cells as {A:1, B:2}, pad(top) */
        int64_t coords[3];
        for (uint64_t pos = 0; pos < 15; pos++) {
            int kind = -1;
            char got[64] = "", want[64];
            mapc_eval(p, "E", pos, &kind, coords);
            if (kind == MAPC_CELL_PAD_TOP)
                snprintf(want, sizeof want, "pad(top)");
            else if (!coords[0] && !coords[1])
                snprintf(want, sizeof want, "{}");
            else if (!coords[0] || !coords[1])
                snprintf(want, sizeof want, "{%s:%lld}", coords[0] ? "A" : "B", (long long)(coords[0] ? coords[0] : coords[1]));
            else
                snprintf(want, sizeof want, "{A:%lld, B:%lld}", (long long)coords[0], (long long)coords[1]);
            nth_cell((char *)out, pos, got, sizeof got);
            CHECK_EQ_STR(got, want, "SVG cell %llu", (unsigned long long)pos);
        }
        CHECK(strstr((char *)out, "data-rows=\"3\" data-cols=\"5\"") != NULL, "E is drawn as its own split, 3 x 5");
    }
    free(out);
#ifdef HAVE_CAIRO
    out = expect(p, "E", &png, MAPC_OK, NULL, &len);
    CHECK(out && len > 8 && memcmp(out, "\x89PNG\r\n\x1a\n", 8) == 0, "PNG signature");
    free(out);
    mapc_draw_options one_row = {.format = MAPC_DRAW_PNG, .rows = 1}; /* 1 row of 90000 cells: too wide for any PNG */
    expect(p, "m![X / 2, X / 2]", &one_row, MAPC_ERR_ARGUMENT, "even with 1-pixel cells", &len);
#else
    expect(p, "E", &png, MAPC_ERR_ARGUMENT, "PNG output needs cairo", &len); /* a build without cairo */
#endif
    out = expect(p, "E", &html, MAPC_OK, NULL, &len);
    CHECK(out && strncmp((char *)out, "<!DOCTYPE html>", 15) == 0 && strstr((char *)out, "data-rows=\"2\""),
          "HTML page with 2 rows");
    free(out);
    out = expect(p, "T", &svg, MAPC_OK, NULL, &len);
    CHECK(out && strstr((char *)out, "data-label=\"chip 0, cluster 0, slice 2\""), "a tensor has a panel per slice");
    free(out);
    mapc_draw_options index = {MAPC_DRAW_SVG, NULL, 0, MAPC_DRAW_INDEX, "B,A"}, view = {MAPC_DRAW_SVG, NULL, 0, 9, NULL};
    out = expect(p, "T", &index, MAPC_OK, NULL, &len);
    CHECK(out && strstr((char *)out, "rows B (") && strstr((char *)out, "unit:element"), "a tensor's index view over B, A");
    free(out);
    out = expect(p, "T", NULL, MAPC_OK, NULL, &len);
    CHECK(out && strstr((char *)out, "data-kind=\"live\""), "a tensor's default view");
    free(out);
    out = expect(p, "m![B, A]", NULL, MAPC_OK, NULL, &len);
    free(out);

    /* refusals */
    mapc_draw_options bad_color = {.color = "Q"}, unit = {.color = "unit"};
    mapc_draw_options rows = {.rows = 16}, neg = {.rows = -1}, fmt = {.format = (mapc_draw_format)7};
    expect(p, "E", &bad_color, MAPC_ERR_ARGUMENT, "cannot colour by 'Q'", &len);
    expect(p, "E", &unit, MAPC_ERR_ARGUMENT, "colour by unit needs a tensor", &len);
    expect(p, "E", &rows, MAPC_ERR_ARGUMENT, "16 rows is more than the 15 positions", &len);
    expect(p, "E", &neg, MAPC_ERR_ARGUMENT, "negative", &len);
    expect(p, "E", &fmt, MAPC_ERR_ARGUMENT, "format 7", &len);
    expect(p, "E", &view, MAPC_ERR_ARGUMENT, "view 9", &len);
    CHECK(strncmp(last_diag(p), "error: cannot draw E", 20) == 0, "a call's refusal has no <input>:0:0 position: %s",
          last_diag(p));
    index.axes = "A,Q";
    expect(p, "E", &index, MAPC_ERR_ARGUMENT, "one or two distinct axes", &len);
    expect(p, "Big", NULL, MAPC_ERR_ARGUMENT, "more than the limit of 262144", &len);
    expect(p, "Nope", NULL, MAPC_ERR_NOT_FOUND, NULL, &len);
    expect(p, "m![A, Q]", NULL, MAPC_ERR_INPUT, NULL, &len);
    CHECK_EQ_INT(mapc_draw(p, "E", NULL, NULL, &len), MAPC_ERR_ARGUMENT, "NULL out");
    CHECK_EQ_INT(mapc_draw(NULL, "E", NULL, &out, &len), MAPC_ERR_ARGUMENT, "NULL program");
    CHECK_EQ_INT(mapc_draw(p, NULL, NULL, &out, &len), MAPC_ERR_ARGUMENT, "NULL name");
    mapc_program_free(p);

    mapc_program *broken = NULL;
    mapc_compile_string("bad.map", "axes![A = 2]; type E = m![A / 3];", 33, &broken);
    expect(broken, "E", NULL, MAPC_ERR_INPUT, NULL, &len);
    mapc_program_free(broken);
#ifdef HAVE_CAIRO
    cairo_debug_reset_static_data(); /* the font caches the PNGs left, for leak checkers */
    FcFini();
#endif
    return harness_report();
}
