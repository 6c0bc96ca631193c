/* bench.h — what the benchmarks share: one clock in seconds (wall or CPU time) and medians of timings
 * (header-only: benchmarks link no test library). */
#ifndef MAPC_BENCH_H
#define MAPC_BENCH_H

#include <stdlib.h>
#include <time.h>

/* Seconds on clock id (CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID, ...); only
 * differences mean anything. */
static inline double bench_clock_seconds(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Wall time: seconds on the monotonic clock. */
static inline double bench_seconds(void) { return bench_clock_seconds(CLOCK_MONOTONIC); }

/* CPU seconds of this process (all threads): steadier than wall time on a shared machine. */
static inline double bench_cpu_seconds(void) { return bench_clock_seconds(CLOCK_PROCESS_CPUTIME_ID); }

/* qsort order of doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile (0 <= q <= 1) of the n >= 1 values v, v[(int)(q * (n - 1))] after sorting them in place. */
static inline double bench_quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return v[(int)(q * (n - 1))];
}

/* The median of the n >= 1 values v (the mean of the middle two for even n); sorts them in place. */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif
