/* kernel.h — GEMM kernels: the panel layouts in which the micro-kernel reads packed A and B tiles. */
#ifndef MAPC_KERNEL_H
#define MAPC_KERNEL_H

#include "ast.h"

/* Widest panel (rows of a panel) and the K groups kernel_panel_recognize tries. */
#define KERNEL_PANEL_MAX_WIDTH 64

/* |m![R / w, K / g, R % w, K % g]| with R padded to a multiple of w and K of g: rows·depth rounded up;
 * UINT64_MAX if that overflows. */
uint64_t kernel_panel_size(uint64_t rows, uint64_t depth, int w, int g);

/* The panel layout m![R / w, K / g, R % w, K % g] over the tile axes r (rows, size from p->axes) and k,
 * with R padded to a multiple of w (`#` padding, top kind) and K to a multiple of g where they do not divide,
 * built in p's arena (for g = 1 without the K / 1 and K % 1 digits). Element (r, k) is at
 * (r/w)·w·Kp + (k/g)·w·g + (r%w)·g + k%g, Kp = K rounded up to g. NULL only if the sizes overflow. */
const Map *kernel_panel_map(Prog *p, int r_axis, int k_axis, int w, int g, Loc loc);

/* Whether m is (equivalent to) the panel layout of geometry (w, g) over r and k; sizes are compared before
 * the equivalence decision, and an undecided comparison counts as "no". */
bool kernel_panel_is(Prog *p, const Map *m, int r_axis, int k_axis, int w, int g);

/* Whether m is (equivalent to) a panel layout over r and k for some w in 1..KERNEL_PANEL_MAX_WIDTH and g in
 * {1, 2, 4}; true with *w and *g. Candidates are filtered by size before the equivalence decision (eqv_new /
 * eqv_same); an undecided comparison counts as "no". Several geometries may describe m (panels of one row
 * take any g, a K tile of one group any w that pads R alike): the group *g holds on entry is tried first,
 * and in each group the width *w holds. */
bool kernel_panel_recognize(Prog *p, const Map *m, int r_axis, int k_axis, int *w, int *g);

#endif
