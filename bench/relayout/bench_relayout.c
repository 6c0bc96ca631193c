/* bench_relayout.c — relayout kernels on 256 MiB f32 tensors against memcpy of the same bytes:
 * identity, transpose, blocked and padded rows. One command; medians and ratios from the same run. */
#include "bench.h"
#include "codegen/codegen.h"
#include "front/front.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { RUNS = 5 };

static const char program[] = "axes![A = 8192, B = 8192];\n"
                              "type Row = m![A, B];\n"
                              "type Tr = m![B, A];\n"
                              "type Blk = m![A / 16, B / 16, A % 16, B % 16];\n"
                              "type Pad = m![A, B #{0} 8256];\n"
                              "copy identity: Row -> Row as f32;\n"
                              "copy transpose: Row -> Tr as f32;\n"
                              "copy blocked: Row -> Blk as f32;\n"
                              "copy padded: Row -> Pad as f32;\n"
                              "copy unblocked: Blk -> Row as f32;\n";

int main(int argc, char **argv)
{
    int opt = argc > 1 ? atoi(argv[1]) : 3; /* usage: bench-relayout [OPT [small]] */
    Prog *p = prog_new();
    if (prog_parse(p, "bench", program, strlen(program))) {
        fprintf(stderr, "bench: program has errors: %s\n", p->diags.head->msg);
        return 1;
    }
    CgOptions o = {.opt_level = opt};
    Jit *j = jit_new(p, &o, &p->diags);
    if (!j) {
        fprintf(stderr, "bench: JIT failed: %s\n", p->diags.head ? p->diags.head->msg : "?");
        return 1;
    }
    size_t n = (size_t)8192 * 8192, bytes = n * 4, padbytes = (size_t)8192 * 8256 * 4;
    /* 2 MiB-aligned buffers backed by transparent huge pages where the kernel allows it: a
     * transpose touches a new 4 KiB page on almost every row otherwise (pass "small" to see) */
    bool huge = !(argc > 2 && strcmp(argv[2], "small") == 0);
    float *src = aligned_alloc(2u << 20, bytes), *dst = aligned_alloc(2u << 20, padbytes + (2u << 20));
    if (!src || !dst)
        return 1;
    if (huge) {
        madvise(src, bytes, MADV_HUGEPAGE);
        madvise(dst, padbytes, MADV_HUGEPAGE);
    }
    for (size_t i = 0; i < n; i++)
        src[i] = (float)i;
    memset(dst, 0, padbytes);
    const char *names[] = {"identity", "transpose", "blocked", "padded", "unblocked"};
    double tm[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = bench_seconds();
        memcpy(dst, src, bytes);
        tm[r] = bench_seconds() - t0;
    }
    double mem = bench_median(tm, RUNS);
    printf("relayout of 256 MiB f32 tensors (8192 x 8192), -O%d, %s pages, median of %d runs\n", opt,
           huge ? "huge" : "4 KiB", RUNS);
    printf("%-10s %8s %8s %8s\n", "kernel", "ms", "GB/s", "vs memcpy");
    printf("%-10s %8.1f %8.2f %8.2fx\n", "memcpy", mem * 1e3, (double)bytes / mem / 1e9, 1.0);
    for (int k = 0; k < 5; k++) {
        void (*fn)(void *, const void *) = (void (*)(void *, const void *))jit_lookup(j, names[k]);
        double t[RUNS];
        for (int r = 0; r < RUNS; r++) {
            double t0 = bench_seconds();
            fn(dst, src);
            t[r] = bench_seconds() - t0;
        }
        double med = bench_median(t, RUNS);
        /* spot check: the element of {A:3, B:5} landed where the layout puts it */
        size_t at = k == 0 || k == 4 ? 3 * 8192 + 5 : k == 1 ? 5 * 8192 + 3 : k == 2 ? 3 * 16 + 5 : 3 * 8256 + 5;
        float want = k == 4 ? src[3 * 16 + 5] : src[3 * 8192 + 5]; /* unblocked reads src as blocked */
        if (dst[at] != want)
            printf("  (wrong result at %zu)\n", at);
        printf("%-10s %8.1f %8.2f %8.2fx\n", names[k], med * 1e3, (double)bytes / med / 1e9, mem / med);
    }
    printf("(GB/s counts the tensor's bytes once, as memcpy's bytes copied)\n");
    free(src);
    free(dst);
    jit_free(j);
    prog_free(p);
    return 0;
}
