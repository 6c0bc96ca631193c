/* test_walk.c — a sequencer config JIT-compiled into an address generator (codegen/cg_seq.c) walks what the config
 * says (the odometer of compiler/movement), and on every element agrees with mapc's own address generation: the
 * JIT-compiled cell and offset functions of the buffer and the stream, and the reference interpreter. Also the
 * picture of a walk (draw/walk.c) shows its order and re-reads.
 *
 * Usage: test_walk [SEED [COUNT]]   (defaults 1, 30 generated pairs; MAPC_TEST_COUNT=N raises COUNT to N) */
#include "codegen/codegen.h"
#include "draw/draw.h"
#include "eval/eval.h"
#include "front/front.h"
#include "harness.h"
#include "movement/movement.h"
#include "pairgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

typedef void (*WalkFn)(int64_t *out, int64_t base);
typedef int (*CellFn)(uint64_t pos, int64_t *coords);
typedef int64_t (*OffsetFn)(const int64_t *coords);

static uint64_t walked, offsets_checked;

/* The JIT walk of entries e[0..n) from base 0 into out (total slots); false after a failure. */
static bool jit_walk(const MvEntry *e, int n, uint64_t total, int64_t *out)
{
    uint64_t counts[64];
    int64_t strides[64];
    for (int i = 0; i < n; i++) {
        counts[i] = e[i].n;
        strides[i] = e[i].s;
    }
    Prog *scratch = prog_new();
    JitModule *j = jit_seq_walk(counts, strides, n, 2, &scratch->diags);
    WalkFn fn = j ? (WalkFn)jit_module_lookup(j, "mapc_seq_walk") : NULL;
    if (!CHECK(fn != NULL, "the walk of %d entries JIT-compiles", n)) {
        harness_detail("%s", scratch->diags.head ? scratch->diags.head->msg : "");
        jit_module_free(j);
        prog_free(scratch);
        return false;
    }
    fn(out, 0);
    /* a base shifts every address */
    int64_t *shifted = malloc(total * sizeof *shifted);
    fn(shifted, 1000);
    bool same = true;
    for (uint64_t p = 0; p < total; p++)
        same &= shifted[p] == out[p] + 1000;
    CHECK(same, "a base of 1000 shifts every address");
    free(shifted);
    jit_module_free(j);
    prog_free(scratch);
    return true;
}

static void check_pair(const Pair *c)
{
    char src[2400];
    snprintf(src, sizeof src, "%stype Buf = %s;\ntype Str = m![[%.*s], [%.*s]];\n", c->program, c->buf,
             (int)strlen(c->time) - 4, c->time + 3, (int)strlen(c->packet) - 4, c->packet + 3);
    Prog *p = prog_new();
    if (prog_parse(p, "<pair>", src, strlen(src)) != 0) {
        prog_free(p);
        return; /* a generated pair the language refuses (a padding or resize out of range): not a walk */
    }
    const Map *buf = prog_lookup(p, "Buf")->map, *str = prog_lookup(p, "Str")->map;
    const Map *time = prog_parse_map(p, "<t>", c->time), *packet = prog_parse_map(p, "<p>", c->packet);
    MvSeq s;
    MvDiag d;
    if (!time || !packet || str->size > 8192 || mv_sequence(p, buf, time, packet, MV_READ, 8, false, &s, &d) != MV_OK) {
        prog_free(p);
        return;
    }
    harness_context("%sbuf %s time %s packet %s: raw %d entries", c->program, c->buf, c->time, c->packet, s.nraw);
    uint64_t total = str->size;
    int64_t *addr = malloc(total * sizeof *addr), *merged = malloc(total * sizeof *merged);
    if (jit_walk(s.raw, s.nraw, total, addr) && jit_walk(s.cfg, s.ncfg, total, merged)) {
        walked++;
        bool odometer = true, same = true;
        for (uint64_t q = 0; q < total; q++) {
            odometer &= addr[q] == mv_walk_addr(s.raw, s.nraw, q);
            same &= merged[q] == addr[q];
        }
        CHECK(odometer, "the JIT walk is the config's odometer");
        CHECK(same, "the JIT walk of the merged config is the raw one's");
        /* mapc's own address generation: the JIT-compiled cell and offset functions of the two types */
        CgOptions opt = {.prefix = "", .opt_level = 1};
        Jit *jit = jit_new(p, &opt, &p->diags);
        CellFn bcell = jit ? (CellFn)jit_lookup(jit, "Buf_cell") : NULL, scell = jit ? (CellFn)jit_lookup(jit, "Str_cell") : NULL;
        OffsetFn boff = jit ? (OffsetFn)jit_lookup(jit, "Buf_offset") : NULL;
        if (CHECK(bcell && scell && boff, "the program's cell and offset functions JIT-compile")) {
            bool broadcast = false;
            for (int i = 0; i < s.nraw; i++)
                broadcast |= s.raw[i].s == 0;
            Evaluator *ev = eval_new(p);
            uint64_t ic[16], jc_i[16];
            Cell ci = {.coord = ic}, cj = {.coord = jc_i};
            int64_t sc[16], bc[16];
            bool agree = true, interp = true;
            uint64_t bad = 0;
            for (uint64_t q = 0; q < total && agree && interp; q++) {
                int sk = scell(q, sc);
                bad = q;
                if (sk != CELL_LIVE && sk != CELL_PAD_ZERO)
                    continue;
                agree = addr[q] >= 0 && (uint64_t)addr[q] < buf->size;
                if (!agree)
                    break;
                int bk = bcell((uint64_t)addr[q], bc);
                agree = bk == sk && (sk != CELL_LIVE || broadcast || memcmp(sc, bc, (size_t)p->naxes * sizeof *sc) == 0);
                if (agree && sk == CELL_LIVE && !broadcast) {
                    agree = boff(sc) == addr[q]; /* the smallest position holding the index is the one walked */
                    offsets_checked++;
                }
                eval_cell(ev, str, q, &ci);
                eval_cell(ev, buf, (uint64_t)addr[q], &cj);
                interp = ci.kind == (CellKind)sk && cj.kind == (CellKind)bk &&
                         (broadcast || ci.kind != CELL_LIVE || cell_equal(&ci, &cj, p->naxes));
            }
            if (!CHECK(agree, "the walk reads, at every stream position, the buffer cell mapc's cell and offset functions "
                       "give"))
                harness_detail("stream position %llu, address %lld", U(bad), (long long)addr[bad]);
            CHECK(interp, "the walk agrees with the interpreter at every stream position (first difference %llu)", U(bad));
            eval_free(ev);
        }
        jit_free(jit);
    }
    free(addr);
    free(merged);
    harness_context(NULL);
    prog_free(p);
}

