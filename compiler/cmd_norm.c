/* cmd_norm.c — "mapc norm": print the normal form of a mapping as a valid m![...] line. */
#include "algebra.h"
#include "driver.h"

#include <stdlib.h>

int cmd_norm(int argc, char **argv)
{
    if (argc != 2)
        return usage_error("norm needs FILE and NAME%s", "");
    Prog *p = load(argv[0], false);
    if (!p)
        return EXIT_INPUT;
    const Map *m = resolve(p, argv[1]);
    if (!m) {
        prog_free(p);
        return EXIT_INPUT;
    }
    const Map *n = norm_map(&p->arena, m);
    size_t len = map_format(p, n, NULL, 0);
    char *s = malloc(len + 1);
    if (!s) {
        prog_free(p);
        return EXIT_INPUT;
    }
    map_format(p, n, s, len + 1);
    printf("%s\n", s);
    free(s);
    prog_free(p);
    return EXIT_OK;
}
