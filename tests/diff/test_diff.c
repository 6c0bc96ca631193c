/* test_diff.c — the differential fuzzer: generated mappings evaluated by the interpreter, the JIT and an
 * emitted object linked into a shared object, and their rewrites decided by the equivalence procedure; any
 * disagreement fails with the seed, the batch and the program.
 *
 * Usage: test_diff [SEED [COUNT [FIRST]]]   (defaults 1, 8, 0); $MAPC_DIFF_BATCHES is COUNT when none is given
 * (the longer mode). Batch b (FIRST <= b < FIRST + COUNT) comes from mapgen seeded with
 * rng_case_seed(SEED, b, RNG_KEY_CASE): one generated program (its helper types and E) and EXTRA more
 * expressions X0, X1, ... over it. Each of those mappings M gets three rewrites, added as types:
 *   Mn = norm(M)                       (the normal form, printed and parsed back)
 *   Mr = an identity rewrite of M      (the identities of equivalence at random sub-mappings, eqgen_equivalent)
 *   Ms = m![{M} / d, {M} % d]          (a split at a divisor d of |M| drawn from the batch's stream)
 * The whole batch is one program: JIT-compiled once (jit_new) and emitted once (cg_emit_file and
 * cg_write_header, prefix dfz_), the object linked with a table of its functions by cc into a shared object
 * and dlopen'ed. Then, per type: every position's cell agrees between the interpreter, the JIT's E_cell and
 * the emitted E_cell, E_each visits exactly those cells in order (both), and E_offset of every live cell's
 * coordinates is the smallest position holding them (both). Per mapping M: the cells of Mn, Mr and Ms are
 * M's at every position, and the decision procedure finds each equivalent to M, with its fast paths and
 * without them (the symbolic procedure alone). */
#include "algebra/algebra.h"
#include "codegen/codegen.h"
#include "eqgen.h"
#include "front/front.h"
#include "harness.h"
#include "mapgen.h"
#include "prog_text.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Mappings per batch besides E (with their three rewrites and the helper types: about 60 types). */
#define EXTRA 11
#define MAX_AXES (MAPGEN_MAX_AXES + 1)

static const MapGenOpts gen_opts = {.max_size = 256, .max_depth = 4, .max_types = 2};

typedef int (*CellFn)(uint64_t pos, int64_t *coords);
typedef int64_t (*OffsetFn)(const int64_t *coords);
typedef void (*VisitFn)(void *ctx, uint64_t pos, int kind, const int64_t *coords);
typedef void (*EachFn)(VisitFn visit, void *ctx);

/* One engine's functions of one type. */
typedef struct Fns {
    CellFn cell;
    OffsetFn offset;
    EachFn each;
} Fns;

/* The reference cells of one type, from the interpreter: kinds[pos] and coords[pos * naxes + a]. */
typedef struct Ref {
    uint64_t size;
    int naxes;
    int *kinds;
    int64_t *coords;
} Ref;

/* What E_each must visit: the reference, and how far the visit got and where it first went wrong. */
typedef struct Visit {
    const Ref *ref;
    uint64_t next;
    int64_t bad;        /* the first position visited wrongly, or -1 */
} Visit;

static void visit(void *ctx, uint64_t pos, int kind, const int64_t *coords)
{
    Visit *v = ctx;
    const Ref *r = v->ref;
    bool ok = pos == v->next && pos < r->size && kind == r->kinds[pos];
    for (int a = 0; ok && a < r->naxes; a++)
        ok = coords[a] == r->coords[pos * (uint64_t)r->naxes + a];
    if (!ok && v->bad < 0)
        v->bad = (int64_t)pos;
    v->next = pos + 1;
}

/* The interpreter's cells of m (false after a failure if it cannot evaluate one). */
static bool reference(const Prog *p, Evaluator *ev, const Map *m, Ref *r)
{
    r->size = m->size;
    r->naxes = p->naxes;
    r->kinds = calloc(m->size + 1, sizeof *r->kinds);
    r->coords = calloc((m->size + 1) * (size_t)p->naxes + 1, sizeof *r->coords);
    uint64_t c[MAX_AXES] = {0};
    Cell cell = {.coord = c};
    for (uint64_t pos = 0; pos < m->size; pos++) {
        if (eval_cell(ev, m, pos, &cell) != EVAL_OK) {
            FAIL("the interpreter cannot evaluate position %" PRIu64 ": %s", pos, eval_error(ev));
            return false;
        }
        r->kinds[pos] = (int)cell.kind;
        for (int a = 0; a < p->naxes; a++)
            r->coords[pos * (uint64_t)p->naxes + a] = cell.kind == CELL_LIVE ? (int64_t)c[a] : 0;
    }
    return true;
}

