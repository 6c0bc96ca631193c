/* sysmem.c — how much memory this process can have (physical memory and its resource limits), so that a
 * request larger than that is refused with its numbers before anything is allocated. */
#include "base.h"

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

/* The soft limit of resource r, or UINT64_MAX when there is none. */
static uint64_t soft_limit(int r)
{
    struct rlimit l;
    if (getrlimit(r, &l) != 0 || l.rlim_cur == RLIM_INFINITY)
        return UINT64_MAX;
    return (uint64_t)l.rlim_cur;
}

uint64_t mem_available_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    uint64_t phys = pages > 0 && page > 0 ? u64_sat_mul((uint64_t)pages, (uint64_t)page) : UINT64_MAX;
    uint64_t as = soft_limit(RLIMIT_AS), data = soft_limit(RLIMIT_DATA);
    uint64_t m = phys < as ? phys : as;
    return m < data ? m : data;
}

bool mem_fits(uint64_t bytes, char *why, size_t cap)
{
    uint64_t have = mem_available_bytes();
    if (bytes <= have)
        return true;
    snprintf(why, cap, "%llu bytes, more than the %llu bytes of memory this process can have",
             (unsigned long long)bytes, (unsigned long long)have);
    return false;
}
