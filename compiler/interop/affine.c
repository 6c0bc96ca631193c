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
    int axes[IOP_MAX_DIGITS];
    int rank = iop_used_axes(p, m, axes);
    if (rank == 0 || rank > IOP_MAX_DIGITS / 2) {
        *why = rank ? "it holds too many axes" : "its cells hold no axis: an affine map's domain is the tensor's index";
        return NULL;
    }
    const char *res[IOP_MAX_DIGITS];
    int n = iop_qaff_results(p, m, &iop_affine_syntax, axes, rank, res, IOP_MAX_DIGITS, why);
    if (n < 0)
        return NULL;
    IopBuf b;
    iop_buf_init(&b, &p->arena);
    iop_buf_printf(&b, "affine_map<(");
    for (int i = 0; i < rank; i++)
        iop_buf_printf(&b, "%s%s", i ? ", " : "", p->axes[axes[i]].name);
    iop_buf_printf(&b, ") -> (");
    for (int k = 0; k < n; k++)
        iop_buf_printf(&b, "%s%s", k ? ", " : "", res[k]);
    iop_buf_printf(&b, "%s)>", n ? "" : "0");
    *why = iop_verify(p, m, IOP_AFFINE, b.s, axes, rank);
    return *why ? NULL : b.s;
}
