/* tvm.c — TVM IndexMap lambdas: `lambda i, j: (i // 4, j, i % 4)` read as the buffer view of the physical index
 * laid out row-major (its padding as pad(top)), and mappings written back as lambdas over their axes. */
#include "interop_impl.h"

/* The results after "lambda ...:": a list [a, b], a tuple (a, b) or (a,), or one expression. */
static int results(IopScan *s, const QNames *dims, const QExpr **res)
{
    const QSyntax *syn = &iop_tvm_syntax;
    const char *save = s->cur;
    const char *close = iop_accept(s, "[") ? "]" : iop_accept(s, "(") ? ")" : NULL;
    int n = 0;
    if (close) {
        bool comma = false;
        while (!iop_peek(s, close)) {
            if (n == IOP_MAX_DIGITS)
                return iop_fail(s, s->cur, "more than %d results", IOP_MAX_DIGITS), -1;
            if (!(res[n++] = iop_qexpr(s, syn, dims, NULL)))
                return -1;
            if (!(comma = iop_accept(s, ",")))
                break;
        }
        if (!iop_expect(s, close, close[0] == ']' ? "to close the list of results" : "to close the tuple of results"))
            return -1;
        /* "(i // 4) * 2" is one expression, not a tuple: read it again as such */
        if (close[0] == ')' && n == 1 && !comma && iop_skip(s) < s->end) {
            s->cur = save;
            close = NULL;
            n = 0;
        }
    }
    if (!close && !(res[n++] = iop_qexpr(s, syn, dims, NULL)))
        return -1;
    return iop_end(s, "the lambda's results") ? n : -1;
}

const Map *iop_tvm_import(IopScan *s, const IopAxes *ax)
{
    QNames dims;
    if (!iop_expect(s, "lambda", "to start the index map") || !iop_qnames(s, &dims, ":", "parameter") ||
        !iop_expect(s, ":", "after the lambda's parameters"))
        return NULL;
    const QExpr *res[IOP_MAX_DIGITS];
    int n = results(s, &dims, res);
    return n < 0 ? NULL : iop_qaff_map(s, &iop_tvm_syntax, &dims, ax, res, n);
}

const char *iop_tvm_export(Prog *p, const Map *m, const char **why)
{
    int axes[IOP_MAX_DIGITS];
    int rank = iop_used_axes(p, m, axes);
    if (rank == 0 || rank > IOP_MAX_DIGITS / 2) {
        *why = rank ? "it holds too many axes" : "its cells hold no axis: an index map's parameters are the tensor's index";
        return NULL;
    }
    const char *res[IOP_MAX_DIGITS];
    int n = iop_qaff_results(p, m, &iop_tvm_syntax, axes, rank, res, IOP_MAX_DIGITS, why);
    if (n < 0)
        return NULL;
    IopBuf b;
    iop_buf_init(&b, &p->arena);
    iop_buf_printf(&b, "lambda ");
    for (int i = 0; i < rank; i++)
        iop_buf_printf(&b, "%s%s", i ? ", " : "", p->axes[axes[i]].name);
    iop_buf_printf(&b, ": [");
    for (int k = 0; k < n; k++)
        iop_buf_printf(&b, "%s%s", k ? ", " : "", res[k]);
    iop_buf_printf(&b, "%s]", n ? "" : "0");
    *why = iop_verify(p, m, IOP_INDEX_MAP, b.s, axes, rank);
    return *why ? NULL : b.s;
}
