/* pairgen.h — seeded generator of buffer/stream mapping pairs for the sequencer's property tests: the same axes split into digits two ways, permuted, with broadcasts, paddings and resizes. */
#ifndef MAPC_TESTS_PAIRGEN_H
#define MAPC_TESTS_PAIRGEN_H

#include "rng.h"

#include <stdint.h>

/* One generated case: the program text (axes only) and the three mappings as m![...] texts. */
typedef struct Pair {
    char program[256];
    char buf[512], time[512], packet[512];
} Pair;

/* Fills *c from the generator r: a program of 1 to 3 axes (and T, an axis only the stream may use), a buffer of
 * at most max_buf cells and a stream of its digits (refined, coarsened or kept), split into time and packet.
 * With big, one axis is over 65536 (the limits; such pairs are not for walking). */
void pairgen(Rng *r, Pair *c, uint64_t max_buf, int big);

#endif
