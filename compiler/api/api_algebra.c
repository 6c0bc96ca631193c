/* api_algebra.c — the public C API of the layout algebra (algebra.h): names resolved, arguments checked, the
 * operations of algebra/alg_ops.h run and their results returned as m![...] text. */
#include "algebra.h"
#include "api_impl.h"

#include "algebra/alg_ops.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most mappings or axes one call takes (compose's substitutions, divide's modes, an inverse's order). */
#define MAX_LIST 4096

/* Fills err (may be NULL) with status, code and the printf message; returns status. */
static int fail(mapc_algebra_error *err, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(mapc_algebra_error *err, int status, const char *code, const char *fmt, ...)
{
    if (err) {
        err->status = status;
        snprintf(err->code, sizeof err->code, "%s", code);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return status;
}

static int ok(mapc_algebra_error *err) { return fail(err, MAPC_OK, "", "%s", ""); }

/* The program usable by the algebra: MAPC_ERR_ARGUMENT for NULL, MAPC_ERR_INPUT when it did not compile. */
static int check_prog(mapc_program *p, mapc_algebra_error *err)
{
    if (!p)
        return fail(err, MAPC_ERR_ARGUMENT, "", "the program is NULL");
    if (p->compile_errors)
        return fail(err, MAPC_ERR_INPUT, "", "the program has errors (see its diagnostics)");
    return MAPC_OK;
}

/* The mapping named name (what: its role, for the message) into *m; the status of api_resolve otherwise. */
static int map_arg(mapc_program *p, const char *name, const char *what, const Map **m, mapc_algebra_error *err)
{
    if (!name)
        return fail(err, MAPC_ERR_ARGUMENT, "", "%s is NULL", what);
    mapc_status s = api_resolve(p, name, m);
    if (s == MAPC_ERR_NOT_FOUND)
        return fail(err, s, "", "%s: no type named '%s'", what, name);
    if (s != MAPC_OK)
        return fail(err, s, "", "%s: '%s' has errors (see the program's diagnostics)", what, name);
    return MAPC_OK;
}

/* The declared axis named name into *ax: MAPC_ERR_ARGUMENT for NULL, undeclared-axis when there is none. */
static int axis_arg(mapc_program *p, const char *name, const char *what, int *ax, mapc_algebra_error *err)
{
    if (!name)
        return fail(err, MAPC_ERR_ARGUMENT, "", "%s is NULL", what);
    const Name *n = prog_lookup(p->prog, name);
    if (!n || n->kind != NAME_AXIS)
        return fail(err, MAPC_ERR_ALGEBRA, ALG_ERR_UNDECLARED, "'%s' is not a declared axis%s", name,
                    prog_did_you_mean(p->prog, name, strlen(name), NAME_BIT(NAME_AXIS)));
    *ax = n->axis;
    return MAPC_OK;
}

static int pad_arg(mapc_pad_kind k, mapc_algebra_error *err)
{
    if (k != MAPC_PAD_TOP && k != MAPC_PAD_ZERO && k != MAPC_PAD_BOTTOM)
        return fail(err, MAPC_ERR_ARGUMENT, "", "padding kind %d is none of MAPC_PAD_TOP, _ZERO, _BOTTOM", (int)k);
    return MAPC_OK;
}

/* The out-parameter cleared, or MAPC_ERR_ARGUMENT when it is NULL. */
static int out_arg(char **out, mapc_algebra_error *err)
{
    if (!out)
        return fail(err, MAPC_ERR_ARGUMENT, "", "out is NULL");
    *out = NULL;
    return MAPC_OK;
}

/* A list length: MAPC_ERR_ARGUMENT below lo, above MAX_LIST, or with a NULL array when n > 0. */
static int count_arg(int n, int lo, const void *a, const void *b, const void *c, mapc_algebra_error *err)
{
    if (n < lo || n > MAX_LIST)
        return fail(err, MAPC_ERR_ARGUMENT, "", "count %d is outside [%d, %d]", n, lo, MAX_LIST);
    if (n > 0 && (!a || !b || !c))
        return fail(err, MAPC_ERR_ARGUMENT, "", "an array is NULL");
    return MAPC_OK;
}

/* The algebra's error of g: MAPC_ERR_NOMEM when the heap ran out, else MAPC_ERR_ALGEBRA with its code. */
static int alg_error(AlgCtx *g, mapc_algebra_error *err)
{
    if (g->code && strcmp(g->code, ALG_ERR_NOMEM) == 0)
        return fail(err, MAPC_ERR_NOMEM, "", "%s", g->msg);
    return fail(err, MAPC_ERR_ALGEBRA, g->code ? g->code : ALG_ERR_INTERNAL, "%s", g->msg);
}

/* Result r of context g as text into *out, or the algebra's error; closes g. */
static int finish(mapc_program *p, AlgCtx *g, const Map *r, char **out, mapc_algebra_error *err)
{
    int s;
    if (!r)
        s = alg_error(g, err);
    else if ((s = api_format_map(p, r, out)) != MAPC_OK)
        fail(err, s, "", "out of memory");
    else
        s = ok(err);
    alg_close(g);
    return s;
}

#define TRY(x)                   \
    do {                         \
        int try_ = (x);          \
        if (try_ != MAPC_OK)     \
            return try_;         \
    } while (0)

/* ---- the operations: each body checks its arguments, then runs the operation under the caller's guard ---- */

/* n mappings and n axes (compose's substitutions, divide's modes) into malloc'ed *xs and *ms. */
static int pairs(mapc_program *p, int n, const char *const *axes, const char *const *maps, const char *what,
                 int **xs, const Map ***ms, mapc_algebra_error *err)
{
    *xs = malloc((size_t)n * sizeof **xs + 1);
    *ms = malloc((size_t)n * sizeof **ms + 1);
    if (!*xs || !*ms)
        return fail(err, MAPC_ERR_NOMEM, "", "out of memory");
    for (int i = 0; i < n; i++) {
        TRY(axis_arg(p, axes[i], "an axis", &(*xs)[i], err));
        TRY(map_arg(p, maps[i], what, &(*ms)[i], err));
    }
    return MAPC_OK;
}

static int compose_body(mapc_program *p, const char *e, int n, const char *const *axes, const char *const *fs,
                        char **out, mapc_algebra_error *err)
{
    TRY(out_arg(out, err));
    TRY(check_prog(p, err));
    TRY(count_arg(n, 1, axes, fs, fs, err));
    const Map *em;
    TRY(map_arg(p, e, "E", &em, err));
    int *xs;
    const Map **ms;
    int s = pairs(p, n, axes, fs, "a substitution", &xs, &ms, err);
    if (s == MAPC_OK) {
        AlgCtx g;
        alg_open(&g, p->prog);
        s = finish(p, &g, alg_compose(&g, em, n, xs, ms), out, err);
    }
    free(xs);
    free(ms);
    return s;
}

int mapc_compose(mapc_program *p, const char *e, int n, const char *const *axes, const char *const *fs, char **out,
                 mapc_algebra_error *err)
{
    GUARDED(compose_body(p, e, n, axes, fs, out, err));
}

/* complement (cover false) or cover of kind pad. */
static int cover_body(mapc_program *p, const char *t, const char *x, bool cover, mapc_pad_kind pad, char **out,
                      mapc_algebra_error *err)
{
    TRY(out_arg(out, err));
    TRY(check_prog(p, err));
    TRY(pad_arg(pad, err));
    const Map *tm;
    int ax;
    TRY(map_arg(p, t, "T", &tm, err));
    TRY(axis_arg(p, x, "X", &ax, err));
    AlgCtx g;
    alg_open(&g, p->prog);
    return finish(p, &g, cover ? alg_cover(&g, tm, ax, (PadKind)pad) : alg_complement(&g, tm, ax), out, err);
}

int mapc_complement(mapc_program *p, const char *t, const char *x, char **out, mapc_algebra_error *err)
{
    GUARDED(cover_body(p, t, x, false, MAPC_PAD_TOP, out, err));
}

int mapc_cover(mapc_program *p, const char *t, const char *x, mapc_pad_kind pad, char **out,
               mapc_algebra_error *err)
{
    GUARDED(cover_body(p, t, x, true, pad, out, err));
}

static int divide_body(mapc_program *p, const char *a, int n, const char *const *axes, const char *const *tilers,
                       int zipped, char **out, mapc_algebra_error *err)
{
    TRY(out_arg(out, err));
    TRY(check_prog(p, err));
    TRY(count_arg(n, 1, axes, tilers, tilers, err));
    const Map *am;
    TRY(map_arg(p, a, "A", &am, err));
    int *xs;
    const Map **ms;
    int s = pairs(p, n, axes, tilers, "a tiler", &xs, &ms, err);
    if (s == MAPC_OK) {
        AlgCtx g;
        alg_open(&g, p->prog);
        s = finish(p, &g, alg_divide(&g, am, n, xs, ms, zipped != 0), out, err);
    }
    free(xs);
    free(ms);
    return s;
}

int mapc_divide(mapc_program *p, const char *a, int n, const char *const *axes, const char *const *tilers,
                int zipped, char **out, mapc_algebra_error *err)
{
    GUARDED(divide_body(p, a, n, axes, tilers, zipped, out, err));
}

static int product_body(mapc_program *p, const char *a, const char *x, const char *b, const char *y, char **out,
                        mapc_algebra_error *err)
{
    TRY(out_arg(out, err));
    TRY(check_prog(p, err));
    const Map *am, *bm;
    int ax, ay;
    TRY(map_arg(p, a, "A", &am, err));
    TRY(axis_arg(p, x, "X", &ax, err));
    TRY(map_arg(p, b, "B", &bm, err));
    TRY(axis_arg(p, y, "Y", &ay, err));
    AlgCtx g;
    alg_open(&g, p->prog);
    return finish(p, &g, alg_product(&g, am, ax, bm, ay), out, err);
}

int mapc_product(mapc_program *p, const char *a, const char *x, const char *b, const char *y, char **out,
                 mapc_algebra_error *err)
{
    GUARDED(product_body(p, a, x, b, y, out, err));
}

static int blocked_body(mapc_program *p, const char *gn, const char *tn, int n, const char *const *x,
                        const char *const *xo, const char *const *xi, int raked, char **out,
                        mapc_algebra_error *err)
{
    TRY(out_arg(out, err));
    TRY(check_prog(p, err));
    TRY(count_arg(n, 1, x, xo, xi, err));
    const Map *gm, *tm;
    TRY(map_arg(p, gn, "G", &gm, err));
    TRY(map_arg(p, tn, "T", &tm, err));
    int *ax = malloc(3 * (size_t)n * sizeof *ax);
    if (!ax)
        return fail(err, MAPC_ERR_NOMEM, "", "out of memory");
    int s = MAPC_OK;
    for (int i = 0; i < n && s == MAPC_OK; i++) {
        s = axis_arg(p, x[i], "X", &ax[i], err);
        if (s == MAPC_OK)
            s = axis_arg(p, xo[i], "Xo", &ax[n + i], err);
        if (s == MAPC_OK)
            s = axis_arg(p, xi[i], "Xi", &ax[2 * n + i], err);
    }
    if (s == MAPC_OK) {
        AlgCtx g;
        alg_open(&g, p->prog);
        s = finish(p, &g, alg_blocked_product(&g, gm, tm, n, ax, ax + n, ax + 2 * n, raked != 0), out, err);
    }
    free(ax);
    return s;
}

int mapc_blocked_product(mapc_program *p, const char *g, const char *t, int n, const char *const *x,
                         const char *const *xo, const char *const *xi, int raked, char **out,
                         mapc_algebra_error *err)
{
    GUARDED(blocked_body(p, g, t, n, x, xo, xi, raked, out, err));
}

static int inverse_body(mapc_program *p, const char *e, const char *pos, int k, const char *const *order,
                        mapc_pad_kind pad, int left, char **out, mapc_algebra_error *err)
{
    TRY(out_arg(out, err));
    TRY(check_prog(p, err));
    TRY(count_arg(k, 0, order, order, order, err));
    TRY(pad_arg(pad, err));
    const Map *em;
    int ap;
    TRY(map_arg(p, e, "E", &em, err));
    TRY(axis_arg(p, pos, "P", &ap, err));
    int *ax = malloc((size_t)k * sizeof *ax + 1);
    if (!ax)
        return fail(err, MAPC_ERR_NOMEM, "", "out of memory");
    int s = MAPC_OK;
    for (int i = 0; i < k && s == MAPC_OK; i++)
        s = axis_arg(p, order[i], "an index axis", &ax[i], err);
    if (s == MAPC_OK) {
        AlgCtx g;
        alg_open(&g, p->prog);
        s = finish(p, &g, alg_inverse(&g, em, ap, k, ax, (PadKind)pad, left != 0), out, err);
    }
    free(ax);
    return s;
}

int mapc_inverse(mapc_program *p, const char *e, const char *pos, int k, const char *const *order,
                 mapc_pad_kind pad, int left, char **out, mapc_algebra_error *err)
{
    GUARDED(inverse_body(p, e, pos, k, order, pad, left, out, err));
}

static int conversion_body(mapc_program *p, const char *src, const char *dst, const char *q, char **out,
                           mapc_algebra_error *err)
{
    TRY(out_arg(out, err));
    TRY(check_prog(p, err));
    const Map *sm, *dm;
    int aq;
    TRY(map_arg(p, src, "Src", &sm, err));
    TRY(map_arg(p, dst, "Dst", &dm, err));
    TRY(axis_arg(p, q, "Q", &aq, err));
    AlgCtx g;
    alg_open(&g, p->prog);
    return finish(p, &g, alg_conversion(&g, sm, dm, aq), out, err);
}

int mapc_conversion(mapc_program *p, const char *src, const char *dst, const char *q, char **out,
                    mapc_algebra_error *err)
{
    GUARDED(conversion_body(p, src, dst, q, out, err));
}

/* nullspace over axis pos, or (pos unused, nullspace false) coalesce. */
static int unary_body(mapc_program *p, const char *e, const char *pos, bool nullspace, char **out,
                      mapc_algebra_error *err)
{
    TRY(out_arg(out, err));
    TRY(check_prog(p, err));
    const Map *em;
    int ap = -1;
    TRY(map_arg(p, e, "E", &em, err));
    if (nullspace)
        TRY(axis_arg(p, pos, "P", &ap, err));
    AlgCtx g;
    alg_open(&g, p->prog);
    return finish(p, &g, nullspace ? alg_nullspace(&g, em, ap) : alg_coalesce(&g, em), out, err);
}

int mapc_nullspace(mapc_program *p, const char *e, const char *pos, char **out, mapc_algebra_error *err)
{
    GUARDED(unary_body(p, e, pos, true, out, err));
}

int mapc_coalesce(mapc_program *p, const char *e, char **out, mapc_algebra_error *err)
{
    GUARDED(unary_body(p, e, NULL, false, out, err));
}

static int vector_body(mapc_program *p, const char *src, const char *dst, uint64_t *width, mapc_algebra_error *err)
{
    if (!width)
        return fail(err, MAPC_ERR_ARGUMENT, "", "width is NULL");
    *width = 0;
    TRY(check_prog(p, err));
    const Map *sm, *dm = NULL;
    TRY(map_arg(p, src, "Src", &sm, err));
    if (dst)
        TRY(map_arg(p, dst, "Dst", &dm, err));
    AlgCtx g;
    alg_open(&g, p->prog);
    uint64_t n = 0;
    int s;
    if (!alg_vector(&g, sm, dm, &n)) {
        s = alg_error(&g, err);
    } else {
        *width = n;
        s = ok(err);
    }
    alg_close(&g);
    return s;
}

int mapc_vector_width(mapc_program *p, const char *src, const char *dst, uint64_t *width, mapc_algebra_error *err)
{
    GUARDED(vector_body(p, src, dst, width, err));
}

static int injective_body(mapc_program *p, const char *e, int *injective, uint64_t *p1, uint64_t *p2,
                          mapc_algebra_error *err)
{
    if (!injective)
        return fail(err, MAPC_ERR_ARGUMENT, "", "injective is NULL");
    *injective = 0;
    TRY(check_prog(p, err));
    const Map *em;
    TRY(map_arg(p, e, "E", &em, err));
    AlgCtx g;
    alg_open(&g, p->prog);
    bool yes = false;
    uint64_t a = 0, b = 0;
    int s;
    if (!alg_injective(&g, em, &yes, &a, &b)) {
        s = alg_error(&g, err);
    } else {
        *injective = yes;
        if (p1)
            *p1 = yes ? 0 : a;
        if (p2)
            *p2 = yes ? 0 : b;
        s = ok(err);
    }
    alg_close(&g);
    return s;
}

int mapc_injective(mapc_program *p, const char *e, int *injective, uint64_t *p1, uint64_t *p2,
                   mapc_algebra_error *err)
{
    GUARDED(injective_body(p, e, injective, p1, p2, err));
}
