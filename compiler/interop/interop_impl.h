/* interop_impl.h — what the files of compiler/interop share: the scanner of literal bodies, growable text, the
 * placement of axis digits at position weights, the digits of a mapping, verification, and the per-format
 * readers and writers. Not part of the interop API. */
#ifndef MAPC_INTEROP_IMPL_H
#define MAPC_INTEROP_IMPL_H

#include "interop.h"

#include "eval/eval.h"

#include <stdarg.h>

#define U(x) ((unsigned long long)(x))

/* Most dimensions (modes, sub-modes, results, basis vectors) one literal may have. */
#define IOP_MAX_DIGITS 128

/* ---- The scanner of a literal's body (scan.c) ---- */

/* A cursor over a body; the first error is reported (positioned) and every later one dropped. */
typedef struct IopScan {
    Prog *p;
    Diags *diags;
    IopText t;
    const char *cur, *end;
    bool failed;
} IopScan;

void iop_scan_init(IopScan *s, Prog *p, Diags *diags, IopText t);
/* The position of the byte at in the body's source. */
Loc iop_loc(const IopScan *s, const char *at);
/* Reports an error at `at` (the first one only); returns false. */
bool iop_fail(IopScan *s, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Skips blanks and newlines; returns the next byte's address. */
const char *iop_skip(IopScan *s);
/* Whether the next token is the punctuation word w ("(", "->", "//", ...); iop_accept consumes it. For a
 * word of letters (w alphabetic) the next identifier must be exactly w. */
bool iop_peek(IopScan *s, const char *w);
bool iop_accept(IopScan *s, const char *w);
/* Consumes w or reports "expected W CONTEXT, found ...". */
bool iop_expect(IopScan *s, const char *w, const char *context);
/* A decimal number (64 bits, else an error), or an identifier; false (nothing consumed) when the next token
 * is not one. */
bool iop_number(IopScan *s, uint64_t *v, const char **at);
bool iop_ident(IopScan *s, const char **id, size_t *len);
/* iop_fail's report, as a NULL mapping: return IOP_REFUSE(s, at, "...", ...); */
#define IOP_REFUSE(...) (iop_fail(__VA_ARGS__), (const Map *)NULL)
/* Whether only blanks remain; else an error "unexpected ... after CONTEXT". */
bool iop_end(IopScan *s, const char *context);
/* A short quote of the next token for messages ("end of the literal" at the end). */
const char *iop_near(IopScan *s);

/* ---- Growable text in an arena (scan.c) ---- */

typedef struct IopBuf {
    Arena *a;
    char *s;
    size_t n, cap;
} IopBuf;

void iop_buf_init(IopBuf *b, Arena *a);
void iop_buf_printf(IopBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- Axes of a literal (scan.c) ---- */

/* The axes a layout of `rank` dimensions is over: ax's when given (their number must be rank), else the
 * program's first rank public axes in declaration order. false after an error at `at` naming both counts. */
bool iop_axes(IopScan *s, const IopAxes *ax, int rank, const char *what, const char *at, int *out);

/* ---- Digits placed at position weights (place.c) ---- */

/* A digit of a domain axis: the value (x / stride) % count of its coordinate x, placed at position weight
 * `weight` (a value v adds v * weight to the position). */
typedef struct IopDigit {
    int dim;            /* index into the domain */
    uint64_t stride, count, weight;
    const char *at;     /* where the literal writes it (for errors), in the body */
} IopDigit;

/* The domain of a layout: its axes and how the format names a coordinate in errors. */
typedef struct IopDomain {
    int n;
    const int *axis;    /* Prog axes, n of them */
    const char *layout; /* "the CuTe layout", "the affine map", ... */
    const char *offset; /* "offset", "physical index" */
} IopDomain;

/* The buffer-view mapping of digits d[0..n): position sum_k value_k * weight_k holds the index whose
 * coordinates have those digits, every other position below `size` is pad(top) (size 0: the footprint, the
 * largest position + 1; a smaller size cuts positions that only digit values past their axes reach). Each axis's digits must split its coordinate exactly (strides 1, c0, c0*c1, ...; an axis
 * whose digits reach past its size is read through a padded base, the positions past it padding), and each
 * digit by weight must start past the footprint of the lighter ones. An error (at the digit that breaks the
 * rule, through s) names two coordinates with one position when the layout is not injective, or the two
 * digits that overlap or interleave when it is injective but no mapping places it. NULL after the error. */
const Map *iop_place(IopScan *s, const IopDomain *dom, IopDigit *d, int n, uint64_t size);

/* ---- Node builders (place.c): checked, in p's arena; NULL (with why) only past 64 bits or the nesting
 * limit ---- */

/* The digit (x / stride) % count of axis a's coordinate: a digit of the axis, or of the axis padded to
 * `padded` (>= its size; equal: the axis itself). */
const Map *iop_axis_digit(Prog *p, int a, uint64_t padded, uint64_t stride, uint64_t count, Loc loc, MapWhy why);
/* The greatest common divisor (gcd(a, 0) = a). */
uint64_t iop_gcd(uint64_t a, uint64_t b);
/* L, R (NULL operands: the other one). */
const Map *iop_pair(Prog *p, const Map *l, const Map *r, Loc loc, MapWhy why);

/* ---- The digits of a mapping (digits.c) ---- */

/* A part of a mapping's pair list: a digit of an axis (axis >= 0; of the axis padded to `padded` when that is
 * larger than its size) or a broadcast (axis -1), with its position weight. Gaps (top paddings and resizes
 * around parts) are skipped; *gaps says whether there were any. */
typedef struct IopLeaf {
    int axis;
    uint64_t stride, count, weight, padded;
    uint64_t slot;  /* a whole axis padded on its own (A # n): n, the positions it spans; else 0 */
} IopLeaf;

/* The leaves of norm(m), major first, into v[cap]: their number, or -1 with *why (a part that is no digit of
 * one axis, padding other than pad(top), too many parts). */
int iop_leaves(Prog *p, const Map *m, IopLeaf *v, int cap, bool *gaps, const char **why);
/* Why leaves v[0..n) do not split each of the axes exactly, a digit of stride 1, then of stride the count below,
 * ... up to the axis's size (the buffer views hold every index of their axes once); NULL when they do. */
const char *iop_whole(Prog *p, const IopLeaf *v, int n, const int *axes, int rank, const char *layout);
/* The axes m's cells can hold, in declaration order, into out[naxes]: their number. */
int iop_used_axes(const Prog *p, const Map *m, int *out);
/* The axes of a mapping to write as a layout whose dimensions are axes (what the layout is, for the reason):
 * iop_used_axes, or -1 with *why when there are none or more than IOP_MAX_DIGITS / 2. */
int iop_layout_axes(Prog *p, const Map *m, const char *layout, int *out, const char **why);

/* Whether the candidate mapping c (what text reads as) is m: NULL when they are equivalent, else why not
 * ("TEXT differs from it at position P: X vs Y", the sizes, or an undecided comparison). */
const char *iop_verify_map(Prog *p, const Map *m, const Map *c, const char *text);
/* Reads candidate text back as format f (not IOP_STRIDED) over the axes (n of them, in order) and verifies it
 * (iop_verify_map); also why it does not read back. */
const char *iop_verify(Prog *p, const Map *m, IopFormat f, const char *text, const int *axes, int n);

/* ---- The formats ---- */

const Map *iop_cute_import(IopScan *s, bool tiler, const IopAxes *ax);
const char *iop_cute_export(Prog *p, const Map *m, bool tiler, const char **why);
const Map *iop_triton_import(IopScan *s, const IopAxes *ax);
const char *iop_triton_export(Prog *p, const Map *m, const IopOptions *o, const char **why);
/* ---- Quasi-affine maps (qaff.c): the MLIR affine map (affine.c) and the TVM lambda (tvm.c) ---- */

/* How a system spells the operators ("floordiv", "mod", "ceildiv" or "//", "%", NULL) and its layouts. */
typedef struct QSyntax {
    const char *div, *mod, *ceildiv;
    const char *layout;     /* "the affine map", "the index map" */
    const char *dimension;  /* "dimension", "parameter" */
} QSyntax;

/* Names declared by a header: the dimensions (or lambda parameters) and MLIR's symbols. */
typedef struct QNames {
    int n;
    const char *s[IOP_MAX_DIGITS];
    size_t len[IOP_MAX_DIGITS];
} QNames;

typedef struct QExpr QExpr;

/* Reads a name list "a, b, c" up to (not including) the closing word; false after an error. */
bool iop_qnames(IopScan *s, QNames *out, const char *close, const char *what);
/* Reads one expression of the syntax over the dimensions and symbols; NULL after an error. */
const QExpr *iop_qexpr(IopScan *s, const QSyntax *syn, const QNames *dims, const QNames *syms);
/* The buffer view of the results res[0..n): physical index (r_0, ..., r_n-1) laid out row-major over the
 * result extents (each the largest value + 1), holding the logical index; the dimensions are the axes ax names,
 * else the axes they are named after, else the program's axes in order. Every result must be a sum of positive
 * multiples of digits (d floordiv s) mod m of single dimensions: anything else is refused at its
 * sub-expression. */
const Map *iop_qaff_map(IopScan *s, const QSyntax *syn, const QNames *dims, const IopAxes *ax,
                        const QExpr *const *res, int n);
/* m written in the syntax f (IOP_AFFINE or IOP_INDEX_MAP) as head, its axes' names, mid, its results, tail:
 * one result per dense group of digits, major first; verified by reading it back. NULL with *why. */
const char *iop_qaff_export(Prog *p, const Map *m, IopFormat f, const char *head, const char *mid, const char *tail,
                            const char **why);

extern const QSyntax iop_affine_syntax, iop_tvm_syntax;

const Map *iop_affine_import(IopScan *s, const IopAxes *ax);
const Map *iop_tvm_import(IopScan *s, const IopAxes *ax);
const char *iop_affine_export(Prog *p, const Map *m, const char **why);
const char *iop_tvm_export(Prog *p, const Map *m, const char **why);
const char *iop_strided_export(Prog *p, const Map *m, const char **why);

#endif
