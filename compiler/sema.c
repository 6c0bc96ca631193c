/* sema.c — the static rules of SPEC §2, applied as the grammar builds each node, and the
 * declarations and compile-time assertions of a program. */
#include "front.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

static Diags *D(Parser *ps) { return &ps->prog->diags; }

static const Name *lookup_tok(Parser *ps, Token t)
{
    for (const Name *n = ps->prog->names; n; n = n->next)
        if (strlen(n->name) == t.len && memcmp(n->name, t.s, t.len) == 0)
            return n;
    return NULL;
}

static bool is_defining(Parser *ps, Token t)
{
    return ps->defining && strlen(ps->defining) == t.len && memcmp(ps->defining, t.s, t.len) == 0;
}

/* Reports a builder's rule violation at loc; passes the node through. */
static const Map *checked(Parser *ps, const Map *m, Loc loc, const char *why)
{
    if (!m)
        diag_error(D(ps), loc, "%s", why);
    return m;
}

const Map *sema_symbol(Parser *ps, Token name)
{
    const Name *n = lookup_tok(ps, name);
    if (!n) {
        if (is_defining(ps, name))
            diag_error(D(ps), name.loc, "type '%.*s' refers to itself", (int)name.len, name.s);
        else
            diag_error(D(ps), name.loc, "undeclared axis '%.*s'", (int)name.len, name.s);
        return NULL;
    }
    if (n->kind == NAME_TYPE) {
        diag_error(D(ps), name.loc, "'%s' is a type, not an axis; escape it as {%s}", n->name, n->name);
        return NULL;
    }
    if (n->kind == NAME_CONST) {
        diag_error(D(ps), name.loc, "'%s' is a constant, not an axis; constants go after an operator, as {%s}",
                   n->name, n->name);
        return NULL;
    }
    MapWhy why;
    return checked(ps, map_make_sym(&ps->prog->arena, n->axis, ps->prog->axes[n->axis].size, name.loc, why),
                   name.loc, why);
}

const Map *sema_broadcast(Parser *ps, Token num)
{
    MapWhy why;
    return checked(ps, map_make_bcast(&ps->prog->arena, num.num, num.loc, why), num.loc, why);
}

const Map *sema_escape_type(Parser *ps, Token name)
{
    const Name *n = lookup_tok(ps, name);
    if (!n) {
        if (is_defining(ps, name))
            diag_error(D(ps), name.loc, "type '%.*s' refers to itself", (int)name.len, name.s);
        else
            diag_error(D(ps), name.loc, "undefined name '%.*s'", (int)name.len, name.s);
        return NULL;
    }
    switch (n->kind) {
    case NAME_TYPE:
        return n->map; /* shared: the digits of one named base stay one base */
    case NAME_AXIS:
        diag_error(D(ps), name.loc, "'%s' is an axis; write it without braces", n->name);
        return NULL;
    case NAME_CONST:
        diag_error(D(ps), name.loc, "'%s' is a constant, not a mapping; constants go after an operator", n->name);
        return NULL;
    }
    return NULL;
}

bool sema_escape_const(Parser *ps, Token name, uint64_t *value)
{
    const Name *n = lookup_tok(ps, name);
    if (!n) {
        diag_error(D(ps), name.loc, "undefined constant '%.*s'", (int)name.len, name.s);
        return false;
    }
    if (n->kind != NAME_CONST) {
        diag_error(D(ps), name.loc, "'%s' is %s, not a constant", n->name, n->kind == NAME_AXIS ? "an axis" : "a type");
        return false;
    }
    *value = n->value;
    return true;
}

const Map *sema_postfix(Parser *ps, MapKind kind, PadKind pad, const Map *l, bool arg_ok, uint64_t n, Loc loc)
{
    if (!l || !arg_ok)
        return NULL;
    MapWhy why;
    return checked(ps, map_make_op(&ps->prog->arena, kind, pad, l, n, loc, why), loc, why);
}

MapList *sema_list_add(Parser *ps, MapList *list, const Map *m, uint64_t value, Loc loc)
{
    MapList *e = arena_alloc(&ps->prog->arena, sizeof *e);
    e->map = m;
    e->value = value;
    e->loc = loc;
    e->next = list;
    return e;
}

