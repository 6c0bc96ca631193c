/* alg_call.h — the call syntax of the layout algebra: one call such as `compose(E, X := F)` parsed and evaluated
 * against a program (what `mapc algebra` and its fuzzer run). */
#ifndef MAPC_ALG_CALL_H
#define MAPC_ALG_CALL_H

#include "alg_ops.h"

/* Parses a mapping text against p, diagnostics appended (the front end's prog_parse_map: the algebra sits below it). */
typedef const Map *(*AlgParseMap)(Prog *p, const char *name, const char *text);

/* The value of a call: a mapping, or (map NULL) a query's answer as one line ("injective", "12"). */
typedef struct AlgCallValue {
    const Map *map;
    char line[600];
} AlgCallValue;

/* Parses the call text (one line, copied into the program's arena with its Source, labelled "<command-line>") and
 * evaluates it with g (open over the program), mappings read by parse: true with *out, or false with one diagnostic
 * appended to the program's (a syntax or usage error, or "algebra: CODE: MESSAGE", at the call's column). Nesting
 * is bounded (32 levels, 16 arguments a call), so no input recurses deeply. */
bool alg_call(AlgCtx *g, AlgParseMap parse, const char *text, AlgCallValue *out);

#endif
