/* cmd_algebra.c — "mapc algebra": evaluate one layout-algebra call (docs/algebra.md, algebra/alg_call.c) and print its
 * result, or check it against a proposed mapping. */
#include "algebra/alg_call.h"
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

int cmd_algebra(int argc, char **argv)
{
    bool check = false;
    int kept = 0;
    for (int i = 0; i < argc; i++) /* --check anywhere */
        if (strcmp(argv[i], "--check") == 0)
            check = true;
        else
            argv[kept++] = argv[i];
    argc = kept;
    for (int i = 0; i < argc; i++)
        if (drv_is_option(argv[i]) && (i > 0 || strcmp(argv[i], "-") != 0)) {
            static const char *const known[] = {"--check", "--help", "--color", NULL};
            return drv_unknown_option("algebra", argv[i], known);
        }
    if (argc != (check ? 3 : 2))
        return drv_usage_error(check ? "algebra --check needs FILE, CALL and a proposed m![...]%s"
                                     : "algebra needs FILE and CALL%s", "");
    Prog *p = drv_load(argv[0], false);
    if (!p)
        return DRV_EXIT_INPUT;
    AlgCtx g;
    alg_open(&g, p);
    int before = p->diags.count, status = DRV_EXIT_INPUT;
    AlgCallValue v;
    if (alg_call(&g, prog_parse_map, argv[1], &v)) {
        if (!check) {
            if (v.map) {
                char *s = drv_fmt_map(p, v.map);
                printf("%s\n", s);
                free(s);
            } else {
                printf("%s\n", v.line);
            }
            status = DRV_EXIT_OK;
        } else if (!v.map) {
            fprintf(stderr, "mapc: algebra --check: '%s' is a query, not a mapping\n", argv[1]);
        } else {
            const Map *want = drv_resolve(p, argv[2]);
            if (want) {
                EqvResult r = {.c1.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t)),
                               .c2.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
                eqv_decide(g.eqv, want, v.map, &r);
                if (r.verdict == EQV_EQUIVALENT) {
                    printf("holds\n");
                    status = DRV_EXIT_OK;
                } else if (r.verdict == EQV_SIZES_DIFFER) {
                    printf("does not hold: size %llu, the result has %llu positions\n", U(want->size), U(v.map->size));
                } else if (r.verdict == EQV_CELLS_DIFFER) {
                    char *s1 = drv_fmt_cell(p, &r.c1), *s2 = drv_fmt_cell(p, &r.c2);
                    printf("does not hold: position %llu: %s, the result has %s\n", U(r.pos), s1, s2);
                    free(s1);
                    free(s2);
                } else {
                    fprintf(stderr, "mapc: cannot decide: %s\n", eqv_error(g.eqv));
                }
                free(r.c1.coord);
                free(r.c2.coord);
            }
        }
    }
    if (p->diags.count > before) {
        const Diag *d = p->diags.head;
        for (int i = 0; i < before && d; i++)
            d = d->next;
        drv_print_diags(p, d);
    }
    alg_close(&g);
    prog_free(p);
    return status;
}
