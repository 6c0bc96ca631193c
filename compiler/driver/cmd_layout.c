/* cmd_layout.c — "mapc lower" and "mapc describe": layout descriptors to mapping expressions and back. */
#include "desc/desc.h"
#include "driver.h"

#include <stdlib.h>

/* Loads FILE and resolves NAME (a type, an inline m![...], tiled![...] or strided![...]). */
static int load_one(int argc, char **argv, const char *cmd, Prog **p, const Map **m)
{
    if (argc != 2)
        return drv_usage_error("%s needs FILE and NAME", cmd);
    return drv_load_named(argv[0], false, argv[1], p, m);
}

int cmd_lower(int argc, char **argv)
{
    Prog *p = NULL;
    const Map *m = NULL;
    int st = load_one(argc, argv, "lower", &p, &m);
    if (st != DRV_EXIT_OK)
        return st;
    char *s = drv_fmt_map(p, m);
    printf("%s\n", s);
    free(s);
    prog_free(p);
    return DRV_EXIT_OK;
}

int cmd_describe(int argc, char **argv)
{
    Prog *p = NULL;
    const Map *m = NULL;
    int st = load_one(argc, argv, "describe", &p, &m);
    if (st != DRV_EXIT_OK)
        return st;
    const char *note, *why;
    const Desc *d = desc_recognize(p, m, &note, &why);
    if (!d) {
        printf("not a tiled or strided layout: %s\n", why);
        prog_free(p);
        return DRV_EXIT_INPUT;
    }
    size_t n = desc_format(p, d, NULL, 0);
    char *s = mem_alloc(n + 1);
    desc_format(p, d, s, n + 1);
    if (note)
        printf("%s  // %s\n", s, note);
    else
        printf("%s\n", s);
    free(s);
    prog_free(p);
    return DRV_EXIT_OK;
}
