/* chip_reduce.c — summing a K-split GEMM's partial products over the chips, in chip order, with the rows of C
 * reduced by one process each and then gathered by all. */
#include "chip_reduce.h"
#include "transport.h"

#include <stdlib.h>
#include <string.h>

/* The rows of C that process q sums, of P. */
static void rows_of(uint64_t M, int P, int q, uint64_t *lo, uint64_t *hi)
{
    *lo = M * (uint64_t)q / (uint64_t)P;
    *hi = M * (uint64_t)(q + 1) / (uint64_t)P;
}

/* The rows [lo, hi) of block b, clipped to [r0, r1); false when empty. */
static bool clip(const KernelBlock *b, uint64_t r0, uint64_t r1, uint64_t *lo, uint64_t *hi)
{
    *lo = b->m0 > r0 ? b->m0 : r0;
    *hi = b->m0 + b->rows < r1 ? b->m0 + b->rows : r1;
    return *lo < *hi;
}

/* Packs (pack) or unpacks the rows [r0, r1) of the blocks of chip c into or out of buf; returns the elements. */
static uint64_t move_blocks(const KernelBlock *blocks, size_t n, uint64_t c, uint64_t r0, uint64_t r1,
                            void *const *partial, uint64_t N, unsigned char *buf, bool pack)
{
    uint64_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t lo, hi;
        if (blocks[i].chip != c || !clip(&blocks[i], r0, r1, &lo, &hi))
            continue;
        for (uint64_t r = lo; r < hi; r++, k += blocks[i].cols) {
            unsigned char *at = (unsigned char *)partial[blocks[i].part] + (r * N + blocks[i].n0) * 4;
            if (buf && pack)
                memcpy(buf + k * 4, at, blocks[i].cols * 4);
            else if (buf)
                memcpy(at, buf + k * 4, blocks[i].cols * 4);
        }
    }
    return k;
}

/* The sums of rows [r0, r1) into out and, row-major, into sum. */
static void sum_rows(void *const *partial, int nparts, uint64_t N, uint64_t r0, uint64_t r1, bool is_int,
                     const GemmView *out, unsigned char *sum)
{
    for (uint64_t i = r0; i < r1; i++)
        for (uint64_t j = 0; j < N; j++) {
            uint64_t at = i * N + j;
            unsigned char *o = (unsigned char *)out->data + (uint64_t)((int64_t)i * out->rs + (int64_t)j * out->cs) * 4;
            if (is_int) {
                uint32_t v = ((const uint32_t *)partial[0])[at];
                for (int p = 1; p < nparts; p++)
                    v += ((const uint32_t *)partial[p])[at];
                memcpy(o, &v, 4);
            } else {
                float v = ((const float *)partial[0])[at];
                for (int p = 1; p < nparts; p++)
                    v += ((const float *)partial[p])[at];
                memcpy(o, &v, 4);
            }
            memcpy(sum + ((i - r0) * N + j) * 4, o, 4);
        }
}

int chip_reduce(RtContext *rt, const KernelBlock *blocks, size_t n, int nparts, void *const *partial, uint64_t M,
                uint64_t N, bool is_int, const GemmView *out)
{
    RtTransport *t = rt_transport(rt);
    int P = rt_procs(rt), me = rt_chip(rt) < 0 ? 0 : rt_chip(rt);
    uint64_t r0, r1;
    rows_of(M, P, me, &r0, &r1);
    RtMsg *send = calloc((size_t)P, sizeof *send), *recv = calloc((size_t)P, sizeof *recv);
    unsigned char *mine = malloc((r1 - r0) * N * 4 + 4);
    int ns = 0, nr = 0, r = 0;
    char err[256];
    if (!send || !recv || !mine)
        r = rt_fail(rt, "out of memory summing the chips' partial products");
    /* reduce-scatter: each process gets the rows it sums of every block another chip computed */
    for (int q = 0; q < P && r == 0 && P > 1; q++) {
        if (q == me)
            continue;
        uint64_t lo, hi;
        rows_of(M, P, q, &lo, &hi);
        uint64_t out_n = move_blocks(blocks, n, (uint64_t)me, lo, hi, partial, N, NULL, true);
        uint64_t in_n = move_blocks(blocks, n, (uint64_t)q, r0, r1, partial, N, NULL, false);
        if (out_n) {
            send[ns] = (RtMsg){q, malloc(out_n * 4), out_n * 4};
            if (!send[ns].buf)
                r = rt_fail(rt, "out of memory summing the chips' partial products");
            else
                move_blocks(blocks, n, (uint64_t)me, lo, hi, partial, N, send[ns].buf, true);
            ns++;
        }
        if (in_n) {
            recv[nr] = (RtMsg){q, malloc(in_n * 4), in_n * 4};
            if (!recv[nr].buf)
                r = rt_fail(rt, "out of memory summing the chips' partial products");
            nr++;
        }
    }
    if (r == 0 && rt_transport_exchange(t, send, ns, recv, nr, err, sizeof err) != 0)
        r = rt_fail(rt, "%s", err);
    for (int i = 0; i < nr && r == 0; i++)
        move_blocks(blocks, n, (uint64_t)recv[i].peer, r0, r1, partial, N, recv[i].buf, false);
    for (int i = 0; i < ns; i++)
        free(send[i].buf);
    for (int i = 0; i < nr; i++)
        free(recv[i].buf);
    if (r == 0)
        sum_rows(partial, nparts, N, r0, r1, is_int, out, mine);
    /* allgather: every process sends its summed rows to all */
    ns = nr = 0;
    for (int q = 0; q < P && r == 0 && P > 1; q++) {
        if (q == me)
            continue;
        uint64_t lo, hi;
        rows_of(M, P, q, &lo, &hi);
        if (r1 > r0)
            send[ns++] = (RtMsg){q, mine, (r1 - r0) * N * 4};
        if (hi > lo) {
            recv[nr] = (RtMsg){q, malloc((hi - lo) * N * 4), (hi - lo) * N * 4};
            if (!recv[nr++].buf)
                r = rt_fail(rt, "out of memory gathering C");
        }
    }
    if (r == 0 && rt_transport_exchange(t, send, ns, recv, nr, err, sizeof err) != 0)
        r = rt_fail(rt, "%s", err);
    for (int i = 0; i < nr; i++) {
        uint64_t lo, hi;
        rows_of(M, P, recv[i].peer, &lo, &hi);
        for (uint64_t row = lo; row < hi && r == 0; row++)
            for (uint64_t j = 0; j < N; j++)
                memcpy((unsigned char *)out->data + (uint64_t)((int64_t)row * out->rs + (int64_t)j * out->cs) * 4,
                       (unsigned char *)recv[i].buf + ((row - lo) * N + j) * 4, 4);
        free(recv[i].buf);
    }
    free(send);
    free(recv);
    free(mine);
    return r;
}
