/* cmd_export.c — "mapc export": a mapping written as a layout of another system (CuTe, Triton, MLIR affine or
 * strided, TVM), or why it has none. */
#include "driver.h"
#include "interop/interop.h"

#include <stdlib.h>
#include <string.h>

/* The value of an option given as "--opt V" (at argv[*i], advancing *i) or "--opt=V"; NULL if argv[*i] is not
 * that option. *missing is set when the value is absent. */
static const char *option(int argc, char **argv, int *i, const char *opt, bool *missing)
{
    size_t n = strlen(opt);
    if (strncmp(argv[*i], opt, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return "";
    }
    return argv[++*i];
}

int cmd_export(int argc, char **argv)
{
    static const char *const known[] = {"--to", "--lanes", "--warps", "--blocks", "--help", NULL};
    const char *pos[2];
    int npos = 0;
    const char *to = NULL;
    IopOptions o = {0, 0, 0};
    for (int i = 0; i < argc; i++) {
        bool missing = false;
        const char *v;
        uint64_t *count = NULL;
        const char *name = argv[i];
        if ((v = option(argc, argv, &i, "--to", &missing)) != NULL) {
            to = v;
        } else if ((v = option(argc, argv, &i, "--lanes", &missing)) != NULL) {
            count = &o.lanes;
        } else if ((v = option(argc, argv, &i, "--warps", &missing)) != NULL) {
            count = &o.warps;
        } else if ((v = option(argc, argv, &i, "--blocks", &missing)) != NULL) {
            count = &o.blocks;
        } else if (drv_is_option(argv[i])) {
            return drv_unknown_option("export", argv[i], known);
        } else if (npos == 2) {
            return drv_usage_error("unexpected argument '%s'", argv[i]);
        } else {
            pos[npos++] = argv[i];
        }
        if (missing)
            return drv_usage_error("%s needs a value", name);
        if (count && (!drv_parse_pos(v, count) || *count == 0 || (*count & (*count - 1))))
            return drv_usage_error("%s takes a power of two", name);
    }
    if (npos != 2)
        return drv_usage_error("export needs FILE and NAME, and --to FORMAT%s", "");
    IopFormat f;
    if (!to)
        return drv_usage_error("export needs --to cute|cute-tiler|triton|affine|strided|index-map%s", "");
    if (!iop_format_parse(to, &f))
        return drv_usage_error("--to takes cute, cute-tiler, triton, affine, strided or index-map, not '%s'", to);
    if ((o.lanes || o.warps || o.blocks) && f != IOP_TRITON)
        return drv_usage_error("--lanes, --warps and --blocks split a Triton layout's positions; %s has none", to);
    Prog *p = NULL;
    const Map *m = NULL;
    int st = drv_load_named(pos[0], false, pos[1], &p, &m);
    if (st != DRV_EXIT_OK)
        return st;
    const char *why = NULL, *text = iop_export(p, m, f, &o, &why);
    if (text)
        printf("%s\n", text);
    else
        printf("no %s: %s\n", iop_format_noun(f), why);
    prog_free(p);
    return text ? DRV_EXIT_OK : DRV_EXIT_INPUT;
}
