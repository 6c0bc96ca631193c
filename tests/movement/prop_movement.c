/* prop_movement.c — property tests of compiler/movement against the reference interpreter: factor lists reproduce its
 * cells, every derived sequencer config walks the stream onto the buffer as docs/movement.md requires (read, write,
 * carve), merged configs walk the raw addresses, each error is raised where its condition holds, the limits and the
 * bank run agree with a direct computation, and tails match their definition.
 *
 * Usage: prop_movement [SEED [COUNT]]   (defaults 1, 2000 pairs; MAPC_TEST_COUNT=N raises COUNT to N) */
#include "core/ast.h"
#include "eval/eval.h"
#include "front/front.h"
#include "harness.h"
#include "mapgen.h"
#include "movement/mv_impl.h"
#include "pairgen.h"
#include "prog_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

/* Cells of a mapping, evaluated once: kind and an index key (coordinates in mixed radix over the axes). */
typedef struct Cells {
    uint64_t n;
    CellKind *kind;
    uint64_t *key;
} Cells;

static uint64_t index_key(const Prog *p, const uint64_t *coord)
{
    uint64_t k = 0;
    for (int a = p->naxes - 1; a >= 0; a--)
        k = k * p->axes[a].size + coord[a];
    return k;
}

static uint64_t key_space(const Prog *p)
{
    uint64_t n = 1;
    for (int a = 0; a < p->naxes; a++)
        n *= p->axes[a].size;
    return n;
}

static void cells_of(Evaluator *ev, const Prog *p, const Map *m, Cells *c)
{
    c->n = m->size;
    c->kind = calloc(m->size, sizeof *c->kind);
    c->key = calloc(m->size, sizeof *c->key);
    uint64_t coord[16];
    for (uint64_t q = 0; q < m->size; q++) {
        Cell cell = {.coord = coord};
        eval_cell(ev, m, q, &cell);
        c->kind[q] = cell.kind;
        c->key[q] = cell.kind == CELL_LIVE ? index_key(p, coord) : 0;
    }
}

static void cells_free(Cells *c)
{
    free(c->kind);
    free(c->key);
}

/* ---- 1. factor lists against the interpreter ---- */

static uint64_t flattened, unsupported_count;

/* If m flattens, its factor list gives the interpreter's cell at every position. */
static void check_factor_cells(Evaluator *ev, const Prog *p, const Map *m, const char *text)
{
    MvList *l = calloc(1, sizeof *l);
    MvDiag d;
    MvCode c = mv_flatten(p, m, MV_PART_BUF, l, &d);
    if (c != MV_OK) {
        CHECK(c == MV_UNSUPPORTED, "flattening fails only as unsupported: %s (%s)", mv_code_name(c), text);
        unsupported_count++;
        free(l);
        return;
    }
    flattened++;
    CHECK_EQ_U64(mv_volume(l, 0, l->n), m->size, "the factors of %s occupy its size", text);
    uint64_t coord[16], fcoord[16];
    bool same = true;
    uint64_t bad = 0;
    for (uint64_t q = 0; q < m->size && same; q++) {
        Cell cell = {.coord = coord};
        eval_cell(ev, m, q, &cell);
        CellKind k;
        mv_list_cell(l, p->naxes, q, &k, fcoord);
        same = k == cell.kind && (k != CELL_LIVE || memcmp(coord, fcoord, (size_t)p->naxes * sizeof *coord) == 0);
        bad = q;
    }
    if (!CHECK(same, "the factor list of %s gives the interpreter's cells", text))
        harness_detail("first difference at position %llu", U(bad));
    free(l);
}

static void test_factor_lists(uint64_t seed, uint64_t count)
{
    MapGen g;
    MapGenOpts o = {.max_size = 256};
    mapgen_init(&g, seed, &o);
    for (uint64_t i = 0; i < count; i++) {
        char *src = mapgen_program(&g);
        Prog *p = prog_new();
        if (prog_parse(p, "<gen>", src, strlen(src)) == 0) {
            Evaluator *ev = eval_new(p);
            const Name *e = prog_lookup(p, "E");
            harness_context("%s", src);
            if (e && e->map)
                check_factor_cells(ev, p, e->map, "E");
            for (int k = 0; k < 3; k++) {
                char *x = mapgen_expr(&g, 128, NULL);
                const Map *m = prog_parse_map(p, "<expr>", x);
                if (m)
                    check_factor_cells(ev, p, m, x);
                free(x);
            }
            harness_context(NULL);
            eval_free(ev);
        }
        prog_free(p);
        free(src);
    }
}