const Map *sema_pair_list(Parser *ps, MapList *items)
{
    bool ok = true;
    for (MapList *e = items; e; e = e->next)
        ok &= e->map != NULL;
    if (!ok)
        return NULL;
    /* items are newest first: fold from the minor end, so the comma groups to the right */
    const Map *acc = items->map;
    for (MapList *e = items->next; e; e = e->next) {
        MapWhy why;
        acc = checked(ps, map_make_pair(&ps->prog->arena, e->map, acc, e->map->loc, why), e->map->loc, why);
        if (!acc)
            return NULL;
    }
    return acc;
}

/* Defines a name, or reports the earlier definition. */
static Name *define(Parser *ps, Token name, NameKind kind)
{
    const Name *old = lookup_tok(ps, name);
    if (old) {
        diag_error(D(ps), name.loc, "'%s' is already defined at line %u", old->name, old->loc.line);
        return NULL;
    }
    Prog *p = ps->prog;
    Name *n = arena_alloc(&p->arena, sizeof *n);
    n->name = arena_strndup(&p->arena, name.s, name.len);
    n->kind = kind;
    n->loc = name.loc;
    n->next = p->names;
    p->names = n;
    return n;
}

void sema_axis(Parser *ps, Token name, Token size)
{
    Prog *p = ps->prog;
    if (!(name.s[0] >= 'A' && name.s[0] <= 'Z')) {
        diag_error(D(ps), name.loc, "axis name '%.*s' must start with an uppercase letter", (int)name.len, name.s);
        return;
    }
    if (size.num == 0) {
        diag_error(D(ps), size.loc, "axis %.*s has size 0; sizes are at least 1", (int)name.len, name.s);
        return;
    }
    Name *n = define(ps, name, NAME_AXIS);
    if (!n)
        return;
    if (p->naxes == p->axes_cap) {
        int cap = p->axes_cap ? 2 * p->axes_cap : 8;
        Axis *a = arena_alloc(&p->arena, (size_t)cap * sizeof *a);
        if (p->naxes)
            memcpy(a, p->axes, (size_t)p->naxes * sizeof *a);
        p->axes = a;
        p->axes_cap = cap;
    }
    n->axis = p->naxes;
    p->axes[p->naxes++] = (Axis){n->name, size.num, name.loc};
}

void sema_const(Parser *ps, Token name, Token value)
{
    Name *n = define(ps, name, NAME_CONST);
    if (n)
        n->value = value.num;
}

void sema_type(Parser *ps, Token name, const Map *m)
{
    Prog *p = ps->prog;
    Name *n = define(ps, name, NAME_TYPE);
    if (!n)
        return;
    n->map = m;
    if (p->ntypes == p->types_cap) {
        int cap = p->types_cap ? 2 * p->types_cap : 8;
        const Name **t = arena_alloc(&p->arena, (size_t)cap * sizeof *t);
        if (p->ntypes)
            memcpy(t, p->types, (size_t)p->ntypes * sizeof *t);
        p->types = t;
        p->types_cap = cap;
    }
    p->types[p->ntypes++] = n;
}

const Map *sema_type_ref(Parser *ps, Token name)
{
    const Name *n = lookup_tok(ps, name);
    if (!n) {
        diag_error(D(ps), name.loc, "undefined mapping '%.*s'", (int)name.len, name.s);
        return NULL;
    }
    if (n->kind != NAME_TYPE) {
        diag_error(D(ps), name.loc, "'%s' is %s, not a mapping; name a type or write m![...]", n->name,
                   n->kind == NAME_AXIS ? "an axis" : "a constant");
        return NULL;
    }
    return n->map;
}

bool sema_index_lit(Parser *ps, MapList *terms)
{
    bool ok = true;
    for (MapList *e = terms; e; e = e->next) {
        if (!e->map) {
            ok = false;
        } else if (e->value >= e->map->size) {
            diag_error(D(ps), e->loc, "index value %llu is out of range for a mapping of size %llu", U(e->value),
                       U(e->map->size));
            ok = false;
        }
    }
    return ok;
}

