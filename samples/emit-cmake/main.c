/* main.c — sample: uses functions that `mapc emit` compiled ahead of time (see CMakeLists.txt). */
#include "layouts.h"

#include <stdio.h>

int main(void)
{
    static float a[64 * 48], t[64 * 48], p[64 * 64];
    for (int i = 0; i < 64 * 48; i++)
        a[i] = (float)i;
    lay_transpose(t, a);
    lay_pad_rows(p, a);
    int64_t c[lay_NAXES] = {3, 5};
    int bad = t[lay_ColMajor_offset(c)] != a[lay_RowMajor_offset(c)];
    bad += p[lay_Padded_offset(c)] != a[3 * 48 + 5];
    int64_t k[lay_NAXES];
    bad += lay_Padded_cell(50, k) != MAPC_CELL_PAD_ZERO || p[50] != 0.0f;
    printf("{A:3, B:5}: row-major %lld, column-major %lld, padded %lld -> %s\n", (long long)lay_RowMajor_offset(c),
           (long long)lay_ColMajor_offset(c), (long long)lay_Padded_offset(c), bad ? "WRONG" : "ok");
    return bad != 0;
}