/* ---- 2. derived configs against the interpreter ---- */

static uint64_t derived[3], errors[MV_NCODES];

/* The buffer-blind part of each stream digit: broadcast[i] for refined stream factor i when every live buffer
 * cell has digit value 0 there (docs/movement.md: pi drops such digits). false when the refinement fails. */
static bool stream_digits(const Prog *p, const Map *buf, const Map *time, const Map *packet, const Cells *bc,
                          MvList *st, bool *broadcast)
{
    MvList *b = calloc(1, sizeof *b);
    MvDiag d;
    st->n = 0;
    bool ok = mv_flatten(p, buf, MV_PART_BUF, b, &d) == MV_OK && mv_flatten(p, time, MV_PART_TIME, st, &d) == MV_OK &&
              mv_flatten(p, packet, MV_PART_PACKET, st, &d) == MV_OK;
    MvList *lists[2] = {b, st};
    const char *names[2] = {"buffer", "stream"};
    ok = ok && mv_refine(p, lists, names, 2, &d) == MV_OK;
    free(b);
    if (!ok)
        return false;
    uint64_t coord[16];
    for (int i = 0; i < st->n; i++) {
        const MvFactor *f = &st->f[i];
        broadcast[i] = true;
        for (uint64_t q = 0; q < bc->n && broadcast[i] && f->axis >= 0; q++) {
            if (bc->kind[q] != CELL_LIVE)
                continue;
            uint64_t k = bc->key[q];
            for (int a = 0; a < p->naxes; a++) {
                coord[a] = k % p->axes[a].size;
                k /= p->axes[a].size;
            }
            if (coord[f->axis] / f->s % f->m != 0)
                broadcast[i] = false;
        }
    }
    return true;
}

/* pi of a live stream cell's key: the digits the buffer never varies dropped. */
static uint64_t project(const Prog *p, const MvList *st, const bool *broadcast, uint64_t key)
{
    uint64_t coord[16], out[16] = {0};
    for (int a = 0; a < p->naxes; a++) {
        coord[a] = key % p->axes[a].size;
        key /= p->axes[a].size;
    }
    for (int i = 0; i < st->n; i++) {
        const MvFactor *f = &st->f[i];
        if (f->axis >= 0 && !broadcast[i])
            out[f->axis] += coord[f->axis] / f->s % f->m * f->s;
    }
    return index_key(p, out);
}

/* The longest run of consecutive accesses sharing a DM bank, by walking every access. */
static uint64_t bank_run_walk(const MvSeq *s)
{
    uint64_t total = s->time * s->packet, runs[16] = {0}, best = 0;
    for (uint64_t pos = 0; pos < total; pos += s->read_size) {
        bool hit[16] = {false};
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (uint64_t j = 0; j < s->read_size; j++) {
            int64_t a = mv_walk_addr(s->cfg, s->ncfg, pos + j);
            lo = a < lo ? a : lo;
            hi = a > hi ? a : hi;
        }
        for (uint64_t bit = (uint64_t)lo * s->elem_bits / 8; bit <= ((uint64_t)hi * s->elem_bits + s->elem_bits - 1) / 8; bit++)
            hit[(bit >> 3) & 15] = true;
        for (int b = 0; b < 16; b++) {
            runs[b] = hit[b] ? runs[b] + 1 : 0;
            best = runs[b] > best ? runs[b] : best;
        }
    }
    return best;
}

static uint64_t gcd(uint64_t a, uint64_t b) { return b ? gcd(b, a % b) : a; }