bool sema_pad_name(Parser *ps, Token name, CellKind *kind)
{
    static const struct { const char *s; CellKind k; } kinds[] = {
        {"top", CELL_PAD_TOP}, {"zero", CELL_PAD_ZERO}, {"bottom", CELL_PAD_BOTTOM}};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strlen(kinds[i].s) == name.len && memcmp(kinds[i].s, name.s, name.len) == 0) {
            *kind = kinds[i].k;
            return true;
        }
    diag_error(D(ps), name.loc, "unknown padding kind '%.*s' (expected top, zero or bottom)", (int)name.len, name.s);
    return false;
}

/* A cell with coordinate storage in the program's arena. */
static Cell new_cell(Prog *p)
{
    return (Cell){.coord = arena_alloc(&p->arena, ((size_t)p->naxes + 1) * sizeof(uint64_t))};
}

static const char *fmt_cell(Prog *p, const Cell *c)
{
    size_t n = cell_format(p, c, NULL, 0);
    char *s = arena_alloc(&p->arena, n + 1);
    cell_format(p, c, s, n + 1);
    return s;
}

void sema_assert_cell(Parser *ps, Loc at, const Map *m, Token pos, const CellLit *expect)
{
    Prog *p = ps->prog;
    if (!m || !expect->ok)
        return;
    p->nasserts++;
    Evaluator *ev = eval_new(p);
    Cell got = new_cell(p), want = new_cell(p);
    EvalStatus st = eval_cell(ev, m, pos.num, &got);
    if (st == EVAL_OK && expect->is_index) {
        int n = 0;
        for (MapList *e = expect->terms; e; e = e->next)
            n++;
        IndexTerm *t = arena_alloc(&p->arena, ((size_t)n + 1) * sizeof *t);
        int i = n;
        for (MapList *e = expect->terms; e; e = e->next) /* newest first: fill from the end */
            t[--i] = (IndexTerm){e->map, e->value};
        st = eval_index(ev, t, n, &want);
    } else {
        want.kind = expect->kind;
    }
    if (st != EVAL_OK) {
        diag_error(D(ps), at, "cannot evaluate the assertion: %s", eval_error(ev));
        p->nasserts_failed++;
    } else if (!cell_equal(&got, &want, p->naxes)) {
        diag_error(D(ps), at, "assertion failed: position %llu is %s, expected %s", U(pos.num), fmt_cell(p, &got),
                   fmt_cell(p, &want));
        p->nasserts_failed++;
    }
    eval_free(ev);
}

void sema_assert_equiv(Parser *ps, Loc at, const Map *a, const Map *b, bool want_equal)
{
    Prog *p = ps->prog;
    if (!a || !b)
        return;
    p->nasserts++;
    Evaluator *ev = eval_new(p);
    EqvResult r = {.c1 = new_cell(p), .c2 = new_cell(p)};
    EvalStatus st = eqv_exhaustive(ev, a, b, MAPC_EXHAUSTIVE_BUDGET, &r);
    if (st != EVAL_OK) {
        diag_error(D(ps), at, "cannot decide the assertion: %s", eval_error(ev));
        p->nasserts_failed++;
    } else if (r.verdict == EQV_UNKNOWN) {
        diag_error(D(ps), at, "cannot decide the assertion: size %llu exceeds the exhaustive budget of %llu positions",
                   U(a->size), U(MAPC_EXHAUSTIVE_BUDGET));
        p->nasserts_failed++;
    } else if (want_equal && r.verdict == EQV_SIZES_DIFFER) {
        diag_error(D(ps), at, "assertion failed: not equivalent: sizes %llu vs %llu", U(a->size), U(b->size));
        p->nasserts_failed++;
    } else if (want_equal && r.verdict == EQV_CELLS_DIFFER) {
        diag_error(D(ps), at, "assertion failed: not equivalent: position %llu: %s vs %s", U(r.pos),
                   fmt_cell(p, &r.c1), fmt_cell(p, &r.c2));
        p->nasserts_failed++;
    } else if (!want_equal && r.verdict == EQV_EQUIVALENT) {
        diag_error(D(ps), at, "assertion failed: the mappings are equivalent");
        p->nasserts_failed++;
    }
    eval_free(ev);
}