static void ref_free(Ref *r)
{
    free(r->kinds);
    free(r->coords);
}

/* The first position where two references differ, or -1 (sizes must agree). */
static int64_t first_difference(const Ref *a, const Ref *b)
{
    if (a->size != b->size)
        return 0;
    for (uint64_t pos = 0; pos < a->size; pos++)
        if (a->kinds[pos] != b->kinds[pos] ||
            memcmp(a->coords + pos * (uint64_t)a->naxes, b->coords + pos * (uint64_t)a->naxes,
                   (size_t)a->naxes * sizeof *a->coords) != 0)
            return (int64_t)pos;
    return -1;
}

/* One engine's functions of type `name` against the reference: cell, each and offset. */
static void check_engine(const char *engine, const char *name, const Fns *f, const Ref *r)
{
    if (!CHECK(f->cell && f->offset && f->each, "%s has the functions of %s", engine, name))
        return;
    int64_t c[MAX_AXES];
    int64_t bad = -1;
    for (uint64_t pos = 0; pos <= r->size && bad < 0; pos++) {
        memset(c, 0x55, sizeof c);
        int k = f->cell(pos, c);
        bool ok = pos == r->size ? k == CELL_OOB : k == r->kinds[pos];
        for (int a = 0; ok && pos < r->size && a < r->naxes; a++)
            ok = c[a] == r->coords[pos * (uint64_t)r->naxes + a];
        if (!ok)
            bad = (int64_t)pos;
    }
    if (!CHECK(bad < 0, "%s: %s_cell agrees with the interpreter", engine, name))
        harness_detail("first disagreement at position %" PRId64, bad);
    Visit v = {.ref = r, .bad = -1};
    f->each(visit, &v);
    if (!CHECK(v.bad < 0 && v.next == r->size, "%s: %s_each visits the interpreter's cells in order", engine, name))
        harness_detail("first wrong visit at %" PRId64 ", %" PRIu64 " visited of %" PRIu64, v.bad, v.next, r->size);
    /* offsets: the smallest position holding each live cell's coordinates */
    bad = -1;
    for (uint64_t pos = 0; pos < r->size && bad < 0; pos++) {
        if (r->kinds[pos] != CELL_LIVE)
            continue;
        const int64_t *want = r->coords + pos * (uint64_t)r->naxes;
        uint64_t first = 0;
        while (r->kinds[first] != CELL_LIVE ||
               memcmp(r->coords + first * (uint64_t)r->naxes, want, (size_t)r->naxes * sizeof *want) != 0)
            first++;
        if (f->offset(want) != (int64_t)first)
            bad = (int64_t)pos;
    }
    if (!CHECK(bad < 0, "%s: %s_offset gives the smallest position of each live cell", engine, name))
        harness_detail("wrong at the coordinates of position %" PRId64, bad);
}

/* The source of batch b: the generated program, the extra expressions and the rewrites; names[] gets the
 * mappings that were rewritten (malloc'ed). */
static char *batch_source(MapGen *g, char **names, int *nnames)
{
    char *prog = mapgen_program(g);
    char *src = harness_append(NULL, "%s", prog);
    free(prog);
    *nnames = 0;
    names[(*nnames)++] = harness_append(NULL, "E");
    for (int i = 0; i < EXTRA; i++) {
        char *x = mapgen_expr(g, 0, NULL);
        src = harness_append(src, "type X%d = %s;\n", i, x);
        free(x);
        names[(*nnames)++] = harness_append(NULL, "X%d", i);
    }
    Prog *p = prog_new();
    if (prog_parse(p, "<batch>", src, strlen(src)) != 0) {
        FAIL("the generated program does not parse");
        harness_detail_diags(p);
        harness_detail("program:\n%s", src);
        prog_free(p);
        free(src);
        return NULL;
    }
    for (int i = 0; i < *nnames; i++) {
        const Map *m = prog_lookup(p, names[i])->map;
        char *n = harness_map_text(p, norm_map(&p->arena, m));
        char *r = eqgen_equivalent(g, p, m);
        uint64_t d = 1 + mapgen_below(g, m->size);
        while (m->size % d)
            d--;
        src = harness_append(src, "type %sn = %s;\ntype %sr = %s;\n", names[i], n, names[i], r);
        src = harness_append(src, "type %ss = m![{%s} / %" PRIu64 ", {%s} %% %" PRIu64 "];\n", names[i], names[i], d,
                             names[i], d);
        free(n);
        free(r);
    }
    prog_free(p);
    return src;
}

