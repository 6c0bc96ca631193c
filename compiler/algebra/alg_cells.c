/* alg_cells.c — whole mappings' cells as integer keys, a table from keys to first positions, and the relayout plan. */
#include "alg_impl.h"

#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

/* ---- live cells as integer keys: the coordinates of the marked axes linearized, declaration order ---- */
/* AlgKeys over the axes a or b mention (b may be NULL); false when their index space passes 2^62. */
bool alg_keys_init(AlgCtx *c, AlgKeys *k, const Map *a, const Map *b)
{
    const Prog *p = c->prog;
    if (p->naxes > 256) {
        alg_fail(c, ALG_ERR_TOO_LARGE, "the program has more than 256 axes");
        return false;
    }
    k->na = p->naxes;
    memset(k->used, 0, sizeof k->used);
    map_mark_axes(a, k->used);
    if (b)
        map_mark_axes(b, k->used);
    uint64_t place = 1;
    for (int i = p->naxes - 1; i >= 0; i--) {
        k->radix[i] = 0;
        if (!k->used[i])
            continue;
        k->radix[i] = place;
        if (!u64_mul(place, p->axes[i].size, &place) || place > (UINT64_C(1) << 62)) {
            alg_fail(c, ALG_ERR_TOO_LARGE, "the index space of the mappings' axes passes 2^62");
            return false;
        }
    }
    return true;
}

uint64_t alg_key_of(const AlgKeys *k, const uint64_t *coord)
{
    uint64_t key = 0;
    for (int i = 0; i < k->na; i++)
        key += coord[i] * k->radix[i];
    return key;
}

bool alg_table_init(AlgTable *t, uint64_t n)
{
    t->cap = 16;
    while (t->cap < 2 * n + 2)
        t->cap *= 2;
    t->key = malloc((size_t)t->cap * sizeof *t->key);
    t->pos = malloc((size_t)t->cap * sizeof *t->pos);
    if (t->key)
        memset(t->key, 0xff, (size_t)t->cap * sizeof *t->key);
    return t->key && t->pos;
}

void alg_table_free(AlgTable *t)
{
    free(t->key);
    free(t->pos);
}

/* The slot of key: holding it, or empty (key UINT64_MAX). */
uint64_t alg_table_slot(const AlgTable *t, uint64_t key)
{
    uint64_t h = (key * UINT64_C(0x9E3779B97F4A7C15)) & (t->cap - 1);
    while (t->key[h] != UINT64_MAX && t->key[h] != key)
        h = (h + 1) & (t->cap - 1);
    return h;
}

/* ---- cells of a whole mapping ---- */

/* The cells of m as kinds and keys (kind[i] CELL_*, key[i] for live cells): false with too-large, overflow
 * (when refuse_overflow) or internal. */
bool alg_cells_of(AlgCtx *c, const AlgKeys *k, const Map *m, const char *what, bool refuse_overflow, uint8_t **kind,
                     uint64_t **key)
{
    *kind = NULL;
    *key = NULL;
    if (m->size > c->enum_limit) {
        alg_fail(c, ALG_ERR_TOO_LARGE, "%s has %llu positions, more than the %llu this operation enumerates", what,
                 U(m->size), U(c->enum_limit));
        return false;
    }
    uint64_t *coord = calloc((size_t)c->prog->naxes + 1, sizeof *coord);
    uint8_t *kd = malloc((size_t)m->size + 1);
    uint64_t *ky = malloc((size_t)m->size * sizeof *ky + 1);
    bool ok = coord && kd && ky;
    if (!ok)
        alg_fail(c, ALG_ERR_NOMEM, "out of memory");
    Cell cell = {.coord = coord};
    for (uint64_t p = 0; ok && p < m->size; p++) {
        if (eval_cell(c->ev, m, p, &cell) != EVAL_OK) {
            alg_fail(c, ALG_ERR_INTERNAL, "cannot evaluate %s at %llu: %s", what, U(p), eval_error(c->ev));
            ok = false;
            break;
        }
        if (cell.kind == CELL_OVERFLOW && refuse_overflow) {
            alg_fail(c, ALG_ERR_OVERFLOW, "%s overflows at position %llu", what, U(p));
            ok = false;
        }
        kd[p] = (uint8_t)cell.kind;
        ky[p] = cell.kind == CELL_LIVE ? alg_key_of(k, coord) : 0;
    }
    free(coord);
    if (!ok) {
        free(kd);
        free(ky);
        return false;
    }
    *kind = kd;
    *key = ky;
    return true;
}

/* The printed cell of a key. */
void alg_key_format(AlgCtx *c, const AlgKeys *k, uint64_t key, char *buf, size_t size)
{
    uint64_t coord[257] = {0};
    for (int i = 0; i < k->na; i++)
        if (k->radix[i])
            coord[i] = key / k->radix[i] % c->prog->axes[i].size;
    Cell cell = {.kind = CELL_LIVE, .coord = coord};
    cell_format(c->prog, &cell, buf, size);
}

bool alg_check_axis(AlgCtx *c, int p, uint64_t size, const char *what)
{
    if (p < 0 || p >= c->prog->naxes) {
        alg_fail(c, ALG_ERR_UNDECLARED, "the position axis is not declared");
        return false;
    }
    if (c->prog->axes[p].size != size) {
        alg_fail(c, ALG_ERR_SIZE, "|%s| = %llu but %s has %llu positions", c->prog->axes[p].name,
                 U(c->prog->axes[p].size), what, U(size));
        return false;
    }
    return true;
}

/* The plan of conversion(src, dst): K[p] the first position of dst holding src's index at p, or -kind of
 * src's padding; false with not-held, overflow, too-large. */
bool alg_plan(AlgCtx *c, const Map *src, const Map *dst, AlgVal **out)
{
    *out = NULL;
    AlgKeys keys;
    if (!alg_keys_init(c, &keys, src, dst))
        return false;
    uint8_t *sk = NULL, *dk = NULL;
    uint64_t *sy = NULL, *dy = NULL;
    AlgTable t = {0};
    AlgVal *K = NULL;
    bool ok = alg_cells_of(c, &keys, src, "the source", true, &sk, &sy) &&
              alg_cells_of(c, &keys, dst, "the destination", true, &dk, &dy);
    if (ok && !(ok = alg_table_init(&t, dst->size) && (K = malloc((size_t)src->size * sizeof *K + 1))))
        alg_fail(c, ALG_ERR_NOMEM, "out of memory");
    for (uint64_t q = 0; ok && q < dst->size; q++)
        if (dk[q] == CELL_LIVE) {
            uint64_t h = alg_table_slot(&t, dy[q]);
            if (t.key[h] == UINT64_MAX) {
                t.key[h] = dy[q];
                t.pos[h] = q;
            }
        }
    for (uint64_t p = 0; ok && p < src->size; p++) {
        if (sk[p] != CELL_LIVE) {
            K[p] = -(AlgVal)sk[p];
            continue;
        }
        uint64_t h = alg_table_slot(&t, sy[p]);
        if (t.key[h] == UINT64_MAX) {
            char buf[256];
            alg_key_format(c, &keys, sy[p], buf, sizeof buf);
            alg_fail(c, ALG_ERR_NOT_HELD, "source position %llu holds %s, which the destination holds nowhere", U(p),
                     buf);
            ok = false;
            break;
        }
        K[p] = (AlgVal)t.pos[h];
    }
    free(sk);
    free(dk);
    free(sy);
    free(dy);
    alg_table_free(&t);
    if (!ok) {
        free(K);
        return false;
    }
    *out = K;
    return true;
}
