/* api_interop.c — the public C API's layouts of other systems (mapc_export) over compiler/interop; the literals
 * that read them come in through the front end like every inline mapping. */
#include "api_impl.h"

#include "interop/interop.h"

#include <stdlib.h>
#include <string.h>

static bool power_of_two_or_none(uint64_t v) { return !(v & (v - 1)); }

static mapc_status export_body(mapc_program *p, const char *name, const char *format, const mapc_export_options *o,
                               char **out)
{
    if (!out)
        return MAPC_ERR_ARGUMENT;
    *out = NULL;
    if (!p || !name || !format)
        return MAPC_ERR_ARGUMENT;
    IopFormat f;
    if (!iop_format_parse(format, &f))
        return api_refuse(p, MAPC_ERR_ARGUMENT, arena_printf(&p->prog->arena, "unknown format '%s' (cute, cute-tiler, "
                                                             "triton, affine, strided or index-map)", format));
    IopOptions io = {o ? o->lanes : 0, o ? o->warps : 0, o ? o->blocks : 0};
    if (!power_of_two_or_none(io.lanes) || !power_of_two_or_none(io.warps) || !power_of_two_or_none(io.blocks))
        return api_refuse(p, MAPC_ERR_ARGUMENT, "lanes, warps and blocks are powers of two (or 0: none)");
    if ((io.lanes > 1 || io.warps > 1 || io.blocks > 1) && f != IOP_TRITON)
        return api_refuse(p, MAPC_ERR_ARGUMENT, "lanes, warps and blocks split a Triton layout's positions only");
    const Map *m;
    mapc_status s = api_resolve(p, name, &m);
    if (s != MAPC_OK)
        return s;
    const char *why = NULL, *text = iop_export(p->prog, m, f, &io, &why);
    if (!text)
        return api_refuse(p, MAPC_ERR_INPUT, arena_printf(&p->prog->arena, "no %s: %s", iop_format_noun(f), why));
    *out = strdup(text);
    return *out ? MAPC_OK : MAPC_ERR_NOMEM;
}

mapc_status mapc_export(mapc_program *p, const char *name, const char *format, const mapc_export_options *opts,
                        char **out)
{
    GUARDED(export_body(p, name, format, opts, out));
}
