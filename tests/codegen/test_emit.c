/* test_emit.c — an object written by `mapc emit` (at build time, with --header and --prefix), linked
 * into this program: every type's functions and every copy kernel agree with the interpreter. */
#include "cgtest.h"
#include "emit_cases.h"
#include "eval/eval.h"
#include "front/front.h"
#include "harness.h"

#include <stdlib.h>
#include <string.h>

typedef void (*CopyFn)(void *dst, const void *src);

/* One case: a copy against the interpreted copy (poisoned destination, distinct source bytes). */
static void check_copy(const Prog *p, const char *src_name, const char *dst_name, CopyFn fn, unsigned es)
{
    const Map *s = prog_lookup(p, src_name)->map, *d = prog_lookup(p, dst_name)->map;
    int na = p->naxes;
    uint64_t wrong = UINT64_MAX; /* the first destination position that differs */
    unsigned char *sb = malloc(s->size * es), *db = malloc(d->size * es);
    for (uint64_t i = 0; i < s->size * es; i++)
        sb[i] = (unsigned char)(i * 29 + 3 + (i >> 8));
    memset(db, 0x5A, d->size * es);
    fn(db, sb);
    Evaluator *ev = eval_new(p);
    Cell c = {.coord = calloc((size_t)na + 1, sizeof(uint64_t))}, e = {.coord = calloc((size_t)na + 1, sizeof(uint64_t))};
    for (uint64_t pos = 0; pos < d->size && wrong == UINT64_MAX; pos++) {
        eval_cell(ev, d, pos, &c);
        unsigned char want[8];
        memset(want, c.kind == CELL_PAD_ZERO ? 0 : 0x5A, sizeof want);
        if (c.kind == CELL_LIVE) {
            uint64_t q = 0;
            for (; q < s->size; q++) {
                eval_cell(ev, s, q, &e);
                if (cell_equal(&c, &e, na))
                    break;
            }
            memcpy(want, sb + q * es, es);
        }
        if (memcmp(want, db + pos * es, es) != 0)
            wrong = pos;
    }
    CHECK(wrong == UINT64_MAX, "copy %s -> %s: destination position %llu differs from the interpreted copy",
          src_name, dst_name, (unsigned long long)wrong);
    free(c.coord);
    free(e.coord);
    eval_free(ev);
    free(sb);
    free(db);
}

int main(int argc, char **argv)
{
    HarnessArgs a = {0};
    harness_args(argc, argv, "FILE", &a); /* FILE: emit_cases.map, the source of the linked object */
    size_t len = 0;
    char *text = harness_read_file(a.word, &len);
    Prog *p = prog_new();
    if (!text || prog_parse(p, a.word, text, len) != 0) {
        FAIL("cannot load %s", a.word);
        return harness_report();
    }
    struct { const char *name; CellFn cell; OffsetFn offset; EachFn each; } types[] = {
#define T(n) {#n, (CellFn)emt_##n##_cell, (OffsetFn)emt_##n##_offset, (EachFn)emt_##n##_each}
        T(Row), T(Tr), T(Blk), T(Pad), T(Bot), T(Ovf), T(Comp), T(Split),
#undef T
    };
    CHECK_EQ_INT(emt_NAXES, p->naxes, "header constant NAXES");
    CHECK_EQ_U64(emt_Pad_SIZE, 160, "header constant Pad_SIZE");
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        cgtest_check_type(p, prog_lookup(p, types[i].name)->map, types[i].name, types[i].cell, types[i].offset,
                          types[i].each, i);
    check_copy(p, "Row", "Blk", emt_row_to_blk, 4);
    check_copy(p, "Blk", "Tr", emt_blk_to_tr, 2);
    check_copy(p, "Tr", "Pad", emt_pad_rows, 8);
    check_copy(p, "Row", "Bot", emt_bottom, 1);
    prog_free(p);
    free(text);
    return harness_report();
}
