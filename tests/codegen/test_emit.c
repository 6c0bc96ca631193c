/* test_emit.c — an object written by `mapc emit` (at build time, with --header and --prefix), linked
 * into this program: every type's functions and every copy kernel agree with the interpreter. */
#include "cgtest.h"
#include "emit_cases.h"
#include "eval/eval.h"
#include "front/front.h"

#include <stdlib.h>
#include <string.h>

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    *len = fread(s, 1, (size_t)n, f);
    fclose(f);
    return s;
}

typedef void (*CopyFn)(void *dst, const void *src);

/* One copy against the interpreted copy (poisoned destination, distinct source bytes). */
static int check_copy(const Prog *p, const char *src_name, const char *dst_name, CopyFn fn, unsigned es)
{
    const Map *s = prog_lookup(p, src_name)->map, *d = prog_lookup(p, dst_name)->map;
    int na = p->naxes, bad = 0;
    unsigned char *sb = malloc(s->size * es), *db = malloc(d->size * es);
    for (uint64_t i = 0; i < s->size * es; i++)
        sb[i] = (unsigned char)(i * 29 + 3 + (i >> 8));
    memset(db, 0x5A, d->size * es);
    fn(db, sb);
    Evaluator *ev = eval_new(p);
    Cell c = {.coord = calloc((size_t)na + 1, sizeof(uint64_t))}, e = {.coord = calloc((size_t)na + 1, sizeof(uint64_t))};
    for (uint64_t pos = 0; pos < d->size && !bad; pos++) {
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
        if (memcmp(want, db + pos * es, es) != 0) {
            printf("FAIL copy %s -> %s: position %llu\n", src_name, dst_name, (unsigned long long)pos);
            bad = 1;
        }
    }
    free(c.coord);
    free(e.coord);
    eval_free(ev);
    free(sb);
    free(db);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        printf("usage: test_emit emit_cases.map\n0 passed, 1 failed\n");
        return 1;
    }
    size_t len = 0;
    char *text = read_all(argv[1], &len);
    Prog *p = prog_new();
    if (!text || prog_parse(p, argv[1], text, len) != 0) {
        printf("FAIL: cannot load %s\n0 passed, 1 failed\n", argv[1]);
        return 1;
    }
    int passed = 0, failed = 0;
    struct { const char *name; CellFn cell; OffsetFn offset; EachFn each; } types[] = {
#define T(n) {#n, (CellFn)emt_##n##_cell, (OffsetFn)emt_##n##_offset, (EachFn)emt_##n##_each}
        T(Row), T(Tr), T(Blk), T(Pad), T(Bot), T(Ovf), T(Comp), T(Split),
#undef T
    };
    if (emt_NAXES != p->naxes || emt_Pad_SIZE != 160) {
        printf("FAIL: header constants\n");
        failed++;
    }
    for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
        int f = cgtest_check_type(p, prog_lookup(p, types[i].name)->map, types[i].name, types[i].cell,
                                  types[i].offset, types[i].each, i);
        f ? failed++ : passed++;
    }
    int f;
    f = check_copy(p, "Row", "Blk", emt_row_to_blk, 4);
    f ? failed++ : passed++;
    f = check_copy(p, "Blk", "Tr", emt_blk_to_tr, 2);
    f ? failed++ : passed++;
    f = check_copy(p, "Tr", "Pad", emt_pad_rows, 8);
    f ? failed++ : passed++;
    f = check_copy(p, "Row", "Bot", emt_bottom, 1);
    f ? failed++ : passed++;
    prog_free(p);
    free(text);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
