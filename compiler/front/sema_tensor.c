/* sema_tensor.c — tensor declarations (SPEC §5): the memory kind, the element type, the mappings and the
 * tensor rules of algebra/. */
#include "algebra/algebra.h"
#include "front_impl.h"

#include <string.h>

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
