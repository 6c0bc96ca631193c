/* sema_movement.c — the movement assertions of a program (docs/movement.md): a sequencer config or a DMA command's configs and cycles, derived at compile time and compared. */
#include "front_impl.h"
#include "movement/movement.h"
#include "parser.h"

#include <string.h>

#define U(x) ((unsigned long long)(x))

MvArgs *sema_mv_arg(Parser *ps, MvArgs *list, MvArg a)
{
    if (!list)
        list = arena_alloc(&ps->prog->arena, sizeof *list);
    if (list->n == (int)(sizeof list->a / sizeof *list->a)) {
        diag_error(D(ps), a.word.loc, "too many arguments (at most 8)");
        return list;
    }
    list->a[list->n++] = a;
    return list;
}

SeqLit *sema_seq_entry(Parser *ps, SeqLit *lit, Token at, uint64_t n, uint64_t s)
{
    bool empty = at.kind == TK_LBRACK;
    if (!lit && empty) {
        lit = arena_alloc(&ps->prog->arena, sizeof *lit);
        lit->loc = at.loc;
        return lit;
    }
    if (!lit) {
        lit = arena_alloc(&ps->prog->arena, sizeof *lit);
        lit->loc = at.loc;
    }
    if (n == 0) {
        diag_error(D(ps), at.loc, "an entry of 0 iterations");
        return lit;
    }
    if (lit->n == 64 || s > INT64_MAX) {
        diag_error(D(ps), at.loc, lit->n == 64 ? "a config of more than 64 entries" : "stride %llu is too large", U(s));
        return lit;
    }
    lit->n_of[lit->n] = n;
    lit->s_of[lit->n++] = s;
    return lit;
}

static bool word_is(Token t, const char *w) { return t.len == strlen(w) && memcmp(t.s, w, t.len) == 0; }

/* A mapping argument: an inline m![...] or a type name; NULL after a diagnostic. */
static const Map *map_arg(Parser *ps, const MvArg *a, const char *what)
{
    if (a->is_map)
        return a->map;
    if (a->arrow) {
        diag_error(D(ps), a->word.loc, "expected a mapping for %s, not SRC -> DST", what);
        return NULL;
    }
    return sema_type_ref(ps, a->word);
}

/* A word argument as a NUL-terminated string in buf (false: not a word). */
static bool word_arg(const MvArg *a, char *buf, size_t cap)
{
    if (a->is_map || a->arrow || a->word.len >= cap)
        return false;
    memcpy(buf, a->word.s, a->word.len);
    buf[a->word.len] = 0;
    return true;
}

static const TensorDecl *tensor_arg(Parser *ps, Token t)
{
    const Name *n = sema_lookup(ps, t);
    if (n && n->kind == NAME_TENSOR)
        return n->tensor; /* NULL when its declaration had errors (already reported) */
    diag_error(D(ps), t.loc, "'%.*s' is not a tensor%s", (int)t.len, t.s,
               prog_did_you_mean(ps->prog, t.s, t.len, NAME_BIT(NAME_TENSOR)));
    return NULL;
}

static bool compare(uint64_t got, int op, uint64_t want)
{
    switch (op) {
    case TK_EQEQ: return got == want;
    case TK_NE: return got != want;
    case TK_LT: return got < want;
    case TK_LE: return got <= want;
    case TK_GT: return got > want;
    default: return got >= want;
    }
}

static const char *op_text(int op)
{
    return op == TK_EQEQ ? "==" : op == TK_NE ? "!=" : op == TK_LT ? "<" : op == TK_LE ? "<=" : op == TK_GT ? ">" : ">=";
}

/* Whether entries e[0..n) (strides given by stride(i)) with packet are the literal. */
static bool same_config(const SeqLit *lit, const MvEntry *e, int n, uint64_t packet)
{
    if (lit->n != n || lit->packet != packet)
        return false;
    for (int i = 0; i < n; i++)
        if (lit->n_of[i] != e[i].n || (int64_t)lit->s_of[i] != e[i].s)
            return false;
    return true;
}

