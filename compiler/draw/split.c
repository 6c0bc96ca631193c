/* split.c — the 2-D split of a mapping shared by pictures and tables: rows from its major factors, columns from
 * its minor ones, or a given number of rows. */
#include "draw_impl.h"

#define MAX_FACTORS 64 /* factors of size >= 2 multiply to at most 2^64 */

/* Appends the sizes (>= 2) of the factors of m's top-level pairs, major to minor. */
static void factors(const Map *m, uint64_t *f, int *n)
{
    if (m->kind == MAP_PAIR) {
        factors(m->l, f, n);
        factors(m->r, f, n);
    } else if (m->size > 1 && *n < MAX_FACTORS) {
        f[(*n)++] = m->size;
    }
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
    uint64_t f[MAX_FACTORS];
    int k = 0;
    factors(m, f, &k);
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
