/* error.c — the runtime's error message: set by failing calls, read by rt_error. */
#include "rt_impl.h"

#include <stdio.h>

int rt_fail(RtContext *rt, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rt->error, sizeof rt->error, fmt, ap);
    va_end(ap);
    return -1;
}

const char *rt_error(const RtContext *rt) { return rt->error; }
