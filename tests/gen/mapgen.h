/* mapgen.h — seeded, reproducible generator of random well-formed mapping programs (test support). */
#ifndef MAPC_MAPGEN_H
#define MAPC_MAPGEN_H

/*
 * Usage:
 *
 *     MapGen g;
 *     mapgen_init(&g, seed, NULL);              // NULL: the defaults below
 *     char *src = mapgen_program(&g);           // "axes![...]; const ...; type T0 = ...; type E = m![...];"
 *     Prog *p = prog_new();
 *     prog_parse(p, "<gen>", src, strlen(src)); // 0 errors, by construction
 *     const Map *e = prog_lookup(p, "E")->map;  // |E| <= opts.max_size
 *     char *x = mapgen_expr(&g, 64, &size);     // another "m![...]" over the same program
 *     ...
 *     free(x); free(src);
 *
 * Every text returned is malloc'ed (the caller frees it) and satisfies the static rules of
 * docs/language.md §2 by construction: strides and moduli divide, resizes are <= the size, paddings are
 * >= the size, and every size (of the expression and of every sub-expression, including the
 * composite bases of / and % chains) is <= max(max_size, max_base), so nothing overflows and
 * exhaustive comparisons stay cheap.
 *
 * The same seed and options give the same texts on every machine: the generator draws from its own
 * stream of the tests' one generator (Rng, splitmix64, tests/harness/rng.h) and never calls rand().
 * Successive calls continue the same stream.
 *
 * Constructs produced (each counted in MapGen.seen, see MapGenFeature): symbols, broadcasts
 * (often 1), pairs nested on both sides, stride and modulo chains on symbols and on composite
 * bases (pairs, padded, resized, escaped types), splits of one base into several digits
 * written with the same base text twice or more (`[C, D] / 4, [C, D] % 4`, `A # 8 / 4, A # 8 % 4`,
 * `{T0} / 2, {T0} % 2`), permuted, partial and repeated digits (`A % 4, A % 4` overflows),
 * resize, the four padding spellings (`#`, `#{*}`, `#{0}`, `#{!}`), repeated axes (`A, A`),
 * escapes `{T}` of earlier types and `{K}` of constants after an operator, grouping with both
 * `[ ]` and `( )`, and trailing commas.
 */

#include "rng.h"

#include <stdbool.h>
#include <stdint.h>

/* Constructs the generator counts (coverage tests check that each one appears). */
#define MAPGEN_FEATURES(X)                                        \
    X(MAPGEN_SYMBOL, "symbol")                                    \
    X(MAPGEN_BCAST, "broadcast > 1")                              \
    X(MAPGEN_BCAST_ONE, "broadcast 1")                            \
    X(MAPGEN_PAIR, "pair")                                        \
    X(MAPGEN_PAIR_LEFT_NESTED, "pair with a pair on the left")    \
    X(MAPGEN_PAIR_RIGHT_NESTED, "pair with a bracketed pair on the right") \
    X(MAPGEN_STRIDE_SYMBOL, "stride of a symbol")                 \
    X(MAPGEN_MOD_SYMBOL, "modulo of a symbol")                    \
    X(MAPGEN_STRIDE_COMPOSITE, "stride of a composite")           \
    X(MAPGEN_MOD_COMPOSITE, "modulo of a composite")              \
    X(MAPGEN_CHAIN, "chain of two or more / %")                   \
    X(MAPGEN_BASE_PAIR, "/ or % on a pair")                       \
    X(MAPGEN_BASE_PADDED, "/ or % on a padding")                  \
    X(MAPGEN_BASE_RESIZED, "/ or % on a resize")                  \
    X(MAPGEN_BASE_ESCAPE, "/ or % on an escaped type")            \
    X(MAPGEN_SPLIT, "one base split into several digits")         \
    X(MAPGEN_SPLIT_COMPOSITE, "a composite base split into digits") \
    X(MAPGEN_SPLIT_PERMUTED, "digits of one base out of order")   \
    X(MAPGEN_SPLIT_REPEATED, "a digit used twice (overflow case)") \
    X(MAPGEN_RESIZE, "resize")                                    \
    X(MAPGEN_PAD_TOP, "padding #")                                \
    X(MAPGEN_PAD_STAR, "padding #{*}")                            \
    X(MAPGEN_PAD_ZERO, "padding #{0}")                            \
    X(MAPGEN_PAD_BOTTOM, "padding #{!}")                          \
    X(MAPGEN_REPEATED_AXIS, "an axis used twice in one expression") \
    X(MAPGEN_TYPE_ESCAPE, "{TYPE} escape")                        \
    X(MAPGEN_CONST_ESCAPE, "{CONST} after an operator")           \
    X(MAPGEN_GROUP_BRACKET, "grouping [ ]")                       \
    X(MAPGEN_GROUP_PAREN, "grouping ( )")                         \
    X(MAPGEN_TRAILING_COMMA, "trailing comma")

