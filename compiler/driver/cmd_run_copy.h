/* cmd_run_copy.h — "mapc run FILE COPY" (cmd_run_copy.c), which cmd_run.c calls when NAME is a copy. */
#ifndef MAPC_CMD_RUN_COPY_H
#define MAPC_CMD_RUN_COPY_H

#include "cmd_options.h"
#include "driver.h"

/* Prints copy c's relayout plan and, unless o->plan_only, JIT-compiles it, runs it on seeded data over
 * o->threads threads (part k of o->threads each), checks every destination position (above 2^22, 8192 seeded
 * ones) against the interpreter and times o->reps runs beside memcpy. DRV_EXIT_OK, DRV_EXIT_INPUT (a failed
 * check or compilation) or DRV_EXIT_USAGE (an option of kernels only). */
int run_copy(Prog *p, const Copy *c, const RunOptions *o);

#endif
