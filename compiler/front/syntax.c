/* syntax.c — syntax errors reported with what the tokens around them suggest: a ';' missing at the end of the line
 * before a new statement, a constant after an operator that needs {NAME}. */
#include "front_impl.h"
#include "parser.h"

void parse_syntax_error(Parser *ps, int kind, Token tok)
{
    Diags *d = &ps->prog->diags;
    const Token *prev = &ps->prev;
    bool statement = kind == TK_KW_AXES || kind == TK_KW_CONST || kind == TK_KW_TYPE || kind == TK_KW_ASSERT ||
                     kind == TK_KW_COPY || kind == TK_KW_TENSOR || kind == TK_KW_KERNEL;
    if (statement && prev->kind && prev->kind != TK_SEMI && prev->kind != TK_LBRACE && prev->kind != TK_RBRACE &&
        prev->loc.line < tok.loc.line) {
        /* a new statement on a later line: the one before it lacks its ';', at the end of its last token */
        diag_error(d, (Loc){prev->loc.src, prev->loc.line, prev->loc.col + prev->len}, "missing ';' after '%.*s'",
                   (int)prev->len, prev->s);
        return;
    }
    bool operand = prev->kind == TK_SLASH || prev->kind == TK_PERCENT || prev->kind == TK_EQ || prev->kind == TK_HASH;
    if (kind == TK_IDENT && operand) {
        const Name *n = prog_lookup_n(ps->prog, tok.s, tok.len);
        if (n && n->kind == NAME_CONST)
            diag_error(d, tok.loc, "'%.*s' is a constant: after '%.*s' write {%.*s}", (int)tok.len, tok.s,
                       (int)prev->len, prev->s, (int)tok.len, tok.s);
        else
            diag_error(d, tok.loc, "after '%.*s' comes a number or {CONST}, not '%.*s'", (int)prev->len, prev->s,
                       (int)tok.len, tok.s);
        return;
    }
    if (kind == 0)
        diag_error(d, tok.loc, "unexpected end of input");
    else
        diag_error(d, tok.loc, "syntax error near '%.*s'", (int)tok.len, tok.s);
}
