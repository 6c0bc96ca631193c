/* mem.c — allocation that unwinds to the calling thread's innermost guard when the heap is exhausted. */
#include "base.h"

#include <stdlib.h>

static _Thread_local MemGuard *innermost; /* the calling thread's guard stack */

MemGuard *mem_guard_push(MemGuard *g)
{
    g->outer = innermost;
    innermost = g;
    return g;
}

void mem_guard_release(MemGuard *g)
{
    innermost = g->outer;
}

_Noreturn void mem_fail(void)
{
    MemGuard *g = innermost;
    if (!g)
        __builtin_trap(); /* a library entry point forgot its guard: a bug, not an input error */
    innermost = g->outer;
    longjmp(g->env, 1);
}

void *mem_alloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        mem_fail();
    return p;
}

void *mem_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        mem_fail();
    return p;
}

void *mem_realloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q)
        mem_fail();
    return q;
}