/* Emits p (prefix dfz_) with its header into dir, links it with a table of every type's functions into
 * dir/batch.so and loads it; NULL after a failure. The tables are dfz_cells, dfz_offsets, dfz_eaches, in
 * type order. */
static void *emit_and_load(const Prog *p, const char *dir)
{
    CgOptions opt = {.prefix = "dfz_", .opt_level = 2};
    char obj[512], hdr[512], wrap[512], so[512], cmd[2048];
    snprintf(obj, sizeof obj, "%s/batch.o", dir);
    snprintf(hdr, sizeof hdr, "%s/batch.h", dir);
    snprintf(wrap, sizeof wrap, "%s/table.c", dir);
    snprintf(so, sizeof so, "%s/batch.so", dir);
    Diags d = {0};
    if (!CHECK(cg_emit_file(p, &opt, CG_EMIT_OBJ, obj, &d) && cg_write_header(p, &opt, hdr, "DFZ_BATCH_H", &d),
               "emit the batch's object and header"))
        return NULL;
    FILE *f = fopen(wrap, "w");
    if (!f) {
        FAIL("cannot write %s", wrap);
        return NULL;
    }
    fprintf(f, "#include \"batch.h\"\n");
    const char *kinds[3][2] = {{"cells", "int (*const %s[])(uint64_t, int64_t *)"},
                               {"offsets", "int64_t (*const %s[])(const int64_t *)"},
                               {"eaches",
                                "void (*const %s[])(void (*)(void *, uint64_t, int, const int64_t *), void *)"}};
    static const char *const suffix[3] = {"cell", "offset", "each"};
    for (int k = 0; k < 3; k++) {
        char decl[160], name[32];
        snprintf(name, sizeof name, "dfz_%s", kinds[k][0]);
        snprintf(decl, sizeof decl, kinds[k][1], name);
        fprintf(f, "%s = {\n", decl);
        for (int t = 0; t < p->ntypes; t++)
            fprintf(f, "    dfz_%s_%s,\n", p->types[t]->name, suffix[k]);
        fprintf(f, "};\n");
    }
    fclose(f);
    const char *cc = getenv("CC_FOR_DIFF") ? getenv("CC_FOR_DIFF") : "cc";
    snprintf(cmd, sizeof cmd, "%s -std=c11 -Wall -Werror -shared -fPIC -o '%s' '%s' '%s' 2>&1", cc, so, wrap, obj);
    if (!CHECK(system(cmd) == 0, "the emitted object and its header link into a shared object"))
        return NULL;
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!CHECK(h != NULL, "dlopen the batch: %s", h ? "" : dlerror()))
        return NULL;
    return h;
}

/* Decisions made and answered unknown (within the budget, allowed; printed at the end). */
static long decisions, unknown;

/* Decides m ≡ v with q; one case. */
static void check_decision(Eqv *q, const Prog *p, const Map *m, const Map *v, const char *what, const char *name)
{
    uint64_t c1[MAX_AXES], c2[MAX_AXES];
    EqvResult r = {.c1.coord = c1, .c2.coord = c2};
    eqv_decide(q, m, v, &r);
    decisions++;
    unknown += r.verdict == EQV_UNKNOWN;
    if (!CHECK(r.verdict == EQV_EQUIVALENT || r.verdict == EQV_UNKNOWN, "%s: %s decided equivalent", name, what)) {
        char *a = harness_map_text(p, m), *b = harness_map_text(p, v);
        harness_detail("%s = %s\n%s = %s\nverdict %d at %" PRIu64, name, a, what, b, (int)r.verdict, r.pos);
        free(a);
        free(b);
    }
}

