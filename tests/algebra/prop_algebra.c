/* prop_algebra.c — the layout algebra against the reference interpreter, on generated operands.
 *
 * Usage: prop_algebra [SEED [COUNT [FIRST]]]   (defaults 1, 3000, 0; MAPC_TEST_COUNT=N lowers COUNT)
 * Case i is seeded with rng_case_seed(SEED, i, KEY) and reruns alone with COUNT 1 and FIRST i. Each case makes
 * a tiler over an axis of any size (digits of the axis or of a padded base, broadcasts, resizes, paddings of the
 * three kinds) and a generated program (tests/gen), and checks every operation's result cell by cell against
 * definitions written here from the interpreter's cells alone: complement (origins × values tile the axis once),
 * cover (each coordinate once per occurrence, the overhang padded with the kind asked), divide (its cells, its
 * zipped form, rest 0 being the composition of the tiler with the mapping, and divides of generated mappings of
 * several axes by edge tiles), inverse (the mapping
 * at the inverse's cell is the index, and no earlier position holds it), left_inverse, conversion, nullspace,
 * injective, vector, coalesce, and compose with the identity on either side, and the digit route of complement and cover against
 * their enumeration. An operation may
 * answer unexpressible (counted and printed); any other error must be the one the definition says. */
#include "algebra/alg_ops.h"
#include "front/front.h"
#include "harness.h"
#include "mapgen.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY 0xA16EB7A
#define NA 16

static const MapGenOpts gen_opts = {.max_size = 256, .max_depth = 4, .max_axes = 3};

static uint64_t unexpressible, tilers, mappings, results, digit_routes;

typedef struct Case {
    Prog *p;
    AlgCtx c;
    char *src;
} Case;

/* The cells of m, each into cells[i] (kind) and coords[i * NA ...]. */
typedef struct Cells {
    uint64_t n;
    CellKind *kind;
    uint64_t *coord;
} Cells;

static Cells cells_of(Case *k, const Map *m)
{
    Cells c = {.n = m->size, .kind = calloc((size_t)m->size, sizeof(CellKind)),
               .coord = calloc((size_t)m->size * NA, sizeof(uint64_t))};
    for (uint64_t i = 0; i < m->size; i++) {
        Cell cell = {.coord = c.coord + i * NA};
        if (eval_cell(k->c.ev, m, i, &cell) != EVAL_OK)
            cell.kind = CELL_OOB;
        c.kind[i] = cell.kind;
    }
    return c;
}

static void cells_free(Cells *c)
{
    free(c->kind);
    free(c->coord);
}

static bool same_index(const Cells *a, uint64_t i, const Cells *b, uint64_t j)
{
    return a->kind[i] == CELL_LIVE && b->kind[j] == CELL_LIVE &&
           memcmp(a->coord + i * NA, b->coord + j * NA, NA * sizeof(uint64_t)) == 0;
}

static bool has_kind(const Cells *c, CellKind k)
{
    for (uint64_t i = 0; i < c->n; i++)
        if (c->kind[i] == k)
            return true;
    return false;
}

/* Whether an operation's answer is acceptable when the definition gives a result: a mapping, or
 * unexpressible (counted). */
static bool answered(Case *k, const Map *r, const char *what)
{
    if (r) {
        results++;
        return true;
    }
    if (k->c.code && strcmp(k->c.code, ALG_ERR_UNEXPRESSIBLE) == 0) {
        unexpressible++;
        return false;
    }
    FAIL("%s: unexpected error %s: %s", what, k->c.code ? k->c.code : "(none)", k->c.msg);
    harness_detail("program:\n%s", k->src);
    return false;
}

static void expect_code(Case *k, const Map *r, const char *code, const char *what)
{
    if (!CHECK(!r && k->c.code && strcmp(k->c.code, code) == 0, "%s: expected %s", what, code))
        harness_detail("got %s: %s\nprogram:\n%s", r ? "a result" : k->c.code, k->c.msg, k->src);
}

static bool open_case(Case *k, char *src)
{
    k->src = src;
    k->p = prog_new();
    if (prog_parse(k->p, "<gen>", src, strlen(src)) != 0) {
        FAIL("generated program does not parse");
        harness_detail("program:\n%s", src);
        return false;
    }
    return true;
}

static void close_case(Case *k)
{
    alg_close(&k->c);
    prog_free(k->p);
    free(k->src);
}

static const Map *type_of(Case *k, const char *name)
{
    const Name *n = prog_lookup(k->p, name);
    return n && n->kind == NAME_TYPE ? n->map : NULL;
}

