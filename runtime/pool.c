/* pool.c — a fixed thread pool: the caller and threads-1 workers share the tasks of one run. */
#include "rt_internal.h"

#include <pthread.h>
#include <stdlib.h>

struct RtPool {
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    pthread_t *workers;
    int nworkers;
    /* the current run */
    RtTask task;
    void *arg;
    int ntasks, next, finished;
    unsigned long generation;
    bool quit;
};

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
        if (++p->finished == p->ntasks)
            pthread_cond_broadcast(&p->done);
    }
}

static void *worker(void *arg)
{
    RtPool *p = arg;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
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
    p->next = p->finished = 0;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    drain(p);
    while (p->finished < p->ntasks)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}
