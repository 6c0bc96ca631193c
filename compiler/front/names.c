/* names.c — what the checkers share: the name table seen from the grammar, reported builder results,
 * new axes, and cells with arena storage. */
#include "front_impl.h"

#include <string.h>

const Name *sema_lookup(Parser *ps, Token t) { return prog_lookup_n(ps->prog, t.s, t.len); }

/* Reports a builder's rule violation at loc; passes the node through. */
const Map *sema_checked(Parser *ps, const Map *m, Loc loc, const char *why)
{
    if (!m)
        diag_error(D(ps), loc, "%s", why);
    return m;
}

/* Defines a name, or reports the earlier definition. */
Name *sema_define(Parser *ps, Token name, NameKind kind)
{
    const Name *old = sema_lookup(ps, name);
    if (old) {
        diag_error(D(ps), name.loc, "'%s' is already defined at line %u", old->name, old->loc.line);
        return NULL;
    }
    Prog *p = ps->prog;
    Name *n = arena_alloc(&p->arena, sizeof *n);
    n->name = arena_strndup(&p->arena, name.s, name.len);
    n->kind = kind;
    n->loc = name.loc;
    prog_add_name(p, n);
    return n;
}

int sema_add_axis(Prog *p, const char *name, uint64_t size, Loc loc)
{
    p->axes = arena_grow(&p->arena, p->axes, p->naxes, &p->axes_cap, sizeof *p->axes);
    p->axes[p->naxes] = (Axis){name, size, loc, false};
    return p->naxes++;
}

/* A cell with coordinate storage in the program's arena. */
Cell sema_new_cell(Prog *p)
{
    return (Cell){.coord = arena_alloc(&p->arena, ((size_t)p->naxes + 1) * sizeof(uint64_t))};
}

const char *sema_cell_text(Prog *p, const Cell *c)
{
    size_t n = cell_format(p, c, NULL, 0);
    char *s = arena_alloc(&p->arena, n + 1);
    cell_format(p, c, s, n + 1);
    return s;
}