static int axis_of(Case *k, const char *name)
{
    const Name *n = prog_lookup(k->p, name);
    return n && n->kind == NAME_AXIS ? n->axis : -1;
}

/* Declares an axis of size n named name (for positions), by parsing one more statement. */
static int declare(Case *k, const char *name, uint64_t n)
{
    char s[96];
    snprintf(s, sizeof s, "axes![%s = %" PRIu64 "];", name, n);
    return prog_parse(k->p, "<gen>", s, strlen(s)) == 0 ? axis_of(k, name) : -1;
}

/* ---- tilers ---- */

static uint64_t pick_divisor(Rng *r, uint64_t n)
{
    uint64_t d[64];
    int nd = 0;
    for (uint64_t i = 1; i <= n && nd < 64; i++)
        if (n % i == 0)
            d[nd++] = i;
    return d[rng_below(r, (uint64_t)nd)];
}

static const char *kind_text(Rng *r)
{
    static const char *const k[] = {"#", "#{0}", "#{!}"};
    return k[rng_below(r, 3)];
}

/* "axes![X = n]; type T = m![...];" with T made of 1-3 digits of X or of [X # M], perhaps a broadcast, a resize
 * or a padding of a digit. */
static char *tiler_program(Rng *r)
{
    uint64_t xs = 1 + rng_below(r, 60);
    char base[64];
    uint64_t bs = xs;
    if (rng_below(r, 2)) {
        bs = xs + rng_below(r, xs + 1);
        snprintf(base, sizeof base, "[X %s %" PRIu64 "]", kind_text(r), bs);
    } else {
        snprintf(base, sizeof base, "X");
    }
    char *t = harness_append(NULL, "axes![X = %" PRIu64 "];\ntype T = m![", xs);
    int nd = 1 + (int)rng_below(r, 3);
    for (int i = 0; i < nd; i++) {
        if (i)
            t = harness_append(t, ", ");
        if (rng_below(r, 6) == 0) {
            t = harness_append(t, "%" PRIu64, 1 + rng_below(r, 3));
            continue;
        }
        uint64_t s = pick_divisor(r, bs), c = pick_divisor(r, bs / s);
        t = harness_append(t, "%s / %" PRIu64 " %% %" PRIu64, base, s, c);
        if (rng_below(r, 6) == 0)
            t = harness_append(t, " = %" PRIu64, 1 + rng_below(r, c));
        else if (rng_below(r, 6) == 0)
            t = harness_append(t, " %s %" PRIu64, kind_text(r), c + 1 + rng_below(r, 3));
    }
    return harness_append(t, "];\n");
}

/* The greedy origins of values vals (in[] flags over [0, xs)): the count, or -1 (no exact cover). */
static int64_t greedy(const bool *in, uint64_t xs, uint64_t *org)
{
    int *hit = calloc((size_t)xs + 1, sizeof *hit);
    int64_t n = 0;
    for (uint64_t y = 0; y < xs && n >= 0; y++) {
        if (hit[y])
            continue;
        org[n++] = y;
        for (uint64_t s = 0; y + s < xs; s++)
            if (in[s] && hit[y + s]++) {
                n = -1;
                break;
            }
    }
    free(hit);
    return n;
}

