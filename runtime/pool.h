/* pool.h — the runtime's fixed thread pool: the caller and threads-1 workers share the tasks of one run. */
#ifndef MAPC_POOL_H
#define MAPC_POOL_H

#include <stdbool.h>

typedef struct RtPool RtPool;
typedef void (*RtTask)(void *arg, int task);

/* Starts threads-1 workers (the caller is the last one). NULL if threads cannot be created. */
RtPool *rt_pool_new(int threads);
void rt_pool_free(RtPool *p);
/* Runs task(arg, i) for every i in [0, ntasks) across the pool and waits for all of them. */
void rt_pool_run(RtPool *p, int ntasks, RtTask task, void *arg);

#endif