static void run_batch(uint64_t seed, uint64_t b, const char *dir)
{
    MapGen g;
    mapgen_init(&g, rng_case_seed(seed, b, RNG_KEY_CASE), &gen_opts);
    harness_case(b);
    char *names[EXTRA + 1];
    int nnames = 0;
    char *src = batch_source(&g, names, &nnames);
    if (!src)
        return;
    long failed_before = harness_failed();
    Prog *p = prog_new();
    Jit *jit = NULL;
    void *so = NULL;
    Evaluator *ev = NULL;
    Eqv *fast = NULL, *slow = NULL;
    Ref *refs = NULL;
    if (prog_parse(p, "<batch>", src, strlen(src)) != 0) {
        FAIL("the batch with its rewrites does not parse");
        harness_detail_diags(p);
        goto done;
    }
    CgOptions opt = {.prefix = "", .opt_level = 2};
    if (!CHECK((jit = jit_new(p, &opt, &p->diags)) != NULL, "JIT-compile the batch"))
        goto done;
    if (!(so = emit_and_load(p, dir)))
        goto done;
    CellFn *cells = dlsym(so, "dfz_cells");
    OffsetFn *offsets = dlsym(so, "dfz_offsets");
    EachFn *eaches = dlsym(so, "dfz_eaches");
    ev = eval_new(p);
    refs = calloc((size_t)p->ntypes, sizeof *refs);
    for (int t = 0; t < p->ntypes; t++) {
        const char *name = p->types[t]->name;
        if (!reference(p, ev, p->types[t]->map, &refs[t]))
            continue;
        char sym[3][96];
        static const char *const suffix[3] = {"cell", "offset", "each"};
        for (int k = 0; k < 3; k++)
            snprintf(sym[k], sizeof sym[k], "%s_%s", name, suffix[k]);
        Fns jf = {(CellFn)jit_lookup(jit, sym[0]), (OffsetFn)jit_lookup(jit, sym[1]), (EachFn)jit_lookup(jit, sym[2])};
        check_engine("JIT", name, &jf, &refs[t]);
        Fns ef = {cells ? cells[t] : NULL, offsets ? offsets[t] : NULL, eaches ? eaches[t] : NULL};
        check_engine("emitted", name, &ef, &refs[t]);
    }
    fast = eqv_new(p);
    slow = eqv_new(p);
    eqv_set_fast_paths(slow, false, 0);
    for (int i = 0; i < nnames; i++) {
        static const char *const what[3] = {"n", "r", "s"};
        const Name *m = prog_lookup(p, names[i]);
        int mt = -1;
        for (int t = 0; t < p->ntypes; t++)
            if (p->types[t] == m)
                mt = t;
        for (int w = 0; w < 3; w++) {
            char vn[96];
            snprintf(vn, sizeof vn, "%s%s", names[i], what[w]);
            const Name *v = prog_lookup(p, vn);
            int vt = -1;
            for (int t = 0; t < p->ntypes; t++)
                if (p->types[t] == v)
                    vt = t;
            if (!CHECK(mt >= 0 && vt >= 0, "types %s and %s exist", names[i], vn))
                continue;
            int64_t d = first_difference(&refs[mt], &refs[vt]);
            if (!CHECK(d < 0, "%s has the cells of %s", vn, names[i]))
                harness_detail("first difference at position %" PRId64, d);
            check_decision(fast, p, m->map, v->map, vn, names[i]);
            check_decision(slow, p, m->map, v->map, vn, names[i]);
        }
    }
done:
    if (harness_failed() > failed_before) /* the program once, after the batch's failures */
        fprintf(stderr, "batch %" PRIu64 " of seed %" PRIu64 " failed; its program:\n%s", b, seed, src);
    if (refs)
        for (int t = 0; t < p->ntypes; t++)
            ref_free(&refs[t]);
    free(refs);
    eqv_free(fast);
    eqv_free(slow);
    eval_free(ev);
    if (so)
        dlclose(so);
    jit_free(jit);
    prog_free(p);
    free(src);
    for (int i = 0; i < nnames; i++)
        free(names[i]);
}

int main(int argc, char **argv)
{
    HarnessArgs a = {.seed = 1, .count = 8};
    harness_args(argc, argv, "[SEED [COUNT [FIRST]]]", &a);
    const char *longer = getenv("MAPC_DIFF_BATCHES");
    if (longer && *longer && argc < 3) /* not when COUNT is given, as in the rerun command of a failure */
        a.count = strtoull(longer, NULL, 10);
    char dir[] = "/tmp/mapc-diff-XXXXXX";
    if (!mkdtemp(dir)) {
        FAIL("cannot make a temporary directory");
        return harness_report();
    }
    for (uint64_t b = a.first; b < a.first + a.count && harness_failed() <= 50; b++)
        run_batch(a.seed, b, dir);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    printf("seed %" PRIu64 ", batches %" PRIu64 "..%" PRIu64 "; %ld decisions, %ld unknown\n", a.seed, a.first,
           a.first + a.count - 1, decisions, unknown);
    return harness_report();
}