/* The limits of a merged config, computed here: the code mv_sequence must give (docs/movement.md's order). */
static MvCode expected_limit(const MvSeq *s)
{
    for (int i = 0; i < s->nraw; i++)
        if (s->raw[i].n > MV_MAX_N)
            return MV_ITERATION_LIMIT;
    if (s->ncfg > MV_MAX_ENTRIES)
        return MV_TOO_MANY_ENTRIES;
    uint64_t run = s->ncfg ? s->cfg[s->ncfg - 1].n : 1;
    for (int i = s->ncfg - 2; i >= 0 && s->cfg[i].s == (int64_t)s->cfg[i + 1].n * s->cfg[i + 1].s; i--)
        run *= s->cfg[i].n;
    uint64_t a = gcd(s->packet, run);
    if (s->ncfg && a != 1 && !((s->cfg[s->ncfg - 1].s == 0 || s->cfg[s->ncfg - 1].s == 1) && s->cfg[s->ncfg - 1].n % a == 0))
        return MV_INNERMOST;
    for (uint64_t bytes = 32; bytes >= 1; bytes /= 2)
        if (bytes * 8 % s->elem_bits == 0 && a % (bytes * 8 / s->elem_bits) == 0)
            return MV_OK;
    return MV_PACKET_SIZE;
}

