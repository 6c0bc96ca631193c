/* bench_mpi.c — a chip-to-chip DMA (rows over 2 chips to columns over 2 chips) timed in one process (chips as
 * threads) or under mpirun -np 2 (chips as processes), with its bytes between chips measured and modelled;
 * then the model's bytes for the same move over 8 to 64 chips and the time they take at a stated bandwidth.
 * Usage: [mpirun -np 2] bench-mpi [--n N] [--reps R] [--threads T] [--gbps G] [--model-n N] */
#include "bench.h"
#include "front/front.h"
#include "rt.h"
#include "transport.h"
#ifdef MAPC_HAVE_MPI
#include "mpi/transport_mpi.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every process sends one byte to every other and waits for theirs: the start of a timed move. */
static void sync_all(RtTransport *t)
{
    if (!t)
        return;
    unsigned char out = 1, *in = calloc((size_t)t->size, 1);
    RtMsg *s = calloc((size_t)t->size, sizeof *s), *r = calloc((size_t)t->size, sizeof *r);
    int n = 0;
    char err[256];
    for (int q = 0; q < t->size; q++)
        if (q != t->rank) {
            s[n] = (RtMsg){q, &out, 1};
            r[n++] = (RtMsg){q, &in[q], 1};
        }
    if (rt_transport_exchange(t, s, n, r, n, err, sizeof err) != 0) {
        fprintf(stderr, "bench-mpi: %s\n", err);
        rt_transport_abort(t, 1);
    }
    free(in);
    free(s);
    free(r);
}

/* The program of the move over P chips: S rows over the chips, D columns over the chips. */
static Prog *move_prog(uint64_t n, int P)
{
    char text[512];
    snprintf(text, sizeof text,
             "axes![I = %llu, J = %llu];\n"
             "tensor S: HbmTensor<f32, m![I / %llu], m![I %% %llu, J]>;\n"
             "tensor D: HbmTensor<f32, m![J / %llu], m![I, J %% %llu]>;\n",
             (unsigned long long)n, (unsigned long long)n, (unsigned long long)(n / P), (unsigned long long)(n / P),
             (unsigned long long)(n / P), (unsigned long long)(n / P));
    Prog *p = prog_new();
    if (p && prog_parse(p, "<bench-mpi>", text, strlen(text)) != 0) {
        prog_free(p);
        return NULL;
    }
    return p;
}

static void fail(RtTransport *t, const char *what, const RtContext *rt)
{
    fprintf(stderr, "bench-mpi: %s: %s\n", what, rt ? rt_error(rt) : "");
    if (t && t->size > 1)
        rt_transport_abort(t, 1);
    exit(1);
}

int main(int argc, char **argv)
{
    uint64_t n = 1024, model_n = 512;
    int reps = 9, threads = 1;
    double gbps = 12.5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--n") == 0)
            n = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--model-n") == 0)
            model_n = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--reps") == 0)
            reps = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--threads") == 0)
            threads = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--gbps") == 0)
            gbps = strtod(argv[i + 1], NULL);
    }
    if (n < 128 || n % 128 || model_n % 64 || model_n < 64 || reps < 1 || threads < 1 || gbps <= 0) {
        fprintf(stderr, "bench-mpi: --n a multiple of 128, --model-n a multiple of 64, --reps, --threads, --gbps > 0\n");
        return 2;
    }
    RtTransport *t = NULL;
#ifdef MAPC_HAVE_MPI
    char err[256];
    if (rt_mpi_launched() && !(t = rt_transport_mpi_world(err, sizeof err))) {
        fprintf(stderr, "bench-mpi: %s\n", err);
        return 1;
    }
    if (t && t->size != 2) {
        if (t->rank == 0)
            fprintf(stderr, "bench-mpi: the move is over 2 chips: mpirun -np 2, not %d\n", t->size);
        rt_transport_free(t);
        return 2;
    }
