/* alg_ops.h — the layout algebra: operations that build mappings from mappings (compose, complement, cover,
 * inverses, conversion) and queries on them (injectivity, vector width, nullspace, coalesce), each result
 * re-checked before it is returned (docs/algebra.md). */
#ifndef MAPC_ALG_OPS_H
#define MAPC_ALG_OPS_H

#include "algebra.h"

/* The error codes of the algebra (docs/algebra.md, "Errors"). */
#define ALG_ERR_UNDECLARED "undeclared-axis"
#define ALG_ERR_SIZE "size-mismatch"
#define ALG_ERR_OVERFLOW "overflow"
#define ALG_ERR_FOREIGN "foreign-axis"
#define ALG_ERR_NO_COMPLEMENT "no-complement"
#define ALG_ERR_NOT_INJECTIVE "not-injective"
#define ALG_ERR_NOT_HELD "not-held"
#define ALG_ERR_UNEXPRESSIBLE "unexpressible"
/* A result that has more positions than the operation enumerates (AlgCtx.enum_limit). */
#define ALG_ERR_TOO_LARGE "too-large"
/* The heap ran out (the C API's MAPC_ERR_NOMEM). */
#define ALG_ERR_NOMEM "out-of-memory"
/* A result that failed its own check: a bug of mapc, never an answer. */
#define ALG_ERR_INTERNAL "internal"

/* Positions an operation computes cell by cell at most, unless the caller changes AlgCtx.enum_limit. */
#define ALG_ENUM_LIMIT (UINT64_C(1) << 22)

/* One context per program: the arena results live in, the decision procedure that checks them, and the
 * last error (code NULL when the last call succeeded). Not thread-safe. */
typedef struct AlgCtx {
    Prog *prog;
    Eqv *eqv;
    Evaluator *ev;          /* eqv's interpreter */
    uint64_t enum_limit;
    const char *code;       /* one of ALG_ERR_*, or NULL */
    char msg[512];          /* the message, naming positions and values */
} AlgCtx;

