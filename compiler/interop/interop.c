/* interop.c — the formats' names and the two entry points: a literal's body read as its format, and a mapping
 * written as a format. */
#include "interop_impl.h"

#include <string.h>

static const struct {
    const char *name, *literal, *noun;
} formats[IOP_FORMATS] = {
    [IOP_CUTE] = {"cute", "cute", "CuTe layout"},
    [IOP_CUTE_TILER] = {"cute-tiler", "cute_tiler", "CuTe tiler"},
    [IOP_TRITON] = {"triton", "triton", "Triton linear layout"},
    [IOP_AFFINE] = {"affine", "affine", "MLIR affine map"},
    [IOP_STRIDED] = {"strided", "strided", "MLIR strided layout"},
    [IOP_INDEX_MAP] = {"index-map", "index_map", "TVM index map"},
};

const char *iop_format_name(IopFormat f) { return formats[f].name; }
const char *iop_format_noun(IopFormat f) { return formats[f].noun; }
const char *iop_literal_name(IopFormat f) { return formats[f].literal; }

bool iop_format_parse(const char *s, IopFormat *f)
{
    for (int k = 0; k < IOP_FORMATS; k++)
        if (strcmp(s, formats[k].name) == 0) {
            *f = (IopFormat)k;
            return true;
        }
    return false;
}

bool iop_literal_parse(const char *s, size_t len, IopFormat *f)
{
    for (int k = 0; k < IOP_FORMATS; k++)
        if (strlen(formats[k].literal) == len && memcmp(s, formats[k].literal, len) == 0) {
            *f = (IopFormat)k;
            return true;
        }
    return false;
}

const Map *iop_import(Prog *p, IopFormat f, IopText body, const IopAxes *ax, Diags *diags)
{
    IopScan s;
    iop_scan_init(&s, p, diags, body);
    const Map *m = NULL;
    switch (f) {
    case IOP_CUTE:
    case IOP_CUTE_TILER:
        m = iop_cute_import(&s, f == IOP_CUTE_TILER, ax);
        break;
    case IOP_TRITON:
        m = iop_triton_import(&s, ax);
        break;
    case IOP_AFFINE:
        m = iop_affine_import(&s, ax);
        break;
    case IOP_INDEX_MAP:
        m = iop_tvm_import(&s, ax);
        break;
    case IOP_STRIDED:
    case IOP_FORMATS:
        iop_fail(&s, body.s, "strided layouts are written strided![shape: [...], strides: [...]]");
        break;
    }
    return s.failed ? NULL : m;
}

const char *iop_export(Prog *p, const Map *m, IopFormat f, const IopOptions *o, const char **why)
{
    static const IopOptions none = {0, 0, 0};
    *why = NULL;
    switch (f) {
    case IOP_CUTE:
    case IOP_CUTE_TILER:
        return iop_cute_export(p, m, f == IOP_CUTE_TILER, why);
    case IOP_TRITON:
        return iop_triton_export(p, m, o ? o : &none, why);
    case IOP_AFFINE:
        return iop_affine_export(p, m, why);
    case IOP_INDEX_MAP:
        return iop_tvm_export(p, m, why);
    case IOP_STRIDED:
        return iop_strided_export(p, m, why);
    case IOP_FORMATS:
        break;
    }
    *why = "unknown format";
    return NULL;
}
