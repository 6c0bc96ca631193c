/* bench_dma.c — GB/s of HBM->DM and DM->HBM moves, 1 and 2 threads, beside memcpy of the same bytes in the same
 * run: common layouts of one tensor per slice, and distributions that split a tensor over the slices (the book's
 * NCHW tensor with C / 2 over 64 slices, a 16 x 16 grid of 128 x 128 tiles over 256 slices).
 * Usage: bench-dma [REPS]. */
#include "bench.h"
#include "front/front.h"
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One move: a program declaring an HBM tensor Hb and a DM tensor Dm of one logical tensor. */
typedef struct Case {
    const char *name, *program;
} Case;

static const Case cases[] = {
    {"identity", "axes![S = 64, A = 256, B = 256];\n"
                 "tensor Hb: HbmTensor<f32, m![1], m![S, A, B]>;\n"
                 "tensor Dm: DmTensor<f32, m![1], m![1], m![S], m![A, B]>;"},
    {"transpose", "axes![S = 64, A = 256, B = 256];\n"
                  "tensor Hb: HbmTensor<f32, m![1], m![S, A, B]>;\n"
                  "tensor Dm: DmTensor<f32, m![1], m![1], m![S], m![B, A]>;"},
    {"blocked 16x16", "axes![S = 64, A = 256, B = 256];\n"
                      "tensor Hb: HbmTensor<f32, m![1], m![S, A, B]>;\n"
                      "tensor Dm: DmTensor<f32, m![1], m![1], m![S], m![A / 16, B / 16, A % 16, B % 16]>;"},
    /* the book's NCHW tensor, channels split over slices (C / 2) and elements (C % 2), row-major in HBM */
    {"NCHW C/2, 64 sl", "axes![N = 4, C = 128, H = 64, W = 64];\n"
                        "tensor Hb: HbmTensor<bf16, m![1], m![N, C, H, W]>;\n"
                        "tensor Dm: DmTensor<bf16, m![1], m![1], m![C / 2], m![N, H, W, C % 2]>;"},
    /* a 2048 x 2048 matrix as a 16 x 16 grid of 128 x 128 tiles, one per slice */
    {"16x16 tiles, 256 sl", "axes![I = 2048, J = 2048];\n"
                            "tensor Hb: HbmTensor<f32, m![1], m![I, J]>;\n"
                            "tensor Dm: DmTensor<f32, m![1], m![1], m![I / 128, J / 128], m![I % 128, J % 128]>;"},
};

/* The median time of reps moves dst <- src and of reps memcpys of the same bytes, interleaved. */
static int measure(RtContext *rt, RtView *dst, RtView *src, size_t bytes, int reps, void *a, void *b, double *move,
                   double *copy)
{
    if (rt_dma(rt, dst, src) != 0) /* warm-up; builds the cached kernel */
        return -1;
    double *t = malloc(sizeof(double) * (size_t)reps), *m = malloc(sizeof(double) * (size_t)reps);
    for (int r = 0; r < reps; r++) {
        double t0 = bench_seconds();
        rt_dma(rt, dst, src);
        double t1 = bench_seconds();
        memcpy(b, a, bytes);
        double t2 = bench_seconds();
        t[r] = t1 - t0;
        m[r] = t2 - t1;
    }
    *move = bench_median(t, reps);
    *copy = bench_median(m, reps);
    free(t);
    free(m);
    return 0;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 11;
    if (reps < 1)
        reps = 1;
    printf("DMA between HBM and DM, median of %d runs, memcpy of the same bytes interleaved\n", reps);
    printf("%-20s %-8s %7s %8s %12s %12s %8s\n", "layout", "dir", "threads", "MiB", "GB/s", "memcpy GB/s", "ratio");
    for (int threads = 1; threads <= 2; threads++)
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            Prog *p = prog_new();
            if (prog_parse(p, "<bench>", cases[c].program, strlen(cases[c].program)) != 0) {
                fprintf(stderr, "bench-dma: the case %s does not parse: %s\n", cases[c].name, p->diags.head->msg);
                return 1;
            }
            RtConfig cfg = rt_default_config();
            cfg.threads = threads;
            RtContext *rt = rt_new(p, &cfg);
            RtTensor *h = rt_tensor_declared(rt, "Hb"), *d = rt_tensor_declared(rt, "Dm");
            if (!h || !d) {
                fprintf(stderr, "bench-dma: %s\n", rt_error(rt));
                return 1;
            }
            size_t bytes = rt_tensor_elems(h) * elem_type_size(rt_tensor_elem(h));
            memset(rt_tensor_data(h), 1, bytes);
            void *a = aligned_alloc(64, bytes), *b = aligned_alloc(64, bytes);
            memset(a, 1, bytes);
            memset(b, 2, bytes);
            RtView vh = rt_view(h, true), vd = rt_view(d, true);
            for (int dir = 0; dir < 2; dir++) {
                double move, copy;
                if (measure(rt, dir ? &vh : &vd, dir ? &vd : &vh, bytes, reps, a, b, &move, &copy) != 0) {
                    fprintf(stderr, "bench-dma: %s\n", rt_error(rt));
                    return 1;
                }
                printf("%-20s %-8s %7d %8zu %12.2f %12.2f %8.2f\n", cases[c].name, dir ? "DM->HBM" : "HBM->DM", threads,
                       bytes >> 20, (double)bytes / move / 1e9, (double)bytes / copy / 1e9, copy / move);
            }
            free(a);
            free(b);
            rt_tensor_free(h);
            rt_tensor_free(d);
            rt_free(rt);
            prog_free(p);
        }
    return 0;
}
