/* transport_mpi.c — the job's exchanges over MPI: non-blocking point-to-point messages, one per peer each way.
 *
 * Why point-to-point and not one-sided windows: both sides of every inter-chip move compute the same move
 * plan from the layouts, so each process knows exactly what it sends and receives, and to whom, before
 * any byte moves. Matched MPI_Irecv/MPI_Isend pairs then need no synchronization beyond their own
 * completion; RMA would need every tensor buffer exposed in a window (a collective call per tensor),
 * epochs or locks around each move, and would still need the same plan on the reading side. */
#include "transport_mpi.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MPI counts are int: longer messages go as several of at most this many bytes. */
#define MPI_CHUNK (1 << 30)
#define MAPC_TAG 0x6d61

typedef struct MpiImpl {
    MPI_Comm comm;
    bool finalize;      /* this transport initialized MPI */
} MpiImpl;

bool rt_mpi_launched(void)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        return true;
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

static void mpi_message(int code, const char *what, char *err, size_t cap)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, s, &len) != MPI_SUCCESS)
        snprintf(s, sizeof s, "MPI error %d", code);
    snprintf(err, cap, "%s: %s", what, s);
}

/* The requests of one message: its chunks. */
static size_t chunks(size_t bytes)
{
    return bytes ? (bytes + MPI_CHUNK - 1) / MPI_CHUNK : 0;
}

static int mpi_exchange(RtTransport *t, const RtMsg *send, int nsend, const RtMsg *recv, int nrecv, char *err,
                        size_t cap)
{
    MpiImpl *m = t->impl;
    size_t n = 0;
    for (int i = 0; i < nsend; i++)
        n += chunks(send[i].bytes);
    for (int i = 0; i < nrecv; i++)
        n += chunks(recv[i].bytes);
    MPI_Request *req = calloc(n + 1, sizeof *req);
    if (!req) {
        snprintf(err, cap, "out of memory posting %zu messages", n);
        return -1;
    }
    size_t k = 0;
    int rc = MPI_SUCCESS;
    /* receives first, so every send finds its buffer posted */
    for (int i = 0; i < nrecv && rc == MPI_SUCCESS; i++)
        for (size_t off = 0; off < recv[i].bytes && rc == MPI_SUCCESS; off += MPI_CHUNK) {
            size_t len = recv[i].bytes - off < MPI_CHUNK ? recv[i].bytes - off : MPI_CHUNK;
            rc = MPI_Irecv((char *)recv[i].buf + off, (int)len, MPI_BYTE, recv[i].peer, MAPC_TAG, m->comm, &req[k++]);
        }
    for (int i = 0; i < nsend && rc == MPI_SUCCESS; i++)
        for (size_t off = 0; off < send[i].bytes && rc == MPI_SUCCESS; off += MPI_CHUNK) {
            size_t len = send[i].bytes - off < MPI_CHUNK ? send[i].bytes - off : MPI_CHUNK;
            rc = MPI_Isend((char *)send[i].buf + off, (int)len, MPI_BYTE, send[i].peer, MAPC_TAG, m->comm, &req[k++]);
        }
    if (rc == MPI_SUCCESS)
        rc = MPI_Waitall((int)k, req, MPI_STATUSES_IGNORE);
    free(req);
    if (rc != MPI_SUCCESS) {
        mpi_message(rc, "exchanging chip data", err, cap);
        return -1;
    }
    return 0;
}

static void mpi_abort(RtTransport *t, int code)
{
    MpiImpl *m = t->impl;
    MPI_Abort(m->comm, code);
}

static void mpi_free(RtTransport *t)
{
    if (!t)
        return;
    MpiImpl *m = t->impl;
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) {
        MPI_Comm_free(&m->comm);
        if (m->finalize)
            MPI_Finalize();
    }
    free(m);
    free(t);
}

static const RtTransportOps mpi_ops = {.exchange = mpi_exchange, .abort = mpi_abort, .free = mpi_free};

/* A transport over a duplicate of comm (errors returned, not fatal). */
static RtTransport *over(MPI_Comm comm, bool finalize, char *err, size_t cap)
{
    RtTransport *t = calloc(1, sizeof *t);
    MpiImpl *m = calloc(1, sizeof *m);
    if (!t || !m) {
        free(t);
        free(m);
        snprintf(err, cap, "out of memory");
        return NULL;
    }
    int rc = MPI_Comm_dup(comm, &m->comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_set_errhandler(m->comm, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_rank(m->comm, &t->rank);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_size(m->comm, &t->size);
    if (rc != MPI_SUCCESS) {
        mpi_message(rc, "setting up the MPI communicator", err, cap);
        free(t);
        free(m);
        return NULL;
    }
    m->finalize = finalize;
    t->ops = &mpi_ops;
    t->impl = m;
    return t;
}

RtTransport *rt_transport_mpi_world(char *err, size_t cap)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (fin) {
        snprintf(err, cap, "MPI was finalized already");
        return NULL;
    }
    if (!init) {
        int provided = 0;
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
            snprintf(err, cap, "MPI_Init_thread failed");
            return NULL;
        }
    }
    RtTransport *t = over(MPI_COMM_WORLD, !init, err, cap);
    if (!t && !init)
        MPI_Finalize();
    return t;
}

RtTransport *rt_transport_mpi_comm(const void *comm, char *err, size_t cap)
{
    int init = 0;
    MPI_Initialized(&init);
    if (!init || !comm) {
        snprintf(err, cap, !comm ? "the MPI communicator is missing" : "MPI is not initialized");
        return NULL;
    }
    return over(*(const MPI_Comm *)comm, false, err, cap);
}
