/* cmd_norm.c — "mapc norm": print the normal form of a mapping as a valid m![...] line. */
#include "algebra/algebra.h"
#include "driver.h"

#include <stdlib.h>

int cmd_norm(int argc, char **argv)
{
    if (argc != 2)
        return usage_error("norm needs FILE and NAME%s", "");
    Prog *p;
    const Map *m;
    if (load_named(argv[0], false, argv[1], &p, &m) != EXIT_OK)
        return EXIT_INPUT;
    char *s = fmt_map(p, norm_map(&p->arena, m));
    printf("%s\n", s);
    free(s);
    prog_free(p);
    return EXIT_OK;
}
