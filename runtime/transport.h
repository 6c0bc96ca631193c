/* transport.h — how the processes of a job, one chip each, exchange bytes: the one interface the runtime's
 * inter-chip moves use (runtime/mpi/ implements it over MPI; a context without one is a single process). */
#ifndef MAPC_TRANSPORT_H
#define MAPC_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

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

/* What the processes of a job must agree on before any data moves (agree.c): a field named as the user
 * knows it ("--reps", "the program") with the value this process runs, compared through `key` (NULL: the
 * value itself), e.g. a program's text while the value shows its file name and digest. */
typedef struct RtAgreeField {
    const char *name;
    const char *value;      /* shown (at most RT_AGREE_TEXT - 1 bytes are kept) */
    const char *key;        /* compared by digest; NULL: value */
    size_t key_len;         /* bytes of key (0 with a key: strlen) */
} RtAgreeField;
enum { RT_AGREE_TEXT = 160, RT_AGREE_FIELDS = 24 };

/* Every process sends its n fields (at most RT_AGREE_FIELDS, the same names in the same order on every
 * process) to every other and compares them with process 0's, the same on every process: 0 when all agree
 * (or t is NULL or has one process), 1 when they differ, with err "NAME: V0 on rank 0, V1 on rank R" for the
 * first differing field of the first differing rank (every process says the same), -1 when the exchange
 * failed (err says why). The records are of one fixed size, so the exchange itself never mismatches. */
int rt_transport_agree(RtTransport *t, const RtAgreeField *f, int n, char *err, size_t cap);
/* The digest the fields are compared by (64-bit FNV-1a of n bytes), for showing one in a value. */
uint64_t rt_digest(const void *data, size_t n);

#endif
