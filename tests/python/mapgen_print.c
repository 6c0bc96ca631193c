/* mapgen_print.c — prints seeded random mapping programs for the Python binding's tests: one line per
 * program, "SOURCE<TAB>EXPR", SOURCE a whole program (its last type E) and EXPR another m![...] over it. */
#include "mapgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: mapgen-print SEED COUNT\n", stderr);
        return 2;
    }
    MapGen g;
    mapgen_init(&g, strtoull(argv[1], NULL, 10), &(MapGenOpts){.max_size = 256});
    for (long i = 0, n = strtol(argv[2], NULL, 10); i < n; i++) {
        char *src = mapgen_program(&g);
        uint64_t size = 0;
        char *expr = mapgen_expr(&g, 256, &size);
        for (char *s = src; *s; s++)
            if (*s == '\n' || *s == '\t')
                *s = ' ';
        printf("%s\t%s\n", src, expr);
        free(src);
        free(expr);
    }
    return 0;
}
