/* sema.c — the static rules of SPEC §2, applied as the grammar builds each node, and the
 * declarations and compile-time assertions of a program. */
#include "algebra.h"
#include "front.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

static Diags *D(Parser *ps) { return &ps->prog->diags; }

const Name *sema_lookup(Parser *ps, Token t)
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
const Map *sema_checked(Parser *ps, const Map *m, Loc loc, const char *why)
{
    if (!m)
        diag_error(D(ps), loc, "%s", why);
    return m;
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
        diag_error(D(ps), name.loc, "undefined constant '%.*s'", (int)name.len, name.s);
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
    /* items are newest first: fold from the minor end, so the comma groups to the right */
    const Map *acc = items->map;
    for (MapList *e = items->next; e; e = e->next) {
        MapWhy why;
        acc = sema_checked(ps, map_make_pair(&ps->prog->arena, e->map, acc, e->map->loc, why), e->map->loc, why);
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
    n->next = p->names;
    p->names = n;
    return n;
}

int sema_add_axis(Prog *p, const char *name, uint64_t size, Loc loc)
{
    p->axes = arena_grow(&p->arena, p->axes, p->naxes, &p->axes_cap, sizeof *p->axes);
    p->axes[p->naxes] = (Axis){name, size, loc};
    return p->naxes++;
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
        diag_error(D(ps), name.loc, "undefined mapping '%.*s'", (int)name.len, name.s);
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
    Evaluator *ev = eqv_evaluator_new(p);
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
    eqv_evaluator_free(ev);
}

void sema_assert_equiv(Parser *ps, Loc at, const Map *a, const Map *b, bool want_equal)
{
    Prog *p = ps->prog;
    if (!a || !b)
        return;
    p->nasserts++;
    Eqv *q = eqv_new(p);
    EqvResult r = {.c1 = new_cell(p), .c2 = new_cell(p)};
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
                   fmt_cell(p, &r.c1), fmt_cell(p, &r.c2));
        p->nasserts_failed++;
    } else if (!want_equal && r.verdict == EQV_EQUIVALENT) {
        diag_error(D(ps), at, "assertion failed: the mappings are equivalent");
        p->nasserts_failed++;
    }
    eqv_free(q);
}

/* ---- copy statements (relayout kernels) ---- */

/* Records the digits of a mapping whose bases are all symbols, or padded symbols: per axis, a
 * bitmask-free list of (stride, count) pairs. A padded symbol A # P counts as A: below |A| its
 * coordinate is A's, and a coordinate the proof picks is always below |A|. Returns false for what
 * the static coverage check does not handle: other composite bases, or a resize that truncates
 * (some coordinates then have no position). */
typedef struct CopyDigit {
    int axis;
    uint64_t stride, count;
} CopyDigit;

/* The axis of a digit's base that is a symbol, padded any number of times; -1 for other bases. */
static int copy_base_axis(const Map *x)
{
    while (x->kind == MAP_PAD)
        x = x->l;
    return x->kind == MAP_SYM ? x->axis : -1;
}

static bool copy_digits(const Map *m, CopyDigit *d, int *n, int cap)
{
    switch (m->kind) {
    case MAP_BCAST:
        return true;
    case MAP_SYM:
    case MAP_STRIDE:
    case MAP_MOD: {
        uint64_t s;
        int axis = copy_base_axis(map_digit_root(m, &s));
        if (axis < 0 || *n == cap)
            return false;
        d[(*n)++] = (CopyDigit){axis, s, m->size};
        return true;
    }
    case MAP_RESIZE:
        if (m->l->kind == MAP_SYM || m->l->kind == MAP_STRIDE || m->l->kind == MAP_MOD) {
            /* the first n values of one digit (a tile): positions 0..n-1 are exactly those values */
            if (!copy_digits(m->l, d, n, cap))
                return false;
            d[*n - 1].count = m->n;
            return true;
        }
        return m->n == m->l->size && copy_digits(m->l, d, n, cap);
    case MAP_PAD:
        return copy_digits(m->l, d, n, cap);
    case MAP_PAIR:
        return copy_digits(m->l, d, n, cap) && copy_digits(m->r, d, n, cap);
    }
    return false;
}

/* Static proof that every live cell of dst has a source position: for every axis dst mentions,
 * src's digits of it chain from stride 1 (strides 1, m1, m1·m2, ...) far enough to hold every
 * coordinate dst can hold: the whole axis, or, when dst is made of digits of axes only, one more
 * than the largest sum of dst's digits of that axis (a tile). Each such coordinate then has a
 * position: its mixed-radix digits in the chain, every other digit 0. */
