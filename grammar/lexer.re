/* lexer.re — the re2c lexer of .map files: tokens, comments, numbers, and lexical diagnostics. */
#include "front/front_impl.h"
#include "parser.h"

#include <string.h>

void lex_init(Lexer *lx, const Source *src, Diags *diags)
{
    lx->src = src;
    lx->cur = src->text;
    lx->lim = src->text + src->len;
    lx->line = 1;
    lx->line_start = src->text;
    lx->diags = diags;
}

static Loc loc_at(const Lexer *lx, const char *p)
{
    return (Loc){lx->src, lx->line, (uint32_t)(p - lx->line_start) + 1};
}

/* Advances the line counter over the newlines in [from, to). */
static void count_lines(Lexer *lx, const char *from, const char *to)
{
    for (const char *p = from; p < to; p++)
        if (*p == '\n') {
            lx->line++;
            lx->line_start = p + 1;
        }
}

/* Parses a decimal literal; false on 64-bit overflow. */
static bool parse_u64(const char *s, const char *e, uint64_t *out)
{
    uint64_t v = 0;
    for (; s < e; s++)
        if (!u64_mul(v, 10, &v) || __builtin_add_overflow(v, (uint64_t)(*s - '0'), &v))
            return false;
    *out = v;
    return true;
}

/* After the keyword of a layout of another system (cute!, triton!, ...): its body [...] up to the matching ']'
 * and an axis list [A, B] right after it (a '[' whose first word is a name; "L[5]" stays a position), all in
 * the one token, whose num is 1 when the body is not closed (diagnosed here). */
static void lex_foreign(Lexer *lx, Token *t)
{
    const char *c = lx->cur;
    while (c < lx->lim && (*c == ' ' || *c == '\t' || *c == '\r' || *c == '\n'))
        c++;
    if (c == lx->lim || *c != '[') {
        diag_error(lx->diags, t->loc, "expected '[' after %.*s", (int)(lx->cur - lx->tok), lx->tok);
        t->num = 1;
        return;
    }
    int depth = 0;
    for (; c < lx->lim; c++)
        if (*c == '[')
            depth++;
        else if (*c == ']' && --depth == 0)
            break;
    if (c == lx->lim) {
        diag_error(lx->diags, t->loc, "%.*s[ is not closed by a matching ']'", (int)(lx->cur - lx->tok), lx->tok);
        t->num = 1;
        lx->cur = lx->lim;
        count_lines(lx, lx->tok, lx->cur);
        return;
    }
    lx->cur = ++c;
    while (c < lx->lim && (*c == ' ' || *c == '\t' || *c == '\r' || *c == '\n'))
        c++;
    if (c < lx->lim && *c == '[') {
        const char *w = c + 1;
        while (w < lx->lim && (*w == ' ' || *w == '\t'))
            w++;
        const char *close = memchr(w, ']', (size_t)(lx->lim - w));
        if (w < lx->lim && ((*w >= 'A' && *w <= 'Z') || (*w >= 'a' && *w <= 'z') || *w == '_') && close &&
            !memchr(w, ';', (size_t)(close - w)))
            lx->cur = close + 1;
    }
    count_lines(lx, lx->tok, lx->cur);
}

