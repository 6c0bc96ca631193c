/* alg_impl.h — what the layout algebra's files share beyond alg_ops.h: live cells as integer keys, a table from
 * keys to first positions, whole mappings' cells, and the relayout plan. Not part of the algebra's interface. */
#ifndef MAPC_ALG_IMPL_H
#define MAPC_ALG_IMPL_H

#include "alg_ops.h"

/* Live cells as integer keys: the coordinates of the axes the mappings use, linearized in declaration order. */
typedef struct AlgKeys {
    int na;
    bool used[256 + 1];
    uint64_t radix[256 + 1];   /* place value of each used axis */
} AlgKeys;

/* AlgKeys over the axes a or b mention (b may be NULL); false (too-large) when their index space passes 2^62. */
bool alg_keys_init(AlgCtx *c, AlgKeys *k, const Map *a, const Map *b);
uint64_t alg_key_of(const AlgKeys *k, const uint64_t *coord);
/* The printed cell of a key. */
void alg_key_format(AlgCtx *c, const AlgKeys *k, uint64_t key, char *buf, size_t size);

/* An open-addressing table from keys to the first position holding them (empty slots hold key UINT64_MAX). */
typedef struct AlgTable {
    uint64_t *key, *pos, cap;
} AlgTable;
bool alg_table_init(AlgTable *t, uint64_t n);
void alg_table_free(AlgTable *t);
/* The slot of key: holding it, or empty. */
uint64_t alg_table_slot(const AlgTable *t, uint64_t key);

/* The cells of m as kinds and keys (kind[i] CELL_*, key[i] for live cells), malloc'ed: false with too-large,
 * overflow (when refuse_overflow) or internal. */
bool alg_cells_of(AlgCtx *c, const AlgKeys *k, const Map *m, const char *what, bool refuse_overflow, uint8_t **kind,
                  uint64_t **key);
/* Whether p is a declared axis of the given size (undeclared-axis, size-mismatch naming what). */
bool alg_check_axis(AlgCtx *c, int p, uint64_t size, const char *what);
/* The plan of conversion(src, dst): K[p] the first position of dst holding src's index at p, or -kind of src's
 * padding, malloc'ed; false with not-held, overflow, too-large. */
bool alg_plan(AlgCtx *c, const Map *src, const Map *dst, AlgVal **out);

#endif
