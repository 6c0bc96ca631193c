/* palette.c — the colours of pictures: distinct hues for few values, a gradient for many, fixed shades for the
 * padding kinds, oob and overflow (never among the hues), and the fills of diffs. */
#include "draw_impl.h"

/* Ten distinct hues (no grey: greys are the padding shades). */
static const uint32_t hues[10] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                  0x8c564b, 0xe377c2, 0xbcbd22, 0x17becf, 0xaec7e8};
/* A perceptually ordered gradient (viridis' stops). */
static const uint32_t stops[5] = {0x440154, 0x3b528b, 0x21918c, 0x5ec962, 0xfde725};

uint32_t pal_value(uint64_t v, uint64_t n)
{
    if (n <= 10)
        return hues[v % 10];
    double t = (double)v / (double)(n - 1) * 4.0;
    int i = t >= 4.0 ? 3 : (int)t;
    double f = t - i;
    uint32_t a = stops[i], b = stops[i + 1], rgb = 0;
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
