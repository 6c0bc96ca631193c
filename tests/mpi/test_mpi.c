/* test_mpi.c — chips as MPI processes (run under mpirun -np P): chip-split GEMM kernels bit-identical to one
 * process and run to run, and DMA between seeded random distributions over P chips checked cell by cell on
 * every chip, with the bytes that crossed processes equal to the layouts' traffic model. Process 0 reports. */
#include "front/front.h"
#include "gemm/rt_gemm.h"
#include "harness.h"
#include "mpi/transport_mpi.h"
#include "rt.h"
#include "transport.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static RtTransport *tr;
static Rng rng;

/* Ends the job when a call fails on any process (a peer would otherwise wait for it). */
static void must(bool ok, const char *what, const RtContext *rt)
{
    if (ok)
        return;
    fprintf(stderr, "test_mpi: rank %d: %s: %s\n", tr->rank, what, rt ? rt_error(rt) : "");
    fflush(stderr);
    rt_transport_abort(tr, 1);
}

/* The sum over the processes of v, on process 0 (others get their own v). */
static uint64_t sum_to_root(uint64_t v)
{
    int n = tr->size - 1;
    uint64_t *in = calloc((size_t)n + 1, sizeof *in);
    RtMsg *m = calloc((size_t)n + 1, sizeof *m);
    must(in && m, "out of memory", NULL);
    for (int q = 0; q < n && tr->rank == 0; q++)
        m[q] = (RtMsg){q + 1, &in[q], sizeof *in};
    RtMsg one = {0, &v, sizeof v};
    char err[256];
    int r = tr->rank == 0 ? rt_transport_exchange(tr, NULL, 0, m, n, err, sizeof err)
                          : rt_transport_exchange(tr, &one, 1, NULL, 0, err, sizeof err);
    must(r == 0, err, NULL);
    for (int q = 0; q < n && tr->rank == 0; q++)
        v += in[q];
    free(in);
    free(m);
    return v;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    *len = s ? fread(s, 1, (size_t)n, f) : 0;
    if (s)
        s[*len] = 0;
    fclose(f);
    return s;
}

static uint64_t kernel_chips(const KernelDecl *k)
{
    const TensorDecl *ops[3] = {k->a, k->b, k->c};
    uint64_t n = 1;
    for (int i = 0; i < 3; i++)
        n = ops[i]->maps[0]->size > n ? ops[i]->maps[0]->size : n;
    return n;
}

/* Runs kernel ki of p (twice, C restored in between) and gathers C into out and out2 (process 0's). Host
 * arrays are row-major over each operand's axes in declaration order (M, N, K: B's is N x K), process 0's. */
static void run_gemm(Prog *p, int ki, RtTransport *t, int threads, const float *a, const float *b, const float *c0,
                     float *out, float *out2)
{
    RtConfig cfg = rt_default_config();
    cfg.threads = threads;
    cfg.transport = t;
    RtContext *rt = rt_new(p, &cfg);
    must(rt != NULL, "rt_new", NULL);
    const KernelDecl *k = p->kernels[ki];
    RtTensor *ta = rt_tensor_declared(rt, k->a->name), *tb = rt_tensor_declared(rt, k->b->name),
             *tc = rt_tensor_declared(rt, k->c->name);
    must(ta && tb && tc, "declared operands", rt);
    RtView va = rt_view(ta, true), vb = rt_view(tb, true), vc = rt_view(tc, true);
    must(!rt_from_host(rt, &va, a) && !rt_from_host(rt, &vb, b) && !rt_from_host(rt, &vc, c0), "operands in", rt);
    RtGemm *g = rt_gemm_new(rt, k, ta, tb, tc);
    must(g != NULL, "rt_gemm_new", rt);
    must(!rt_gemm_run(g, 1.0, 0.5) && !rt_to_host(rt, &vc, out), "first run", rt);
    must(!rt_from_host(rt, &vc, c0) && !rt_gemm_run(g, 1.0, 0.5) && !rt_to_host(rt, &vc, out2), "second run", rt);
    rt_gemm_free(g);
    rt_tensor_free(ta);
    rt_tensor_free(tb);
    rt_tensor_free(tc);
    rt_free(rt);
}

