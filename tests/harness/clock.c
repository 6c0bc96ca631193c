/* clock.c — the harness's clocks: monotonic wall time and the process's CPU time, in seconds. */
#include "harness.h"

#include <time.h>

/* Seconds on clock id. */
static double seconds_on(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double harness_seconds(void) { return seconds_on(CLOCK_MONOTONIC); }

double harness_cpu_seconds(void) { return seconds_on(CLOCK_PROCESS_CPUTIME_ID); }
