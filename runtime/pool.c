/* pool.c — a fixed thread pool: the caller and threads-1 workers share the tasks of one run. */
#include "pool.h"

#include <stdbool.h>

#include <pthread.h>
#include <stdlib.h>

/* Polls before blocking (about 100 us): a worker that has just finished, and a caller waiting for the
 * last task, usually see the next event within that time. Blocking at once lets the core idle, and on
 * a virtual machine a halted core can take longer to wake than a task takes to run (the caller would
 * then run every task itself). */
#define SPIN_POLLS 2000

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

struct RtPool {
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    pthread_t *workers;
    int nworkers;
    /* the current run */
    RtTask task;
    void *arg;
    int ntasks, next, finished;     /* written under lock; finished is also polled without it */
    unsigned long generation;       /* written under lock; also polled without it */
    bool quit;
};

/* Polls until *x differs from old (or SPIN_POLLS polls pass); the caller must not hold the lock. */
static void spin_while_ulong(const unsigned long *x, unsigned long old)
{
    for (int i = 0; i < SPIN_POLLS && __atomic_load_n(x, __ATOMIC_ACQUIRE) == old; i++)
        cpu_relax();
}

static void spin_while_below(const int *x, int limit)
{
    for (int i = 0; i < SPIN_POLLS && __atomic_load_n(x, __ATOMIC_ACQUIRE) < limit; i++)
        cpu_relax();
}

/* Claims and runs tasks of the current run until none is left. Called with the lock held. */
static void drain(RtPool *p)
{
    while (p->next < p->ntasks) {
        int i = p->next++;
        RtTask task = p->task;
        void *arg = p->arg;
        pthread_mutex_unlock(&p->lock);
        task(arg, i);
        pthread_mutex_lock(&p->lock);
        __atomic_store_n(&p->finished, p->finished + 1, __ATOMIC_RELEASE);
        if (p->finished == p->ntasks)
            pthread_cond_broadcast(&p->done);
    }
}

static void *worker(void *arg)
{
    RtPool *p = arg;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        if (!p->quit && p->generation == seen) {
            pthread_mutex_unlock(&p->lock);
            spin_while_ulong(&p->generation, seen);
            pthread_mutex_lock(&p->lock);
        }
        while (!p->quit && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->quit)
            break;
        seen = p->generation;
        drain(p);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

RtPool *rt_pool_new(int threads)
{
    RtPool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    p->workers = calloc((size_t)(threads > 1 ? threads - 1 : 1), sizeof *p->workers);
    if (!p->workers) {
        rt_pool_free(p);
        return NULL;
    }
    for (int i = 0; i < threads - 1; i++) {
        if (pthread_create(&p->workers[i], NULL, worker, p) != 0) {
            rt_pool_free(p);
            return NULL;
        }
        p->nworkers++;
    }
    return p;
}

void rt_pool_free(RtPool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->quit = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->nworkers; i++)
        pthread_join(p->workers[i], NULL);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
    free(p->workers);
    free(p);
}

void rt_pool_run(RtPool *p, int ntasks, RtTask task, void *arg)
{
    if (ntasks <= 0)
        return;
    pthread_mutex_lock(&p->lock);
    p->task = task;
    p->arg = arg;
    p->ntasks = ntasks;
    p->next = 0;
    __atomic_store_n(&p->finished, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&p->generation, p->generation + 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&p->wake);
    drain(p);
    if (p->finished < p->ntasks) {
        pthread_mutex_unlock(&p->lock);
        spin_while_below(&p->finished, ntasks);
        pthread_mutex_lock(&p->lock);
    }
    while (p->finished < p->ntasks)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}
