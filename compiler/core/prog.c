/* prog.c — the program object: creation, the name table, axis-size overrides, the target ISA and caches. */
#include "ast.h"

#include <stdlib.h>
#include <string.h>

Prog *prog_new(void)
{
    Prog *p = mem_calloc(1, sizeof *p);
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

/* FNV-1a over the name's bytes. */
static size_t name_hash(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3u;
    return (size_t)h;
}

const Name *prog_lookup_n(const Prog *p, const char *name, size_t len)
{
    if (!p->name_cap)
        return NULL;
    for (size_t i = name_hash(name, len) & (p->name_cap - 1);; i = (i + 1) & (p->name_cap - 1)) {
        const Name *n = p->name_slots[i];
        if (!n)
            return NULL;
        if (strncmp(n->name, name, len) == 0 && n->name[len] == 0)
            return n;
    }
}

const Name *prog_lookup(const Prog *p, const char *name) { return prog_lookup_n(p, name, strlen(name)); }

int prog_public_axes(const Prog *p)
{
    int n = 0;
    for (int a = 0; a < p->naxes; a++)
        n += !p->axes[a].local;
    return n;
}

int prog_public_index(const Prog *p, int axis)
{
    if (axis < 0 || axis >= p->naxes || p->axes[axis].local)
        return -1;
    int i = 0;
    for (int a = 0; a < axis; a++)
        i += !p->axes[a].local;
    return i;
}

/* Puts n in the first free slot of its probe sequence. */
static void slot_in(const Name **slots, size_t cap, const Name *n)
{
    size_t i = name_hash(n->name, strlen(n->name)) & (cap - 1);
    while (slots[i])
        i = (i + 1) & (cap - 1);
    slots[i] = n;
}

void prog_add_name(Prog *p, Name *n)
{
    if (2 * (p->nnames + 1) > p->name_cap) { /* at most half full: probes stay short */
        size_t cap = p->name_cap ? 2 * p->name_cap : 64;
        const Name **slots = arena_alloc(&p->arena, cap * sizeof *slots);
        for (size_t i = 0; i < p->name_cap; i++)
            if (p->name_slots[i])
                slot_in(slots, cap, p->name_slots[i]);
        p->name_slots = slots; /* the old table stays in the arena until the program is freed */
        p->name_cap = cap;
    }
    slot_in(p->name_slots, p->name_cap, n);
    p->nnames++;
    n->next = p->names;
    p->names = n;
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

void prog_set_caches(Prog *p, const TargetCaches *c)
{
    p->caches = *c;
}

void prog_set_check_budget(Prog *p, double seconds)
{
    p->check_budget = seconds;
}

const TargetCaches *prog_caches(Prog *p)
{
    if (!p->caches.l1d)
        p->caches = target_host_caches();
    return &p->caches;
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
