/* eqgen.h — pairs of mappings for the equivalence tests and benchmark: rewrites of a generated
 * mapping through docs/language.md §4 identities (equivalent by construction) and mutations of it. */
#ifndef MAPC_EQGEN_H
#define MAPC_EQGEN_H

#include "core/ast.h"
#include "front/front.h"
#include "mapgen.h"

/* Prints e as m![...] source with every sub-mapping bracketed (malloc'ed). */
char *eqgen_print(const Prog *p, const Map *e);

/* A mapping equivalent to e by construction, as malloc'ed m![...] text: docs/language.md §4 identities
 * applied at random sub-mappings, respecting the substitution rule of docs/language.md §3 (wrappers that
 * keep the items, pair reassociation, chain respellings, splits of digits of an axis used once;
 * identities that move digits into a composite base only at the root). */
char *eqgen_equivalent(MapGen *g, const Prog *p, const Map *e);

/* A mutation of e (one random change: a padding kind, a resize, a digit's stride, a swap of
 * pair operands, another axis), as malloc'ed text; usually not equivalent, sometimes not
 * well-formed (the caller parses it and retries). */
char *eqgen_mutant(MapGen *g, const Prog *p, const Map *e);

#endif