static void check_pair(const Pair *c, bool walk)
{
    Prog *p = prog_new();
    harness_context("%s buf %s time %s packet %s", c->program, c->buf, c->time, c->packet);
    if (prog_parse(p, "<pair>", c->program, strlen(c->program)) != 0) {
        FAIL("the generated program parses");
        prog_free(p);
        return;
    }
    const Map *buf = prog_parse_map(p, "<buf>", c->buf), *time = prog_parse_map(p, "<time>", c->time),
              *packet = prog_parse_map(p, "<packet>", c->packet);
    char stream_text[1200];
    snprintf(stream_text, sizeof stream_text, "m![[%.*s], [%.*s]]", (int)strlen(c->time) - 4, c->time + 3,
             (int)strlen(c->packet) - 4, c->packet + 3);
    const Map *stream = prog_parse_map(p, "<stream>", stream_text);
    if (!CHECK(buf && time && packet && stream, "the generated mappings parse")) {
        harness_detail_diags(p);
        prog_free(p);
        return;
    }
    Evaluator *ev = eval_new(p);
    Cells bc = {0}, sc = {0};
    bool small = stream->size <= 16384 && buf->size <= 4096;
    walk = walk && small;
    if (walk) {
        cells_of(ev, p, buf, &bc);
        cells_of(ev, p, stream, &sc);
        check_factor_cells(ev, p, buf, c->buf);
    }
    uint64_t space = key_space(p);
    MvList *st = calloc(1, sizeof *st);
    bool *bcast = calloc(MV_MAX_RAW, sizeof *bcast);
    bool have_digits = walk && stream_digits(p, buf, time, packet, &bc, st, bcast);
    for (int mode = MV_READ; mode <= MV_CARVE; mode++) {
        MvSeq s, lim;
        MvDiag d;
        MvCode code = mv_sequence(p, buf, time, packet, (MvMode)mode, 8, false, &s, &d);
        errors[code]++;
        if (getenv("PROP_TRACE"))
            fprintf(stderr, "%s %s: %s %s\n", c->buf, mv_mode_name((MvMode)mode), mv_code_name(code), d.msg);
        if (code == MV_OK) {
            derived[mode]++;
            MvCode lc = mv_sequence(p, buf, time, packet, (MvMode)mode, 8, true, &lim, &d);
            if (lc != MV_OK)
                errors[lc]++;
            CHECK_EQ_INT(lc, expected_limit(&s), "the limits of [raw %d entries, merged %d] in %s mode (%s)", s.nraw, s.ncfg,
                         mv_mode_name((MvMode)mode), d.msg);
            if (lc == MV_OK && walk)
                CHECK_EQ_U64(lim.bank_run, bank_run_walk(&lim), "the bank run is the walk's");
        }
        if (!walk)
            continue;
        uint8_t *seen = calloc(space, 1), *inbuf = calloc(space, 1), *instream = calloc(space, 1);
        uint64_t b_lz = 0, s_lz = 0, b_live = 0, s_live = 0;
        bool b_bottom = false, s_bottom = false, s_zero = false, s_pad = false, b_zero = false;
        for (uint64_t q = 0; q < bc.n; q++) {
            b_bottom |= bc.kind[q] == CELL_PAD_BOTTOM;
            b_zero |= bc.kind[q] == CELL_PAD_ZERO;
            b_lz += bc.kind[q] == CELL_LIVE || bc.kind[q] == CELL_PAD_ZERO;
            b_live += bc.kind[q] == CELL_LIVE;
            if (bc.kind[q] == CELL_LIVE)
                inbuf[bc.key[q]] = 1;
        }
        for (uint64_t q = 0; q < sc.n; q++) {
            s_bottom |= sc.kind[q] == CELL_PAD_BOTTOM;
            s_zero |= sc.kind[q] == CELL_PAD_ZERO;
            s_pad |= sc.kind[q] != CELL_LIVE;
            s_lz += sc.kind[q] == CELL_LIVE || sc.kind[q] == CELL_PAD_ZERO;
            s_live += sc.kind[q] == CELL_LIVE;
            if (sc.kind[q] == CELL_LIVE)
                instream[have_digits && mode != MV_WRITE ? project(p, st, bcast, sc.key[q]) : sc.key[q]] = 1;
        }
        bool b_not_s = false, s_not_b = false, s_dup = false;
        uint8_t *count = calloc(space, 1);
        for (uint64_t q = 0; q < sc.n; q++)
            if (sc.kind[q] == CELL_LIVE && count[sc.key[q]]++)
                s_dup = true;
        free(count);
        for (uint64_t k = 0; k < space; k++) {
            b_not_s |= inbuf[k] && !instream[k];
            s_not_b |= instream[k] && !inbuf[k];
        }
        const char *mname = mv_mode_name((MvMode)mode);
        if (code == MV_OK) {
            bool ok = true, coalesced_same = true;
            uint8_t *written = calloc(bc.n, 1);
            uint64_t at = 0;
            for (uint64_t pos = 0; pos < sc.n && ok; pos++) {
                int64_t a = mv_walk_addr(s.raw, s.nraw, pos);
                coalesced_same &= a == mv_walk_addr(s.cfg, s.ncfg, pos);
                CellKind k = sc.kind[pos];
                at = pos;
                bool in = a >= 0 && (uint64_t)a < bc.n;
                if (mode != MV_WRITE) {
                    if (k == CELL_LIVE) {
                        ok = in && bc.kind[a] == CELL_LIVE && bc.key[a] == project(p, st, bcast, sc.key[pos]);
                        if (ok)
                            seen[bc.key[a]] = 1;
                    } else if (k == CELL_PAD_ZERO) {
                        ok = in && bc.kind[a] == CELL_PAD_ZERO;
                    }
                } else {
                    ok = in && !written[a] && bc.kind[a] != CELL_PAD_BOTTOM;
                    if (ok) {
                        written[a] = 1;
                        if (k == CELL_LIVE)
                            ok = bc.kind[a] == CELL_LIVE && bc.key[a] == sc.key[pos];
                        else if (k == CELL_PAD_TOP)
                            ok = bc.kind[a] == CELL_PAD_TOP;
                        else if (k == CELL_PAD_ZERO)
                            ok = bc.kind[a] == CELL_PAD_ZERO || bc.kind[a] == CELL_PAD_TOP;
                    }
                }
            }
            if (!CHECK(ok && have_digits, "%s: the raw config walks every stream cell onto its buffer cell", mname))
                harness_detail("stream position %llu, address %lld", U(at), (long long)mv_walk_addr(s.raw, s.nraw, at));
            CHECK(coalesced_same, "%s: the merged config walks the raw addresses", mname);
            bool covered = true;
            for (uint64_t q = 0; q < bc.n; q++)
                if (mode == MV_WRITE)
                    covered &= !(bc.kind[q] == CELL_LIVE || bc.kind[q] == CELL_PAD_ZERO) || written[q];
                else
                    covered &= bc.kind[q] != CELL_LIVE || seen[bc.key[q]];
            CHECK(covered, "%s: every live buffer cell%s is %s", mname, mode == MV_WRITE ? " and zero pad" : "",
                  mode == MV_WRITE ? "written" : "read");
            free(written);
        } else if (code == MV_UNCONSUMED) {
            CHECK(mode == MV_WRITE ? b_not_s || b_lz > s_lz || b_live > s_live || b_zero : (!have_digits || b_not_s),
                  "%s: unconsumed only when a buffer cell is left %s", mname, mode == MV_WRITE ? "unwritten" : "unread");
        } else if (code == MV_UNMATCHED) {
            CHECK(mode == MV_WRITE ? s_not_b || s_pad || s_live > b_live || s_dup : (!have_digits || s_not_b || s_zero),
                  "%s: unmatched-segment only when the stream holds what the buffer does not", mname);
        } else if (code == MV_INPUT_BOTTOM) {
            CHECK((mode != MV_WRITE && b_bottom) || (mode != MV_CARVE && s_bottom),
                  "%s: input-bottom-padding only with pad(bottom) in an input", mname);
        }
        free(seen);
        free(inbuf);
        free(instream);
    }
    free(st);
    free(bcast);
    if (walk) {
        cells_free(&bc);
        cells_free(&sc);
    }
    eval_free(ev);
    harness_context(NULL);
    prog_free(p);
}

