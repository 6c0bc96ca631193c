/* transport_mpi.h — the MPI transport: one process per chip over MPI_COMM_WORLD or a caller's communicator
 * (this header does not need mpi.h; only runtime/mpi/ includes it). */
#ifndef MAPC_TRANSPORT_MPI_H
#define MAPC_TRANSPORT_MPI_H

#include "transport.h"

#include <stdbool.h>

/* Whether this process was started by an MPI launcher (mpirun sets OMPI_COMM_WORLD_SIZE, PMI_SIZE or
 * PMIX_RANK) or MPI is already initialized. */
bool rt_mpi_launched(void);

/* A transport over MPI_COMM_WORLD, initializing MPI (threads: MPI_THREAD_FUNNELED) unless it already is;
 * freeing it finalizes MPI if it initialized it. NULL with err set. */
RtTransport *rt_transport_mpi_world(char *err, size_t cap);

/* A transport over a duplicate of the caller's communicator (comm points at an MPI_Comm; MPI must be
 * initialized). NULL with err set. */
RtTransport *rt_transport_mpi_comm(const void *comm, char *err, size_t cap);

#endif
