/* api_mapping.c — the public calls behind mapping objects (the Python binding's Mapping): a mapping's text as
 * m![...] (mapc_map_text) and the cells of many positions in one call (mapc_eval_many). */
#include "api_impl.h"

#include "algebra/algebra.h"

#include <stdlib.h>

mapc_status api_format_map(const mapc_program *p, const Map *m, char **out)
{
    size_t len = map_format(p->prog, m, NULL, 0);
    *out = malloc(len + 1);
    if (!*out)
        return MAPC_ERR_NOMEM;
    map_format(p->prog, m, *out, len + 1);
    return MAPC_OK;
}

static mapc_status text_body(mapc_program *p, const char *name, char **out)
{
    if (!out)
        return MAPC_ERR_ARGUMENT;
    *out = NULL;
    const Map *m;
    mapc_status s = api_resolve(p, name, &m);
    return s != MAPC_OK ? s : api_format_map(p, m, out);
}

mapc_status mapc_map_text(mapc_program *p, const char *name, char **out)
{
    GUARDED(text_body(p, name, out));
}

/* One evaluator for all the positions; MAPC_ERR_UNDECIDED at the first undecidable one. */
mapc_status api_eval_many(mapc_program *p, const char *name, const uint64_t *pos, size_t n, int *kinds,
                          int64_t *coords)
{
    const Map *m;
    if (!p || (n && (!pos || !kinds || (!coords && mapc_axis_count(p) > 0))))
        return MAPC_ERR_ARGUMENT;
    mapc_status s = api_resolve(p, name, &m);
    if (s != MAPC_OK || n == 0)
        return s;
    int na = p->prog->naxes, pub = mapc_axis_count(p);
    Evaluator *ev = eqv_evaluator_new(p->prog); /* per call: concurrent evaluations do not share state */
    Cell c = {.coord = calloc((size_t)na + 1, sizeof(uint64_t))};
    if (!ev || !c.coord) {
        eqv_evaluator_free(ev);
        free(c.coord);
        return MAPC_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        if (eval_cell(ev, m, pos[i], &c) != EVAL_OK) {
            s = MAPC_ERR_UNDECIDED;
            break;
        }
        kinds[i] = (int)c.kind;
        for (int a = 0; a < na; a++) {
            int k = prog_public_index(p->prog, a);
            if (k >= 0)
                coords[i * (size_t)pub + (size_t)k] = c.kind == CELL_LIVE ? (int64_t)c.coord[a] : 0;
        }
    }
    free(c.coord);
    eqv_evaluator_free(ev);
    return s;
}

mapc_status mapc_eval_many(mapc_program *p, const char *name, const uint64_t *pos, size_t n, int *kinds,
                           int64_t *coords)
{
    GUARDED(api_eval_many(p, name, pos, n, kinds, coords));
}