#endif
    Prog *p = move_prog(n, 2);
    if (!p)
        fail(t, "the program", NULL);
    RtConfig cfg = rt_default_config();
    cfg.threads = threads;
    cfg.transport = t;
    RtContext *rt = rt_new(p, &cfg);
    RtTensor *s = rt ? rt_tensor_declared(rt, "S") : NULL, *d = s ? rt_tensor_declared(rt, "D") : NULL;
    if (!d)
        fail(t, "the tensors", rt);
    float *host = malloc(n * n * 4);
    for (uint64_t i = 0; i < n * n; i++)
        host[i] = (float)(i % 4099);
    RtView ws = rt_view(s, true), rs = rt_view(s, false), wd = rt_view(d, true);
    if (rt_from_host(rt, &ws, host) != 0 || rt_dma(rt, &wd, &rs) != 0) /* the first move plans and compiles */
        fail(t, "the first move", rt);
    uint64_t model;
    if (rt_dma_chip_bytes(rt, &wd, &rs, &model) != 0)
        fail(t, "the model", rt);
    double *times = calloc((size_t)reps, sizeof *times);
    RtStats before = rt_stats(rt);
    for (int r = 0; r < reps; r++) {
        sync_all(t);
        double t0 = bench_seconds();
        if (rt_dma(rt, &wd, &rs) != 0)
            fail(t, "a timed move", rt);
        times[r] = bench_seconds() - t0;
    }
    RtStats after = rt_stats(rt);
    qsort(times, (size_t)reps, sizeof *times, bench_cmp_double);
    int me = t ? t->rank : 0;
    uint64_t got = (after.chip_bytes_received - before.chip_bytes_received) / (uint64_t)reps;
    if (me == 0) {
        double med = times[reps / 2];
        printf("dma %s: %llu x %llu f32 (%.1f MiB), rows over 2 chips -> columns over 2 chips, %d thread%s per chip "
               "process\n",
               t ? "2 ranks" : "1 process", (unsigned long long)n, (unsigned long long)n, (double)n * n * 4 / 1048576,
               threads, threads == 1 ? "" : "s");
        printf("  median %.3f ms of %d (min %.3f ms), %.2f GB/s of the tensor\n", med * 1e3, reps, times[0] * 1e3,
               (double)n * n * 4 / med * 1e-9);
        printf("  between chips: model %llu bytes; measured on rank 0 %llu bytes received per move (of %llu for "
               "both chips)\n",
               (unsigned long long)model, (unsigned long long)got, (unsigned long long)model);
    }
    free(times);
    free(host);
    rt_tensor_free(s);
    rt_tensor_free(d);
    rt_free(rt);
    prog_free(p);
    /* the model over more chips (process 0, no transport needed: it reads only the layouts) */
    if (me == 0) {
        printf("model: rows over P chips -> columns over P chips of %llu x %llu f32 (%.1f MiB), each chip's link "
               "at %.1f GB/s\n",
               (unsigned long long)n, (unsigned long long)n, (double)n * n * 4 / 1048576, gbps);
        printf("  %6s %16s %16s %12s\n", "chips", "bytes between", "per chip in", "predicted");
        for (int P = 2; P <= 64; P *= 2) {
            if (P == 4)
                continue;
            Prog *q = move_prog(model_n, P);
            RtContext *mr = q ? rt_new(q, &(RtConfig){.limits = tensor_default_limits(), .threads = 1}) : NULL;
            RtTensor *ms = mr ? rt_tensor_declared(mr, "S") : NULL, *md = ms ? rt_tensor_declared(mr, "D") : NULL;
            uint64_t bytes = 0;
            if (!md)
                fail(NULL, "the model's tensors", mr);
            RtView a = rt_view(md, true), b = rt_view(ms, false);
            if (rt_dma_chip_bytes(mr, &a, &b, &bytes) != 0)
                fail(NULL, "the model", mr);
            /* counted at model_n, exact for n: the bytes scale with the elements, (n / model_n)^2 */
            double scale = (double)n / (double)model_n, total = (double)bytes * scale * scale, in = total / P;
            printf("  %6d %16.0f %16.0f %9.3f ms\n", P, total, in, in / (gbps * 1e9) * 1e3);
            rt_tensor_free(ms);
            rt_tensor_free(md);
            rt_free(mr);
            prog_free(q);
        }
    }
    rt_transport_free(t);
    return 0;
}
