/* mv_impl.h — what the files of compiler/movement share: factor lists (the flattened form of a mapping), their cells, refinement and matching. */
#ifndef MAPC_MV_IMPL_H
#define MAPC_MV_IMPL_H

#include "eval/eval.h"
#include "movement.h"

#include <stdio.h>

/* Where a stream factor came from: the engines, the time or the packet mapping (buffers: MV_PART_BUF). */
typedef enum { MV_PART_BUF, MV_PART_ENGINE, MV_PART_TIME, MV_PART_PACKET } MvPart;

/* One factor (docs/movement.md): it occupies x buffer positions with digit values v in 0..x; v < r is live and adds
 * v*s to the coordinate of axis (nothing for axis -1, a broadcast); v >= r is padding of kind; m is the digit's
 * range in the tensor (r <= m). nsub > 1: a composite digit whose positions the stream walks as nested loops of
 * extents sub[0..nsub) (major first, product x), e.g. A # 4 / 2, A # 4 % 2. */
typedef struct MvFactor {
    int axis;
    uint64_t s, m, r, x;
    PadKind kind;               /* meaningful when r < x */
    int nsub;
    uint64_t sub[MV_MAX_SUB];
    MvPart part;
    uint64_t bbase;             /* axis -1 cut from a broadcast of this count (a digit of it), else 0 */
    /* While flattening: a part of a digit cut where it cannot be cut (its live count not divisible), covering the
     * weights lo..hi of the whole digit `whole` (regrouped with its sibling parts at the end). */
    bool piece;
    uint64_t lo, hi;
    struct MvWhole {
        int axis;
        uint64_t s, m, r, x;
        PadKind kind;
    } whole;
    /* The digit it was first cut from (rooted), and whether a cut on the way was not exact (a part of a digit whose
     * live count the cut does not divide): two such factors of one padded root have a joint live bound. */
    bool rooted, inexact;
    bool split;                 /* kept by a / or %: a digit of a (perhaps composite) base */
    struct MvWhole root;
    const Map *src;             /* the sub-expression it came from (diagnostics) */
} MvFactor;

/* A factor list, major first: at most MV_MAX_RAW factors of extent >= 2 (their product is a 64-bit size). */
typedef struct MvList {
    int n;
    MvFactor f[MV_MAX_RAW];
} MvList;

/* Flattens e into factors appended to out (docs/movement.md), part recorded in each: MV_OK, or MV_UNSUPPORTED
 * with the sub-expression that the class cannot express (composite bases, group padding, mixed padding kinds,
 * overlapping digits of one axis). */
MvCode mv_flatten(const Prog *p, const Map *e, MvPart part, MvList *out, MvDiag *d);

/* The rules a flattened list must keep (e names it in messages): the digits of an axis do not overlap or reach past
 * it, the digits of one padded base cut inexactly are not apart, a composite base has one padding kind. Checked by
 * mv_flatten on each mapping, and again on a stream made of several (time, packet). */
MvCode mv_check_digits(const Prog *p, const Map *e, const MvList *l, int from, MvDiag *d);

/* Cuts l->f[i] at minor extent q where it divides the factor's extent, live count and range: a major factor of stride
 * s*q and a full minor one of q (one more factor in l, which must have room). */
void mv_cut_exact(MvList *l, int i, uint64_t q);

/* Merges the entries e[0..n) of one descriptor (outermost first) from the innermost outward: an outer n1:(r1, w1)
 * joins the inner run n2:(r2, w2) when r1 = n2*r2, w1 = n2*w2 and n1*n2 <= 65536, as n1*n2:(r2, w2). One side is
 * merged as pairs of equal strides. Returns the entries written to out. */
int mv_merge(const MvPair *e, int n, MvPair *out);

/* The product of the extents of l's factors [from, to). */
uint64_t mv_volume(const MvList *l, int from, int to);

/* The cell of a factor list at position pos (docs/movement.md): kind CELL_LIVE with coord[naxes] (zeroed first),
 * padding of the most major factor whose value is >= its live count, or CELL_OOB. */
void mv_list_cell(const MvList *l, int naxes, uint64_t pos, CellKind *kind, uint64_t *coord);

/* Appends a factor's digit in the language's syntax ("A / 4 % 4 = 3 # 8", "4", "1 #{0} 4") to t. */
void mv_factor_text(Text *t, const Prog *p, const MvFactor *f);

/* Cuts the digits of every axis of the n lists at the boundaries of every digit of that axis in all of them
 * (docs/movement.md): MV_OK, or MV_INCOMPATIBLE naming the digit and the boundary. names[i] labels lists[i]. */
MvCode mv_refine(const Prog *p, MvList *const *lists, const char *const *names, int n, MvDiag *d);

/* Matches the refined stream to the refined buffer in mode (docs/movement.md): stride[i] the buffer stride of
 * stream factor i (0: broadcast); MV_OK or the first error. side names the buffer in messages. */
MvCode mv_match(const Prog *p, const MvList *buf, const MvList *stream, MvMode mode, const char *side,
                int64_t *stride, MvDiag *d);

/* The raw entries of a matched stream: one per factor of extent >= 2 (a composite digit one per part), with
 * its stride; src[j] the stream factor of entry j; *ntime the entries of the engines and the time (the packet's
 * follow), *neng those of the engines. Returns the number of entries. */
int mv_raw_entries(const MvList *stream, const int64_t *stride, MvEntry *out, int *src, int *ntime, int *neng);

/* The longest run of consecutive accesses that share a DM bank (docs/movement.md) when the entries e[0..n) of a
 * config pass the limits and each access is read_size consecutive stream positions of bits-wide elements at base
 * 0; computed from run summaries per bank, without walking every access. */
uint64_t mv_bank_run(const MvEntry *e, int n, uint64_t read_size, unsigned bits);

/* Fills d and returns code: the message formatted like printf. */
MvCode mv_fail(MvDiag *d, MvCode code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
