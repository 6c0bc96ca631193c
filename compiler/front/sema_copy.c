/* sema_copy.c — copy statements (relayout kernels): the name, the element type, and that every live
 * destination cell has a source position (proved from the digits, else checked exhaustively). */
#include "algebra/algebra.h"
#include "front_impl.h"

#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))


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
    Cell c = sema_new_cell(p), s = sema_new_cell(p);
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
                       U(i), sema_cell_text(p, &c));
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
    if (!cover_proved(p, src, dst)) {
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

