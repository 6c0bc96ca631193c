/* cgtest.h — shared support of the codegen tests: generated functions checked against the reference
 * interpreter, and programs compiled by the JIT. */
#ifndef MAPC_CGTEST_H
#define MAPC_CGTEST_H

#include "codegen/codegen.h"
#include "eval/eval.h"
#include "front/front.h"

#include <stdint.h>
#include <stdio.h>

typedef int (*CellFn)(uint64_t pos, int64_t *coords);
typedef int64_t (*OffsetFn)(const int64_t *coords);
typedef void (*VisitFn)(void *ctx, uint64_t pos, int kind, const int64_t *coords);
typedef void (*EachFn)(VisitFn visit, void *ctx);

/* One case: cell, offset and each of mapping m (named name) agree with the interpreter at every
 * position and at random coordinates (drawn from a stream of seed); each may be NULL, and is skipped
 * past 2^20 positions. A failure prints the first three problems. Returns whether it passed. */
bool cgtest_check_type(const Prog *p, const Map *m, const char *name, CellFn cell, OffsetFn offset, EachFn each,
                       uint64_t seed);

/* Parses text (named name; NULL: p is parsed already) into p and compiles p by the JIT at opt_level.
 * Returns the JIT, or NULL after counting one failure that names the first diagnostic. */
Jit *cgtest_compile(Prog *p, const char *name, const char *text, int opt_level);

#endif