/* The picture of the book's broadcast read: 16 cells, each read 4 times, in order. */
static void check_picture(void)
{
    const char *src = "axes![A = 16, T = 4, P = 4];";
    Prog *p = prog_new();
    prog_parse(p, "<walk>", src, strlen(src));
    const Map *a = prog_parse_map(p, "<a>", "m![A]");
    const uint64_t n[3] = {4, 16, 4};
    const int64_t stride[3] = {0, 1, 0};
    DrawWalk w = {n, stride, 3, "[4:0, 16:1, 4:0]:4"};
    DrawOptions o = {.format = DRAW_SVG};
    DrawBytes out = {0};
    char why[256];
    if (CHECK(draw_walk(p, "m![A]", a, &w, &o, &out, why, sizeof why), "the walk is drawn: %s", why)) {
        char *svg = malloc(out.len + 1);
        memcpy(svg, out.data, out.len);
        svg[out.len] = 0;
        CHECK(strstr(svg, "m![A] walked by [4:0, 16:1, 4:0]:4") != NULL, "titled by its config");
        CHECK(strstr(svg, "256 stream positions visit 16 of 16 buffer positions") != NULL, "its counts");
        int marks = 0;
        for (const char *q = svg; (q = strstr(q, "data-mark=\"differ\"")); q++)
            marks++;
        CHECK_EQ_INT(marks, 16, "every cell is marked as read again");
        CHECK(strstr(svg, "#15 x16") != NULL, "the last cell is the 15th visited, 16 times");
        free(svg);
    }
    free(out.data);
    prog_free(p);
}

int main(int argc, char **argv)
{
    HarnessArgs a = {.seed = 1, .count = 30};
    harness_args(argc, argv, "[SEED [COUNT]]", &a);
    const char *more = getenv("MAPC_TEST_COUNT");
    if (argc < 3 && more && strtoull(more, NULL, 10) > a.count)
        a.count = strtoull(more, NULL, 10);
    check_picture();
    Rng r = rng_seeded(a.seed);
    for (uint64_t i = 0; i < a.count * 4 && walked < a.count; i++) {
        Pair c;
        pairgen(&r, &c, 512, 0);
        check_pair(&c);
    }
    printf("%llu configs walked by JIT code, %llu addresses checked against offset functions\n", U(walked),
           U(offsets_checked));
    CHECK(walked >= a.count / 2, "most pairs give a config to walk (%llu)", U(walked));
    return harness_report();
}
