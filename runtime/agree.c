/* agree.c — the processes of a job compare what they are about to run (fields of fixed size, sent to every
 * peer) before any data moves, so that a job whose processes were given different programs or options
 * ends with a message naming the difference instead of waiting forever for messages that never come. */
#include "transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One field as it travels: the digest of its key and the text shown. */
typedef struct AgreeSlot {
    uint64_t digest;
    char value[RT_AGREE_TEXT];
} AgreeSlot;

typedef struct AgreeRecord {
    int32_t n;
    AgreeSlot slot[RT_AGREE_FIELDS];
} AgreeRecord;

uint64_t rt_digest(const void *data, size_t n)
{
    const unsigned char *s = data;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

static void record_of(const RtAgreeField *f, int n, AgreeRecord *r)
{
    memset(r, 0, sizeof *r);
    r->n = n;
    for (int i = 0; i < n; i++) {
        const char *key = f[i].key ? f[i].key : f[i].value;
        size_t len = f[i].key ? (f[i].key_len ? f[i].key_len : strlen(key)) : strlen(key);
        r->slot[i].digest = rt_digest(key, len);
        snprintf(r->slot[i].value, sizeof r->slot[i].value, "%s", f[i].value);
    }
}

int rt_transport_agree(RtTransport *t, const RtAgreeField *f, int n, char *err, size_t cap)
{
    if (!t || t->size <= 1)
        return 0;
    if (n < 0 || n > RT_AGREE_FIELDS) {
        snprintf(err, cap, "cannot compare %d fields (at most %d)", n, RT_AGREE_FIELDS);
        return -1;
    }
    int size = t->size, me = t->rank;
    AgreeRecord *all = calloc((size_t)size, sizeof *all);
    RtMsg *send = calloc((size_t)size, sizeof *send), *recv = calloc((size_t)size, sizeof *recv);
    if (!all || !send || !recv) {
        free(all);
        free(send);
        free(recv);
        snprintf(err, cap, "out of memory comparing the processes' runs");
        return -1;
    }
    record_of(f, n, &all[me]);
    int m = 0;
    for (int q = 0; q < size; q++)
        if (q != me) {
            send[m] = (RtMsg){.peer = q, .buf = &all[me], .bytes = sizeof *all};
            recv[m++] = (RtMsg){.peer = q, .buf = &all[q], .bytes = sizeof *all};
        }
    char why[256];
    int r = rt_transport_exchange(t, send, m, recv, m, why, sizeof why);
    if (r != 0) {
        snprintf(err, cap, "cannot compare the processes' runs: %s", why);
    } else {
        for (int q = 1; q < size && r == 0; q++) {
            if (all[q].n != all[0].n) {
                snprintf(err, cap, "the processes compare %d fields on rank 0, %d on rank %d (different mapc "
                         "versions?)", (int)all[0].n, (int)all[q].n, q);
                r = 1;
            }
            for (int i = 0; i < n && r == 0; i++)
                if (all[q].slot[i].digest != all[0].slot[i].digest) {
                    snprintf(err, cap, "%s: %s on rank 0, %s on rank %d", f[i].name, all[0].slot[i].value,
                             all[q].slot[i].value, q);
                    r = 1;
                }
        }
    }
    free(all);
    free(send);
    free(recv);
    return r;
}
