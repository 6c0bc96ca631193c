/* prog_text.h — the harness's helpers that need the compiler: printed mappings and cells as malloc'ed
 * text, and a program's diagnostics attached to a failure (library harness_prog, harness_prog_dep). */
#ifndef MAPC_TESTS_PROG_TEXT_H
#define MAPC_TESTS_PROG_TEXT_H

#include "core/ast.h"
#include "eval/eval.h"

/* m as map_format prints it, malloc'ed. */
char *harness_map_text(const Prog *p, const Map *m);

/* c as cell_format prints it, malloc'ed. */
char *harness_cell_text(const Prog *p, const Cell *c);

/* Every diagnostic of p, formatted, as details of the failure just reported (see harness_detail). */
void harness_detail_diags(const Prog *p);

#endif