static void tiler_case(Rng *r)
{
    Case k;
    if (!open_case(&k, tiler_program(r)))
        return;
    tilers++;
    alg_open(&k.c, k.p);
    const Map *t = type_of(&k, "T");
    int x = axis_of(&k, "X");
    uint64_t xs = k.p->axes[x].size;
    Cells tc = cells_of(&k, t);
    PadKind kind = (PadKind)(1 + rng_below(r, 3));
    const Map *cm = alg_complement(&k.c, t, x);
    const Map *pm = alg_cover(&k.c, t, x, kind);
    if (has_kind(&tc, CELL_OVERFLOW)) {
        expect_code(&k, cm, ALG_ERR_OVERFLOW, "complement of an overflowing tiler");
        expect_code(&k, pm, ALG_ERR_OVERFLOW, "cover of an overflowing tiler");
        goto out;
    }
    bool *in = calloc((size_t)xs, 1);
    uint64_t *org = calloc((size_t)xs, sizeof *org);
    for (uint64_t i = 0; i < tc.n; i++)
        if (tc.kind[i] == CELL_LIVE)
            in[tc.coord[i * NA + x]] = true;
    int64_t no = greedy(in, xs, org);
    if (no < 0) {
        expect_code(&k, cm, ALG_ERR_NO_COMPLEMENT, "complement without an exact cover");
        expect_code(&k, pm, ALG_ERR_NO_COMPLEMENT, "cover without an exact cover");
    } else {
        if (answered(&k, cm, "complement")) {
            /* origins × values cover [0, |X|) once, origins strictly increasing, over X, no padding */
            Cells cc = cells_of(&k, cm);
            bool ok = cc.n == (uint64_t)no;
            int *hit = calloc((size_t)xs, sizeof *hit);
            for (uint64_t i = 0; ok && i < cc.n; i++) {
                ok = cc.kind[i] == CELL_LIVE && (i == 0 || cc.coord[i * NA + x] > cc.coord[(i - 1) * NA + x]);
                for (uint64_t s = 0; ok && s < xs; s++)
                    if (in[s] && cc.coord[i * NA + x] + s < xs)
                        hit[cc.coord[i * NA + x] + s]++;
            }
            for (uint64_t y = 0; ok && y < xs; y++)
                ok = hit[y] == 1;
            if (!CHECK(ok, "complement tiles the axis once"))
                harness_detail("program:\n%s", k.src);
            free(hit);
            cells_free(&cc);
        }
        if (answered(&k, pm, "cover")) {
            Cells pc = cells_of(&k, pm);
            bool ok = pc.n == (uint64_t)no * tc.n;
            uint64_t bad = 0;
            for (uint64_t q = 0; ok && q < pc.n; q++) {
                uint64_t o = org[q / tc.n], i = q % tc.n;
                bad = q;
                if (tc.kind[i] != CELL_LIVE)
                    ok = pc.kind[q] == tc.kind[i];
                else if (o + tc.coord[i * NA + x] >= xs)
                    ok = pc.kind[q] == (CellKind)kind;
                else
                    ok = pc.kind[q] == CELL_LIVE && pc.coord[q * NA + x] == o + tc.coord[i * NA + x];
            }
            /* each coordinate once per occurrence of its value in the tiler */
            for (uint64_t y = 0; ok && y < xs; y++) {
                uint64_t got = 0, want = 0, o = 0;
                for (int64_t j = 0; j < no; j++) /* the one origin y is reached from */
                    if (org[j] <= y && in[y - org[j]])
                        o = org[j];
                for (uint64_t q = 0; q < pc.n; q++)
                    got += pc.kind[q] == CELL_LIVE && pc.coord[q * NA + x] == y;
                for (uint64_t i = 0; i < tc.n; i++)
                    want += tc.kind[i] == CELL_LIVE && tc.coord[i * NA + x] == y - o;
                ok = got == want && want > 0;
                bad = y;
            }
            if (!CHECK(ok, "cover cells (at %" PRIu64 ")", bad))
                harness_detail("program:\n%s", k.src);
            cells_free(&pc);
        }
        /* the digit route (used past the enumeration limit) agrees with the enumeration where it applies */
        bool applies;
        const Map *dc = alg_complement_digits(&k.c, t, x, false, &applies);
        if (applies) {
            digit_routes++;
            if (!CHECK(dc && cm && eqv_same(k.c.eqv, dc, cm) == 1, "the digit route's complement"))
                harness_detail("%s\nprogram:\n%s", dc ? "differs" : k.c.msg, k.src);
            const Map *dp = alg_complement_digits(&k.c, t, x, true, &applies);
            if (!CHECK(dp && pm && eqv_same(k.c.eqv, dp, pm) == 1, "the digit route's cover"))
                harness_detail("%s\nprogram:\n%s", dp ? "differs" : k.c.msg, k.src);
        }
        /* divide of a transpose A of X by T: position r·|T| + i holds A at the cover's value (or the cover's
         * padding, the overhang top), and rest 0 is compose(T, X := A) */
        MapWhy why;
        Arena *ar = &k.p->arena;
        uint64_t d = pick_divisor(r, xs);
        const Map *xm = map_make_sym(ar, x, xs, (Loc){0}, why);
        const Map *am = d == 1 || d == xs ? xm
                                          : map_make_pair(ar, map_make_op(ar, MAP_MOD, PAD_TOP, xm, d, (Loc){0}, why),
                                                          map_make_op(ar, MAP_STRIDE, PAD_TOP, xm, d, (Loc){0}, why),
                                                          (Loc){0}, why);
        const Map *dm = alg_divide(&k.c, am, 1, &x, &t, false), *zm = alg_divide(&k.c, am, 1, &x, &t, true);
        if (answered(&k, dm, "divide") && answered(&k, zm, "zipped divide")) {
            Cells ac = cells_of(&k, am), dc = cells_of(&k, dm);
            bool ok = dc.n == (uint64_t)no * tc.n && eqv_same(k.c.eqv, dm, zm) == 1;
            uint64_t bad = 0;
            for (uint64_t q = 0; ok && q < dc.n; q++) {
                uint64_t o = org[q / tc.n], i = q % tc.n;
                bad = q;
                if (tc.kind[i] != CELL_LIVE)
                    ok = dc.kind[q] == tc.kind[i];
                else if (o + tc.coord[i * NA + x] >= xs)
                    ok = dc.kind[q] == CELL_PAD_TOP;
                else
                    ok = dc.kind[q] == ac.kind[o + tc.coord[i * NA + x]] &&
                         (dc.kind[q] != CELL_LIVE || dc.coord[q * NA + x] == ac.coord[(o + tc.coord[i * NA + x]) * NA + x]);
            }
            if (!CHECK(ok, "divide cells (at %" PRIu64 ")", bad))
                harness_detail("program:\n%s", k.src);
            const Map *rest0 = map_make_op(ar, MAP_RESIZE, PAD_TOP, dm, tc.n, (Loc){0}, why);
            const Map *ct = alg_compose(&k.c, t, 1, &x, &am);
            if (!CHECK(rest0 && ct && eqv_same(k.c.eqv, rest0, ct) == 1, "rest 0 of the divide is compose(T, X := A)"))
                harness_detail("program:\n%s", k.src);
            cells_free(&ac);
            cells_free(&dc);
        }
    }
    free(in);
    free(org);
out:
    cells_free(&tc);
    close_case(&k);
}

