/* rounds.h — the GEMM bench protocol: contenders timed in interleaved rounds on pinned threads, each batch
 * between two probes of the cores it runs on; a batch during which a core was taken by another tenant is retried. */
#ifndef MAPC_BENCH_ROUNDS_H
#define MAPC_BENCH_ROUNDS_H

#include "peak.h"

/* One contender of a row: a call (one product) and its context. */
typedef struct Contender {
    void (*call)(void *ctx);
    void *ctx;
} Contender;

typedef struct RoundsConfig {
    int rounds;             /* batches per contender that count */
    int retries;            /* at most this many repeats of a batch the probes reject; then it is kept (forced) */
    double accept;          /* a probe counts when every core runs at >= accept x its best probe of the run */
    double batch_seconds;   /* a batch is as many calls as fill about this long */
    PeakKind probe;         /* the probe's loop: the f32 FMA of the widest vectors the host has */
} RoundsConfig;

/* What the probes did over the calls of rounds_measure so far. */
typedef struct RoundsStats {
    int batches;            /* batches timed, counted or not */
    int retried;            /* batches the probes rejected (then timed again) */
    int forced;             /* batches kept although rejected, after cfg->retries repeats */
} RoundsStats;

/* Pins the calling thread to CPU 0 and every other thread of the process (the libraries' workers) to CPUs 1 to
 * threads-1 (to CPU 1 when threads is 1, away from the caller). */
void rounds_pin(int threads);

/* Measures the best probe rate of each of the first `threads` cores (repeated probes), which later probes are
 * compared with; call once per thread count before rounds_measure. */
void rounds_calibrate(const RoundsConfig *cfg, int threads);

/* The median rate (ops / seconds per call, in G/s) of each of the n contenders running on `threads` threads:
 * after two warm-up calls each (the first may compile), cfg->rounds rounds time one batch of every contender in
 * turn, after pinning (rounds_pin), so every contender meets the same machine. Each batch starts 10 ms after
 * the previous one (idle library threads go to sleep) and is bracketed by 1 ms probes of the `threads` cores;
 * when either probe finds a core below cfg->accept of its best (rounds_calibrate), the batch is timed again,
 * up to cfg->retries times. Adds to *st. */
void rounds_measure(const RoundsConfig *cfg, int threads, const Contender *cs, int n, double ops, double *rate,
                    RoundsStats *st);

#endif
