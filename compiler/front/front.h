/* front.h — the front end's boundary: parsing and checking program text into a Prog. */
#ifndef MAPC_FRONT_H
#define MAPC_FRONT_H

#include "core/ast.h"
#include "eval/eval.h"

/* Parses and checks one source text (statements are processed in order; assertions are
 * evaluated as they are met). name labels diagnostics. Returns the number of new errors,
 * which are appended to p->diags. The text is copied. */
int prog_parse(Prog *p, const char *name, const char *text, size_t len);

/* Parses a lone mapping expression ("m![...]", or a type name) against the program's
 * declarations; returns NULL (with diagnostics) on error. */
const Map *prog_parse_map(Prog *p, const char *name, const char *text);

/* Parses a lone index literal "i![E1: v1, ...]" against the program's declarations and evaluates it
 * (docs/language.md §3) into *out (out->coord must hold naxes entries): true, or false with diagnostics. */
bool prog_parse_index(Prog *p, const char *name, const char *text, Cell *out);

#endif
