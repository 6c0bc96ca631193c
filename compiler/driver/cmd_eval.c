/* cmd_eval.c — the commands that read a program and interpret it: check, eval, table. */
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
        Prog *p = prog_new();
        prog_set_target(p, isa);
        p = drv_load_into(p, argv[i], false);
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
            return drv_usage_error("position '%s' is not a decimal 64-bit number", argv[i]);
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

int cmd_table(int argc, char **argv)
{
    uint64_t max_cells = 65536;
    char *args[2];
    int nargs = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--max-cells") == 0) {
            if (i + 1 >= argc || !drv_parse_pos(argv[i + 1], &max_cells))
                return drv_usage_error("--max-cells takes a decimal number, not '%s'", i + 1 < argc ? argv[i + 1] : "");
            i++;
        } else if (drv_is_option(argv[i])) {
            static const char *const known[] = {"--max-cells", "--help", "--color", NULL};
            return drv_unknown_option("table", argv[i], known);
        } else if (nargs == 2) {
            return drv_usage_error("table needs FILE and NAME%s", "");
        } else {
            args[nargs++] = argv[i];
        }
    }
    if (nargs != 2)
        return drv_usage_error("table needs FILE and NAME%s", "");
    argv = args;
    Prog *p = drv_load(argv[0], false);
    if (!p)
        return DRV_EXIT_INPUT;
    const Name *tn = prog_lookup(p, argv[1]);
    if (tn && tn->kind == NAME_TENSOR) { /* a tensor: its units as rows */
        int st = drv_tensor_table(p, tn->tensor);
        prog_free(p);
        return st;
    }
    size_t len = strlen(argv[1]);
    if (!tn && prog_suggest(p, argv[1], len, NAME_BIT(NAME_TENSOR)) &&
        !prog_suggest(p, argv[1], len, NAME_BIT(NAME_TYPE))) { /* a mistyped tensor */
        drv_no_such(p, argv[0], "type or tensor", argv[1], NAME_TENSOR);
        prog_free(p);
        return DRV_EXIT_INPUT;
    }
    const Map *m = drv_resolve(p, argv[1]);
    if (!m) {
        prog_free(p);
        return DRV_EXIT_INPUT;
    }
    if (m->size > max_cells) {
        fprintf(stderr, "mapc: the mapping has %llu cells, more than --max-cells %llu\n", (unsigned long long)m->size,
                (unsigned long long)max_cells);
        prog_free(p);
        return DRV_EXIT_INPUT;
    }
    bool pair = m->kind == MAP_PAIR;
    uint64_t cols = pair ? m->r->size : (m->size < 16 ? m->size : 16);
    uint64_t rows = (m->size + cols - 1) / cols;
    Evaluator *ev = eqv_evaluator_new(p);
    Cell c = {.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    char **cells = calloc(m->size, sizeof *cells);
    size_t width = 1;
    int status = DRV_EXIT_OK;
    for (uint64_t i = 0; i < m->size; i++) {
        if (eval_cell(ev, m, i, &c) != EVAL_OK) {
            fprintf(stderr, "mapc: cannot evaluate position %llu: %s\n", (unsigned long long)i, eval_error(ev));
            status = DRV_EXIT_INPUT;
            break;
        }
        cells[i] = drv_fmt_cell(p, &c);
        size_t w = strlen(cells[i]);
        if (w > width)
            width = w;
    }
    if (status == DRV_EXIT_OK) {
        char *name = drv_fmt_map(p, m);
        if (pair)
            printf("%s: %llu rows (major part) x %llu columns (minor part); position = %llu*row + column\n", name,
                   (unsigned long long)rows, (unsigned long long)cols, (unsigned long long)cols);
        else
            printf("%s: %llu positions, %llu per row; position = %llu*row + column\n", name,
                   (unsigned long long)m->size, (unsigned long long)cols, (unsigned long long)cols);
        free(name);
        char label[32];
        int lw = snprintf(label, sizeof label, "%llu", (unsigned long long)(rows - 1));
        if (lw < 7)
            lw = 7;
        printf("%-*s", lw + 2, "row\\col");
        for (uint64_t j = 0; j < cols; j++) {
            if (j + 1 < cols)
                printf("%-*llu  ", (int)width, (unsigned long long)j);
            else
                printf("%llu\n", (unsigned long long)j);
        }
        for (uint64_t r = 0; r < rows; r++) {
            printf("%-*llu", lw + 2, (unsigned long long)r);
            for (uint64_t j = 0; j < cols && r * cols + j < m->size; j++) {
                bool last = j + 1 == cols || r * cols + j + 1 == m->size;
                if (last)
                    printf("%s\n", cells[r * cols + j]);
                else
                    printf("%-*s  ", (int)width, cells[r * cols + j]);
            }
        }
    }
    for (uint64_t i = 0; i < m->size; i++)
        free(cells[i]);
    free(cells);
    free(c.coord);
    eqv_evaluator_free(ev);
    prog_free(p);
    return status;
}