/* ---- 3. DMA commands: the read and write walks move every element to the cell of its index ---- */

static uint64_t dmas;

/* SRC (the pair's buffer) into DST (its stream as one mapping), HBM tensors of one chip, over the destination's
 * own stream: the write walk writes every live destination cell exactly once, nothing outside the destination,
 * and where the read walk has no broadcast it reads the element of the same index. */
static void check_dma(const Pair *c)
{
    Prog *p = prog_new();
    prog_parse(p, "<pair>", c->program, strlen(c->program));
    char dtext[1200];
    snprintf(dtext, sizeof dtext, "m![[%.*s], [%.*s]]", (int)strlen(c->time) - 4, c->time + 3,
             (int)strlen(c->packet) - 4, c->packet + 3);
    const Map *one = prog_parse_map(p, "<1>", "m![1]"), *sm = prog_parse_map(p, "<src>", c->buf),
              *dm = prog_parse_map(p, "<dst>", dtext);
    if (!one || !sm || !dm || dm->size > 8192 || sm->size > 8192) {
        prog_free(p);
        return;
    }
    TensorDecl src = {.name = "S", .mem = MEM_HBM, .elem = ELEM_I8, .maps = {one, sm}};
    TensorDecl dst = {.name = "D", .mem = MEM_HBM, .elem = ELEM_I8, .maps = {one, dm}};
    MvDma x;
    MvDiag d;
    harness_context("%sdma %s -> %s", c->program, c->buf, dtext);
    for (int fit = 0; fit < 2; fit++) {
        if (mv_dma(p, &src, &dst, NULL, NULL, NULL, fit, &x, &d) != MV_OK)
            continue;
        dmas++;
        Evaluator *ev = eval_new(p);
        Cells sc = {0}, dc = {0};
        cells_of(ev, p, sm, &sc);
        cells_of(ev, p, dm, &dc);
        MvEntry re[MV_MAX_RAW], we[MV_MAX_RAW];
        bool broadcast = false;
        for (int i = 0; i < x.nraw; i++) {
            re[i] = (MvEntry){x.raw[i].n, x.raw[i].r};
            we[i] = (MvEntry){x.raw[i].n, x.raw[i].w};
            broadcast |= x.raw[i].r == 0;
        }
        uint8_t *written = calloc(dc.n, 1);
        bool ok = true;
        uint64_t total = x.time * x.packet, at = 0;
        for (uint64_t q = 0; q < total && ok; q++) {
            int64_t r = mv_walk_addr(re, x.nraw, q), w = mv_walk_addr(we, x.nraw, q);
            at = q;
            ok = w >= 0 && (uint64_t)w < dc.n && !written[w];
            if (!ok)
                break;
            written[w] = 1;
            if (dc.kind[w] == CELL_LIVE && !broadcast)
                ok = r >= 0 && (uint64_t)r < sc.n && sc.kind[r] == CELL_LIVE && sc.key[r] == dc.key[w];
        }
        for (uint64_t q = 0; q < dc.n && ok; q++)
            ok = dc.kind[q] != CELL_LIVE || written[q];
        if (!CHECK(ok, "the DMA's walks move every element to the cell of its index (%s stream)", fit ? "fitted" : "default"))
            harness_detail("stream position %llu", U(at));
        free(written);
        cells_free(&sc);
        cells_free(&dc);
        eval_free(ev);
    }
    harness_context(NULL);
    prog_free(p);
}

/* ---- 4. tails against their definition ---- */