/* Every kernel of the sample on as many chips as processes: the job's C bit-identical to one process's (the
 * same units per chip) and between two runs, and within the f32 bound of a double reference. */
static void check_gemms(const char *path)
{
    size_t len;
    char *text = read_file(path, &len);
    must(text != NULL, path, NULL);
    Prog *p = prog_new(), *q = prog_new();
    must(prog_parse(p, path, text, len) == 0 && prog_parse(q, path, text, len) == 0, "the sample parses", NULL);
    for (int ki = 0; ki < p->nkernels; ki++) {
        const KernelDecl *k = p->kernels[ki];
        if (kernel_chips(k) != (uint64_t)tr->size)
            continue;
        harness_context("kernel %s on %d processes", k->name, tr->size);
        uint64_t M = p->axes[k->axis[GEMM_M]].size, N = p->axes[k->axis[GEMM_N]].size,
                 K = p->axes[k->axis[GEMM_K]].size;
        float *a = malloc(M * K * 4), *b = malloc(K * N * 4), *c0 = malloc(M * N * 4);
        float *d1 = malloc(M * N * 4), *d2 = malloc(M * N * 4), *s1 = malloc(M * N * 4), *s2 = malloc(M * N * 4);
        must(a && b && c0 && d1 && d2 && s1 && s2, "out of memory", NULL);
        for (uint64_t i = 0; i < M * K; i++)
            a[i] = (float)rng_signed_unit(&rng);
        for (uint64_t i = 0; i < K * N; i++)
            b[i] = (float)rng_signed_unit(&rng);
        for (uint64_t i = 0; i < M * N; i++)
            c0[i] = (float)rng_signed_unit(&rng);
        run_gemm(p, ki, tr->size > 1 ? tr : NULL, 2, a, b, c0, d1, d2);
        if (tr->rank == 0) {
            run_gemm(q, ki, NULL, 1, a, b, c0, s1, s2); /* one process, every chip a group of threads */
            CHECK(memcmp(d1, d2, M * N * 4) == 0, "two runs of the job give the same bits");
            uint64_t diff = 0, bad = 0;
            for (uint64_t i = 0; i < M * N; i++)
                diff += memcmp(&d1[i], &s1[i], 4) != 0;
            CHECK_EQ_U64(diff, 0, "elements of C that differ from one process's");
            /* the double reference: |got - want| within (K + 2) 2^-24 of the sum of |terms| */
            for (uint64_t i = 0; i < M && diff == 0; i += 7)
                for (uint64_t j = 0; j < N; j += 5) {
                    double want = 0.5 * c0[i * N + j], mag = fabs(want);
                    for (uint64_t l = 0; l < K; l++) { /* B's host array is over (N, K): N is declared first */
                        want += (double)a[i * K + l] * b[j * K + l];
                        mag += fabs((double)a[i * K + l] * b[j * K + l]);
                    }
                    bad += fabs(d1[i * N + j] - want) > (double)(K + 2) * 0x1p-24 * mag;
                }
            CHECK_EQ_U64(bad, 0, "sampled elements of C off the double reference");
        }
        free(a);
        free(b);
        free(c0);
        free(d1);
        free(d2);
        free(s1);
        free(s2);
    }
    harness_context("%s", "");
    prog_free(p);
    prog_free(q);
    free(text);
}

/* ---- DMA between random distributions ---- */

