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
    return iop_qaff_export(p, m, IOP_INDEX_MAP, "lambda ", ": [", "]", why);
}
