/* split.c — the digit structure of a mapping that pictures and tables share: its factors, the 2-D split of its
 * positions (rows from the major factors, columns from the minor ones, or a given number of rows), and the tiles
 * its factors make in the tensor's coordinates. */
#include "draw_impl.h"

#include <stdlib.h>

/* Appends the factors (size >= 2) of m's top-level pairs, major to minor. */
static void collect(const Map *m, const Map **f, int *n, int max)
{
    if (m->kind == MAP_PAIR) {
        collect(m->l, f, n, max);
        collect(m->r, f, n, max);
    } else if (m->size > 1 && *n < max) {
        f[(*n)++] = m;
    }
}

int draw_factors(const Map *m, const Map **f, int max)
{
    int n = 0;
    collect(m, f, &n, max);
    return n;
}

bool draw_split(const Map *m, uint64_t rows_wanted, uint64_t max_cols, uint64_t *rows, uint64_t *cols)
{
    uint64_t n = m->size;
    if (max_cols < 1)
        max_cols = 1;
    if (rows_wanted) {
        *rows = rows_wanted;
        *cols = n / rows_wanted + (n % rows_wanted != 0);
        return u64_mul(*rows, *cols, &(uint64_t){0});
    }
    const Map *fm[DRAW_MAX_FACTORS];
    int k = draw_factors(m, fm, DRAW_MAX_FACTORS);
    uint64_t f[DRAW_MAX_FACTORS];
    for (int i = 0; i < k; i++)
        f[i] = fm[i]->size;
    uint64_t c = 1;
    if (k <= 1) {
        uint64_t sq = 1;
        while (sq < n / sq)
            sq *= 2;
        c = sq < 16 ? 16 : sq;
        if (c > max_cols)
            c = max_cols;
        if (c > n)
            c = n;
    } else {
        int i = k - 1;
        for (; i >= 1 && c * f[i] <= max_cols; i--)
            c *= f[i];
        if (i >= 1) { /* factor i is too wide for the columns left: take a divisor of it, or all of it if alone */
            uint64_t d = max_cols / c;
            while (d > 1 && f[i] % d != 0)
                d--;
            if (c * d * 4 >= max_cols)
                c *= d;
            else if (c == 1)
                c = f[i];
        }
    }
    *cols = c;
    *rows = n / c + (n % c != 0);
    return true;
}

int draw_tiles(const Prog *p, const Map *m, int row, int col, uint64_t *tile)
{
    if (row < 0 || col < 0)
        return 0;
    const Map *f[DRAW_MAX_FACTORS];
    int k = draw_factors(m, f, DRAW_MAX_FACTORS);
    if (k < 2)
        return 0;
    /* uses[i]: bit 0 factor i uses the row axis, bit 1 the column axis */
    int uses[DRAW_MAX_FACTORS];
    bool *used = mem_calloc((size_t)p->naxes + 1, 1);
    for (int i = 0; i < k; i++) {
        for (int a = 0; a < p->naxes; a++)
            used[a] = false;
        map_mark_axes(f[i], used);
        uses[i] = (used[row] ? 1 : 0) | (used[col] ? 2 : 0);
    }
    free(used);
    uint64_t sizes[DRAW_MAX_FACTORS];
    int n = 0;
    for (int cut = 1; cut < k; cut++) {
        int major = 0, minor = 0;
        for (int i = 0; i < cut; i++)
            major |= uses[i];
        for (int i = cut; i < k; i++)
            minor |= uses[i];
        if (major != 3 || minor != 3)
            continue;
        uint64_t size = 1;
        for (int i = cut; i < k; i++)
            size *= f[i]->size;
        sizes[n++] = size;
    }
    if (n == 0)
        return 0;
    tile[0] = sizes[0];
    if (n == 1)
        return 1;
    tile[1] = sizes[n - 1];
    return 2;
}