/* A random distribution of the tensor [I, J] over P chips: its declaration, HBM or DM. */
static void gen_dist(char *out, size_t cap, const char *name, uint64_t I, uint64_t J, int P)
{
    char chip[128], ip[64], jp[64], slice[128] = "";
    int kind = P == 1 ? 3 : (int)rng_below(&rng, P == 4 ? 6 : 3);
    snprintf(ip, sizeof ip, "I");
    snprintf(jp, sizeof jp, "J");
    switch (kind) {
    case 0: /* rows over the chips */
        snprintf(chip, sizeof chip, "m![I / %llu]", (unsigned long long)(I / P));
        snprintf(ip, sizeof ip, "I %% %llu", (unsigned long long)(I / P));
        break;
    case 1: /* columns over the chips */
        snprintf(chip, sizeof chip, "m![J / %llu]", (unsigned long long)(J / P));
        snprintf(jp, sizeof jp, "J %% %llu", (unsigned long long)(J / P));
        break;
    case 2: /* a replica on every chip */
        snprintf(chip, sizeof chip, "m![%d]", P);
        break;
    case 3:
        snprintf(chip, sizeof chip, "m![1]");
        break;
    case 4: /* 2 x 2 chips over rows and columns */
        snprintf(chip, sizeof chip, "m![I / %llu, J / %llu]", (unsigned long long)(I / 2), (unsigned long long)(J / 2));
        snprintf(ip, sizeof ip, "I %% %llu", (unsigned long long)(I / 2));
        snprintf(jp, sizeof jp, "J %% %llu", (unsigned long long)(J / 2));
        break;
    default: /* rows over 2 chips, replicated on the other 2 */
        snprintf(chip, sizeof chip, rng_below(&rng, 2) ? "m![2, I / %llu]" : "m![I / %llu, 2]",
                 (unsigned long long)(I / 2));
        snprintf(ip, sizeof ip, "I %% %llu", (unsigned long long)(I / 2));
        break;
    }
    bool dm = rng_below(&rng, 2), swap = rng_below(&rng, 2);
    if (dm) { /* 4 slices over the top of the columns the chip holds */
        uint64_t q = (kind == 1 ? J / P : kind == 4 ? J / 2 : J) / 4;
        snprintf(slice, sizeof slice, "m![%s / %llu]", jp, (unsigned long long)q);
        snprintf(jp, sizeof jp, "J %% %llu", (unsigned long long)q);
    }
    if (dm)
        snprintf(out, cap, "tensor %s[I, J]: DmTensor<f32, %s, m![1], %s, m![%s, %s]>;\n", name, chip, slice,
                 swap ? jp : ip, swap ? ip : jp);
    else
        snprintf(out, cap, "tensor %s[I, J]: HbmTensor<f32, %s, m![%s, %s]>;\n", name, chip, swap ? jp : ip,
                 swap ? ip : jp);
}

