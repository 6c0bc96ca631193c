/* algebra.h — the public C API of the layout algebra (docs/algebra.md): mappings built from mappings and
 * queries on them, each result checked before it is returned. Installed as <mapc/algebra.h>. */
#ifndef MAPC_API_ALGEBRA_H
#define MAPC_API_ALGEBRA_H

#include "mapc.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Mapping arguments are type names of the program or inline "m![...]" texts (parsed against its axes; their
 * syntax errors become the program's diagnostics), axis arguments names of declared axes. A resulting mapping
 * is returned as its m![...] text in normal form, malloc'ed into *out (the caller frees it with free(); NULL
 * unless MAPC_OK); that text may be passed back as a mapping argument, so calls chain. Every call mutates the
 * program (inline mappings and results are added to it).
 *
 * Functions return MAPC_OK; MAPC_ERR_ARGUMENT for a NULL pointer, a negative count or an out-of-range enum;
 * MAPC_ERR_NOT_FOUND for an unknown type name; MAPC_ERR_INPUT for a mapping with errors (or a program that
 * did not compile); MAPC_ERR_NOMEM; or MAPC_ERR_ALGEBRA when the algebra refuses the operands (an undeclared
 * axis included). err may be NULL; otherwise it receives the status, and for MAPC_ERR_ALGEBRA the error code
 * ("undeclared-axis", "size-mismatch", "overflow", "foreign-axis", "no-complement", "not-injective",
 * "not-held", "unexpressible", "too-large", "internal") and the message `mapc algebra` prints after
 * "algebra: CODE: ". On success err->status is MAPC_OK and its code and message are empty.
 */

/* The status of an operation the algebra refuses (numbered apart from mapc_status and the movement errors). */
#define MAPC_ERR_ALGEBRA 32

/* What went wrong: status, the algebra's code (empty unless MAPC_ERR_ALGEBRA) and the message. */
typedef struct mapc_algebra_error {
    int status;
    char code[32];
    char message[512];
} mapc_algebra_error;

/* The padding kind of a result (cover's overhang, the non-image of an inverse): the cell kinds' numbers. */
typedef enum mapc_pad_kind {
    MAPC_PAD_TOP = 1,
    MAPC_PAD_ZERO = 2,
    MAPC_PAD_BOTTOM = 3
} mapc_pad_kind;

/* compose(E, axes[0] := fs[0], ...): E with each F_i written where axis axes[i] stood, all at once (n >= 1). */
int mapc_compose(mapc_program *p, const char *e, int n, const char *const *axes, const char *const *fs, char **out,
                 mapc_algebra_error *err);
/* complement(T, X): the origins of the tiler t over axis x. */
int mapc_complement(mapc_program *p, const char *t, const char *x, char **out, mapc_algebra_error *err);
/* cover(T, X, KIND): the complement and t as one mapping over x, its overhang padding of kind pad. */
int mapc_cover(mapc_program *p, const char *t, const char *x, mapc_pad_kind pad, char **out,
               mapc_algebra_error *err);
/* divide(A, axes[0]: tilers[0], ...) (n >= 1); zipped nonzero: zipped_divide (tiled and flat are the same). */
int mapc_divide(mapc_program *p, const char *a, int n, const char *const *axes, const char *const *tilers,
                int zipped, char **out, mapc_algebra_error *err);
/* product(A, X, B, Y). */
int mapc_product(mapc_program *p, const char *a, const char *x, const char *b, const char *y, char **out,
                 mapc_algebra_error *err);
/* blocked_product(G, T, x[0] = xo[0] * xi[0], ...) (n >= 1); raked nonzero: raked_product. */
int mapc_blocked_product(mapc_program *p, const char *g, const char *t, int n, const char *const *x,
                         const char *const *xo, const char *const *xi, int raked, char **out,
                         mapc_algebra_error *err);
/* inverse(E, P, [order[0], ...], KIND) (k >= 0 axes, the first major); left nonzero: left_inverse. */
int mapc_inverse(mapc_program *p, const char *e, const char *pos, int k, const char *const *order,
                 mapc_pad_kind pad, int left, char **out, mapc_algebra_error *err);
/* conversion(Src, Dst, Q): the relayout plan from src to dst over axis q. */
int mapc_conversion(mapc_program *p, const char *src, const char *dst, const char *q, char **out,
                    mapc_algebra_error *err);
/* nullspace(E, P): the positions of e holding e's first cell, over axis pos. */
int mapc_nullspace(mapc_program *p, const char *e, const char *pos, char **out, mapc_algebra_error *err);
/* coalesce(E): the normal form of e, checked equivalent to it. */
int mapc_coalesce(mapc_program *p, const char *e, char **out, mapc_algebra_error *err);
/* vector(Src [, Dst]): the widest vector width into *width; dst NULL: the identity layout of src's axes. */
int mapc_vector_width(mapc_program *p, const char *src, const char *dst, uint64_t *width, mapc_algebra_error *err);
/* injective(E): *injective 1 or 0; when 0, *p1 < *p2 (either may be NULL) two positions holding one live cell,
 * *p2 the smallest such, *p1 that cell's first position. */
int mapc_injective(mapc_program *p, const char *e, int *injective, uint64_t *p1, uint64_t *p2,
                   mapc_algebra_error *err);

#ifdef __cplusplus
}
#endif

#endif