static const char *lit_text(Prog *p, const SeqLit *lit)
{
    char buf[1200];
    Text t = {buf, sizeof buf, 0};
    buf[0] = 0;
    text_printf(&t, "[");
    for (int i = 0; i < lit->n; i++)
        text_printf(&t, "%s%llu:%llu", i ? ", " : "", U(lit->n_of[i]), U(lit->s_of[i]));
    text_printf(&t, "]:%llu", U(lit->packet));
    return arena_strndup(&p->arena, buf, strlen(buf));
}

static const char *cfg_text(Prog *p, const MvEntry *e, int n, uint64_t packet)
{
    char buf[1200];
    Text t = {buf, sizeof buf, 0};
    buf[0] = 0;
    mv_config_text(&t, e, n, packet);
    return arena_strndup(&p->arena, buf, strlen(buf));
}

/* The outcome: a config compared with the literal, or a number with value. */
static void verdict(Parser *ps, Loc at, const char *what, const SeqLit *cfg, int op, const MvEntry *e, int n,
                    uint64_t packet, uint64_t got, uint64_t value)
{
    Prog *p = ps->prog;
    if (cfg) {
        if (!same_config(cfg, e, n, packet)) {
            diag_error(D(ps), at, "assertion failed: %s is %s, not %s", what, cfg_text(p, e, n, packet), lit_text(p, cfg));
            p->nasserts_failed++;
        }
    } else if (!compare(got, op, value)) {
        diag_error(D(ps), at, "assertion failed: %s is %llu, not %s %llu", what, U(got), op_text(op), U(value));
        p->nasserts_failed++;
    }
}

/* assert sequence(BUF; TIME; PACKET; MODE[; TYPE])[.FIELD] ... */
static void assert_sequence(Parser *ps, Loc at, const MvArgs *args, const Token *field, int op, const SeqLit *cfg,
                            uint64_t value)
{
    Prog *p = ps->prog;
    if (args->n < 4 || args->n > 5) {
        diag_error(D(ps), at, "sequence takes BUF; TIME; PACKET; MODE and perhaps an element type, not %d arguments", args->n);
        return;
    }
    const Map *m[3];
    static const char *const what[3] = {"the buffer", "the time", "the packet"};
    bool ok = true;
    for (int i = 0; i < 3; i++)
        ok &= (m[i] = map_arg(ps, &args->a[i], what[i])) != NULL;
    char word[32];
    MvMode mode = MV_READ;
    if (!word_arg(&args->a[3], word, sizeof word) || !mv_mode_parse(word, &mode)) {
        diag_error(D(ps), args->a[3].word.loc, "the mode is read, write or carve");
        ok = false;
    }
    unsigned bits = 8;
    if (args->n == 5 && (!word_arg(&args->a[4], word, sizeof word) || !mv_elem_bits_parse(word, &bits))) {
        diag_error(D(ps), args->a[4].word.loc, "expected an element type (i4, i8, f8, bf16, f16, f32, i32, f64)");
        ok = false;
    }
    enum { F_CONFIG, F_RAW, F_ACCESS, F_READ_SIZE, F_READS, F_BANK_RUN, F_ENTRIES, F_FETCH_CYCLES, F_RUN } f = F_CONFIG;
    static const char *const fields[] = {"config", "raw", "access", "read_size", "reads", "bank_run", "entries",
                                         "fetch_cycles", "run"};
    if (field) {
        int k = 0;
        while (k < (int)(sizeof fields / sizeof *fields) && !word_is(*field, fields[k]))
            k++;
        if (k == (int)(sizeof fields / sizeof *fields)) {
            diag_error(D(ps), field->loc, "a sequence has no field '%.*s' (config, raw, access, read_size, reads, "
                       "bank_run, entries, fetch_cycles, run)", (int)field->len, field->s);
            return;
        }
        f = k;
    }
    if ((f <= F_RAW) != (cfg != NULL)) {
        diag_error(D(ps), at, f <= F_RAW ? "a config compares with == [n:s, ...]:P" : "this field compares with a number");
        return;
    }
    if (!ok)
        return;
    p->nasserts++;
    MvSeq s;
    MvDiag d;
    if (mv_sequence(p, m[0], m[1], m[2], mode, bits, true, &s, &d) != MV_OK) {
        diag_error(D(ps), at, "sequence: %s: %s", mv_code_name(d.code), d.msg);
        p->nasserts_failed++;
        return;
    }
    const uint64_t num[] = {0, 0, s.access, s.read_size, s.reads, s.bank_run, (uint64_t)s.ncfg, s.fetch_cycles, s.run};
    const char *name = arena_printf(&p->arena, "sequence(...)%s%s", field ? "." : "", field ? fields[f] : "");
    if (f == F_RAW)
        verdict(ps, at, name, cfg, op, s.raw, s.nraw, s.packet, 0, 0);
    else
        verdict(ps, at, name, cfg, op, s.cfg, s.ncfg, s.packet, num[f], value);
}