/* The cells of t on this process's chip that do not hold their index's value (host: the row-major values). */
static uint64_t bad_cells(const Prog *p, RtContext *rt, RtTensor *t, const float *host, uint64_t J)
{
    TensorUnits u = rt_tensor_units(t);
    uint64_t ce = u.clusters * u.slices * u.elements, chip = (uint64_t)(tr->rank), bad = 0;
    if (chip >= u.chips)
        return 0;
    const Map *m = rt_tensor_map(t);
    const float *d = rt_tensor_data(t);
    Evaluator *ev = eqv_evaluator_new((Prog *)p);
    Cell c = {.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    for (uint64_t i = chip * ce; i < (chip + 1) * ce; i++) {
        if (eval_cell(ev, m, i, &c) != EVAL_OK) {
            bad++;
            continue;
        }
        if (c.kind == CELL_LIVE)
            bad += memcmp(&d[i], &host[c.coord[0] * J + c.coord[1]], 4) != 0;
    }
    free(c.coord);
    eqv_evaluator_free(ev);
    (void)rt;
    return bad;
}

static void check_dma(uint64_t index)
{
    int P = tr->size;
    uint64_t I = 8 * (uint64_t)P * (1 + rng_below(&rng, 3)), J = 16 * (uint64_t)P * (1 + rng_below(&rng, 2));
    char text[1024], s[320], d[320];
    gen_dist(s, sizeof s, "S", I, J, P);
    gen_dist(d, sizeof d, "D", I, J, P);
    snprintf(text, sizeof text, "axes![I = %llu, J = %llu];\n%s%s", (unsigned long long)I, (unsigned long long)J, s, d);
    harness_case(index);
    harness_context("%s", text);
    Prog *p = prog_new();
    must(prog_parse(p, "<dma>", text, strlen(text)) == 0, text, NULL);
    RtConfig cfg = rt_default_config();
    cfg.threads = 1 + (int)(index % 2);
    cfg.transport = P > 1 ? tr : NULL;
    RtContext *rt = rt_new(p, &cfg);
    must(rt != NULL, "rt_new", NULL);
    RtTensor *ts = rt_tensor_declared(rt, "S"), *td = rt_tensor_declared(rt, "D");
    must(ts && td, "declared tensors", rt);
    float *host = malloc(I * J * 4), *back = malloc(I * J * 4);
    must(host && back, "out of memory", NULL);
    for (uint64_t i = 0; i < I * J; i++) /* every process knows the values, to check its own chip */
        host[i] = (float)(i * 2654435761u % 1000003) + 0.25f;
    RtView ws = rt_view(ts, true), rs = rt_view(ts, false), wd = rt_view(td, true), rd = rt_view(td, false);
    must(rt_from_host(rt, &ws, tr->rank == 0 ? host : NULL) == 0, "host -> S", rt);
    RtStats before = rt_stats(rt);
    must(rt_dma(rt, &wd, &rs) == 0, "S -> D", rt);
    RtStats after = rt_stats(rt);
    uint64_t model;
    must(rt_dma_chip_bytes(rt, &wd, &rs, &model) == 0, "the traffic model", rt);
    uint64_t got = sum_to_root(after.chip_bytes_received - before.chip_bytes_received);
    uint64_t sent = sum_to_root(after.chip_bytes_sent - before.chip_bytes_sent);
    uint64_t bad = sum_to_root(bad_cells(p, rt, td, host, J) + bad_cells(p, rt, ts, host, J));
    memset(back, 0, I * J * 4);
    must(rt_to_host(rt, &rd, tr->rank == 0 ? back : NULL) == 0, "D -> host", rt);
    if (tr->rank == 0) {
        CHECK_EQ_U64(bad, 0, "cells of S and D (every replica, every chip) without their index's value");
        CHECK_EQ_U64(memcmp(back, host, I * J * 4) == 0, 1, "D read back to process 0 is the host array");
        CHECK_EQ_U64(got, P > 1 ? model : 0, "bytes received from other chips' processes against the model");
        CHECK_EQ_U64(sent, got, "bytes sent and received");
    }
    free(host);
    free(back);
    rt_tensor_free(ts);
    rt_tensor_free(td);
    rt_free(rt);
    prog_free(p);
    harness_context("%s", "");
}

int main(int argc, char **argv)
{
    char err[256];
    tr = rt_transport_mpi_world(err, sizeof err);
    if (!tr) {
        fprintf(stderr, "test_mpi: %s\n", err);
        return 1;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: mpirun -np P test_mpi SAMPLE.map [SEED [COUNT]]\n");
        rt_transport_free(tr);
        return 2;
    }
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 20261201, count = argc > 3 ? strtoull(argv[3], NULL, 10) : 40;
    harness_set_seed(seed);
    rng = rng_seeded(seed ^ (uint64_t)tr->size);
    if (tr->rank != 0 && !freopen("/dev/null", "w", stdout))
        return 1;
    check_gemms(argv[1]);
    for (uint64_t i = 0; i < count; i++)
        check_dma(i);
    int status = tr->rank == 0 ? harness_report() : 0;
    rt_transport_free(tr);
    return status;
}
