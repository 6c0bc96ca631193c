/* task_buffers.c — the per-task scratch buffers of the GEMM paths: grown on demand, aligned, never shrunk. */
#include "gemm_impl.h"

#include <stdio.h>
#include <stdlib.h>

int gemm_grow_buffers(void **buf, size_t *size, int n, size_t need, size_t align, char *err, size_t cap)
{
    for (int t = 0; t < n; t++)
        if (size[t] < need) {
            free(buf[t]);
            size[t] = 0;
            if (!(buf[t] = aligned_alloc(align, need))) {
                snprintf(err, cap, "out of memory");
                return -1;
            }
            size[t] = need;
        }
    return 0;
}
