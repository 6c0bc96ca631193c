/* prog.c — the program object: creation, the name table, axis-size overrides and the target ISA. */
#include "ast.h"

#include <stdlib.h>
#include <string.h>

Prog *prog_new(void)
{
    Prog *p = calloc(1, sizeof *p);
    if (p)
        diags_init(&p->diags, &p->arena);
    return p;
}

void prog_free(Prog *p)
{
    if (!p)
        return;
    arena_free(&p->arena);
    free(p);
}

const Name *prog_lookup(const Prog *p, const char *name)
{
    for (const Name *n = p->names; n; n = n->next)
        if (strcmp(n->name, name) == 0)
            return n;
    return NULL;
}

void prog_override_axis(Prog *p, const char *name, uint64_t size)
{
    AxisOverride *o = arena_alloc(&p->arena, sizeof *o);
    *o = (AxisOverride){arena_strndup(&p->arena, name, strlen(name)), size, p->overrides};
    p->overrides = o;
}

void prog_set_target(Prog *p, TargetIsa isa)
{
    p->target = isa;
}

const char *name_kind_phrase(NameKind k)
{
    switch (k) {
    case NAME_AXIS: return "an axis";
    case NAME_CONST: return "a constant";
    case NAME_TYPE: return "a type";
    case NAME_TENSOR: return "a tensor";
    case NAME_KERNEL: return "a kernel";
    }
    return "a name";
}
