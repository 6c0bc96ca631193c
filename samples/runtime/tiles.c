/* tiles.c — the runtime from C: tensors declared in tiles.map, moved HBM -> DM -> HBM tile by tile by DMA
 * (tile views of both sides), read back and compared with what was written. Usage: tiles [FILE.map]. */
#include "rt.h"
#include "front/front.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    *len = buf ? fread(buf, 1, (size_t)n, f) : 0;
    fclose(f);
    return buf;
}

static int fail(const char *what, const char *why)
{
    fprintf(stderr, "tiles: %s: %s\n", what, why);
    return 1;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "samples/runtime/tiles.map";
    size_t len;
    char *text = slurp(path, &len);
    if (!text)
        return fail(path, "cannot read");
    Prog *prog = prog_new();
    if (prog_parse(prog, path, text, len) != 0) {
        for (const Diag *d = prog->diags.head; d; d = d->next) {
            char buf[1024];
            diag_format(d, buf, sizeof buf);
            fputs(buf, stderr);
        }
        return 1;
    }
    free(text);
    RtContext *rt = rt_new(prog, NULL);
    RtTensor *src = rt_tensor_declared(rt, "Src"), *dst = rt_tensor_declared(rt, "Dst");
    RtTensor *dm = rt_tensor_declared(rt, "Dm");
    if (!src || !dst || !dm)
        return fail("tensors", rt_error(rt));

    /* the logical tensor, row-major over S, A, B (declaration order) */
    uint64_t n = 64 * 8 * 128;
    float *in = malloc(n * sizeof *in), *out = calloc(n, sizeof *out);
    for (uint64_t i = 0; i < n; i++)
        in[i] = (float)(i % 1000) * 0.5f;
    RtView wsrc = rt_view(src, true), rsrc = rt_view(src, false), wdst = rt_view(dst, true);
    RtView wdm = rt_view(dm, true), rdm = rt_view(dm, false);
    if (rt_from_host(rt, &wsrc, in) != 0)
        return fail("host -> HBM", rt_error(rt));

    const Map *a4 = prog_parse_map(prog, "<tiles>", "m![A / 4]"), *b64 = prog_parse_map(prog, "<tiles>", "m![B / 64]");
    int moves = 0;
    for (uint64_t a = 0; a < 2; a++)
        for (uint64_t b = 0; b < 2; b++) {
            /* the (a, b) tile of each tensor: LEN 1 of A / 4 and of B / 64 (read views pad with top padding,
             * write views with bottom padding, so a move never leaves the tile) */
            RtView in_a, in_ab, dm_a, dm_ab, back_a, back_ab, out_a, out_ab;
            if (rt_tile(rt, &rsrc, a4, 1, a, NULL, &in_a) || rt_tile(rt, &in_a, b64, 1, b, NULL, &in_ab) ||
                rt_tile(rt, &wdm, a4, 1, a, NULL, &dm_a) || rt_tile(rt, &dm_a, b64, 1, b, NULL, &dm_ab) ||
                rt_dma(rt, &dm_ab, &in_ab) || rt_tile(rt, &rdm, a4, 1, a, NULL, &back_a) ||
                rt_tile(rt, &back_a, b64, 1, b, NULL, &back_ab) || rt_tile(rt, &wdst, a4, 1, a, NULL, &out_a) ||
                rt_tile(rt, &out_a, b64, 1, b, NULL, &out_ab) || rt_dma(rt, &out_ab, &back_ab))
                return fail("tile", rt_error(rt));
            moves += 2;
        }
    RtView rdst = rt_view(dst, false);
    if (rt_to_host(rt, &rdst, out) != 0)
        return fail("HBM -> host", rt_error(rt));
    uint64_t bad = 0;
    for (uint64_t i = 0; i < n; i++)
        bad += in[i] != out[i];
    RtStats st = rt_stats(rt);
    printf("%d DMA moves of 64 slices x 4 x 64 f32 tiles (HBM -> DM -> HBM, transposed on the way back), "
           "%llu through %llu JIT-compiled kernels: %s\n",
           moves, (unsigned long long)st.jit_moves, (unsigned long long)st.kernels_compiled,
           bad ? "MISMATCH" : "read back exactly what was written");
    bad += st.jit_moves != (uint64_t)moves;
    free(in);
    free(out);
    rt_tensor_free(src);
    rt_tensor_free(dst);
    rt_tensor_free(dm);
    rt_free(rt);
    prog_free(prog);
    return bad != 0;
}
