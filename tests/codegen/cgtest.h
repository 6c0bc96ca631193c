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

/* How cgtest_check_copy runs a copy kernel: NAME once; NAME_part for each of 3 parts alone (checking that
 * no two write one position and that together they write exactly the live and pad(zero) positions), then all
 * of them in reverse order; or parts 0 and 1 of 2 on two threads at once. */
typedef enum { CGTEST_WHOLE, CGTEST_PARTS, CGTEST_THREADS } CgtestRun;

/* What copy c must leave at each destination position by the interpreter: the source position whose element
 * it gets (the smallest holding the same index), -2 for pad(zero), -1 to stay untouched. malloc'ed; NULL with
 * the reason in why when a cell cannot be evaluated or a live cell has no source. */
int64_t *cgtest_copy_expected(const Prog *p, Evaluator *ev, const Copy *c, char *why, size_t cap);

/* Runs copy c of j (compiled from p) as how says on a poisoned destination that starts shift elements past a
 * 64-byte boundary, and compares every byte with want (cgtest_copy_expected) and the bytes around the
 * destination with the poison. Counts one check, named by label; a failure names the first wrong position and
 * both layouts. */
bool cgtest_check_copy(const Prog *p, Jit *j, const Copy *c, const int64_t *want, CgtestRun how, int shift,
                       const char *label);

#endif