/* ---- generated mappings ---- */

static void inverse_check(Case *k, const Map *e, const Cells *ec, int p, bool left, PadKind kind)
{
    int order[NA], n = 0;
    bool used[NA + 1] = {false};
    map_mark_axes(e, used);
    uint64_t size = 1;
    for (int a = 0; a < k->p->naxes; a++)
        if (used[a] && a != p) {
            order[n++] = a;
            size *= k->p->axes[a].size;
        }
    if (size > (1u << 16))
        return;
    const Map *r = alg_inverse(&k->c, e, p, n, order, kind, left);
    if (has_kind(ec, CELL_OVERFLOW)) {
        expect_code(k, r, ALG_ERR_OVERFLOW, "inverse of an overflowing mapping");
        return;
    }
    bool inj = true;
    for (uint64_t i = 0; i < ec->n && inj; i++)
        for (uint64_t j = 0; j < i && inj; j++)
            inj = !same_index(ec, i, ec, j);
    if (left && !inj) {
        expect_code(k, r, ALG_ERR_NOT_INJECTIVE, "left inverse of a non-injective mapping");
        return;
    }
    if (!answered(k, r, left ? "left inverse" : "inverse"))
        return;
    Cells rc = cells_of(k, r);
    bool ok = rc.n == size;
    uint64_t bad = 0;
    for (uint64_t idx = 0; ok && idx < size; idx++) {
        uint64_t want[NA] = {0}, rest = idx;
        for (int i = n - 1; i >= 0; i--) {
            want[order[i]] = rest % k->p->axes[order[i]].size;
            rest /= k->p->axes[order[i]].size;
        }
        uint64_t first = UINT64_MAX;
        for (uint64_t q = 0; q < ec->n && first == UINT64_MAX; q++)
            if (ec->kind[q] == CELL_LIVE && memcmp(ec->coord + q * NA, want, sizeof want) == 0)
                first = q;
        bad = idx;
        if (first == UINT64_MAX)
            ok = rc.kind[idx] == (CellKind)kind;
        else
            ok = rc.kind[idx] == CELL_LIVE && rc.coord[idx * NA + p] == first;
    }
    if (!CHECK(ok, "%s cells (at index %" PRIu64 ")", left ? "left inverse" : "inverse", bad))
        harness_detail("program:\n%s", k->src);
    cells_free(&rc);
}

