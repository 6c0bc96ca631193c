/* cmd_norm.c — "mapc norm": print the normal form of a mapping as a valid m![...] line. */
#include "algebra/algebra.h"
#include "driver.h"

#include <stdlib.h>

int cmd_norm(int argc, char **argv)
{
    int st = drv_no_options("norm", argc, argv, 0);
    if (st != DRV_EXIT_OK)
        return st;
    if (argc != 2)
        return drv_usage_error("norm needs FILE and NAME%s", "");
    Prog *p;
    const Map *m;
    if (drv_load_named(argv[0], false, argv[1], &p, &m) != DRV_EXIT_OK)
        return DRV_EXIT_INPUT;
    char *s = drv_fmt_map(p, norm_map(&p->arena, m));
    printf("%s\n", s);
    free(s);
    prog_free(p);
    return DRV_EXIT_OK;
}
