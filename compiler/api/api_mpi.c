/* api_mpi.c — mapc_runtime_create_mpi: the public runtime over an MPI communicator's processes. */
#include "api_impl.h"
#include "mapc_mpi.h"
#include "mpi/transport_mpi.h"

mapc_status mapc_runtime_create_mpi(mapc_program *p, int threads, MPI_Comm comm, mapc_runtime **out)
{
    char err[256];
    RtTransport *t = rt_transport_mpi_comm(&comm, err, sizeof err);
    if (!t) {
        if (out)
            *out = NULL;
        return MAPC_ERR_ARGUMENT;
    }
    return api_runtime_create(p, threads, t, out);
}
