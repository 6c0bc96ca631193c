/* cmd_equiv.c — "mapc equiv": are two mappings the same layout? (the complete decision of algebra.h) */
#include "algebra/algebra.h"
#include "driver.h"

#include <stdlib.h>

int cmd_equiv(int argc, char **argv)
{
    int st = drv_no_options("equiv", argc, argv, 0);
    if (st != DRV_EXIT_OK)
        return st;
    if (argc != 3)
        return drv_usage_error("equiv needs FILE, NAME1 and NAME2%s", "");
    Prog *p = drv_load(argv[0], false);
    if (!p)
        return DRV_EXIT_INPUT;
    const Map *a = drv_resolve(p, argv[1]);
    const Map *b = a ? drv_resolve(p, argv[2]) : NULL;
    if (!a || !b) {
        prog_free(p);
        return DRV_EXIT_INPUT;
    }
    Eqv *q = eqv_new(p);
    EqvResult r = {.c1.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t)),
                   .c2.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    int status = DRV_EXIT_INPUT;
    if (!q || !r.c1.coord || !r.c2.coord) {
        fprintf(stderr, "mapc: out of memory\n");
        goto out;
    }
    eqv_decide(q, a, b, &r);
    if (r.verdict == EQV_UNKNOWN) {
        fprintf(stderr, "mapc: cannot decide: %s\n", eqv_error(q));
    } else if (r.verdict == EQV_EQUIVALENT) {
        printf("equivalent\n");
        status = DRV_EXIT_OK;
    } else if (r.verdict == EQV_SIZES_DIFFER) {
        printf("not equivalent: sizes %llu vs %llu\n", (unsigned long long)a->size, (unsigned long long)b->size);
    } else {
        char *s1 = drv_fmt_cell(p, &r.c1), *s2 = drv_fmt_cell(p, &r.c2);
        printf("not equivalent: position %llu: %s vs %s\n", (unsigned long long)r.pos, s1, s2);
        free(s1);
        free(s2);
    }
out:
    free(r.c1.coord);
    free(r.c2.coord);
    eqv_free(q);
    prog_free(p);
    return status;
}
