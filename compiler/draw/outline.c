/* outline.c — what the renderers share of a laid-out picture's geometry: the tile outlines as merged runs of cell
 * edges, and the step of a compact picture's sampled labels. */
#include "draw_impl.h"

/* The group of cell (r, c) of a panel at a level; 0 outside the panel. */
static uint32_t group_at(const Pic *pic, const PicPanel *pn, int level, int64_t r, int64_t c)
{
    if (r < 0 || c < 0 || (uint64_t)r >= pn->rows || (uint64_t)c >= pn->cols)
        return 0;
    return pic->cells[pn->first_cell + (size_t)r * pn->cols + (size_t)c].group[level];
}

void pic_outline(const Pic *pic, const PicPanel *pn, int level,
                 void (*seg)(void *ctx, double x0, double y0, double x1, double y1), void *ctx)
{
    double pw = pic->g.cell_w + pic->g.gap, ph = pic->g.cell_h + pic->g.gap, half = pic->g.gap / 2.0;
    int64_t rows = (int64_t)pn->rows, cols = (int64_t)pn->cols;
    for (int vertical = 0; vertical < 2; vertical++) {
        int64_t lines = vertical ? cols : rows, along = vertical ? rows : cols;
        for (int64_t e = 0; e <= lines; e++) { /* the edge before cell e across the lines */
            int64_t run = -1;
            for (int64_t i = 0; i <= along; i++) {
                uint32_t a = i == along ? 0 : vertical ? group_at(pic, pn, level, i, e - 1) : group_at(pic, pn, level, e - 1, i);
                uint32_t b = i == along ? 0 : vertical ? group_at(pic, pn, level, i, e) : group_at(pic, pn, level, e, i);
                bool edge = i < along && a != b;
                if (edge && run < 0)
                    run = i;
                if (!edge && run >= 0) {
                    if (vertical)
                        seg(ctx, (double)pn->x + (double)e * pw - half, (double)pn->y + (double)run * ph - half,
                            (double)pn->x + (double)e * pw - half, (double)pn->y + (double)i * ph - half);
                    else
                        seg(ctx, (double)pn->x + (double)run * pw - half, (double)pn->y + (double)e * ph - half,
                            (double)pn->x + (double)i * pw - half, (double)pn->y + (double)e * ph - half);
                    run = -1;
                }
            }
        }
    }
}

uint64_t pic_label_step(const Pic *pic)
{
    uint64_t k = 1;
    while (!pic->g.text && k * (uint64_t)(pic->g.cell_w + pic->g.gap) < 40)
        k *= 2;
    return k;
}
