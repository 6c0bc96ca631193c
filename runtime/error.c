/* error.c — the runtime's error message: set by failing calls, read by rt_error. */
#include "rt_impl.h"

#include <stdio.h>

/* Sets the message and whether the failure was for memory; -1. */
static int set_error(RtContext *rt, bool out_of_memory, const char *fmt, va_list ap)
{
    vsnprintf(rt->error, sizeof rt->error, fmt, ap);
    rt->out_of_memory = out_of_memory;
    return -1;
}

int rt_fail(RtContext *rt, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error(rt, false, fmt, ap);
    va_end(ap);
    return -1;
}

int rt_fail_memory(RtContext *rt, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error(rt, true, fmt, ap);
    va_end(ap);
    return -1;
}

bool rt_out_of_memory(const RtContext *rt) { return rt->out_of_memory; }

const char *rt_error(const RtContext *rt) { return rt->error; }
