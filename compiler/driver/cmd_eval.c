/* cmd_eval.c — the commands that read a program and interpret it: check, eval (table is in cmd_table.c). */
#include "algebra/algebra.h"
#include "driver.h"

#include <stdlib.h>
#include <string.h>

int cmd_check(int argc, char **argv)
{
    TargetIsa isa = drv_isa; /* --isa: check kernel declarations for that ISA, whatever the host */
    int files = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--isa") == 0) {
            if (i + 1 >= argc || !target_isa_parse(argv[i + 1], &isa))
                return drv_usage_error("--isa takes avx512, avx2 or portable%s", "");
            argv[i] = argv[i + 1] = NULL;
            i++;
        } else if (drv_is_option(argv[i])) {
            static const char *const known[] = {"--isa", "--help", "--color", NULL};
            return drv_unknown_option("check", argv[i], known);
        } else {
            files++;
        }
    }
    if (files < 1)
        return drv_usage_error("check needs at least one FILE%s", "");
    int status = DRV_EXIT_OK;
    for (int i = 0; i < argc; i++) {
        if (!argv[i])
            continue;
        Prog *p = drv_load_into(drv_new_prog(isa), argv[i], false);
        if (!p)
            status = DRV_EXIT_INPUT;
        prog_free(p);
    }
    return status;
}

int cmd_eval(int argc, char **argv)
{
    bool is_source = argc > 0 && strcmp(argv[0], "-e") == 0;
    if (is_source) {
        argc--;
        argv++;
    }
    for (int i = is_source ? 1 : 0; i < argc; i++) /* not the SOURCE text itself */
        if (drv_is_option(argv[i])) {
            static const char *const known[] = {"-e", "--help", "--color", NULL};
            return drv_unknown_option("eval", argv[i], known);
        }
    if (argc < 3)
        return drv_usage_error("eval needs %s NAME and at least one POS", is_source ? "SOURCE," : "FILE,");
    for (int i = 2; i < argc; i++) {
        uint64_t pos = 0;
        if (!drv_parse_pos(argv[i], &pos))
            return drv_usage_error("position '%s' is not a 64-bit number (decimal or 0x hex)", argv[i]);
    }
    Prog *p;
    const Map *m;
    if (drv_load_named(argv[0], is_source, argv[1], &p, &m) != DRV_EXIT_OK)
        return DRV_EXIT_INPUT;
    Evaluator *ev = eqv_evaluator_new(p);
    Cell c = {.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    int status = DRV_EXIT_OK;
    for (int i = 2; i < argc; i++) {
        uint64_t pos = 0;
        drv_parse_pos(argv[i], &pos);
        if (eval_cell(ev, m, pos, &c) != EVAL_OK) {
            fprintf(stderr, "mapc: cannot evaluate position %s: %s\n", argv[i], eval_error(ev));
            status = DRV_EXIT_INPUT;
            break;
        }
        char *s = drv_fmt_cell(p, &c);
        printf("%llu: %s\n", (unsigned long long)pos, s);
        free(s);
    }
    free(c.coord);
    eqv_evaluator_free(ev);
    prog_free(p);
    return status;
}
