/* prop_coverage.c — the generator behind the property tests: well-formed by construction,
 * reproducible, sizes as promised, and every construct it claims actually appears.
 *
 * Usage: prop_coverage [SEED [COUNT]]   (defaults 1, 2000) */
#include "core/ast.h"
#include "front/front.h"
#include "mapgen.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long passed, failed;
static uint64_t seed = 1;

static void check(bool ok, const char *what, const char *text)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    fprintf(stderr, "FAIL seed %" PRIu64 ": %s\n%s\n", seed, what, text ? text : "");
}

/* The program parses without diagnostics and its sizes are the ones the generator reports. */
static void check_program(MapGen *g, const char *src)
{
    Prog *p = prog_new();
    int errs = prog_parse(p, "<gen>", src, strlen(src));
    for (const Diag *d = p->diags.head; d; d = d->next) {
        char buf[2048];
        diag_format(d, buf, sizeof buf);
        fprintf(stderr, "%s", buf);
    }
    check(errs == 0, "generated program parses without errors", src);
    const Name *e = prog_lookup(p, "E");
    check(e && e->map && e->map->size == g->main_size && e->map->size <= g->opts.max_size,
          "|E| is the reported size and within max_size", src);
    for (int i = 0; i < g->ntypes; i++) {
        char name[16];
        snprintf(name, sizeof name, "T%d", i);
        const Name *t = prog_lookup(p, name);
        check(t && t->map && t->map->size == g->type_size[i], "helper type size as reported", src);
    }
    uint64_t size;
    char *x = mapgen_expr(g, 100, &size);
    const Map *m = errs == 0 ? prog_parse_map(p, "<expr>", x) : NULL;
    check(m && m->size == size && size <= 100, "mapgen_expr parses with the reported size <= 100", x);
    free(x);
    prog_free(p);
}

/* Generates count programs with opts: reproducible, well-formed, and every construct common. */
static void check_coverage(const MapGenOpts *opts, uint64_t count, const char *label)
{
    printf("%s:\n", label);
    MapGen g, g2;
    mapgen_init(&g, seed, opts);
    mapgen_init(&g2, seed, opts);
    for (uint64_t i = 0; i < count; i++) {
        char *a = mapgen_program(&g), *b = mapgen_program(&g2);
        check(strcmp(a, b) == 0, "the same seed gives the same program", a);
        check_program(&g, a);
        free(a);
        free(b);
        /* keep g2 in step with the extra mapgen_expr draw */
        free(mapgen_expr(&g2, 100, NULL));
    }
    for (int f = 0; f < MAPGEN_NFEATURES; f++) {
        printf("  %-45s %" PRIu64 "\n", mapgen_feature_name((MapGenFeature)f), g.seen[f]);
        char what[160];
        snprintf(what, sizeof what, "%s: construct appears: %s", label, mapgen_feature_name((MapGenFeature)f));
        /* each construct must be common, not a fluke: at least 1% of the programs */
        check(g.seen[f] >= count / 100 + 1, what, NULL);
    }
}

int main(int argc, char **argv)
{
    uint64_t count = 2000;
    if (argc > 1)
        seed = strtoull(argv[1], NULL, 0);
    if (argc > 2)
        count = strtoull(argv[2], NULL, 0);

    check_coverage(NULL, count, "default options");
    /* the options of prop_identities */
    const MapGenOpts prop_opts = {.max_size = 512, .max_depth = 4};
    check_coverage(&prop_opts, count, "max_size 512, depth 4 (prop_identities)");

    /* Small options stay within their bounds. */
    MapGenOpts o = {.max_size = 16, .max_depth = 2, .max_axes = 2, .max_types = -1, .name = "Z"};
    MapGen s;
    mapgen_init(&s, seed, &o);
    for (int i = 0; i < 200; i++) {
        char *src = mapgen_program(&s);
        Prog *p = prog_new();
        int errs = prog_parse(p, "<small>", src, strlen(src));
        const Name *z = prog_lookup(p, "Z");
        check(errs == 0 && z && z->map && z->map->size <= 16 && s.ntypes == 0 && s.naxes <= 2,
              "options bound size, axes and types", src);
        prog_free(p);
        free(src);
    }
    printf("%ld passed, %ld failed\n", passed, failed);
    return failed != 0;
}
