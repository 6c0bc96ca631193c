/* sema_interop.c — a layout of another system in a program: the literal's keyword, body and axis list split out
 * of its one token, the axes resolved, and the body read by compiler/interop into a mapping. */
#include "front/front_impl.h"
#include "interop/interop.h"

#include <string.h>

/* The position of byte at of token t. */
static Loc loc_in(Token t, const char *at) { return iop_text_loc((IopText){t.s, t.len, t.loc}, at); }

static bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* The axes of the list [A, B, ...] in [s, e) into ax (in the arena); false after diagnostics. */
static bool axis_list(Parser *ps, Token t, const char *s, const char *e, IopAxes *ax)
{
    Prog *p = ps->prog;
    int cap = 1;
    for (const char *c = s; c < e; c++)
        cap += *c == ',';
    int *axis = arena_alloc(&p->arena, (size_t)cap * sizeof *axis);
    int n = 0;
    bool ok = true;
    for (const char *c = s + 1; c < e - 1;) {
        while (c < e - 1 && blank(*c))
            c++;
        const char *w = c;
        while (c < e - 1 && !blank(*c) && *c != ',')
            c++;
        size_t len = (size_t)(c - w);
        while (c < e - 1 && blank(*c))
            c++;
        if (c < e - 1 && *c != ',') {
            diag_error(D(ps), loc_in(t, c), "expected ',' or ']' in the axis list, found '%c'", *c);
            return false;
        }
        c++;
        if (!len) {
            diag_error(D(ps), loc_in(t, w), "empty entry in the axis list");
            return false;
        }
        const Name *nm = prog_lookup_n(p, w, len);
        if (!nm || nm->kind != NAME_AXIS) {
            diag_error(D(ps), loc_in(t, w), "'%.*s' is not a declared axis%s", (int)len, w,
                       nm ? "" : prog_did_you_mean(p, w, len, NAME_BIT(NAME_AXIS)));
            ok = false;
            continue;
        }
        for (int i = 0; i < n; i++)
            if (axis[i] == nm->axis) {
                diag_error(D(ps), loc_in(t, w), "axis %.*s is named twice in the axis list", (int)len, w);
                ok = false;
            }
        axis[n++] = nm->axis;
    }
    *ax = (IopAxes){axis, n, loc_in(t, s)};
    return ok;
}

const Map *sema_foreign(Parser *ps, Token t)
{
    if (t.num) /* the lexer reported a body without its ']' */
        return NULL;
    const char *end = t.s + t.len, *bang = memchr(t.s, '!', t.len);
    IopFormat f;
    if (!bang || !iop_literal_parse(t.s, (size_t)(bang - t.s), &f))
        return NULL;
    const char *open = bang + 1;
    while (open < end && *open != '[')
        open++;
    int depth = 0;
    const char *close = open;
    for (; close < end; close++)
        if (*close == '[')
            depth++;
        else if (*close == ']' && --depth == 0)
            break;
    if (close == end)
        return NULL;
    IopAxes ax = {NULL, -1, t.loc};
    const char *list = close + 1;
    while (list < end && blank(*list))
        list++;
    if (list < end && !axis_list(ps, t, list, end, &ax))
        return NULL;
    IopText body = {open + 1, (size_t)(close - open - 1), loc_in(t, open + 1)};
    return iop_import(ps->prog, f, body, &ax, D(ps));
}
