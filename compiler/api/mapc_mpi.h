/* mapc_mpi.h — the public C API's MPI runtime: chips as the processes of a communicator (needs mpi.h, so
 * apart from mapc.h; in libmapc when it was built with MPI). */
#ifndef MAPC_MPI_H
#define MAPC_MPI_H

#include <mpi.h>

#include "mapc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A runtime whose chips are the processes of comm (MPI initialized by the caller, which finalizes it after
 * freeing the runtime): process r holds chip r of every HBM and DM tensor, and the runtime's moves between
 * chips are MPI messages over a duplicate of comm. Every process makes the same calls in the same order.
 * Host arrays are process 0's: mapc_view_write sends each process its chip's part of process 0's array (the
 * others may pass NULL), mapc_view_read gathers into process 0's. A tensor over more chips than comm has
 * processes is MAPC_ERR_INPUT. threads: 0 for one per core; MAPC_ERR_ARGUMENT when comm cannot be used.
 * The processes first compare the program's axes and tensors (sizes, memories, element types, mappings):
 * when they differ, every process gets MAPC_ERR_INPUT and the diagnostic "the processes of the communicator
 * compiled different programs: the program's axes and tensors: text digest X on rank 0, Y on rank R". */
mapc_status mapc_runtime_create_mpi(mapc_program *p, int threads, MPI_Comm comm, mapc_runtime **out);

#ifdef __cplusplus
}
#endif

#endif
