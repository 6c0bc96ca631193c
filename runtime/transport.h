/* transport.h — how the processes of a job, one chip each, exchange bytes: the one interface the runtime's
 * inter-chip moves use (runtime/mpi/ implements it over MPI; a context without one is a single process). */
#ifndef MAPC_TRANSPORT_H
#define MAPC_TRANSPORT_H

#include <stddef.h>

/* One message of an exchange: bytes to or from the process peer. */
typedef struct RtMsg {
    int peer;
    void *buf;
    size_t bytes;
} RtMsg;

typedef struct RtTransport RtTransport;

typedef struct RtTransportOps {
    /* Posts every receive and send (at most one message per peer each way) and waits for all of them. Every
     * process of the job calls it in the same order, with matching sizes. 0, or -1 with err set. */
    int (*exchange)(RtTransport *t, const RtMsg *send, int nsend, const RtMsg *recv, int nrecv, char *err,
                    size_t cap);
    /* Ends every process of the job with status code (for a failed process, so no peer waits forever). */
    void (*abort)(RtTransport *t, int code);
    /* Releases the transport (and finalizes what it initialized). */
    void (*free)(RtTransport *t);
} RtTransportOps;

struct RtTransport {
    const RtTransportOps *ops;
    int rank, size;         /* this process, and the job's processes: process r runs chip r */
    void *impl;
};

/* The transport's calls (a NULL transport: one process, nothing to exchange). */
int rt_transport_exchange(RtTransport *t, const RtMsg *send, int nsend, const RtMsg *recv, int nrecv, char *err,
                          size_t cap);
void rt_transport_abort(RtTransport *t, int code);
void rt_transport_free(RtTransport *t);

#endif
