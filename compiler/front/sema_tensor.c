/* sema_tensor.c — tensor declarations (docs/language.md §5): the memory kind, the element type, the mappings and the
 * tensor rules of algebra/. */
#include "algebra/algebra.h"
#include "front_impl.h"

#include <string.h>

/* The tensor's own axes "NAME[A, B]" (items newest first) as flags over the program's axes, in the arena;
 * NULL after a diagnostic. */
static bool *named_axes(Parser *ps, KItem *items)
{
    Prog *p = ps->prog;
    bool *axes = arena_alloc(&p->arena, (size_t)p->naxes + 1);
    bool ok = true;
    for (KItem *it = items; it; it = it->next) {
        const Name *n = it->kind == KITEM_NAME ? sema_lookup(ps, it->name) : NULL;
        if (it->kind != KITEM_NAME) {
            diag_error(D(ps), it->name.loc, "a tensor's axes are a list of axis names, as in T[M, K]");
            ok = false;
        } else if (!n || n->kind != NAME_AXIS) {
            diag_error(D(ps), it->name.loc, "'%.*s' is %s, not an axis", (int)it->name.len, it->name.s,
                       n ? name_kind_phrase(n->kind) : "undeclared");
            ok = false;
        } else if (axes[n->axis]) {
            diag_error(D(ps), it->name.loc, "axis %s is named twice", n->name);
            ok = false;
        } else {
            axes[n->axis] = true;
        }
    }
    return ok ? axes : NULL;
}

void sema_tensor(Parser *ps, Loc at, Token name, KItem *axis_items, Token kind, Token elem, MapList *maps)
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
    bool *axes = axis_items ? named_axes(ps, axis_items) : NULL;
    ok &= !axis_items || axes;
    char why[512];
    TensorLimits lim = tensor_default_limits();
    if (ok && !tensor_check(p, (MemKind)mem, et, m, axes, &lim, why, sizeof why)) {
        diag_error(D(ps), at, "tensor %.*s: %s", (int)name.len, name.s, why);
        ok = false;
    }
    /* a rejected tensor keeps its name, with no declaration: its uses say nothing more (one error, here) */
    Name *nm = sema_define(ps, name, NAME_TENSOR);
    if (!nm || !ok)
        return;
    TensorDecl *t = arena_alloc(&p->arena, sizeof *t);
    t->name = nm->name;
    t->mem = (MemKind)mem;
    t->elem = et;
    memcpy(t->maps, m, sizeof m);
    t->axes = axes;
    t->axes_n = axes ? p->naxes : 0;
    t->loc = at;
    nm->tensor = t;
    p->tensors = arena_grow(&p->arena, p->tensors, p->ntensors, &p->tensors_cap, sizeof *p->tensors);
    p->tensors[p->ntensors++] = t;
}

void sema_tensor_rejected(Parser *ps, Token name)
{
    sema_define(ps, name, NAME_TENSOR);
}