typedef enum {
#define X(k, s) k,
    MAPGEN_FEATURES(X)
#undef X
    MAPGEN_NFEATURES
} MapGenFeature;

/* The printable name of a feature. */
const char *mapgen_feature_name(MapGenFeature f);

/* Options; a zero field takes its default. */
typedef struct MapGenOpts {
    uint64_t max_size;  /* bound on |E| of every generated expression (default 512) */
    uint64_t max_base;  /* bound on the size of a base under / or % (default: max_size) */
    int max_depth;      /* bound on operator nesting per expression, >= 1 (default 5) */
    int max_axes;       /* axes declared per program, 1..8 (default 4) */
    int max_types;      /* helper types T0, T1, ... before the main one, 1..8 (default 3; -1: none) */
    const char *name;   /* name of the program's last type (default "E") */
} MapGenOpts;

enum { MAPGEN_MAX_AXES = 8, MAPGEN_MAX_TYPES = 8, MAPGEN_MAX_CONSTS = 3 };

typedef struct MapGen {
    Rng rng;                /* the generator's own stream (seeded by mapgen_init) */
    MapGenOpts opts;
    /* The current program (set by mapgen_program). */
    int naxes;
    uint64_t axis_size[MAPGEN_MAX_AXES];
    int ntypes;             /* helper types only */
    uint64_t type_size[MAPGEN_MAX_TYPES];
    int nconsts;
    uint64_t const_value[MAPGEN_MAX_CONSTS];
    uint64_t main_size;     /* |name| of the last program */
    /* Per-expression bookkeeping and cumulative coverage. */
    int axis_uses[MAPGEN_MAX_AXES];
    uint64_t seen[MAPGEN_NFEATURES];
} MapGen;

/* Seeds the generator; opts may be NULL (defaults). Out-of-range options are clamped. */
void mapgen_init(MapGen *g, uint64_t seed, const MapGenOpts *opts);

/* A uniform value in [0, n) from g's stream: rng_below(&g->rng, n), except that n <= 1 gives 0
 * without a draw (the generated corpora depend on that). */
uint64_t mapgen_below(MapGen *g, uint64_t n);

/* A new program: "axes![...];", zero or more "const K0 = ...;", helper types "type T0 = m![...];"
 * (each may escape the earlier ones), and last "type NAME = m![...];" with NAME = opts.name.
 * The program replaces the generator's current one (axes, consts and types that mapgen_expr
 * draws from). Returns malloc'ed text ending in a newline. */
char *mapgen_program(MapGen *g);

/* One more "m![...]" expression over the current program (its axes, consts and helper types,
 * not the main type), of size <= max_size (0: opts.max_size); *size receives its size
 * (may be NULL). Requires a prior mapgen_program. Returns malloc'ed text. */
char *mapgen_expr(MapGen *g, uint64_t max_size, uint64_t *size);

#endif
