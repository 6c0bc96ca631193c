/* rounds.c — interleaved, probed rounds of GEMM contenders on pinned threads (the bench protocol). */
#include "rounds.h"
#include "bench.h"

#include <dirent.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

enum {
    MAX_CONTENDERS = 32,
    MAX_ROUNDS = 256,
    MAX_CPUS = 64,
    CALIBRATION_PROBES = 20,
};
/* A probe: each core's FMA loop for this long; between batches, this much sleep. */
#define PROBE_SECONDS 0.001
#define GAP_SECONDS 0.010

/* The best per-core probe rate met so far (rounds_calibrate, then every probe). */
static double best[MAX_CPUS];

static bool set_affinity(pid_t tid, int lo, int hi)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c = lo; c <= hi; c++)
        CPU_SET(c, &set);
    return sched_setaffinity(tid, sizeof set, &set) == 0;
}

void rounds_pin(int threads)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int hi = threads > 1 ? threads - 1 : 1;
    if (hi >= cpus)
        hi = (int)cpus - 1;
    pid_t self = (pid_t)gettid();
    set_affinity(self, 0, 0);
    DIR *d = opendir("/proc/self/task");
    for (struct dirent *e; d && (e = readdir(d));) {
        pid_t tid = (pid_t)atoi(e->d_name);
        if (tid > 0 && tid != self && hi >= 1)
            set_affinity(tid, 1, hi);
    }
    if (d)
        closedir(d);
}

/* One probe of the first `threads` cores: whether each ran at >= accept x its best; updates the bests. */
static bool probe_ok(const RoundsConfig *cfg, int threads)
{
    double rate[MAX_CPUS];
    if (peak_rate(cfg->probe, threads, PROBE_SECONDS, rate) <= 0)
        return true; /* no probe on this host: every batch counts */
    bool ok = true;
    for (int t = 0; t < threads; t++) {
        ok &= rate[t] >= cfg->accept * best[t];
        if (rate[t] > best[t])
            best[t] = rate[t];
    }
    return ok;
}

void rounds_calibrate(const RoundsConfig *cfg, int threads)
{
    for (int i = 0; i < CALIBRATION_PROBES; i++)
        probe_ok(cfg, threads);
}

static void sleep_seconds(double s)
{
    nanosleep(&(struct timespec){.tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)}, NULL);
}

/* Calls per batch of contender c: as many as fill batch_seconds, from the time of one (warm) call. */
static int batch_size(const RoundsConfig *cfg, const Contender *c)
{
    c->call(c->ctx); /* the first call may compile kernels or allocate */
    double t0 = bench_seconds();
    c->call(c->ctx);
    double one = bench_seconds() - t0;
    double n = one > 0 ? cfg->batch_seconds / one : 1000;
    return n < 1 ? 1 : n > 100000 ? 100000 : (int)n;
}

void rounds_measure(const RoundsConfig *cfg, int threads, const Contender *cs, int n, double ops, double *rate,
                    RoundsStats *st)
{
    int batch[MAX_CONTENDERS], rounds = cfg->rounds < MAX_ROUNDS ? cfg->rounds : MAX_ROUNDS;
    static double samples[MAX_CONTENDERS][MAX_ROUNDS];
    n = n < MAX_CONTENDERS ? n : MAX_CONTENDERS;
    for (int i = 0; i < n; i++)
        batch[i] = batch_size(cfg, &cs[i]);
    rounds_pin(threads); /* every library's workers exist now */
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < n; i++)
            for (int attempt = 0;; attempt++) {
                sleep_seconds(GAP_SECONDS);
                bool before = probe_ok(cfg, threads);
                double t0 = bench_seconds();
                for (int j = 0; j < batch[i]; j++)
                    cs[i].call(cs[i].ctx);
                double t = bench_seconds() - t0;
                bool after = probe_ok(cfg, threads);
                st->batches++;
                samples[i][r] = ops * batch[i] / t * 1e-9;
                if (before && after)
                    break;
                if (attempt == cfg->retries) {
                    st->forced++;
                    break;
                }
                st->retried++;
            }
    for (int i = 0; i < n; i++)
        rate[i] = bench_median(samples[i], rounds);
}
