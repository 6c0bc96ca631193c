/* sema.c — the static rules of docs/language.md §2, applied as the grammar builds each node, and the
 * declarations and compile-time assertions of a program. */
#include "algebra/algebra.h"
#include "front_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define U(x) ((unsigned long long)(x))


static bool is_defining(Parser *ps, Token t)
{
    return ps->defining && strlen(ps->defining) == t.len && memcmp(ps->defining, t.s, t.len) == 0;
}

/* The symbol of axis a, written at name. */
static const Map *symbol_at(Parser *ps, int a, Token name)
{
    MapWhy why;
    return sema_checked(ps, map_make_sym(&ps->prog->arena, a, ps->prog->axes[a].size, name.loc, why), name.loc, why);
}

const Map *sema_symbol(Parser *ps, Token name)
{
    int tile;
    if (sema_kernel_axis(ps, name, &tile))
        return tile < 0 ? NULL : symbol_at(ps, tile, name);
    const Name *n = sema_lookup(ps, name);
    if (!n) {
        if (is_defining(ps, name))
            diag_error(D(ps), name.loc, "type '%.*s' refers to itself", (int)name.len, name.s);
        else
            diag_error(D(ps), name.loc, "undeclared axis '%.*s'%s", (int)name.len, name.s,
                       prog_did_you_mean(ps->prog, name.s, name.len, NAME_BIT(NAME_AXIS)));
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
    if (n->kind != NAME_AXIS) {
        diag_error(D(ps), name.loc, "'%s' is %s, not an axis", n->name, name_kind_phrase(n->kind));
        return NULL;
    }
    return symbol_at(ps, n->axis, name);
}

const Map *sema_broadcast(Parser *ps, Token num)
{
    MapWhy why;
    return sema_checked(ps, map_make_bcast(&ps->prog->arena, num.num, num.loc, why), num.loc, why);
}

const Map *sema_escape_type(Parser *ps, Token name)
{
    const Name *n = sema_lookup(ps, name);
    if (!n) {
        if (is_defining(ps, name))
            diag_error(D(ps), name.loc, "type '%.*s' refers to itself", (int)name.len, name.s);
        else
            diag_error(D(ps), name.loc, "undefined name '%.*s'%s", (int)name.len, name.s,
                       prog_did_you_mean(ps->prog, name.s, name.len, NAME_BIT(NAME_TYPE) | NAME_BIT(NAME_CONST)));
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
    case NAME_TENSOR:
        diag_error(D(ps), name.loc, "'%s' is a tensor, not a mapping", n->name);
        return NULL;
    case NAME_KERNEL:
        diag_error(D(ps), name.loc, "'%s' is a kernel, not a mapping", n->name);
        return NULL;
    }
    return NULL;
}

bool sema_escape_const(Parser *ps, Token name, uint64_t *value)
{
    const Name *n = sema_lookup(ps, name);
    if (!n) {
        diag_error(D(ps), name.loc, "undefined constant '%.*s'%s", (int)name.len, name.s,
                   prog_did_you_mean(ps->prog, name.s, name.len, NAME_BIT(NAME_CONST)));
        return false;
    }
    if (n->kind != NAME_CONST) {
        diag_error(D(ps), name.loc, "'%s' is %s, not a constant", n->name, name_kind_phrase(n->kind));
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
    return sema_checked(ps, map_make_op(&ps->prog->arena, kind, pad, l, n, loc, why), loc, why);
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
    /* items are newest first: fold from the minor end, so the comma groups to the right; a failed pair is
     * reported at its comma (the loc of the item after it), here, even when its operands are escapes of types
     * defined elsewhere */
    const Map *acc = items->map;
    for (MapList *prev = items, *e = items->next; e; prev = e, e = e->next) {
        MapWhy why;
        acc = sema_checked(ps, map_make_pair(&ps->prog->arena, e->map, acc, e->map->loc, why), prev->loc, why);
        if (!acc)
            return NULL;
    }
    return acc;
}

/* tiled![...] and strided![...]: checked against the seed's rules, then converted (desc.h). */
const Map *sema_tiled(Parser *ps, Loc at, const DescField *fields)
{
    const Desc *d = desc_from_fields(ps->prog, DESC_KIND_TILED, at, fields);
    return d ? desc_to_map(ps->prog, d, D(ps)) : NULL;
}

const Map *sema_strided(Parser *ps, Loc at, const DescField *fields)
{
    const Desc *d = desc_from_fields(ps->prog, DESC_KIND_STRIDED, at, fields);
    return d ? desc_to_map(ps->prog, d, D(ps)) : NULL;
}

void sema_axis(Parser *ps, Token name, Token size)
{
    Prog *p = ps->prog;
    if (!(name.s[0] >= 'A' && name.s[0] <= 'Z')) {
        diag_error(D(ps), name.loc, "axis name '%.*s' must start with an uppercase letter", (int)name.len, name.s);
        return;
    }
    for (const AxisOverride *o = p->overrides; o; o = o->next)
        if (strlen(o->name) == name.len && memcmp(o->name, name.s, name.len) == 0) {
            size.num = o->size; /* newest first: the last override of the name wins */
            break;
        }
    if (size.num == 0) {
        diag_error(D(ps), size.loc, "axis %.*s has size 0; sizes are at least 1", (int)name.len, name.s);
        return;
    }
    Name *n = sema_define(ps, name, NAME_AXIS);
    if (n)
        n->axis = sema_add_axis(p, n->name, size.num, name.loc);
}

void sema_const(Parser *ps, Token name, Token value)
{
    Name *n = sema_define(ps, name, NAME_CONST);
    if (n)
        n->value = value.num;
}

void sema_type(Parser *ps, Token name, const Map *m)
{
    Prog *p = ps->prog;
    Name *n = sema_define(ps, name, NAME_TYPE);
    if (!n)
        return;
    n->map = m;
    p->types = arena_grow(&p->arena, p->types, p->ntypes, &p->types_cap, sizeof *p->types);
    p->types[p->ntypes++] = n;
}

const Map *sema_type_ref(Parser *ps, Token name)
{
    const Name *n = sema_lookup(ps, name);
    if (!n) {
        diag_error(D(ps), name.loc, "undefined mapping '%.*s'%s", (int)name.len, name.s,
                   prog_did_you_mean(ps->prog, name.s, name.len, NAME_BIT(NAME_TYPE)));
        return NULL;
    }
    if (n->kind != NAME_TYPE) {
        diag_error(D(ps), name.loc, "'%s' is %s, not a mapping; name a type or write m![...]", n->name,
                   name_kind_phrase(n->kind));
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

/* CPU seconds of the calling thread (the one checking the program). */
static double thread_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Whether the assertion at `at` may be checked: the assertions before it took less than the program's budget.
 * Otherwise it counts as failed, and the first assertion so refused is reported. */
static bool budget_allows(Parser *ps, Loc at)
{
    Prog *p = ps->prog;
    double budget = p->check_budget > 0 ? p->check_budget : MAPC_CHECK_BUDGET_SECONDS;
    if (p->check_spent < budget)
        return true;
    if (p->nasserts_skipped++ == 0)
        diag_error(D(ps), at, "cannot decide the assertion: the program's assertions exceed their budget of %g s of "
                   "CPU time (%.1f s spent); it and the assertions after it are not checked", budget, p->check_spent);
    p->nasserts_failed++;
    return false;
}

void sema_assert_cell(Parser *ps, Loc at, const Map *m, Token pos, const CellLit *expect)
{
    Prog *p = ps->prog;
    if (!m || !expect->ok)
        return;
    p->nasserts++;
    if (!budget_allows(ps, at))
        return;
    double start = thread_seconds();
    Evaluator *ev = eqv_evaluator_new(p);
    Cell got = sema_new_cell(p), want = sema_new_cell(p);
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
        diag_error(D(ps), at, "assertion failed: position %llu is %s, expected %s", U(pos.num), sema_cell_text(p, &got),
                   sema_cell_text(p, &want));
        p->nasserts_failed++;
    }
    eqv_evaluator_free(ev);
    p->check_spent += thread_seconds() - start;
}

void sema_assert_equiv(Parser *ps, Loc at, const Map *a, const Map *b, bool want_equal)
{
    Prog *p = ps->prog;
    if (!a || !b)
        return;
    p->nasserts++;
    if (!budget_allows(ps, at))
        return;
    double start = thread_seconds();
    Eqv *q = eqv_new(p);
    EqvResult r = {.c1 = sema_new_cell(p), .c2 = sema_new_cell(p)};
    if (q)
        eqv_decide(q, a, b, &r);
    if (!q || r.verdict == EQV_UNKNOWN) {
        diag_error(D(ps), at, "cannot decide the assertion: %s", q ? eqv_error(q) : "out of memory");
        p->nasserts_failed++;
    } else if (want_equal && r.verdict == EQV_SIZES_DIFFER) {
        diag_error(D(ps), at, "assertion failed: not equivalent: sizes %llu vs %llu", U(a->size), U(b->size));
        p->nasserts_failed++;
    } else if (want_equal && r.verdict == EQV_CELLS_DIFFER) {
        diag_error(D(ps), at, "assertion failed: not equivalent: position %llu: %s vs %s", U(r.pos),
                   sema_cell_text(p, &r.c1), sema_cell_text(p, &r.c2));
        p->nasserts_failed++;
    } else if (!want_equal && r.verdict == EQV_EQUIVALENT) {
        diag_error(D(ps), at, "assertion failed: the mappings are equivalent");
        p->nasserts_failed++;
    }
    eqv_free(q);
    p->check_spent += thread_seconds() - start;
}

