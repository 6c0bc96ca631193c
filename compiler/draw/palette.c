/* palette.c — the colours of pictures: a discrete colour-blind-safe list for up to PAL_DISCRETE values, a cyclic
 * map past that (the last value meets the first), fixed shades for the padding kinds, oob and overflow (never
 * among the hues), and the fills of diffs. */
#include "draw_impl.h"

/* Paul Tol's colour-blind-safe qualitative schemes (muted, then light, then bright), greys left out (greys are
 * the padding shades), ordered so that consecutive values differ in hue and lightness. */
static const uint32_t discrete[PAL_DISCRETE] = {
    0x88ccee, 0xcc6677, 0x117733, 0xddcc77, 0x332288, 0x44aa99, 0xaa4499, 0x999933,
    0x882255, 0x77aadd, 0xee8866, 0x44bb99, 0xffaabb, 0xbbcc33, 0x4477aa, 0xeedd88,
    0x99ddff, 0xee6677, 0x228833, 0xaaaa00, 0x66ccee, 0xaa3377, 0xccbb44, 0x0077bb,
};

/* A cyclic map (blue, teal, sand, rust, plum and back), interpolated between its stops. */
static const uint32_t cyclic[6] = {0x3b5ba5, 0x4fa3a5, 0xd9c88e, 0xc96a3d, 0x8c3a72, 0x3b5ba5};

uint32_t pal_value(uint64_t v, uint64_t n)
{
    if (n <= PAL_DISCRETE)
        return discrete[v % PAL_DISCRETE];
    double t = (double)(v % n) / (double)n * 5.0;
    int i = t >= 5.0 ? 4 : (int)t;
    double f = t - i;
    uint32_t a = cyclic[i], b = cyclic[i + 1], rgb = 0;
    for (int sh = 0; sh <= 16; sh += 8) {
        double ca = (a >> sh) & 0xff, cb = (b >> sh) & 0xff;
        rgb |= (uint32_t)(ca + (cb - ca) * f + 0.5) << sh;
    }
    return rgb;
}

uint32_t pal_kind(CellKind k)
{
    switch (k) {
    case CELL_LIVE: return 0x9ecae1;
    case CELL_PAD_TOP: return 0xc8c8c8;
    case CELL_PAD_ZERO: return 0xeaeaea;
    case CELL_PAD_BOTTOM: return 0x707070;
    case CELL_OOB: return 0x262626;
    case CELL_OVERFLOW: return 0xff00ff;
    }
    return 0;
}

bool pal_dark(uint32_t rgb)
{
    double r = (rgb >> 16) & 0xff, g = (rgb >> 8) & 0xff, b = rgb & 0xff;
    return 0.299 * r + 0.587 * g + 0.114 * b < 128;
}
