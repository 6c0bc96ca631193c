/* progress.c — a line on standard error for a driver step that runs longer than a second. */
#include "progress.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double drv_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The watcher: waits a second for the step to end, else prints its line. */
static void *watch(void *arg)
{
    DrvProgress *p = arg;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 1;
    pthread_mutex_lock(&p->lock);
    int r = 0;
    while (!p->done && r != ETIMEDOUT)
        r = pthread_cond_timedwait(&p->done_cv, &p->lock, &until);
    if (!p->done) {
        fprintf(stderr, "mapc: %s ...", p->what);
        fflush(stderr);
        p->shown = true;
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

void drv_progress_begin(DrvProgress *p, const char *what)
{
    memset(p, 0, sizeof *p);
    snprintf(p->what, sizeof p->what, "%s", what);
    p->start = drv_now();
    if (!isatty(STDERR_FILENO))
        return;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    p->watching = pthread_create(&p->thread, NULL, watch, p) == 0;
    if (!p->watching) {
        pthread_cond_destroy(&p->done_cv);
        pthread_mutex_destroy(&p->lock);
    }
}

double drv_progress_end(DrvProgress *p)
{
    double s = drv_now() - p->start;
    if (!p->watching)
        return s;
    pthread_mutex_lock(&p->lock);
    p->done = true;
    pthread_cond_signal(&p->done_cv);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    if (p->shown)
        fprintf(stderr, " %.1f s\n", s);
    pthread_cond_destroy(&p->done_cv);
    pthread_mutex_destroy(&p->lock);
    p->watching = false;
    return s;
}
