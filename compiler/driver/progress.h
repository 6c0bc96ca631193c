/* progress.h — a line on standard error for a step of the driver that runs longer than a second. */
#ifndef MAPC_PROGRESS_H
#define MAPC_PROGRESS_H

#include <pthread.h>
#include <stdbool.h>

/* One step being watched: begun by drv_progress_begin, ended by drv_progress_end. */
typedef struct DrvProgress {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t done_cv;
    bool done, shown, watching;
    double start;
    char what[160];
} DrvProgress;

/* The monotonic clock in seconds. */
double drv_now(void);

/* Starts watching the step `what` ("compiling kernel sgemm"): if it is still running after a second and
 * standard error is a terminal, "mapc: WHAT ..." is printed there. Never fails: without a thread the
 * step runs unwatched. */
void drv_progress_begin(DrvProgress *p, const char *what);
/* Ends the step; when its line was printed, finishes it with the step's time. Returns the step's
 * seconds. */
double drv_progress_end(DrvProgress *p);

#endif
