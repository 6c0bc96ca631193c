/* error.c — the runtime's error message: set by failing calls, read by rt_error. */
#include "rt_impl.h"

#include <stdio.h>

int rt_fail(RtContext *rt, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rt->error, sizeof rt->error, fmt, ap);
    va_end(ap);
    rt->out_of_memory = false;
    return -1;
}

int rt_fail_memory(RtContext *rt, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rt->error, sizeof rt->error, fmt, ap);
    va_end(ap);
    rt->out_of_memory = true;
    return -1;
}

bool rt_out_of_memory(const RtContext *rt) { return rt->out_of_memory; }

const char *rt_error(const RtContext *rt) { return rt->error; }
