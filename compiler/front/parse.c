/* parse.c — the driver loop that feeds lexer tokens to the Lemon parser, for whole programs and lone mappings. */
#include "algebra/algebra.h"
#include "front_impl.h"
#include "parser.h"

#include <stdlib.h>
#include <string.h>

/* Copies the text into the arena as a Source (NUL-terminated, NULs inside are kept). */
static const Source *new_source(Prog *p, const char *name, const char *text, size_t len)
{
    Source *s = arena_alloc(&p->arena, sizeof *s);
    s->name = arena_strndup(&p->arena, name, strlen(name));
    s->text = arena_strndup(&p->arena, text, len);
    s->len = len;
    return s;
}

/* Runs the parser over src; a leading start token (TK_EXPR_START, TK_INDEX_START) selects a lone form.
 * Bracket nesting is bounded here, before the parser stack can grow with it. */
static void run(Parser *ps, const Source *src, int start)
{
    Lexer lx;
    lex_init(&lx, src, &ps->prog->diags);
    void *lemon = mapc_parserAlloc(mem_alloc);
    Token t = {0};
    ps->prev = t;
    if (start) {
        t.loc = (Loc){src, 1, 1};
        mapc_parser(lemon, start, t, ps);
    }
    int depth = 0;
    while (!ps->stopped && lex_next(&lx, &t)) {
        if (t.kind == TK_LBRACK || t.kind == TK_LPAREN || t.kind == TK_LBRACE) {
            if (++depth > MAPC_MAX_DEPTH) {
                diag_error(&ps->prog->diags, t.loc, "brackets nested deeper than %d levels", MAPC_MAX_DEPTH);
                ps->stopped = true;
                break;
            }
        } else if ((t.kind == TK_RBRACK || t.kind == TK_RPAREN || t.kind == TK_RBRACE) && depth > 0) {
            depth--;
        } else if (t.kind == TK_SEMI) {
            depth = 0;
        }
        mapc_parser(lemon, t.kind, t, ps);
        ps->prev = t;
    }
    if (!ps->stopped) {
        t.kind = 0;
        t.s = "";
        t.len = 0;
        t.loc = (Loc){src, lx.line, (uint32_t)(lx.cur - lx.line_start) + 1};
        mapc_parser(lemon, 0, t, ps);
    }
    mapc_parserFree(lemon, free);
}

/* Puts the diagnostics added since `before` in source order (the lexer reports one token ahead
 * of the parser); a stable insertion sort, so equal positions keep their order. */
static void sort_new_diags(Prog *p, int before)
{
    Diag **link = &p->diags.head;
    for (int i = 0; i < before; i++)
        link = &(*link)->next;
    Diag *sorted = NULL, *d = *link;
    while (d) {
        Diag *next = d->next, **at = &sorted;
        while (*at && ((*at)->loc.line < d->loc.line ||
                       ((*at)->loc.line == d->loc.line && (*at)->loc.col <= d->loc.col)))
            at = &(*at)->next;
        d->next = *at;
        *at = d;
        d = next;
    }
    *link = sorted;
    p->diags.tail = link;
    while (*p->diags.tail)
        p->diags.tail = &(*p->diags.tail)->next;
}

int prog_parse(Prog *p, const char *name, const char *text, size_t len)
{
    int before = p->diags.count;
    Parser ps = {.prog = p, .src = new_source(p, name, text, len)};
    run(&ps, ps.src, 0);
    sort_new_diags(p, before);
    return p->diags.count - before;
}

const Map *prog_parse_map(Prog *p, const char *name, const char *text)
{
    int before = p->diags.count;
    Parser ps = {.prog = p, .src = new_source(p, name, text, strlen(text))};
    run(&ps, ps.src, TK_EXPR_START);
    return p->diags.count == before && ps.expr_ok ? ps.expr : NULL;
}

bool prog_parse_index(Prog *p, const char *name, const char *text, Cell *out)
{
    int before = p->diags.count;
    Parser ps = {.prog = p, .src = new_source(p, name, text, strlen(text))};
    run(&ps, ps.src, TK_INDEX_START);
    if (p->diags.count != before || !ps.index.ok)
        return false;
    if (!ps.index.is_index) {
        diag_error(&p->diags, ps.index.loc, "expected an index literal i![...], not %s", cell_kind_name(ps.index.kind));
        return false;
    }
    int n = 0;
    for (const MapList *e = ps.index.terms; e; e = e->next)
        n++;
    IndexTerm *t = arena_alloc(&p->arena, ((size_t)n + 1) * sizeof *t);
    int i = n;
    for (const MapList *e = ps.index.terms; e; e = e->next) /* newest first: fill from the end */
        t[--i] = (IndexTerm){e->map, e->value};
    Evaluator *ev = eqv_evaluator_new(p);
    EvalStatus st = eval_index(ev, t, n, out);
    if (st != EVAL_OK)
        diag_error(&p->diags, ps.index.loc, "cannot evaluate the index: %s", eval_error(ev));
    eqv_evaluator_free(ev);
    return st == EVAL_OK;
}
