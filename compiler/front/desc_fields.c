/* desc_fields.c — the raw fields of tiled![...] and strided![...] as the grammar collects them (desc/ checks them). */
#include "front_impl.h"
#include "parser.h"

DescItem *desc_syn_item(Parser *ps, DescItem *list, Token t, uint64_t num, bool ok)
{
    DescItem *e = arena_alloc(&ps->prog->arena, sizeof *e);
    if (t.kind == TK_IDENT)
        e->ident = arena_strndup(&ps->prog->arena, t.s, t.len);
    e->num = num;
    e->ok = ok;
    e->loc = t.loc;
    e->next = list;
    return e;
}

DescVal *desc_syn_value(Parser *ps, DescValKind kind, Token at, DescItem *items, DescField *fields)
{
    DescVal *v = arena_alloc(&ps->prog->arena, sizeof *v);
    v->kind = kind;
    if (kind == DESC_V_WORD || kind == DESC_V_CALL)
        v->word = arena_strndup(&ps->prog->arena, at.s, at.len);
    v->num = at.num;
    v->items = items;
    v->fields = fields;
    v->loc = at.loc;
    return v;
}

DescField *desc_syn_field(Parser *ps, DescField *list, Token key, DescVal *val)
{
    DescField *f = arena_alloc(&ps->prog->arena, sizeof *f);
    f->key = arena_strndup(&ps->prog->arena, key.s, key.len);
    f->val = val;
    f->loc = key.loc;
    f->next = list;
    return f;
}
