/* desc_check.c — validation of descriptor fields into checked descriptors (docs/language.md §7), one positioned
 * error per violated rule. */
#include "desc.h"

#include <stdio.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

typedef struct Ctx {
    Prog *p;
    int errors;
} Ctx;

static void err(Ctx *c, Loc at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void err(Ctx *c, Loc at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_verror(&c->p->diags, at, fmt, ap);
    va_end(ap);
    c->errors++;
}

/* Field identities; the seed's own names are accepted as aliases so a hurray descriptor can be
 * transcribed literally. */
enum { F_SHAPE, F_TILE, F_OUTER, F_INNER, F_OSTR, F_ISTR, F_ITILED, F_STRIDES, F_OFFSET, F_N };
static const struct {
    const char *name, *alias;
} field_names[F_N] = {
    {"shape", NULL},          {"tile", "tile_shape"},  {"outer", "outer_layout"}, {"inner", "inner_layout"},
    {"outer_strides", NULL},  {"inner_strides", NULL}, {"inner_tiled", NULL},     {"strides", NULL},
    {"offset", NULL},
};

static const char *order_name(DescOrder o)
{
    switch (o) {
    case DESC_ROW_MAJOR: return "row-major";
    case DESC_COL_MAJOR: return "column-major";
    case DESC_STRIDED: return "strided";
    case DESC_NESTED: return "tiled";
    }
    return "?";
}

/* Sorts a form's fields (given newest first) by identity; unknown and repeated fields are
 * errors. allowed is a bit set of the identities the form takes. */
static void collect(Ctx *c, const DescField *list, unsigned allowed, const char *form, const DescField *f[F_N])
{
    int n = 0;
    for (const DescField *x = list; x; x = x->next)
        n++;
    const DescField **all = arena_alloc(&c->p->arena, (size_t)(n + 1) * sizeof *all);
    int i = n;
    for (const DescField *x = list; x; x = x->next)
        all[--i] = x;
    for (int k = 0; k < F_N; k++)
        f[k] = NULL;
    for (i = 0; i < n; i++) {
        const DescField *x = all[i];
        int id = -1;
        for (int k = 0; k < F_N; k++)
            if ((allowed >> k & 1) && (strcmp(x->key, field_names[k].name) == 0 ||
                                       (field_names[k].alias && strcmp(x->key, field_names[k].alias) == 0)))
                id = k;
        if (id < 0) {
            char expect[256] = "";
            size_t len = 0;
            for (int k = 0; k < F_N; k++)
                if (allowed >> k & 1)
                    len += (size_t)snprintf(expect + len, sizeof expect - len, "%s%s", len ? ", " : "",
                                            field_names[k].name);
            err(c, x->loc, "unknown field '%s' in %s (expected %s)", x->key, form, expect);
        } else if (f[id]) {
            err(c, x->loc, "field '%s' given twice (first at line %u, column %u)", field_names[id].name,
                f[id]->loc.line, f[id]->loc.col);
        } else {
            f[id] = x;
        }
    }
}

/* The items of a list in source order; *n receives their count. */
static const DescItem **items_of(Ctx *c, const DescItem *list, int *n)
{
    int k = 0;
    for (const DescItem *x = list; x; x = x->next)
        k++;
    const DescItem **v = arena_alloc(&c->p->arena, (size_t)(k + 1) * sizeof *v);
    *n = k;
    for (const DescItem *x = list; x; x = x->next)
        v[--k] = x;
    return v;
}

/* A list of numbers (what names it in messages); NULL after an error. */
static uint64_t *numbers(Ctx *c, const DescVal *v, const char *what, int *n)
{
    if (v->kind != DESC_V_LIST && v->kind != DESC_V_CALL) {
        err(c, v->loc, "expected a list of numbers [...] for the %s", what);
        return NULL;
    }
    const DescItem **it = items_of(c, v->items, n);
    uint64_t *out = arena_alloc(&c->p->arena, (size_t)(*n + 1) * sizeof *out);
    bool ok = true;
    for (int i = 0; i < *n; i++) {
        if (it[i]->ident) {
            err(c, it[i]->loc, "expected a number in the %s, found '%s'", what, it[i]->ident);
            ok = false;
        } else if (!it[i]->ok) {
            ok = false;
        }
        out[i] = it[i]->num;
    }
    return ok ? out : NULL;
}

/* The shape: distinct declared axes. */
static bool shape_of(Ctx *c, const DescField *f, Desc *d)
{
    const DescVal *v = f->val;
    if (v->kind != DESC_V_LIST) {
        err(c, v->loc, "expected the shape as a list of axes [A, B, ...]");
        return false;
    }
    int n;
    const DescItem **it = items_of(c, v->items, &n);
    if (n == 0) {
        err(c, v->loc, "the shape is empty; list at least one axis");
        return false;
    }
    d->rank = n;
    d->axes = arena_alloc(&c->p->arena, (size_t)n * sizeof *d->axes);
    d->extent = arena_alloc(&c->p->arena, (size_t)n * sizeof *d->extent);
    bool ok = true;
    for (int i = 0; i < n; i++) {
        if (!it[i]->ident) {
            err(c, it[i]->loc, "expected an axis name in the shape, found a number");
            ok = false;
            continue;
        }
        const Name *nm = prog_lookup(c->p, it[i]->ident);
        if (!nm) {
            err(c, it[i]->loc, "undeclared axis '%s'%s", it[i]->ident,
                prog_did_you_mean(c->p, it[i]->ident, strlen(it[i]->ident), NAME_BIT(NAME_AXIS)));
            ok = false;
            continue;
        }
        if (nm->kind != NAME_AXIS) {
            err(c, it[i]->loc, "'%s' is %s, not an axis", nm->name, nm->kind == NAME_CONST ? "a constant" : "a type");
            ok = false;
            continue;
        }
        d->axes[i] = nm->axis;
        d->extent[i] = c->p->axes[nm->axis].size;
        for (int j = 0; j < i; j++)
            if (d->axes[j] == nm->axis && it[j]->ident) {
                err(c, it[i]->loc, "axis %s appears twice in the shape", nm->name);
                ok = false;
            }
    }
    return ok;
}

/* The rank label used in rank-mismatch messages. */
static const char *rank_owner(int depth) { return depth == 1 ? "the shape" : "the enclosing tile"; }

/* Strides of one side (outer or inner) of a level: from strided[...] or from the separate
 * field, checked against the tag. */
static bool side_strides(Ctx *c, const char *side, DescOrder tag, const DescVal *call, const DescField *field,
                         int rank, int depth, uint64_t **out)
{
    *out = NULL;
    if (call && field) {
        err(c, field->loc, "%s strides given twice (in strided[...] and in %s_strides)", side, side);
        return false;
    }
    if (tag != DESC_STRIDED) {
        if (field) {
            err(c, field->loc, "%s_strides given, but the %s layout is %s (0x%02x); %s strides are present only "
                "with strided (0x03)", side, side, order_name(tag), tag, side);
            return false;
        }
        return true;
    }
    const DescVal *v = call ? call : field ? field->val : NULL;
    if (!v)
        return false; /* diagnosed by the caller, which knows where the tag is */
    int n;
    uint64_t *s = numbers(c, v, call ? "strides" : side[0] == 'o' ? "outer strides" : "inner strides", &n);
    if (!s)
        return false;
    if (n != rank) {
        err(c, v->loc, "%s strides have %d entr%s but %s has rank %d", side, n, n == 1 ? "y" : "ies", rank_owner(depth), rank);
        return false;
    }
    *out = s;
    return true;
}

/* Resolves the outer or inner layout value into a tag; *call receives strided[...]'s value,
 * *nested a tiled![...] value. */
static bool tag_of(Ctx *c, const DescVal *v, bool inner, DescOrder *tag, const DescVal **call, const DescVal **nested)
{
    const char *side = inner ? "inner" : "outer";
    const char *expect = inner ? "row_major, col_major, strided[...], tiled![...] or a tag 0x01..0x04"
                               : "row_major, col_major, strided[...] or a tag 0x01..0x03";
    *call = *nested = NULL;
    switch (v->kind) {
    case DESC_V_WORD:
        if (strcmp(v->word, "row_major") == 0) {
            *tag = DESC_ROW_MAJOR;
        } else if (strcmp(v->word, "col_major") == 0 || strcmp(v->word, "column_major") == 0) {
            *tag = DESC_COL_MAJOR;
        } else if (strcmp(v->word, "strided") == 0) {
            *tag = DESC_STRIDED;
        } else if (inner && strcmp(v->word, "tiled") == 0) {
            *tag = DESC_NESTED;
        } else {
            err(c, v->loc, "unknown %s layout '%s' (expected %s)", side, v->word, expect);
            return false;
        }
        return true;
    case DESC_V_CALL:
        if (strcmp(v->word, "strided") != 0) {
            err(c, v->loc, "unknown %s layout '%s[...]' (expected %s)", side, v->word, expect);
            return false;
        }
        *tag = DESC_STRIDED;
        *call = v;
        return true;
    case DESC_V_NUM:
        if (v->num >= 1 && v->num <= (inner ? 4u : 3u)) {
            *tag = (DescOrder)v->num;
            return true;
        }
        if (inner)
            err(c, v->loc, "unknown inner layout tag 0x%02llx (expected 0x01 row-major, 0x02 column-major, "
                "0x03 strided or 0x04 tiled)", U(v->num));
        else
            err(c, v->loc, "unknown outer layout tag 0x%02llx (expected 0x01 row-major, 0x02 column-major or "
                "0x03 strided%s)", U(v->num), v->num == 4 ? "; 0x04, a nested tiling, is for the inner layout only" : "");
        return false;
    case DESC_V_TILED:
        if (!inner) {
            err(c, v->loc, "the outer layout cannot be tiled![...]; a nested tiling (0x04) is for the inner layout only");
            return false;
        }
        *tag = DESC_NESTED;
        *nested = v;
        return true;
    case DESC_V_LIST:
        break;
    }
    err(c, v->loc, "expected the %s layout (%s), found a list", side, expect);
    return false;
}

static DescLevel *level_of(Ctx *c, const DescField *fields, Loc at, int rank, int depth, Desc *top);

/* Checks one tiled level (depth 1 is the outermost); top is non-NULL only at depth 1, where
 * the shape is read into it. NULL after errors. */
static DescLevel *level_of(Ctx *c, const DescField *fields, Loc at, int rank, int depth, Desc *top)
{
    if (depth > DESC_MAX_DEPTH) {
        err(c, at, "tiled layout nested deeper than %d levels", DESC_MAX_DEPTH);
        return NULL;
    }
    const DescField *f[F_N];
    unsigned allowed = (1u << F_SHAPE) | (1u << F_TILE) | (1u << F_OUTER) | (1u << F_INNER) | (1u << F_OSTR) |
                       (1u << F_ISTR) | (1u << F_ITILED);
    int before = c->errors;
    collect(c, fields, allowed, "tiled![...]", f);
    bool ok = true;
    if (top) {
        if (!f[F_SHAPE]) {
            err(c, at, "tiled![...] needs 'shape' (the tensor's axes)");
            ok = false;
        } else if (!shape_of(c, f[F_SHAPE], top)) {
            ok = false;
        } else {
            rank = top->rank;
        }
    } else if (f[F_SHAPE]) {
        err(c, f[F_SHAPE]->loc, "a nested tiled layout takes its shape from the enclosing tile; remove 'shape'");
        ok = false;
    }
    static const int required[] = {F_TILE, F_OUTER, F_INNER};
    static const char *const why[] = {"the tile extents", "the tile order", "the element order inside a tile"};
    for (int k = 0; k < 3; k++)
        if (!f[required[k]]) {
            err(c, at, "tiled![...] needs '%s' (%s)", field_names[required[k]].name, why[k]);
            ok = false;
        }

    DescLevel *L = arena_alloc(&c->p->arena, sizeof *L);
    if (f[F_TILE]) {
        int n;
        L->tile = numbers(c, f[F_TILE]->val, "tile", &n);
        if (L->tile && ok && n != rank) {
            err(c, f[F_TILE]->val->loc, "tile has %d extent%s but %s has rank %d", n, n == 1 ? "" : "s", rank_owner(depth),
                rank);
            ok = false;
        }
        if (L->tile) {
            int k;
            const DescItem **it = items_of(c, f[F_TILE]->val->items, &k);
            for (int i = 0; i < n; i++)
                if (L->tile[i] == 0) {
                    if (top && top->axes && i < top->rank && ok)
                        err(c, it[i]->loc, "tile extent 0 for axis %s: tile extents must be at least 1",
                            c->p->axes[top->axes[i]].name);
                    else
                        err(c, it[i]->loc, "tile extent 0: tile extents must be at least 1");
                    ok = false;
                }
        } else {
            ok = false;
        }
    }
    const DescVal *ocall = NULL, *icall = NULL, *nested = NULL, *unused;
    if (f[F_OUTER]) {
        if (!tag_of(c, f[F_OUTER]->val, false, &L->outer, &ocall, &unused)) {
            ok = false;
        } else {
            if (L->outer == DESC_STRIDED && !ocall && !f[F_OSTR]) {
                err(c, f[F_OUTER]->val->loc, "outer layout strided (0x03) needs its strides in tiles: "
                    "write strided[...] or outer_strides: [...]");
                ok = false;
            }
            ok &= side_strides(c, "outer", L->outer, ocall, f[F_OSTR], rank, depth, &L->outer_strides);
        }
    } else if (f[F_OSTR]) {
        err(c, f[F_OSTR]->loc, "outer_strides given without an outer layout");
        ok = false;
    }
    if (f[F_INNER]) {
        if (!tag_of(c, f[F_INNER]->val, true, &L->inner, &icall, &nested)) {
            ok = false;
        } else {
            if (L->inner == DESC_STRIDED && !icall && !f[F_ISTR]) {
                err(c, f[F_INNER]->val->loc, "inner layout strided (0x03) needs its strides in elements: "
                    "write strided[...] or inner_strides: [...]");
                ok = false;
            }
            ok &= side_strides(c, "inner", L->inner, icall, f[F_ISTR], rank, depth, &L->inner_strides);
            if (nested && f[F_ITILED]) {
                err(c, f[F_ITILED]->loc, "nested layout given twice (in inner: tiled![...] and in inner_tiled)");
                ok = false;
            } else if (L->inner != DESC_NESTED && f[F_ITILED]) {
                err(c, f[F_ITILED]->loc, "inner_tiled given, but the inner layout is %s (0x%02x); a nested layout "
                    "is present only with tiled (0x04)", order_name(L->inner), L->inner);
                ok = false;
            } else if (L->inner == DESC_NESTED && !nested && !f[F_ITILED]) {
                err(c, f[F_INNER]->val->loc, "inner layout tiled (0x04) needs its nested layout: "
                    "write tiled![...] or inner_tiled: tiled![...]");
                ok = false;
            } else if (L->inner == DESC_NESTED) {
                const DescVal *nv = nested ? nested : f[F_ITILED]->val;
                if (nv->kind != DESC_V_TILED) {
                    err(c, nv->loc, "inner_tiled must be a tiled![...] layout");
                    ok = false;
                } else {
                    /* the nested level is checked even if this one had errors, as long as the
                     * rank is known, so that every error of the descriptor is reported */
                    L->nested = level_of(c, nv->fields, nv->loc, rank, depth + 1, NULL);
                    ok &= L->nested != NULL;
                }
            }
        }
    } else if (f[F_ISTR] || f[F_ITILED]) {
        const DescField *x = f[F_ISTR] ? f[F_ISTR] : f[F_ITILED];
        err(c, x->loc, "%s given without an inner layout", x->key);
        ok = false;
    }
    return ok && c->errors == before ? L : NULL;
}

const Desc *desc_from_fields(Prog *p, DescKind kind, Loc at, const DescField *fields)
{
    Ctx c = {p, 0};
    Desc *d = arena_alloc(&p->arena, sizeof *d);
    d->kind = kind;
    d->loc = at;
    if (kind == DESC_KIND_TILED) {
        d->tiled = level_of(&c, fields, at, 0, 1, d);
        return d->tiled && !c.errors ? d : NULL;
    }
    const DescField *f[F_N];
    collect(&c, fields, (1u << F_SHAPE) | (1u << F_STRIDES) | (1u << F_OFFSET), "strided![...]", f);
    /* MLIR's strided<[...], offset: N>: element (i, j) at N + i*RS + j*CS. Only 0 has a mapping: a mapping's
     * position 0 always holds an element. */
    if (f[F_OFFSET] && (f[F_OFFSET]->val->kind != DESC_V_NUM || f[F_OFFSET]->val->num != 0)) {
        if (f[F_OFFSET]->val->kind != DESC_V_NUM)
            err(&c, f[F_OFFSET]->val->loc, "the offset is a number (in elements)");
        else
            err(&c, f[F_OFFSET]->val->loc, "offset %llu leaves positions 0..%llu before the first element, and a "
                "mapping's position 0 always holds one; describe the buffer from its offset on (offset: 0)",
                U(f[F_OFFSET]->val->num), U(f[F_OFFSET]->val->num - 1));
    }
    bool ok = true;
    if (!f[F_SHAPE]) {
        err(&c, at, "strided![...] needs 'shape' (the tensor's axes)");
        ok = false;
    } else {
        ok &= shape_of(&c, f[F_SHAPE], d);
    }
    if (!f[F_STRIDES]) {
        err(&c, at, "strided![...] needs 'strides' (in elements, one per axis)");
        ok = false;
    } else {
        int n;
        d->strides = numbers(&c, f[F_STRIDES]->val, "strides", &n);
        if (d->strides && ok && n != d->rank)
            err(&c, f[F_STRIDES]->val->loc, "strides have %d entr%s but the shape has rank %d", n, n == 1 ? "y" : "ies",
                d->rank);
    }
    return !c.errors && d->strides ? d : NULL;
}
