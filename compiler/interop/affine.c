/* affine.c — MLIR affine-map memref layouts: `(d0, d1) -> (d0 floordiv 4, d1, d0 mod 4)` (or inside
 * affine_map<...>) read as the buffer view of the physical index laid out row-major, and mappings written back
 * as affine_map<...> over their axes. */
#include "interop_impl.h"

const Map *iop_affine_import(IopScan *s, const IopAxes *ax)
{
    const QSyntax *syn = &iop_affine_syntax;
    bool wrapped = iop_accept(s, "affine_map");
    if (wrapped && !iop_expect(s, "<", "after affine_map"))
        return NULL;
    QNames dims, syms = {0};
    if (!iop_expect(s, "(", "to open the dimensions") || !iop_qnames(s, &dims, ")", "dimension") ||
        !iop_expect(s, ")", "to close the dimensions"))
        return NULL;
    if (iop_accept(s, "[") && !(iop_qnames(s, &syms, "]", "symbol") && iop_expect(s, "]", "to close the symbols")))
        return NULL;
    if (!iop_expect(s, "->", "after the dimensions") || !iop_expect(s, "(", "to open the results"))
        return NULL;
    const QExpr *res[IOP_MAX_DIGITS];
    int n = 0;
    while (!iop_peek(s, ")")) {
        if (n == IOP_MAX_DIGITS)
            return IOP_REFUSE(s, s->cur, "more than %d results", IOP_MAX_DIGITS);
        if (!(res[n++] = iop_qexpr(s, syn, &dims, &syms)))
            return NULL;
        if (!iop_accept(s, ","))
            break;
    }
    if (!iop_expect(s, ")", "to close the results") || (wrapped && !iop_expect(s, ">", "to close affine_map<")) ||
        !iop_end(s, "the affine map"))
        return NULL;
    return iop_qaff_map(s, syn, &dims, ax, res, n);
}

const char *iop_affine_export(Prog *p, const Map *m, const char **why)
{
    return iop_qaff_export(p, m, IOP_AFFINE, "affine_map<(", ") -> (", ")>", why);
}