static void mapping_case(uint64_t seed, Rng *r)
{
    MapGen g;
    mapgen_init(&g, seed, &gen_opts);
    Case k;
    if (!open_case(&k, mapgen_program(&g)))
        return;
    mappings++;
    const Map *e = type_of(&k, "E");
    uint64_t fsize;
    char *ftext = mapgen_expr(&g, 0, &fsize);
    int p = declare(&k, "Pz", e->size), q = declare(&k, "Qz", fsize);
    const Map *f = prog_parse_map(k.p, "<gen>", ftext);
    free(ftext);
    if (p < 0 || q < 0 || !f || k.p->naxes > NA) {
        FAIL("cannot declare the position axes or parse the second mapping");
        prog_free(k.p);
        free(k.src);
        return;
    }
    alg_open(&k.c, k.p); /* after the last axis: the interpreter is sized for the program's axes */
    Cells ec = cells_of(&k, e), fc = cells_of(&k, f);
    bool e_over = has_kind(&ec, CELL_OVERFLOW), f_over = has_kind(&fc, CELL_OVERFLOW);

    /* injective */
    bool yes;
    uint64_t p1 = 0, p2 = 0, w1 = 0, w2 = 0;
    bool want = true;
    for (uint64_t i = 0; i < ec.n && want; i++)
        for (uint64_t j = 0; j < i && want; j++)
            if (same_index(&ec, i, &ec, j)) {
                want = false;
                w1 = j;
                w2 = i;
            }
    if (CHECK(alg_injective(&k.c, e, &yes, &p1, &p2), "injective answers"))
        if (!CHECK(yes == want && (yes || (p1 == w1 && p2 == w2)), "injective"))
            harness_detail("got %d %" PRIu64 " %" PRIu64 ", want %d %" PRIu64 " %" PRIu64 "\nprogram:\n%s", yes, p1,
                           p2, want, w1, w2, k.src);

    /* inverse, left inverse */
    inverse_check(&k, e, &ec, p, false, (PadKind)(1 + rng_below(r, 3)));
    inverse_check(&k, e, &ec, p, true, PAD_BOTTOM);

    /* divide of E over its positions Pz by the tile Pz = t: position q holds E at q, or pad(top) past |E| */
    {
        uint64_t tl = 1 + rng_below(r, e->size);
        MapWhy why;
        const Map *pm = map_make_sym(&k.p->arena, p, e->size, (Loc){0}, why);
        const Map *tile = tl == e->size ? pm : map_make_op(&k.p->arena, MAP_RESIZE, PAD_TOP, pm, tl, (Loc){0}, why);
        const Map *dv = alg_divide(&k.c, e, 1, &p, &tile, true);
        if (has_kind(&ec, CELL_OVERFLOW)) {
            expect_code(&k, dv, ALG_ERR_OVERFLOW, "divide of an overflowing mapping");
        } else if (answered(&k, dv, "divide over positions")) {
            Cells dc = cells_of(&k, dv);
            uint64_t n = (e->size + tl - 1) / tl * tl;
            bool ok = dc.n == n;
            for (uint64_t q = 0; ok && q < n; q++)
                ok = q >= e->size ? dc.kind[q] == CELL_PAD_TOP
                                  : dc.kind[q] == ec.kind[q] &&
                                        (ec.kind[q] != CELL_LIVE || same_index(&dc, q, &ec, q));
            if (!CHECK(ok, "divide over positions (tile %" PRIu64 ")", tl))
                harness_detail("program:\n%s", k.src);
            cells_free(&dc);
        }
    }

    /* nullspace */
    const Map *ns = alg_nullspace(&k.c, e, p);
    if (answered(&k, ns, "nullspace")) {
        Cells nc = cells_of(&k, ns);
        uint64_t j = 0;
        bool ok = true;
        for (uint64_t i = 0; i < ec.n && ok; i++)
            if (same_index(&ec, i, &ec, 0))
                ok = j < nc.n && nc.kind[j] == CELL_LIVE && nc.coord[j++ * NA + p] == i;
        ok = ok && j == nc.n;
        if (!CHECK(ok, "nullspace"))
            harness_detail("program:\n%s", k.src);
        cells_free(&nc);
    }

    /* conversion and vector: the plan written from the cells */
    int64_t *K = calloc((size_t)ec.n, sizeof *K);
    bool held = true;
    uint64_t unheld = 0;
    for (uint64_t i = 0; i < ec.n; i++) {
        if (ec.kind[i] != CELL_LIVE) {
            K[i] = -(int64_t)ec.kind[i];
            continue;
        }
        K[i] = INT64_MIN;
        for (uint64_t j = 0; j < fc.n && K[i] == INT64_MIN; j++)
            if (same_index(&ec, i, &fc, j))
                K[i] = (int64_t)j;
        if (K[i] == INT64_MIN && held) {
            held = false;
            unheld = i;
        }
    }
    const Map *cv = alg_conversion(&k.c, e, f, q);
    AlgCtx cvc = k.c; /* the conversion's error, before vector's call replaces it */
    uint64_t vec = 0;
    bool vok = alg_vector(&k.c, e, f, &vec);
    const char *vcode = k.c.code;
    k.c.code = cvc.code;
    memcpy(k.c.msg, cvc.msg, sizeof k.c.msg);
    if (e_over || f_over) {
        expect_code(&k, cv, ALG_ERR_OVERFLOW, "conversion with an overflow");
        CHECK(!vok && vcode && strcmp(vcode, ALG_ERR_OVERFLOW) == 0, "vector with an overflow");
    } else if (!held) {
        expect_code(&k, cv, ALG_ERR_NOT_HELD, "conversion of an index the destination lacks");
        if (!CHECK(strstr(k.c.msg, "position") != NULL, "not-held names the position"))
            harness_detail("%s (%" PRIu64 ")", k.c.msg, unheld);
    } else {
        if (answered(&k, cv, "conversion")) {
            Cells cc = cells_of(&k, cv);
            bool ok = cc.n == ec.n;
            for (uint64_t i = 0; i < ec.n && ok; i++)
                ok = K[i] < 0 ? cc.kind[i] == (CellKind)-K[i]
                              : cc.kind[i] == CELL_LIVE && cc.coord[i * NA + q] == (uint64_t)K[i];
            if (!CHECK(ok, "conversion"))
                harness_detail("program:\n%s", k.src);
            cells_free(&cc);
        }
        uint64_t best = 1;
        for (uint64_t w = 1; w <= ec.n; w++) {
            if (ec.n % w || fc.n % w)
                continue;
            bool ok = true;
            for (uint64_t b = 0; b < ec.n && ok; b += w)
                for (uint64_t i = 0; i < w && ok; i++)
                    ok = K[b] < 0 ? K[b + i] == K[b] : K[b] % (int64_t)w == 0 && K[b + i] == K[b] + (int64_t)i;
            if (ok)
                best = w;
        }
        if (CHECK(vok, "vector answers"))
            if (!CHECK(vec == best, "vector"))
                harness_detail("got %" PRIu64 ", want %" PRIu64 "\nprogram:\n%s", vec, best, k.src);
    }
    free(K);

    /* coalesce; compose with the identity on either side: compose(E, X := m![X]) ≡ E, compose(m![Q], Q := F) ≡ F */
    const Map *co = alg_coalesce(&k.c, e);
    if (CHECK(co != NULL, "coalesce answers"))
        CHECK(eqv_same(k.c.eqv, co, e) == 1, "coalesce is equivalent");
    bool used[NA + 1] = {false};
    map_mark_axes(e, used);
    MapWhy why;
    for (int a = 0; a < k.p->naxes; a++) {
        if (!used[a])
            continue;
        const Map *x = map_make_sym(&k.p->arena, a, k.p->axes[a].size, (Loc){0}, why);
        const Map *id = alg_compose(&k.c, e, 1, &a, &x);
        if (CHECK(id != NULL, "compose answers") && !CHECK(eqv_same(k.c.eqv, id, e) == 1, "compose(E, X := X) is E"))
            harness_detail("program:\n%s", k.src);
    }
    const Map *qm = map_make_sym(&k.p->arena, q, fsize, (Loc){0}, why), *lf = alg_compose(&k.c, qm, 1, &q, &f);
    if (CHECK(lf != NULL, "compose answers") && !CHECK(eqv_same(k.c.eqv, lf, f) == 1, "compose(Q, Q := F) is F"))
        harness_detail("program:\n%s", k.src);
    cells_free(&ec);
    cells_free(&fc);
    close_case(&k);
}

int main(int argc, char **argv)
{
    HarnessArgs a = {.seed = 1, .count = 3000};
    harness_args(argc, argv, "[SEED [COUNT [FIRST]]]", &a);
    for (uint64_t i = a.first; i < a.first + a.count; i++) {
        harness_case(i);
        uint64_t seed = rng_case_seed(a.seed, i, KEY);
        Rng r = rng_seeded(seed);
        tiler_case(&r);
        mapping_case(seed, &r);
    }
    printf("%" PRIu64 " tilers, %" PRIu64 " generated programs (seed %" PRIu64 "): %" PRIu64
           " results checked cell by cell, %" PRIu64 " unexpressible, %" PRIu64 " digit-route complements\n",
           tilers, mappings, a.seed, results, unexpressible, digit_routes);
    return harness_report();
}
