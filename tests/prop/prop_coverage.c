/* prop_coverage.c — the generator behind the property tests: well-formed by construction,
 * reproducible, sizes as promised, and every construct it claims actually appears.
 *
 * Usage: prop_coverage [SEED [COUNT]]   (defaults 1, 2000) */
#include "core/ast.h"
#include "front/front.h"
#include "harness.h"
#include "mapgen.h"
#include "prog_text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t seed; /* SEED: of every generator here */

/* The program parses without diagnostics and its sizes are the ones the generator reports. */
static void check_program(MapGen *g, const char *src)
{
    Prog *p = prog_new();
    int errs = prog_parse(p, "<gen>", src, strlen(src));
    if (!CHECK_EQ_INT(errs, 0, "generated program parses without errors")) {
        harness_detail_diags(p);
        harness_detail("%s", src);
    }
    const Name *e = prog_lookup(p, "E");
    if (!CHECK(e && e->map && e->map->size == g->main_size && e->map->size <= g->opts.max_size,
               "|E| = %" PRIu64 " is the reported size %" PRIu64 " and within max_size %" PRIu64,
               e && e->map ? e->map->size : 0, g->main_size, g->opts.max_size))
        harness_detail("%s", src);
    for (int i = 0; i < g->ntypes; i++) {
        char name[16];
        snprintf(name, sizeof name, "T%d", i);
        const Name *t = prog_lookup(p, name);
        if (!t || !t->map) {
            FAIL("helper type %s is missing", name);
            harness_detail("%s", src);
        } else if (!CHECK_EQ_U64(t->map->size, g->type_size[i], "helper type %s size as reported", name)) {
            harness_detail("%s", src);
        }
    }
    uint64_t size;
    char *x = mapgen_expr(g, 100, &size);
    const Map *m = errs == 0 ? prog_parse_map(p, "<expr>", x) : NULL;
    if (!CHECK(m && m->size == size && size <= 100, "mapgen_expr parses with the reported size %" PRIu64 " <= 100",
               size))
        harness_detail("%s", x);
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
        CHECK_EQ_STR(b, a, "the same seed gives the same program");
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
        CHECK(g.seen[f] >= count / 100 + 1, "%s: %" PRIu64 " times, fewer than %" PRIu64, what, g.seen[f],
              count / 100 + 1);
    }
}

int main(int argc, char **argv)
{
    HarnessArgs a = {.seed = 1, .count = 2000};
    harness_args(argc, argv, "[SEED [COUNT]]", &a);
    seed = a.seed;
    uint64_t count = a.count;

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
        if (!CHECK(errs == 0 && z && z->map && z->map->size <= 16 && s.ntypes == 0 && s.naxes <= 2,
                   "options bound size, axes and types"))
            harness_detail("%s", src);
        prog_free(p);
        free(src);
    }
    return harness_report();
}
