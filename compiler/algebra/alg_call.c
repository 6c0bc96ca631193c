/* alg_call.c — the call syntax of the layout algebra (`mapc algebra FILE 'CALL'`, docs/algebra.md): one call
 * parsed and evaluated against a program, its errors diagnostics at columns of the call. Prints nothing. */
#include "alg_call.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))
#define MAX_CALL_DEPTH 32
#define MAX_ARGS 16

/* A parsed argument of a call. */
typedef enum { ARG_CALL, ARG_MAP, ARG_IDENT, ARG_KIND, ARG_LIST, ARG_ASSIGN, ARG_MODE, ARG_FUSE } ArgKind;

typedef struct Arg Arg;
struct Arg {
    ArgKind kind;
    uint32_t col;           /* where it starts */
    size_t at, len;         /* its text: the name of a call or identifier, the whole m![...] */
    PadKind pad;            /* ARG_KIND */
    Arg *args[MAX_ARGS];    /* ARG_CALL: arguments; ARG_LIST: identifiers; ARG_ASSIGN (X := F), ARG_MODE (X: T): [0] the
                             * axis, [1] the value; ARG_FUSE (X = Xo * Xi): the three axes */
    int nargs;
};

/* The call text and its program; errors are diagnostics at a column of the call. */
typedef struct Call {
    Prog *p;
    AlgCtx *alg;
    AlgParseMap parse;
    Source *src;
    const char *s;
    size_t i;
    int depth;
    bool failed;
} Call;

