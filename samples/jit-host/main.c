/* main.c — sample: a host program that JIT-compiles a layout through the mapc C API, asks the
 * generated functions where tensor elements live, and relayouts a tensor with a copy kernel. */
#include <mapc/mapc.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char layout[] =
    "axes![M = 5, N = 8];\n"
    "type Rows = m![M, N];\n"
    "// 2x4 tiles; M is padded up to 6 so the tiles divide it (composite bases)\n"
    "type Tiles = m![[M # 6] / 2, N / 4, [M # 6] % 2, N % 4];\n"
    "copy to_tiles: Rows -> Tiles as f32;\n";

static void show(void *ctx, uint64_t pos, int kind, const int64_t *c)
{
    (void)ctx;
    if (pos < 12)
        printf("  position %2llu: %s {M:%lld, N:%lld}\n", (unsigned long long)pos, kind == 0 ? "live" : "pad ",
               (long long)c[0], (long long)c[1]);
}

int main(void)
{
    mapc_program *p = NULL;
    if (mapc_compile_string("layout", layout, strlen(layout), &p) != MAPC_OK) {
        for (size_t i = 0; i < mapc_diag_count(p); i++)
            fputs(mapc_diag_text(p, i), stderr);
        mapc_program_free(p);
        return 1;
    }
    mapc_jit *jit = NULL;
    mapc_status s = mapc_jit_create(p, NULL, &jit); /* host CPU, -O2 */
    if (s != MAPC_OK) {
        fprintf(stderr, "jit: %s\n", mapc_status_string(s));
        for (size_t i = 0; i < mapc_diag_count(p); i++)
            fputs(mapc_diag_text(p, i), stderr);
        mapc_program_free(p);
        return 1;
    }
    mapc_cell_fn cell;
    mapc_offset_fn offset;
    mapc_each_fn each;
    mapc_copy_fn to_tiles;
    if (mapc_jit_cell(jit, "Tiles", &cell) || mapc_jit_offset(jit, "Tiles", &offset) ||
        mapc_jit_each(jit, "Tiles", &each) || mapc_jit_copy(jit, "to_tiles", &to_tiles)) {
        fprintf(stderr, "lookup failed\n");
        return 1;
    }
    uint64_t n = 0;
    mapc_type_size(p, "Tiles", &n);
    int64_t c[2] = {4, 7};
    printf("Tiles has %llu positions; {M:4, N:7} is at position %lld\n", (unsigned long long)n,
           (long long)offset(c));
    int kind = cell(44, c); /* M = 5 of the padded M # 6 */
    printf("position 44 is %s\n", kind == MAPC_CELL_PAD_TOP ? "pad(top)" : "live");
    printf("the first positions in order:\n");
    each(show, NULL);

    /* relayout a 5x8 row-major tensor into tiles, and check it against the interpreter */
    float rows[40], *tiles = calloc(n, sizeof *tiles);
    for (int i = 0; i < 40; i++)
        rows[i] = (float)i;
    to_tiles(tiles, rows);
    int bad = 0;
    for (uint64_t pos = 0; pos < n; pos++) {
        int64_t k[2];
        int kk = 0;
        mapc_eval(p, "Tiles", pos, &kk, k);
        if (kk == MAPC_CELL_LIVE && tiles[pos] != rows[k[0] * 8 + k[1]])
            bad++;
    }
    printf("relayout: %s\n", bad ? "WRONG" : "matches the interpreter");
    free(tiles);
    mapc_jit_free(jit);     /* the functions looked up are invalid from here on */
    mapc_program_free(p);
    return bad != 0;
}