static void check_tails(const Prog *p, Evaluator *ev, const Map *a, const Map *b)
{
    uint64_t got[3], want[3];
    MvDiag d;
    if (!CHECK(mv_tails(p, a, b, got, &d), "tails are decided (%s)", d.msg))
        return;
    uint64_t ca[16], cb[16], n = a->size < b->size ? a->size : b->size, c = 1;
    Cell x = {.coord = ca}, y = {.coord = cb};
    for (uint64_t q = 0; q < n; q++) {
        eval_cell(ev, a, q, &x);
        eval_cell(ev, b, q, &y);
        if (!cell_equal(&x, &y, p->naxes) || x.kind == CELL_PAD_BOTTOM || x.kind == CELL_PAD_ZERO || x.kind >= CELL_OOB)
            break;
        c = q + 1;
    }
    want[2] = c;
    for (int side = 0; side < 2; side++) {
        const Map *m = side ? b : a;
        uint64_t q = c;
        for (; q < m->size; q++) {
            eval_cell(ev, m, q, &x);
            if (x.kind != CELL_PAD_TOP)
                break;
        }
        want[side] = q;
    }
    bool same = got[0] == want[0] && got[1] == want[1] && got[2] == want[2];
    if (!CHECK(same, "tails are their definition"))
        harness_detail("got (%llu, %llu, %llu), want (%llu, %llu, %llu)", U(got[0]), U(got[1]), U(got[2]), U(want[0]),
                       U(want[1]), U(want[2]));
}

static void test_tails(uint64_t seed, uint64_t count)
{
    Rng r = rng_seeded(seed ^ 0x7a11);
    for (uint64_t i = 0; i < count; i++) {
        Pair c;
        pairgen(&r, &c, 256, 0);
        Prog *p = prog_new();
        prog_parse(p, "<pair>", c.program, strlen(c.program));
        const Map *a = prog_parse_map(p, "<a>", c.buf), *b = prog_parse_map(p, "<b>", c.packet);
        const Map *t = prog_parse_map(p, "<t>", c.time);
        Evaluator *ev = eval_new(p);
        harness_context("%s %s / %s / %s", c.program, c.buf, c.time, c.packet);
        if (a && b && t) {
            check_tails(p, ev, a, a);
            check_tails(p, ev, a, b);
            check_tails(p, ev, t, a);
        }
        harness_context(NULL);
        eval_free(ev);
        prog_free(p);
    }
}

int main(int argc, char **argv)
{
    HarnessArgs a = {.seed = 1, .count = 2000};
    harness_args(argc, argv, "[SEED [COUNT]]", &a);
    const char *more = getenv("MAPC_TEST_COUNT");
    if (argc < 3 && more && strtoull(more, NULL, 10) > a.count)
        a.count = strtoull(more, NULL, 10);
    test_factor_lists(a.seed, a.count / 2);
    Rng r = rng_seeded(a.seed);
    for (uint64_t i = 0; i < a.count; i++) {
        Pair c;
        pairgen(&r, &c, 512, 0);
        check_pair(&c, true);
    }
    for (uint64_t i = 0; i < a.count / 8; i++) {
        Pair c;
        pairgen(&r, &c, 512, 1);
        check_pair(&c, false);
    }
    for (uint64_t i = 0; i < a.count / 2; i++) {
        Pair c;
        pairgen(&r, &c, 512, 0);
        check_dma(&c);
    }
    test_tails(a.seed, a.count / 4);
    printf("factor lists: %llu flattened, %llu unsupported\n", U(flattened), U(unsupported_count));
    printf("configs derived: read %llu, write %llu, carve %llu; DMA commands %llu\n", U(derived[0]), U(derived[1]),
           U(derived[2]), U(dmas));
    for (int c = 1; c < MV_NCODES; c++)
        if (errors[c])
            printf("  %s: %llu\n", mv_code_name((MvCode)c), U(errors[c]));
    /* the generators must reach every outcome often, or the properties above prove little */
    CHECK(flattened > unsupported_count / 4, "most generated mappings flatten (%llu of %llu)", U(flattened),
          U(flattened + unsupported_count));
    for (int m = 0; m < 3; m++)
        CHECK(derived[m] >= a.count / 20, "%s configs are derived often (%llu)", mv_mode_name((MvMode)m), U(derived[m]));
    CHECK(dmas >= a.count / 20, "DMA commands are derived often (%llu)", U(dmas));
    static const MvCode common[] = {MV_INCOMPATIBLE, MV_UNMATCHED, MV_UNCONSUMED, MV_INPUT_BOTTOM, MV_ITERATION_LIMIT};
    for (size_t i = 0; i < sizeof common / sizeof *common; i++)
        CHECK(errors[common[i]] > 0, "the error %s occurs", mv_code_name(common[i]));
    return harness_report();
}
