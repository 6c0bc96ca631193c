/* bench_dma.c — GB/s of HBM->DM and DM->HBM moves for common layout pairs, 1 and 2 threads, beside memcpy
 * of the same bytes in the same run. Usage: bench-dma [REPS]. */
#include "bench.h"
#include "front/front.h"
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const Map *parse(Prog *p, const char *text)
{
    const Map *m = prog_parse_map(p, "<bench>", text);
    if (!m) {
        fprintf(stderr, "bench-dma: cannot parse %s\n", text);
        exit(1);
    }
    return m;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 11;
    if (reps < 1)
        reps = 1;
    /* 64 slices, each a 256 x 256 f32 tile (256 KiB): 16 MiB per move */
    Prog *p = prog_new();
    const char *decl = "axes![S = 64, A = 256, B = 256];";
    prog_parse(p, "<bench>", decl, strlen(decl));
    static const struct {
        const char *name, *dm;
    } layouts[] = {
        {"identity", "m![A, B]"},
        {"transpose", "m![B, A]"},
        {"blocked 16x16", "m![A / 16, B / 16, A % 16, B % 16]"},
    };
    const Map *one = parse(p, "m![1]"), *slice = parse(p, "m![S]"), *hbm_map = parse(p, "m![S, A, B]");
    uint64_t bytes = 64ull * 256 * 256 * 4;
    printf("DMA, %llu MiB per move (64 slices x 256x256 f32), median of %d runs\n", (unsigned long long)(bytes >> 20), reps);
    printf("%-14s %-8s %7s %12s %12s %8s\n", "layout", "dir", "threads", "GB/s", "memcpy GB/s", "ratio");
    for (int threads = 1; threads <= 2; threads++) {
        RtConfig cfg = rt_default_config();
        cfg.threads = threads;
        RtContext *rt = rt_new(p, &cfg);
        const Map *hbm_maps[] = {one, hbm_map};
        RtTensor *hbm = rt_tensor_new(rt, MEM_HBM, ELEM_F32, hbm_maps, 2);
        if (!hbm) {
            fprintf(stderr, "bench-dma: %s\n", rt_error(rt));
            return 1;
        }
        memset(rt_tensor_data(hbm), 1, bytes);
        void *a = aligned_alloc(64, bytes), *b = aligned_alloc(64, bytes);
        memset(a, 1, bytes);
        memset(b, 2, bytes);
        for (size_t l = 0; l < sizeof layouts / sizeof *layouts; l++) {
            const Map *dm_maps[] = {one, one, slice, parse(p, layouts[l].dm)};
            RtTensor *dm = rt_tensor_new(rt, MEM_DM, ELEM_F32, dm_maps, 4);
            if (!dm) {
                fprintf(stderr, "bench-dma: %s\n", rt_error(rt));
                return 1;
            }
            RtView vh = rt_view(hbm, true), vd = rt_view(dm, true);
            for (int dir = 0; dir < 2; dir++) {
                RtView *dst = dir ? &vh : &vd, *src = dir ? &vd : &vh;
                if (rt_dma(rt, dst, src) != 0) { /* warm-up; builds the cached move */
                    fprintf(stderr, "bench-dma: %s\n", rt_error(rt));
                    return 1;
                }
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
                double gbs = (double)bytes / bench_median(t, reps) / 1e9;
                double mgbs = (double)bytes / bench_median(m, reps) / 1e9;
                printf("%-14s %-8s %7d %12.2f %12.2f %8.2f\n", layouts[l].name, dir ? "DM->HBM" : "HBM->DM", threads, gbs,
                       mgbs, gbs / mgbs);
                free(t);
                free(m);
            }
            rt_tensor_free(dm);
        }
        free(a);
        free(b);
        rt_tensor_free(hbm);
        rt_free(rt);
    }
    prog_free(p);
    return 0;
}