static void call_error(Call *c, uint32_t col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void call_error(Call *c, uint32_t col, const char *fmt, ...)
{
    if (c->failed)
        return;
    c->failed = true;
    char buf[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    diag_error(&c->p->diags, (Loc){c->src, 1, col}, "%s", buf);
}

static void skip_space(Call *c)
{
    while (c->s[c->i] == ' ' || c->s[c->i] == '\t' || c->s[c->i] == '\n')
        c->i++;
}

static uint32_t col_of(const Call *c) { return (uint32_t)c->i + 1; }

static bool ident_char(char ch) { return isalnum((unsigned char)ch) || ch == '_'; }

static Arg *new_arg(Call *c, ArgKind k)
{
    Arg *a = arena_alloc(&c->p->arena, sizeof *a);
    memset(a, 0, sizeof *a);
    a->kind = k;
    a->col = col_of(c);
    a->at = c->i;
    return a;
}

static Arg *parse_arg(Call *c);

/* call := IDENT '(' arg {',' arg} ')' — entered at the '(' after the name in a. */
static Arg *parse_call_args(Call *c, Arg *a)
{
    a->kind = ARG_CALL;
    c->i++; /* ( */
    skip_space(c);
    while (!c->failed && c->s[c->i] != ')') {
        if (a->nargs == MAX_ARGS) {
            call_error(c, col_of(c), "a call takes at most %d arguments", MAX_ARGS);
            return NULL;
        }
        Arg *x = parse_arg(c);
        if (!x)
            return NULL;
        a->args[a->nargs++] = x;
        skip_space(c);
        if (c->s[c->i] == ',') {
            c->i++;
            skip_space(c);
        } else if (c->s[c->i] != ')') {
            call_error(c, col_of(c), "expected ',' or ')' in the arguments of '%.*s'", (int)a->len, c->s + a->at);
            return NULL;
        }
    }
    if (c->failed)
        return NULL;
    c->i++; /* ) */
    return a;
}

static Arg *parse_arg_at(Call *c);

/* One argument, its nesting counted (lists, substitutions and fused axes nest as calls do), so that no input
 * recurses deeper than MAX_CALL_DEPTH levels. */
static Arg *parse_arg(Call *c)
{
    if (++c->depth > MAX_CALL_DEPTH) {
        skip_space(c);
        call_error(c, col_of(c), "calls and arguments nested deeper than %d levels", MAX_CALL_DEPTH);
        return NULL;
    }
    Arg *a = parse_arg_at(c);
    c->depth--;
    return a;
}

/* arg := call | m![...] | IDENT [':=' arg | ':' arg | '=' IDENT '*' IDENT] | '#' ['{' (0|!|*) '}']
 *      | '[' IDENT {',' IDENT} ']' */
static Arg *parse_arg_at(Call *c)
{
    skip_space(c);
    const char *s = c->s;
    if (s[c->i] == 'm' && s[c->i + 1] == '!' && s[c->i + 2] == '[') {
        Arg *a = new_arg(c, ARG_MAP);
        int depth = 0;
        size_t j = c->i + 2;
        for (; s[j]; j++) {
            if (s[j] == '[')
                depth++;
            else if (s[j] == ']' && --depth == 0)
                break;
        }
        if (!s[j]) {
            call_error(c, a->col, "unclosed m![");
            return NULL;
        }
        c->i = j + 1;
        a->len = c->i - a->at;
        return a;
    }
    if (s[c->i] == '#') {
        Arg *a = new_arg(c, ARG_KIND);
        a->pad = PAD_TOP;
        c->i++;
        if (s[c->i] == '{') {
            char k = s[c->i + 1];
            if (s[c->i + 2] != '}' || (k != '0' && k != '!' && k != '*')) {
                call_error(c, a->col, "a padding kind is #, #{*}, #{0} or #{!}");
                return NULL;
            }
            a->pad = k == '0' ? PAD_ZERO : k == '!' ? PAD_BOTTOM : PAD_TOP;
            c->i += 3;
        }
        a->len = c->i - a->at;
        return a;
    }
    if (s[c->i] == '[') {
        Arg *a = new_arg(c, ARG_LIST);
        c->i++;
        skip_space(c);
        while (!c->failed && s[c->i] != ']') {
            Arg *x = parse_arg(c);
            if (!x)
                return NULL;
            if (x->kind != ARG_IDENT) {
                call_error(c, x->col, "an axis list holds axis names");
                return NULL;
            }
            if (a->nargs == MAX_ARGS) {
                call_error(c, x->col, "an axis list holds at most %d axes", MAX_ARGS);
                return NULL;
            }
            a->args[a->nargs++] = x;
            skip_space(c);
            if (s[c->i] == ',') {
                c->i++;
                skip_space(c);
            } else if (s[c->i] != ']') {
                call_error(c, col_of(c), "expected ',' or ']' in an axis list");
                return NULL;
            }
        }
        c->i++;
        return a;
    }
    if (isalpha((unsigned char)s[c->i]) || s[c->i] == '_') {
        Arg *a = new_arg(c, ARG_IDENT);
        while (ident_char(s[c->i]))
            c->i++;
        a->len = c->i - a->at;
        size_t save = c->i;
        skip_space(c);
        if (s[c->i] == '(')
            return parse_call_args(c, a);
        if (s[c->i] == ':') {
            bool assign = s[c->i + 1] == '=';
            c->i += assign ? 2 : 1;
            Arg *v = parse_arg(c);
            if (!v)
                return NULL;
            Arg *as = arena_alloc(&c->p->arena, sizeof *as);
            memset(as, 0, sizeof *as);
            as->kind = assign ? ARG_ASSIGN : ARG_MODE;
            as->col = a->col;
            as->args[0] = a;
            as->args[1] = v;
            as->nargs = 2;
            return as;
        }
        if (s[c->i] == '=') {
            c->i++;
            Arg *o = parse_arg(c);
            if (!o)
                return NULL;
            skip_space(c);
            if (o->kind != ARG_IDENT || s[c->i] != '*') {
                call_error(c, o->col, "a fused axis is written X = Xo * Xi");
                return NULL;
            }
            c->i++;
            Arg *i = parse_arg(c);
            if (!i)
                return NULL;
            if (i->kind != ARG_IDENT) {
                call_error(c, i->col, "a fused axis is written X = Xo * Xi");
                return NULL;
            }
            Arg *f = arena_alloc(&c->p->arena, sizeof *f);
            memset(f, 0, sizeof *f);
            f->kind = ARG_FUSE;
            f->col = a->col;
            f->args[0] = a;
            f->args[1] = o;
            f->args[2] = i;
            f->nargs = 3;
            return f;
        }
        c->i = save;
        return a;
    }
    if (!s[c->i])
        call_error(c, col_of(c), "the call ends where an argument is expected");
    else
        call_error(c, col_of(c), "unexpected '%.1s' where an argument is expected", s + c->i);
    return NULL;
}

/* ---- evaluation ---- */

static bool eval_call(Call *c, const Arg *a, AlgCallValue *out);

static char *arg_text(Call *c, const Arg *a)
{
    return arena_strndup(&c->p->arena, c->s + a->at, a->len);
}

/* An algebra error of the operation at a: "algebra: CODE: MESSAGE". */
static void alg_error(Call *c, const Arg *a)
{
    call_error(c, a->col, "algebra: %s: %s", c->alg->code ? c->alg->code : ALG_ERR_INTERNAL, c->alg->msg);
}

static void code_error(Call *c, const Arg *a, const char *code, const char *msg)
{
    call_error(c, a->col, "algebra: %s: %s", code, msg);
}

/* A mapping argument: a call, an inline m![...] or a type name. */
static const Map *map_arg(Call *c, const Arg *a)
{
    if (c->failed)
        return NULL;
    if (a->kind == ARG_CALL) {
        AlgCallValue v;
        if (!eval_call(c, a, &v))
            return NULL;
        if (!v.map) {
            call_error(c, a->col, "'%s' is a query, not a mapping", arg_text(c, a));
            return NULL;
        }
        return v.map;
    }
    if (a->kind != ARG_MAP && a->kind != ARG_IDENT) {
        call_error(c, a->col, "expected a mapping (a type, an m![...] or a call)");
        return NULL;
    }
    /* Parsed in place: the text is the call with everything else blanked, so columns stay the call's. */
    char *t = arena_alloc(&c->p->arena, a->at + a->len + 1);
    memset(t, ' ', a->at);
    memcpy(t + a->at, c->s + a->at, a->len);
    t[a->at + a->len] = 0;
    const Map *m = c->parse(c->p, "<command-line>", t);
    if (!m)
        c->failed = true;
    return m;
}

/* An axis argument; undeclared-axis when it names none. */
static int axis_arg(Call *c, const Arg *a)
{
    if (c->failed)
        return -1;
    if (a->kind != ARG_IDENT) {
        call_error(c, a->col, "expected an axis name");
        return -1;
    }
    const Name *n = prog_lookup_n(c->p, c->s + a->at, a->len);
    if (!n || n->kind != NAME_AXIS) {
        char msg[300];
        snprintf(msg, sizeof msg, "'%.*s' is not a declared axis%s", (int)a->len, c->s + a->at,
                 prog_did_you_mean(c->p, c->s + a->at, a->len, NAME_BIT(NAME_AXIS)));
        code_error(c, a, ALG_ERR_UNDECLARED, msg);
        return -1;
    }
    return n->axis;
}

static bool pad_arg(Call *c, const Arg *a, PadKind *k)
{
    if (a->kind != ARG_KIND) {
        call_error(c, a->col, "expected a padding kind (#, #{0} or #{!})");
        return false;
    }
    *k = a->pad;
    return true;
}

static bool nargs(Call *c, const Arg *a, int lo, int hi, const char *usage)
{
    if (a->nargs < lo || a->nargs > hi) {
        call_error(c, a->col, "usage: %s", usage);
        return false;
    }
    return true;
}

static bool is(const Call *c, const Arg *a, const char *name)
{
    return a->len == strlen(name) && memcmp(c->s + a->at, name, a->len) == 0;
}

static bool eval_call(Call *c, const Arg *a, AlgCallValue *out)
{
    out->map = NULL;
    out->line[0] = 0;
    if (a->kind != ARG_CALL) {
        const Map *m = map_arg(c, a);
        out->map = m;
        return m != NULL;
    }
    AlgCtx *g = c->alg;
    const Map *r = NULL;
    if (is(c, a, "compose")) {
        if (!nargs(c, a, 2, MAX_ARGS, "compose(E, X := F, ...)"))
            return false;
        const Map *e = map_arg(c, a->args[0]);
        int xs[MAX_ARGS];
        const Map *fs[MAX_ARGS];
        for (int i = 1; i < a->nargs && e; i++) {
            if (a->args[i]->kind != ARG_ASSIGN) {
                call_error(c, a->args[i]->col, "compose's substitutions are written X := F");
                return false;
            }
            xs[i - 1] = axis_arg(c, a->args[i]->args[0]);
            fs[i - 1] = xs[i - 1] >= 0 ? map_arg(c, a->args[i]->args[1]) : NULL;
            if (!fs[i - 1])
                return false;
        }
        if (!e)
            return false;
        r = alg_compose(g, e, a->nargs - 1, xs, fs);
    } else if (is(c, a, "complement") || is(c, a, "cover")) {
        bool cover = is(c, a, "cover");
        if (!nargs(c, a, 2, cover ? 3 : 2, cover ? "cover(T, X [, KIND])" : "complement(T, X)"))
            return false;
        const Map *t = map_arg(c, a->args[0]);
        int x = t ? axis_arg(c, a->args[1]) : -1;
        PadKind k = PAD_TOP;
        if (x < 0 || (a->nargs == 3 && !pad_arg(c, a->args[2], &k)))
            return false;
        r = cover ? alg_cover(g, t, x, k) : alg_complement(g, t, x);
    } else if (is(c, a, "inverse") || is(c, a, "left_inverse")) {
        bool left = is(c, a, "left_inverse");
        if (!nargs(c, a, 3, 4, left ? "left_inverse(E, P, [A, ...] [, KIND])" : "inverse(E, P, [A, ...] [, KIND])"))
            return false;
        const Map *e = map_arg(c, a->args[0]);
        int p = e ? axis_arg(c, a->args[1]) : -1;
        if (p < 0)
            return false;
        const Arg *l = a->args[2];
        if (l->kind != ARG_LIST) {
            call_error(c, l->col, "expected an axis list [A, ...]");
            return false;
        }
        int order[MAX_ARGS];
        for (int i = 0; i < l->nargs; i++)
            if ((order[i] = axis_arg(c, l->args[i])) < 0)
                return false;
        PadKind k = PAD_BOTTOM;
        if (a->nargs == 4 && !pad_arg(c, a->args[3], &k))
            return false;
        r = alg_inverse(g, e, p, l->nargs, order, k, left);
    } else if (is(c, a, "conversion")) {
        if (!nargs(c, a, 3, 3, "conversion(Src, Dst, Q)"))
            return false;
        const Map *s = map_arg(c, a->args[0]), *d = s ? map_arg(c, a->args[1]) : NULL;
        int q = d ? axis_arg(c, a->args[2]) : -1;
        if (q < 0)
            return false;
        r = alg_conversion(g, s, d, q);
    } else if (is(c, a, "nullspace")) {
        if (!nargs(c, a, 2, 2, "nullspace(E, P)"))
            return false;
        const Map *e = map_arg(c, a->args[0]);
        int p = e ? axis_arg(c, a->args[1]) : -1;
        if (p < 0)
            return false;
        r = alg_nullspace(g, e, p);
    } else if (is(c, a, "coalesce")) {
        if (!nargs(c, a, 1, 1, "coalesce(E)"))
            return false;
        const Map *e = map_arg(c, a->args[0]);
        if (!e)
            return false;
        r = alg_coalesce(g, e);
    } else if (is(c, a, "divide") || is(c, a, "zipped_divide") || is(c, a, "tiled_divide") ||
               is(c, a, "flat_divide")) {
        if (!nargs(c, a, 2, MAX_ARGS, "divide(A, X: T, ...)"))
            return false;
        const Map *m = map_arg(c, a->args[0]);
        int xs[MAX_ARGS];
        const Map *ts[MAX_ARGS];
        for (int i = 1; i < a->nargs && m; i++) {
            if (a->args[i]->kind != ARG_MODE) {
                call_error(c, a->args[i]->col, "a divide's modes are written X: T");
                return false;
            }
            xs[i - 1] = axis_arg(c, a->args[i]->args[0]);
            ts[i - 1] = xs[i - 1] >= 0 ? map_arg(c, a->args[i]->args[1]) : NULL;
            if (!ts[i - 1])
                return false;
        }
        if (!m)
            return false;
        r = alg_divide(g, m, a->nargs - 1, xs, ts, !is(c, a, "divide"));
    } else if (is(c, a, "product")) {
        if (!nargs(c, a, 4, 4, "product(A, X, B, Y)"))
            return false;
        const Map *t = map_arg(c, a->args[0]);
        int x = t ? axis_arg(c, a->args[1]) : -1;
        const Map *b = x >= 0 ? map_arg(c, a->args[2]) : NULL;
        int y = b ? axis_arg(c, a->args[3]) : -1;
        if (y < 0)
            return false;
        r = alg_product(g, t, x, b, y);
    } else if (is(c, a, "blocked_product") || is(c, a, "raked_product")) {
        bool raked = is(c, a, "raked_product");
        if (!nargs(c, a, 3, MAX_ARGS, raked ? "raked_product(G, T, X = Xo * Xi, ...)"
                                            : "blocked_product(G, T, X = Xo * Xi, ...)"))
            return false;
        const Map *gm = map_arg(c, a->args[0]), *tm = gm ? map_arg(c, a->args[1]) : NULL;
        int x[MAX_ARGS], xo[MAX_ARGS], xi[MAX_ARGS];
        for (int i = 2; i < a->nargs && tm; i++) {
            const Arg *f = a->args[i];
            if (f->kind != ARG_FUSE) {
                call_error(c, f->col, "a product's fused axes are written X = Xo * Xi");
                return false;
            }
            if ((x[i - 2] = axis_arg(c, f->args[0])) < 0 || (xo[i - 2] = axis_arg(c, f->args[1])) < 0 ||
                (xi[i - 2] = axis_arg(c, f->args[2])) < 0)
                return false;
        }
        if (!tm)
            return false;
        r = alg_blocked_product(g, gm, tm, a->nargs - 2, x, xo, xi, raked);
    } else if (is(c, a, "injective")) {
        if (!nargs(c, a, 1, 1, "injective(E)"))
            return false;
        const Map *e = map_arg(c, a->args[0]);
        bool yes;
        uint64_t p1 = 0, p2 = 0;
        if (!e)
            return false;
        if (!alg_injective(g, e, &yes, &p1, &p2)) {
            alg_error(c, a);
            return false;
        }
        if (yes) {
            snprintf(out->line, sizeof out->line, "injective");
        } else {
            Cell cell = {.coord = calloc((size_t)c->p->naxes + 1, sizeof(uint64_t))};
            char buf[400] = "";
            if (cell.coord && eval_cell(g->ev, e, p1, &cell) == EVAL_OK)
                cell_format(c->p, &cell, buf, sizeof buf);
            free(cell.coord);
            snprintf(out->line, sizeof out->line, "not injective: positions %llu and %llu: %s", U(p1), U(p2), buf);
        }
        return true;
    } else if (is(c, a, "vector")) {
        if (!nargs(c, a, 1, 2, "vector(Src [, Dst])"))
            return false;
        const Map *s = map_arg(c, a->args[0]), *d = s && a->nargs == 2 ? map_arg(c, a->args[1]) : NULL;
        uint64_t n = 0;
        if (!s || (a->nargs == 2 && !d))
            return false;
        if (!alg_vector(g, s, d, &n)) {
            alg_error(c, a);
            return false;
        }
        snprintf(out->line, sizeof out->line, "%llu", U(n));
        return true;
    } else {
        call_error(c, a->col,
                   "unknown algebra operation '%s' (compose, complement, cover, divide, zipped_divide, tiled_divide, "
                   "flat_divide, product, blocked_product, raked_product, inverse, left_inverse, conversion, nullspace, "
                   "coalesce, injective, vector)", arg_text(c, a));
        return false;
    }
    if (!r) {
        if (!c->failed)
            alg_error(c, a);
        return false;
    }
    out->map = r;
    return true;
}

bool alg_call(AlgCtx *g, AlgParseMap parse, const char *text, AlgCallValue *out)
{
    Prog *p = g->prog;
    out->map = NULL;
    out->line[0] = 0;
    Source *src = arena_alloc(&p->arena, sizeof *src);
    size_t len = strlen(text);
    char *copy = arena_strndup(&p->arena, text, len);
    *src = (Source){.name = "<command-line>", .text = copy, .len = len};
    Call c = {.p = p, .alg = g, .parse = parse, .src = src, .s = copy};
    Arg *a = parse_arg(&c);
    if (a && !c.failed) {
        skip_space(&c);
        if (c.s[c.i])
            call_error(&c, col_of(&c), "unexpected text after the call");
    }
    return a && !c.failed && eval_call(&c, a, out);
}
