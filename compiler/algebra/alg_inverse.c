/* alg_inverse.c — inverses (index to first position), the relayout plan between two layouts, and the nullspace. */
#include "alg_ops.h"

#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

/* ---- live cells as integer keys: the coordinates of the marked axes linearized, declaration order ---- */

typedef struct Keys {
    int na;
    bool used[256 + 1];
    uint64_t radix[256 + 1];   /* place value of each used axis */
} Keys;

/* Keys over the axes a or b mention (b may be NULL); false when their index space passes 2^62. */
static bool keys_init(AlgCtx *c, Keys *k, const Map *a, const Map *b)
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

static uint64_t key_of(const Keys *k, const uint64_t *coord)
{
    uint64_t key = 0;
    for (int i = 0; i < k->na; i++)
        key += coord[i] * k->radix[i];
    return key;
}

/* An open-addressing table from keys to the first position holding them. */
typedef struct Table {
    uint64_t *key, *pos, cap;
} Table;

static bool table_init(Table *t, uint64_t n)
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

static void table_free(Table *t)
{
    free(t->key);
    free(t->pos);
}

/* The slot of key: holding it, or empty (key UINT64_MAX). */
static uint64_t table_slot(const Table *t, uint64_t key)
{
    uint64_t h = (key * UINT64_C(0x9E3779B97F4A7C15)) & (t->cap - 1);
    while (t->key[h] != UINT64_MAX && t->key[h] != key)
        h = (h + 1) & (t->cap - 1);
    return h;
}

/* ---- cells of a whole mapping ---- */

/* The cells of m as kinds and keys (kind[i] CELL_*, key[i] for live cells): false with too-large, overflow
 * (when refuse_overflow) or internal. */