bool lex_next(Lexer *lx, Token *t)
{
    const char *YYMARKER;
    for (;;) {
        lx->tok = lx->cur;
        t->s = lx->tok;
        t->loc = loc_at(lx, lx->tok);
        t->num = 0;
#define TOK(k) do { t->kind = (k); t->len = (uint32_t)(lx->cur - lx->tok); return true; } while (0)
        /*!re2c
            re2c:define:YYCTYPE = "unsigned char";
            re2c:define:YYCURSOR = "lx->cur";
            re2c:define:YYLIMIT = "lx->lim";
            re2c:yyfill:enable = 0;
            re2c:eof = 0;
            re2c:api:style = free-form;
            re2c:define:YYPEEK = "(unsigned char)*lx->cur";
            re2c:define:YYSKIP = "++lx->cur;";
            re2c:define:YYBACKUP = "YYMARKER = lx->cur;";
            re2c:define:YYRESTORE = "lx->cur = YYMARKER;";
            re2c:define:YYLESSTHAN = "lx->lim <= lx->cur";

            ident = [A-Za-z_][A-Za-z0-9_]*;

            $ { t->kind = 0; t->len = 0; return false; }
            [ \t\r\f\v]+ { continue; }
            "\n" { count_lines(lx, lx->tok, lx->cur); continue; }
            "//" [^\n\x00]* { continue; }
            "/*" { goto block_comment; }

            "axes!" { TOK(TK_KW_AXES); }
            "m!"    { TOK(TK_KW_M); }
            "i!"    { TOK(TK_KW_I); }
            "const" { TOK(TK_KW_CONST); }
            "type"  { TOK(TK_KW_TYPE); }
            "assert" { TOK(TK_KW_ASSERT); }
            "pad"   { TOK(TK_KW_PAD); }
            "oob"   { TOK(TK_KW_OOB); }
            "overflow" { TOK(TK_KW_OVERFLOW); }
            "copy"  { TOK(TK_KW_COPY); }
            "tensor" { TOK(TK_KW_TENSOR); }
            "kernel" { TOK(TK_KW_KERNEL); }
            "tiled!" { TOK(TK_KW_TILED); }
            "strided!" { TOK(TK_KW_STRIDED); }
            "as"    { TOK(TK_KW_AS); }
            "cute!" | "cute_tiler!" | "triton!" | "affine!" | "index_map!" { lex_foreign(lx, t); TOK(TK_FOREIGN); }
            ident   { TOK(TK_IDENT); }

            [0-9]+ {
                if (!parse_u64(lx->tok, lx->cur, &t->num)) {
                    diag_error(lx->diags, t->loc, "number %.*s does not fit in 64 bits",
                               (int)(lx->cur - lx->tok), lx->tok);
                    t->num = UINT64_MAX;
                }
                TOK(TK_NUM);
            }
            "0" [xX] [0-9a-fA-F]+ {
                /* hexadecimal: only layout-descriptor tags (0x01 ...) take it */
                const char *h = lx->tok + 2;
                while (h + 1 < lx->cur && *h == '0')
                    h++;
                if (lx->cur - h > 16) {
                    diag_error(lx->diags, t->loc, "number %.*s does not fit in 64 bits",
                               (int)(lx->cur - lx->tok), lx->tok);
                    t->num = UINT64_MAX;
                } else {
                    for (; h < lx->cur; h++)
                        t->num = t->num * 16 + (uint64_t)(*h <= '9' ? *h - '0' : (*h | 0x20) - 'a' + 10);
                }
                TOK(TK_HEX);
            }
            [0-9]+ [A-Za-z_][A-Za-z0-9_]* {
                diag_error(lx->diags, t->loc, "malformed number '%.*s'", (int)(lx->cur - lx->tok), lx->tok);
                t->num = 1;
                TOK(TK_NUM);
            }

            "[" { TOK(TK_LBRACK); }
            "]" { TOK(TK_RBRACK); }
            "(" { TOK(TK_LPAREN); }
            ")" { TOK(TK_RPAREN); }
            "{" { TOK(TK_LBRACE); }
            "}" { TOK(TK_RBRACE); }
            "," { TOK(TK_COMMA); }
            ";" { TOK(TK_SEMI); }
            ":" { TOK(TK_COLON); }
            "->" { TOK(TK_ARROW); }
            "<=" { TOK(TK_LE); }
            ">=" { TOK(TK_GE); }
            "<" { TOK(TK_LT); }
            ">" { TOK(TK_GT); }
            "." { TOK(TK_DOT); }
            "==" { TOK(TK_EQEQ); }
            "!=" { TOK(TK_NE); }
            "=" { TOK(TK_EQ); }
            "/" { TOK(TK_SLASH); }
            "%" { TOK(TK_PERCENT); }
            "#" { TOK(TK_HASH); }
            "*" { TOK(TK_STAR); }
            "!" { TOK(TK_BANG); }

            "\x00" { diag_error(lx->diags, t->loc, "NUL byte in source"); continue; }
            [\x80-\xff]+ {
                diag_error(lx->diags, t->loc, "non-ASCII character (byte 0x%02x) outside a comment",
                           (unsigned char)*lx->tok);
                continue;
            }
            * {
                unsigned char c = (unsigned char)*lx->tok;
                if (c >= 0x20 && c < 0x7f)
                    diag_error(lx->diags, t->loc, "invalid character '%c'", c);
                else
                    diag_error(lx->diags, t->loc, "invalid character (byte 0x%02x)", c);
                continue;
            }
        */
    block_comment:;
        const char *end = NULL;
        for (const char *p = lx->cur; p + 1 < lx->lim; p++)
            if (p[0] == '*' && p[1] == '/') {
                end = p + 2;
                break;
            }
        if (!end) {
            diag_error(lx->diags, t->loc, "unterminated comment");
            lx->cur = lx->lim;
            continue;
        }
        count_lines(lx, lx->cur, end);
        lx->cur = end;
#undef TOK
    }
}
