/* api_draw.c — the public C API's pictures of layouts (mapc_draw) over compiler/draw. */
#include "api_impl.h"

#include "draw/draw.h"


static mapc_status draw_body(mapc_program *p, const char *name, const mapc_draw_options *opts, unsigned char **out,
                             size_t *len)
{
    if (!out || !len)
        return MAPC_ERR_ARGUMENT;
    *out = NULL;
    *len = 0;
    if (!p || !name)
        return MAPC_ERR_ARGUMENT;
    mapc_draw_options def = {MAPC_DRAW_SVG, NULL, 0, MAPC_DRAW_AUTO, NULL};
    if (!opts)
        opts = &def;
    if (opts->format != MAPC_DRAW_SVG && opts->format != MAPC_DRAW_PNG && opts->format != MAPC_DRAW_HTML) {
        diag_error(&p->prog->diags, (Loc){0}, "cannot draw %s: format %d is not MAPC_DRAW_SVG, _PNG or _HTML", name,
                   (int)opts->format);
        return MAPC_ERR_ARGUMENT;
    }
    if (opts->view != MAPC_DRAW_AUTO && opts->view != MAPC_DRAW_BUFFER && opts->view != MAPC_DRAW_INDEX) {
        diag_error(&p->prog->diags, (Loc){0}, "cannot draw %s: view %d is not MAPC_DRAW_AUTO, _BUFFER or _INDEX", name,
                   (int)opts->view);
        return MAPC_ERR_ARGUMENT;
    }
    if (opts->rows < 0) {
        diag_error(&p->prog->diags, (Loc){0}, "cannot draw %s: rows %lld is negative", name, (long long)opts->rows);
        return MAPC_ERR_ARGUMENT;
    }
    if (p->compile_errors)
        return MAPC_ERR_INPUT;
    static const DrawFormat formats[] = {[MAPC_DRAW_SVG] = DRAW_SVG, [MAPC_DRAW_PNG] = DRAW_PNG, [MAPC_DRAW_HTML] = DRAW_HTML};
    static const DrawView views[] = {[MAPC_DRAW_AUTO] = DRAW_VIEW_AUTO, [MAPC_DRAW_BUFFER] = DRAW_VIEW_BUFFER,
                                     [MAPC_DRAW_INDEX] = DRAW_VIEW_INDEX};
    DrawOptions o = {.format = formats[opts->format], .color = opts->color, .rows = (uint64_t)opts->rows,
                     .view = opts->rows ? DRAW_VIEW_BUFFER : views[opts->view], .axes = opts->axes};
    DrawBytes pic = {0};
    char why[512];
    const Name *n = prog_lookup(p->prog, name);
    bool ok;
    if (n && n->kind == NAME_TENSOR) {
        if (!n->tensor)
            return MAPC_ERR_INPUT;
        ok = draw_tensor(p->prog, n->tensor, &o, &pic, why, sizeof why);
    } else {
        const Map *m;
        mapc_status s = api_resolve(p, name, &m);
        if (s != MAPC_OK)
            return s;
        ok = draw_map(p->prog, name, m, &o, &pic, why, sizeof why);
    }
    if (!ok) {
        diag_error(&p->prog->diags, (Loc){0}, "cannot draw %s: %s", name, why);
        return MAPC_ERR_ARGUMENT;
    }
    *out = pic.data;
    *len = pic.len;
    return MAPC_OK;
}

mapc_status mapc_draw(mapc_program *p, const char *name, const mapc_draw_options *opts, unsigned char **out, size_t *len)
{
    GUARDED(draw_body(p, name, opts, out, len));
}