/* assert dma(SRC -> DST[; TIME; PACKET[; ENGINES]]).FIELD ... */
static void assert_dma(Parser *ps, Loc at, const MvArgs *args, const Token *field, int op, const SeqLit *cfg,
                       uint64_t value)
{
    Prog *p = ps->prog;
    if (args->n != 1 && args->n != 3 && args->n != 4) {
        diag_error(D(ps), at, "dma takes SRC -> DST and perhaps TIME; PACKET (and ENGINES), not %d arguments", args->n);
        return;
    }
    if (!args->a[0].arrow) {
        diag_error(D(ps), at, "dma's first argument is SRC -> DST (two tensors)");
        return;
    }
    enum { F_CYCLES, F_READ, F_WRITE, F_ENGINES } f;
    static const char *const fields[] = {"cycles", "read", "write", "engines"};
    int k = 0;
    while (field && k < 4 && !word_is(*field, fields[k]))
        k++;
    if (!field || k == 4) {
        diag_error(D(ps), field ? field->loc : at, "a dma assertion names a field: cycles, read, write or engines");
        return;
    }
    f = k;
    if ((f == F_READ || f == F_WRITE) != (cfg != NULL)) {
        diag_error(D(ps), at, cfg ? "this field compares with a number" : "a config compares with == [n:s, ...]:P");
        return;
    }
    const TensorDecl *src = tensor_arg(ps, args->a[0].word), *dst = tensor_arg(ps, args->a[0].to);
    const Map *m[3] = {NULL};
    static const char *const what[3] = {"the time", "the packet", "the engines"};
    bool ok = src && dst;
    for (int i = 1; i < args->n; i++)
        ok &= (m[i - 1] = map_arg(ps, &args->a[i], what[i - 1])) != NULL;
    if (!ok)
        return;
    p->nasserts++;
    MvDma x;
    MvDiag d;
    if (mv_dma(p, src, dst, m[0], m[1], m[2], false, &x, &d) != MV_OK) {
        diag_error(D(ps), at, "dma: %s: %s", mv_code_name(d.code), d.msg);
        p->nasserts_failed++;
        return;
    }
    const char *name = arena_printf(&p->arena, "dma(%s -> %s).%s", src->name, dst->name, fields[f]);
    if (f == F_READ || f == F_WRITE) {
        MvEntry e[MV_MAX_RAW];
        for (int i = 0; i < x.ncfg; i++)
            e[i] = (MvEntry){x.cfg[i].n, f == F_READ ? x.cfg[i].r : x.cfg[i].w};
        verdict(ps, at, name, cfg, op, e, x.ncfg, x.packet, 0, 0);
    } else {
        verdict(ps, at, name, NULL, op, NULL, 0, 0, f == F_CYCLES ? x.cycles : x.engines, value);
    }
}

void sema_assert_movement(Parser *ps, Loc at, Token callee, const MvArgs *args, const Token *field, int op,
                          const SeqLit *cfg, uint64_t value)
{
    if (!args)
        return;
    if (word_is(callee, "sequence"))
        assert_sequence(ps, at, args, field, op, cfg, value);
    else if (word_is(callee, "dma"))
        assert_dma(ps, at, args, field, op, cfg, value);
    else
        diag_error(D(ps), callee.loc, "an assertion calls sequence(...) or dma(...), not '%.*s'", (int)callee.len, callee.s);
}