/* Opens a context over p (which must outlive it, its axes all declared); alg_close frees what it owns (not p). */
void alg_open(AlgCtx *c, Prog *p);
void alg_close(AlgCtx *c);
/* Records an error (code, printf message); always returns NULL, for `return alg_fail(...)`. */
void *alg_fail(AlgCtx *c, const char *code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A padding kind for a result (cover's overhang, the inverse's non-image). */
typedef PadKind AlgPad;

/* ---- operations: each returns a normalized, checked mapping in the program's arena, or NULL with c->code ---- */

/* E with {F_i} written where axis xs[i] stood, for all i at once, normalized. |F_i| must be |xs[i]|. */
const Map *alg_compose(AlgCtx *c, const Map *e, int n, const int *xs, const Map *const *fs);
/* The origins of a tiler t over axis x (docs/algebra.md): the increasing list O with O × values(t) covering
 * [0, |x|) exactly once, as a padding-free mapping over x. */
const Map *alg_complement(AlgCtx *c, const Map *t, int x);
/* The pair (complement, t) as one mapping over x: position r·|t| + i holds o_r + t(i), pad(kind) past |x|. */
const Map *alg_cover(AlgCtx *c, const Map *t, int x, AlgPad kind);
/* CuTe's logical divide in the tiler view: a (|a| = Π|xs[k]|, its position Σ x_k·Π_{j<k}|xs[j]|, mode 0 minor) read
 * in tile order through the covers of tilers ts[k] over xs[k] (overhang kind top): positions [[r_K, i_K], ...,
 * [r_0, i_0]], or with zipped [r_K..r_0, i_K..i_0] (zipped, tiled and flat divides are one mapping). A cover's
 * padding is the cell's, the most major mode's first. The result's live cells must hold one axis. */
const Map *alg_divide(AlgCtx *c, const Map *a, int modes, const int *xs, const Map *const *ts, bool zipped);
/* CuTe's logical product in the tiler view: position j·|a| + i holds cover(a, x)'s cell at y·|a| + i where b
 * holds {y: y} at j (|y| = the number of origins), or b's padding. */
const Map *alg_product(AlgCtx *c, const Map *a, int x, const Map *b, int y);
/* The blocked (raked: cyclic) product of a grid g over the outer axes xo[k] and a tile t over the inner axes
 * xi[k]: compose(m![{g}, {t}], xo := [x # n] / |xi|, xi := [x # n] % |xi|) per k (raked: [x # n] % |xo| and
 * [x # n] / |xo|), n = |xo|·|xi| >= |x|, the base plain x when n = |x|. */
const Map *alg_blocked_product(AlgCtx *c, const Map *g, const Map *t, int n, const int *x, const int *xo,
                               const int *xi, bool raked);
/* The inverse of e over position axis p (|p| = |e|): index idx (the axes of order[k], order[0] major) holds
 * {p: the first position of e holding idx}, or pad(kind) where e holds idx nowhere. With left, e must be
 * injective (else not-injective naming both positions). */
const Map *alg_inverse(AlgCtx *c, const Map *e, int p, int k, const int *order, AlgPad kind, bool left);
/* The relayout plan from src to dst over axis q (|q| = |dst|): position p holds {q: the first position of dst
 * holding src's index at p}, or src's padding. */
const Map *alg_conversion(AlgCtx *c, const Map *src, const Map *dst, int q);
/* The positions p of e with cell(e, p) = cell(e, 0), increasing, as a mapping over axis p (|p| = |e|). */
const Map *alg_nullspace(AlgCtx *c, const Map *e, int p);
/* norm(e), checked equivalent to e. */
const Map *alg_coalesce(AlgCtx *c, const Map *e);

/* ---- queries: true with the answer, false with c->code ---- */

/* Whether no live cell of e occurs twice; if not, *p1 < *p2 with *p2 the smallest position whose live cell
 * occurred before, *p1 that cell's first position. */
bool alg_injective(AlgCtx *c, const Map *e, bool *yes, uint64_t *p1, uint64_t *p2);
/* The widest n dividing |src| and |dst| such that every aligned block of n source positions is all padding of
 * one kind, or all live and mapped by the conversion plan to q0..q0+n-1 with n | q0. dst NULL: the identity
 * layout of the axes src uses, in declaration order. */
bool alg_vector(AlgCtx *c, const Map *src, const Map *dst, uint64_t *n);

/* ---- helpers shared by the operation files (alg_ctx.c, alg_fit.c) ---- */

/* A value sequence: v[i] >= 0 a live coordinate of one axis, v[i] < 0 the padding of kind -v[i]. */
typedef int64_t AlgVal;

/* The cells of e (|e| <= enum_limit) as values of axis x, into a malloc'ed array: NULL with overflow or
 * foreign-axis naming the first position at fault, or too-large. */
AlgVal *alg_values(AlgCtx *c, const Map *e, int x, const char *what);
/* The digit route of complement (cover: of cover) for a tiler made of disjoint, aligned digits of the plain axis
 * x and broadcasts, at any size: *applies false (and NULL) when t is not such a tiler; otherwise the result, checked
 * by the equivalence decision (the digits of both, by stride, are x once), or NULL with the error. The cover of
 * such a tiler has no overhang, whatever the kind. */
const Map *alg_complement_digits(AlgCtx *c, const Map *t, int x, bool cover, bool *applies);
/* The cells of cover(t, x, kind) (*size of them, *norigins origins), malloc'ed; NULL with the error. */
AlgVal *alg_cover_values(AlgCtx *c, const Map *t, int x, AlgPad kind, uint64_t *size, uint64_t *norigins);
/* A normalized mapping over axis x whose cells are exactly v[0..n) (checked cell by cell), or NULL with
 * unexpressible naming what. */
const Map *alg_fit(AlgCtx *c, const AlgVal *v, uint64_t n, int x, const char *what);
/* Whether cell(m, i) is v[i] for every i < n (|m| = n), the cells over axis x; false with *at the first
 * position that differs. */
bool alg_matches(AlgCtx *c, const Map *m, const AlgVal *v, uint64_t n, int x, uint64_t *at);
/* Like alg_fit, for values that are positions of the mapping over (padding: -kind): a mapping made of digits of the
 * composite base {over} (or of {over} padded) whose cell at i is over's at v[i], checked cell by cell. */
const Map *alg_fit_over(AlgCtx *c, const AlgVal *v, uint64_t n, const Map *over, const char *what);
/* Whether cell(m, i) is cell(over, v[i]) (or the padding -v[i]) for every i < n. */
bool alg_matches_over(AlgCtx *c, const Map *m, const Map *over, const AlgVal *v, uint64_t n, uint64_t *at);
/* The axis named like a padding kind's printed cell ("pad(top)"). */
const char *alg_pad_name(AlgPad k);

#endif