bool sema_copy_covered(const Prog *p, const Map *src, const Map *dst)
{
    enum { CAP = 256 };
    CopyDigit d[CAP], dd[CAP];
    int n = 0, nd = 0;
    if (!copy_digits(src, d, &n, CAP))
        return false;
    bool dst_digits = copy_digits(dst, dd, &nd, CAP);
    bool *used = calloc((size_t)p->naxes + 1, sizeof *used);
    if (!used)
        abort();
    map_mark_axes(dst, used);
    bool ok = true;
    for (int a = 0; a < p->naxes && ok; a++) {
        if (!used[a] || p->axes[a].size == 1)
            continue;
        uint64_t next = 1; /* the stride the next digit must start at */
        for (;;) {
            int found = -1;
            for (int i = 0; i < n; i++)
                if (d[i].axis == a && d[i].stride == next && d[i].count > 1)
                    found = i;
            if (found < 0)
                break;
            next *= d[found].count; /* <= the axis size: a digit never exceeds its base */
        }
        uint64_t need = p->axes[a].size;
        if (dst_digits) {
            need = 1;
            for (int i = 0; i < nd; i++)
                if (dd[i].axis == a)
                    need = u64_sat_add(need, u64_sat_mul(dd[i].count - 1, dd[i].stride));
            if (need > p->axes[a].size)
                need = p->axes[a].size;
        }
        ok = next >= need;
    }
    free(used);
    return ok;
}

static uint64_t copy_hash(const uint64_t *c, int n)
{
    uint64_t h = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < n; i++) {
        h ^= c[i] + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
        h *= 0xbf58476d1ce4e5b9u;
    }
    return h ^ (h >> 31);
}

/* Exhaustive check with the interpreter: the first live cell of dst (in position order) whose
 * index no src position holds is diagnosed. Returns false if it could not decide. */
static bool copy_covered_exhaustively(Parser *ps, Loc at, const char *name, const Map *src, const Map *dst)
{
    Prog *p = ps->prog;
    Evaluator *ev = eqv_evaluator_new(p);
    uint64_t cap = 16;
    while (cap < 2 * src->size)
        cap *= 2;
    uint64_t *slot = malloc(cap * sizeof *slot); /* src position + 1, 0 = empty */
    Cell c = new_cell(p), s = new_cell(p);
    bool decided = slot && ev;
    if (slot)
        memset(slot, 0, cap * sizeof *slot);
    for (uint64_t i = 0; decided && i < src->size; i++) {
        if (eval_cell(ev, src, i, &c) != EVAL_OK) {
            decided = false;
            break;
        }
        if (c.kind != CELL_LIVE)
            continue;
        uint64_t h = copy_hash(c.coord, p->naxes) & (cap - 1);
        for (;; h = (h + 1) & (cap - 1)) {
            if (!slot[h]) {
                slot[h] = i + 1;
                break;
            }
            if (eval_cell(ev, src, slot[h] - 1, &s) != EVAL_OK) {
                decided = false;
                break;
            }
            if (cell_equal(&s, &c, p->naxes))
                break; /* an earlier position holds it already */
        }
    }
    for (uint64_t i = 0; decided && i < dst->size; i++) {
        if (eval_cell(ev, dst, i, &c) != EVAL_OK) {
            decided = false;
            break;
        }
        if (c.kind != CELL_LIVE)
            continue;
        bool found = false;
        for (uint64_t h = copy_hash(c.coord, p->naxes) & (cap - 1); slot[h]; h = (h + 1) & (cap - 1)) {
            if (eval_cell(ev, src, slot[h] - 1, &s) != EVAL_OK) {
                decided = false;
                break;
            }
            if (cell_equal(&s, &c, p->naxes)) {
                found = true;
                break;
            }
        }
        if (decided && !found) {
            diag_error(D(ps), at, "copy %s: destination position %llu holds %s, which no source position holds", name,
                       U(i), fmt_cell(p, &c));
            break;
        }
    }
    free(slot);
    eqv_evaluator_free(ev);
    return decided;
}

