/* api_query.c — the public queries answered as text or lists: normal forms (mapc_norm) and where a declared
 * tensor holds an index (mapc_where). */
#include "api_impl.h"

#include "algebra/algebra.h"

#include <stdlib.h>
#include <string.h>

static mapc_status norm_body(mapc_program *p, const char *name, char **out)
{
    if (!out)
        return MAPC_ERR_ARGUMENT;
    *out = NULL;
    const Map *m;
    mapc_status s = api_resolve(p, name, &m);
    if (s != MAPC_OK)
        return s;
    return api_format_map(p, norm_map(&p->prog->arena, m), out);
}

mapc_status mapc_norm(mapc_program *p, const char *name, char **out)
{
    GUARDED(norm_body(p, name, out));
}

static mapc_status where_body(mapc_program *p, const char *tensor, const char *index, mapc_place *places,
                              size_t cap, size_t *count)
{
    if (!p || !tensor || !index || !count || (cap && !places))
        return MAPC_ERR_ARGUMENT;
    *count = 0;
    if (p->compile_errors)
        return MAPC_ERR_INPUT;
    const Name *n = prog_lookup(p->prog, tensor);
    if (!n || n->kind != NAME_TENSOR)
        return MAPC_ERR_NOT_FOUND;
    const TensorDecl *t = n->tensor;
    if (!t)
        return MAPC_ERR_INPUT;
    Prog *prog = p->prog;
    Cell c = {.coord = arena_alloc(&prog->arena, ((size_t)prog->naxes + 1) * sizeof(uint64_t))};
    if (!prog_parse_index(prog, "<index>", index, &c))
        return MAPC_ERR_INPUT;
    if (c.kind != CELL_LIVE)
        return api_refuse(p, MAPC_ERR_ARGUMENT, arena_printf(&prog->arena, "%s is %s, not an index", index,
                                                         cell_kind_name(c.kind)));
    uint64_t *pos = cap ? malloc(cap * sizeof *pos) : NULL;
    if (cap && !pos)
        return MAPC_ERR_NOMEM;
    char why[512];
    int64_t k = tensor_where(prog, t, c.coord, pos, cap, why, sizeof why);
    if (k < 0) {
        free(pos);
        return api_refuse(p, k == -1 ? MAPC_ERR_ARGUMENT : MAPC_ERR_UNDECIDED, why);
    }
    TensorUnits u = tensor_units(t->mem, t->maps);
    for (size_t i = 0; i < cap && i < (uint64_t)k; i++) {
        uint64_t unit = pos[i] / u.elements;
        places[i] = (mapc_place){.chip = unit / u.slices / u.clusters, .cluster = unit / u.slices % u.clusters,
                                 .slice = unit % u.slices, .element = pos[i] % u.elements};
    }
    free(pos);
    *count = (size_t)k;
    return MAPC_OK;
}

mapc_status mapc_where(mapc_program *p, const char *tensor, const char *index, mapc_place *places, size_t cap,
                       size_t *count)
{
    GUARDED(where_body(p, tensor, index, places, cap, count));
}
