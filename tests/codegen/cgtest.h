/* cgtest.h — shared checks of generated functions against the reference interpreter (test support). */
#ifndef MAPC_CGTEST_H
#define MAPC_CGTEST_H

#include "eval/eval.h"
#include "front/front.h"

#include <stdint.h>
#include <stdio.h>

typedef int (*CellFn)(uint64_t pos, int64_t *coords);
typedef int64_t (*OffsetFn)(const int64_t *coords);
typedef void (*VisitFn)(void *ctx, uint64_t pos, int kind, const int64_t *coords);
typedef void (*EachFn)(VisitFn visit, void *ctx);

/* Checks cell, offset and each of mapping m (named name) at every position and at random
 * coordinates; returns the number of failures (the first few are printed with seed). */
int cgtest_check_type(const Prog *p, const Map *m, const char *name, CellFn cell, OffsetFn offset, EachFn each,
                      uint64_t seed);

#endif