void sema_copy(Parser *ps, Loc at, Token name, const Map *src, const Map *dst, Token elem)
{
    Prog *p = ps->prog;
    ElemType parsed;
    int et = elem_type_parse(elem.s, elem.len, &parsed) ? (int)parsed : -1;
    if (et < 0)
        diag_error(D(ps), elem.loc, "unknown element type '%.*s' (expected f32, f64, bf16, f16, i8 or i32)",
                   (int)elem.len, elem.s);
    const char *nm = arena_strndup(&p->arena, name.s, name.len);
    bool dup = false;
    const Name *old = sema_lookup(ps, name);
    if (old) {
        diag_error(D(ps), name.loc, "'%s' is already defined at line %u", nm, old->loc.line);
        dup = true;
    }
    for (int i = 0; i < p->ncopies && !dup; i++)
        if (strcmp(p->copies[i]->name, nm) == 0) {
            diag_error(D(ps), name.loc, "copy '%s' is already defined at line %u", nm, p->copies[i]->loc.line);
            dup = true;
        }
    if (!src || !dst || et < 0 || dup)
        return;
    if (!sema_copy_covered(p, src, dst)) {
        if (src->size > MAPC_EXHAUSTIVE_BUDGET || dst->size > MAPC_EXHAUSTIVE_BUDGET) {
            diag_error(D(ps), at,
                       "copy %s: cannot prove that every destination cell has a source position (the source does "
                       "not tile the axes digit by digit, and the sizes %llu and %llu exceed the budget of %llu)",
                       nm, U(src->size), U(dst->size), U(MAPC_EXHAUSTIVE_BUDGET));
            return;
        }
        int before = p->diags.count;
        if (!copy_covered_exhaustively(ps, at, nm, src, dst)) {
            diag_error(D(ps), at, "copy %s: cannot check the source positions (composite bases undecided)", nm);
            return;
        }
        if (p->diags.count != before)
            return;
    }
    Copy *c = arena_alloc(&p->arena, sizeof *c);
    *c = (Copy){.name = nm, .src = src, .dst = dst, .elem = (ElemType)et, .loc = name.loc};
    p->copies = arena_grow(&p->arena, p->copies, p->ncopies, &p->copies_cap, sizeof *p->copies);
    p->copies[p->ncopies++] = c;
}

void sema_tensor(Parser *ps, Loc at, Token name, Token kind, Token elem, MapList *maps)
{
    Prog *p = ps->prog;
    static const struct { const char *s; MemKind mem; } kinds[] = {
        {"HostTensor", MEM_HOST}, {"HbmTensor", MEM_HBM}, {"DmTensor", MEM_DM}};
    int mem = -1;
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strlen(kinds[i].s) == kind.len && memcmp(kinds[i].s, kind.s, kind.len) == 0)
            mem = (int)kinds[i].mem;
    ElemType et;
    bool ok = true;
    if (mem < 0) {
        diag_error(D(ps), kind.loc, "unknown tensor kind '%.*s' (expected HostTensor, HbmTensor or DmTensor)",
                   (int)kind.len, kind.s);
        ok = false;
    }
    if (!elem_type_parse(elem.s, elem.len, &et)) {
        diag_error(D(ps), elem.loc, "unknown element type '%.*s' (expected f32, f64, bf16, f16, i8 or i32)",
                   (int)elem.len, elem.s);
        ok = false;
    }
    const Map *m[4] = {0};
    int n = 0;
    for (MapList *e = maps; e; e = e->next) /* newest first */
        n++;
    if (mem >= 0 && n != mem_kind_maps((MemKind)mem)) {
        diag_error(D(ps), kind.loc, "%s takes an element type and %d mapping%s, not %d", mem_kind_tensor((MemKind)mem),
                   mem_kind_maps((MemKind)mem), mem_kind_maps((MemKind)mem) > 1 ? "s" : "", n);
        ok = false;
    }
    int i = n;
    for (MapList *e = maps; e; e = e->next) {
        --i;
        if (i < 4)
            m[i] = e->map;
        ok &= e->map != NULL;
    }
    if (!ok)
        return;
    char why[256];
    TensorLimits lim = tensor_default_limits();
    if (!tensor_check(p, (MemKind)mem, et, m, &lim, why, sizeof why)) {
        diag_error(D(ps), at, "%s", why);
        return;
    }
    Name *nm = sema_define(ps, name, NAME_TENSOR);
    if (!nm)
        return;
    TensorDecl *t = arena_alloc(&p->arena, sizeof *t);
    t->name = nm->name;
    t->mem = (MemKind)mem;
    t->elem = et;
    memcpy(t->maps, m, sizeof m);
    t->loc = at;
    nm->tensor = t;
    p->tensors = arena_grow(&p->arena, p->tensors, p->ntensors, &p->tensors_cap, sizeof *p->tensors);
    p->tensors[p->ntensors++] = t;
}