static bool cells_of(AlgCtx *c, const Keys *k, const Map *m, const char *what, bool refuse_overflow, uint8_t **kind,
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
        alg_fail(c, ALG_ERR_INTERNAL, "out of memory");
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
        ky[p] = cell.kind == CELL_LIVE ? key_of(k, coord) : 0;
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
static void key_format(AlgCtx *c, const Keys *k, uint64_t key, char *buf, size_t size)
{
    uint64_t coord[257] = {0};
    for (int i = 0; i < k->na; i++)
        if (k->radix[i])
            coord[i] = key / k->radix[i] % c->prog->axes[i].size;
    Cell cell = {.kind = CELL_LIVE, .coord = coord};
    cell_format(c->prog, &cell, buf, size);
}

static bool check_axis(AlgCtx *c, int p, uint64_t size, const char *what)
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

const Map *alg_inverse(AlgCtx *c, const Map *e, int p, int k, const int *order, AlgPad kind, bool left)
{
    c->code = NULL;
    const Prog *pr = c->prog;
    if (!check_axis(c, p, e->size, "the mapping"))
        return NULL;
    Keys keys;
    if (!keys_init(c, &keys, e, NULL))
        return NULL;
    /* The result's positions: the listed axes, order[0] major. */
    bool listed[257] = {false};
    uint64_t n = 1;
    for (int i = 0; i < k; i++) {
        if (order[i] < 0 || order[i] >= pr->naxes)
            return alg_fail(c, ALG_ERR_UNDECLARED, "axis %d of the list is not declared", i + 1);
        if (listed[order[i]])
            return alg_fail(c, ALG_ERR_SIZE, "axis %s is listed twice", pr->axes[order[i]].name);
        listed[order[i]] = true;
        if (!u64_mul(n, pr->axes[order[i]].size, &n) || n > c->enum_limit)
            return alg_fail(c, ALG_ERR_TOO_LARGE, "the inverse has more than the %llu positions this operation "
                            "enumerates", U(c->enum_limit));
    }
    uint8_t *kd;
    uint64_t *ky;
    if (!cells_of(c, &keys, e, "the mapping", true, &kd, &ky))
        return NULL;
    AlgVal *v = malloc((size_t)n * sizeof *v);
    uint64_t *coord = calloc((size_t)pr->naxes + 1, sizeof *coord);
    const Map *r = NULL;
    if (!v || !coord) {
        alg_fail(c, ALG_ERR_INTERNAL, "out of memory");
        goto out;
    }
    for (uint64_t i = 0; i < n; i++)
        v[i] = -(AlgVal)kind;
    Cell cell = {.coord = coord};
    for (uint64_t q = 0; q < e->size; q++) {
        if (kd[q] != CELL_LIVE)
            continue;
        eval_cell(c->ev, e, q, &cell);
        uint64_t idx = 0;
        for (int a = 0; a < pr->naxes; a++)
            if (coord[a] && !listed[a]) {
                alg_fail(c, ALG_ERR_FOREIGN, "the mapping holds axis %s at position %llu (coordinate %llu), which is "
                         "not in the list", pr->axes[a].name, U(q), U(coord[a]));
                goto out;
            }
        for (int i = 0; i < k; i++)
            idx = idx * pr->axes[order[i]].size + coord[order[i]];
        if (v[idx] >= 0) {
            if (left) {
                char buf[256];
                cell_format(pr, &cell, buf, sizeof buf);
                alg_fail(c, ALG_ERR_NOT_INJECTIVE, "positions %llu and %llu both hold %s", U(v[idx]), U(q), buf);
                goto out;
            }
            continue;
        }
        v[idx] = (AlgVal)q;
    }
    r = alg_fit(c, v, n, p, left ? "the left inverse" : "the inverse");
out:
    free(v);
    free(coord);
    free(kd);
    free(ky);
    return r;
}

/* The plan of conversion(src, dst): K[p] the first position of dst holding src's index at p, or -kind of
 * src's padding; false with not-held, overflow, too-large. */
static bool plan(AlgCtx *c, const Map *src, const Map *dst, AlgVal **out)
{
    *out = NULL;
    Keys keys;
    if (!keys_init(c, &keys, src, dst))
        return false;
    uint8_t *sk = NULL, *dk = NULL;
    uint64_t *sy = NULL, *dy = NULL;
    Table t = {0};
    AlgVal *K = NULL;
    bool ok = cells_of(c, &keys, src, "the source", true, &sk, &sy) &&
              cells_of(c, &keys, dst, "the destination", true, &dk, &dy);
    if (ok && !(ok = table_init(&t, dst->size) && (K = malloc((size_t)src->size * sizeof *K + 1))))
        alg_fail(c, ALG_ERR_INTERNAL, "out of memory");
    for (uint64_t q = 0; ok && q < dst->size; q++)
        if (dk[q] == CELL_LIVE) {
            uint64_t h = table_slot(&t, dy[q]);
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
        uint64_t h = table_slot(&t, sy[p]);
        if (t.key[h] == UINT64_MAX) {
            char buf[256];
            key_format(c, &keys, sy[p], buf, sizeof buf);
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
    table_free(&t);
    if (!ok) {
        free(K);
        return false;
    }
    *out = K;
    return true;
}

const Map *alg_conversion(AlgCtx *c, const Map *src, const Map *dst, int q)
{
    c->code = NULL;
    if (!check_axis(c, q, dst->size, "the destination"))
        return NULL;
    AlgVal *K;
    if (!plan(c, src, dst, &K))
        return NULL;
    const Map *r = alg_fit(c, K, src->size, q, "the conversion");
    free(K);
    return r;
}

const Map *alg_nullspace(AlgCtx *c, const Map *e, int p)
{
    c->code = NULL;
    if (!check_axis(c, p, e->size, "the mapping"))
        return NULL;
    Keys keys;
    if (!keys_init(c, &keys, e, NULL))
        return NULL;
    uint8_t *kd;
    uint64_t *ky;
    if (!cells_of(c, &keys, e, "the mapping", false, &kd, &ky))
        return NULL;
    AlgVal *v = malloc((size_t)e->size * sizeof *v);
    uint64_t n = 0;
    for (uint64_t i = 0; v && i < e->size; i++)
        if (kd[i] == CELL_LIVE && ky[i] == ky[0])
            v[n++] = (AlgVal)i;
    const Map *r = v ? alg_fit(c, v, n, p, "the nullspace") : alg_fail(c, ALG_ERR_INTERNAL, "out of memory");
    free(v);
    free(kd);
    free(ky);
    return r;
}

bool alg_injective(AlgCtx *c, const Map *e, bool *yes, uint64_t *p1, uint64_t *p2)
{
    c->code = NULL;
    Keys keys;
    if (!keys_init(c, &keys, e, NULL))
        return false;
    uint8_t *kd;
    uint64_t *ky;
    if (!cells_of(c, &keys, e, "the mapping", false, &kd, &ky))
        return false;
    Table t;
    bool ok = table_init(&t, e->size);
    *yes = true;
    for (uint64_t p = 0; ok && p < e->size && *yes; p++) {
        if (kd[p] != CELL_LIVE)
            continue;
        uint64_t h = table_slot(&t, ky[p]);
        if (t.key[h] != UINT64_MAX) {
            *yes = false;
            *p1 = t.pos[h];
            *p2 = p;
        }
        t.key[h] = ky[p];
        if (*yes)
            t.pos[h] = p;
    }
    if (!ok)
        alg_fail(c, ALG_ERR_INTERNAL, "out of memory");
    table_free(&t);
    free(kd);
    free(ky);
    return ok;
}

bool alg_vector(AlgCtx *c, const Map *src, const Map *dst, uint64_t *n)
{
    c->code = NULL;
    if (!dst) {
        bool used[257] = {false};
        map_mark_axes(src, used);
        MapWhy why;
        for (int a = c->prog->naxes - 1; a >= 0; a--)
            if (used[a]) {
                const Map *s = map_make_sym(&c->prog->arena, a, c->prog->axes[a].size, (Loc){0}, why);
                dst = dst ? map_make_pair(&c->prog->arena, s, dst, (Loc){0}, why) : s;
                if (!dst) {
                    alg_fail(c, ALG_ERR_TOO_LARGE, "the identity layout of the source's axes: %s", why);
                    return false;
                }
            }
        if (!dst)
            dst = map_make_bcast(&c->prog->arena, 1, (Loc){0}, why);
    }
    AlgVal *K;
    if (!plan(c, src, dst, &K))
        return false;
    uint64_t g = src->size, b = dst->size;
    while (b) {
        uint64_t t = g % b;
        g = b;
        b = t;
    }
    for (uint64_t w = g; w >= 1; w--) {
        if (g % w)
            continue;
        bool ok = true;
        for (uint64_t s = 0; s < src->size && ok; s += w) {
            const AlgVal *k = K + s;
            if (k[0] < 0) {
                for (uint64_t i = 1; i < w && ok; i++)
                    ok = k[i] == k[0];
            } else {
                ok = (uint64_t)k[0] % w == 0;
                for (uint64_t i = 1; i < w && ok; i++)
                    ok = k[i] == k[0] + (AlgVal)i;
            }
        }
        if (ok) {
            *n = w;
            break;
        }
    }
    free(K);
    return true;
}

const Map *alg_coalesce(AlgCtx *c, const Map *e)
{
    c->code = NULL;
    const Map *r = norm_map(&c->prog->arena, e);
    int same = eqv_same(c->eqv, r, e);
    if (same != 1) {
        char et[160];
        map_format(c->prog, e, et, sizeof et);
        return alg_fail(c, ALG_ERR_INTERNAL, "the normal form is %s the mapping %s",
                        same < 0 ? "not proved equivalent to" : "not equivalent to", et);
    }
    return r;
}
