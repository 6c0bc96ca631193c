/* fuzz_movement.c — libFuzzer target: programs with movement assertions, and every sequencer, DMA and tails query
 * over their types and tensors, checked where that is cheap.
 *
 * The bytes are parsed and checked as one program (its `assert sequence(...)` and `assert dma(...)` statements run
 * the derivations). Then consecutive triples of its types are derived as buffer, time and packet in each mode; a
 * derived config whose stream has at most WALK_LIMIT positions must walk the same addresses merged as raw, and
 * its merged entries must be at most its raw ones. Consecutive pairs of types give tails (at most their sizes, the
 * common run no longer than either packet), pairs of tensors DMA commands, and a line "// plan: TEXT" a cost plan.
 * A crash, a sanitizer report, a leak or a broken property is a finding. */
#include "core/ast.h"
#include "front/front.h"
#include "movement/movement.h"

#include <stdlib.h>
#include <string.h>

#define MAX_INPUT 4096
#define MAX_TYPES 9
#define WALK_LIMIT 4096

static void check_sequence(const Prog *p, const Map *b, const Map *t, const Map *k)
{
    for (int mode = MV_READ; mode <= MV_CARVE; mode++) {
        MvSeq s;
        MvDiag d;
        MvCode c = mv_sequence(p, b, t, k, (MvMode)mode, 8, true, &s, &d);
        if (c >= MV_NCODES || (c != MV_OK && !d.msg[0]))
            __builtin_trap(); /* every error has a code and a message */
        if (mv_sequence(p, b, t, k, (MvMode)mode, 8, false, &s, &d) != MV_OK)
            continue;
        if (s.ncfg > s.nraw)
            __builtin_trap();
        uint64_t total;
        if (!u64_mul(t->size, k->size, &total) || total > WALK_LIMIT)
            continue;
        for (uint64_t pos = 0; pos < total; pos++)
            if (mv_walk_addr(s.raw, s.nraw, pos) != mv_walk_addr(s.cfg, s.ncfg, pos))
                __builtin_trap(); /* merging changed an address */
    }
}

static void check_tails(const Prog *p, const Map *a, const Map *b)
{
    if (a->size > WALK_LIMIT || b->size > WALK_LIMIT)
        return;
    uint64_t t[3];
    MvDiag d;
    if (!mv_tails(p, a, b, t, &d))
        return;
    if (t[2] < 1 || t[0] > a->size || t[1] > b->size || (t[2] > t[0] && t[0] < a->size) || (t[2] > t[1] && t[1] < b->size))
        __builtin_trap();
}

static void check_plan(const uint8_t *data, size_t size)
{
    const char *mark = "// plan: ";
    const char *s = memmem(data, size, mark, strlen(mark));
    if (!s)
        return;
    s += strlen(mark);
    const char *e = memchr(s, '\n', (size_t)((const char *)data + size - s));
    size_t n = e ? (size_t)(e - s) : (size_t)((const char *)data + size - s);
    char *text = malloc(n + 1);
    memcpy(text, s, n);
    text[n] = 0;
    MvCmd *cmds;
    uint32_t *per, engines;
    MvDiag d;
    if (strlen(text) == n && mv_plan_parse(text, &cmds, &per, &engines, &d)) {
        mv_cost(cmds, per, engines);
        free(cmds);
        free(per);
    }
    free(text);
}

static void work(const uint8_t *data, size_t size)
{
    Prog *p = prog_new();
    if (!p)
        abort();
    prog_parse(p, "<fuzz>", (const char *)data, size);
    const Map *maps[MAX_TYPES];
    int n = 0;
    for (int i = 0; i < p->ntypes && n < MAX_TYPES; i++)
        if (p->types[i]->map)
            maps[n++] = p->types[i]->map;
    for (int i = 0; i + 2 < n; i++)
        check_sequence(p, maps[i], maps[i + 1], maps[i + 2]);
    for (int i = 0; i + 1 < n; i++)
        check_tails(p, maps[i], maps[i + 1]);
    for (int i = 0; i + 1 < p->ntensors && i < 6; i++) {
        MvDma x;
        MvDiag d;
        if (p->tensors[i] && p->tensors[i + 1])
            mv_dma(p, p->tensors[i], p->tensors[i + 1], NULL, NULL, NULL, i % 2 == 1, &x, &d);
    }
    check_plan(data, size);
    prog_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_INPUT)
        return 0;
    MemGuard g;
    if (MEM_GUARD(g))
        return 0; /* out of memory: not a finding */
    work(data, size);
    mem_guard_release(&g);
    return 0;
}
