/* api_mpi.c — mapc_runtime_create_mpi: the public runtime over an MPI communicator's processes, once they
 * found that all of them compiled the same axes and tensors. */
#include "api_impl.h"
#include "mapc_mpi.h"
#include "mpi/transport_mpi.h"

#include <stdio.h>
#include <stdlib.h>

/* The program as the runtime's moves see it: every axis with its size, every tensor with its memory, element
 * type and mappings, as text (malloc'ed; NULL when out of memory). */
static char *moves_text(const Prog *p, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f)
        return NULL;
    for (int i = 0; i < p->naxes; i++)
        fprintf(f, "%s = %llu;", p->axes[i].name, (unsigned long long)p->axes[i].size);
    char map[1024];
    for (int i = 0; i < p->ntensors; i++) {
        const TensorDecl *t = p->tensors[i];
        fprintf(f, "\n%s: %s<%s", t->name, mem_kind_tensor(t->mem), elem_type_name(t->elem));
        for (int j = 0; j < mem_kind_maps(t->mem); j++) {
            size_t need = map_format(p, t->maps[j], map, sizeof map);
            fprintf(f, ", %s%s", map, need >= sizeof map ? "..." : "");
        }
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

mapc_status mapc_runtime_create_mpi(mapc_program *p, int threads, MPI_Comm comm, mapc_runtime **out)
{
    if (out)
        *out = NULL;
    char err[512];
    RtTransport *t = rt_transport_mpi_comm(&comm, err, sizeof err);
    if (!t)
        return MAPC_ERR_ARGUMENT;
    if (p && !p->compile_errors) {
        /* a process with other tensors would exchange other messages: a hang or a crash inside MPI */
        size_t len = 0;
        char *text = moves_text(p->prog, &len), value[64];
        if (!text) {
            rt_transport_free(t);
            return MAPC_ERR_NOMEM;
        }
        snprintf(value, sizeof value, "text digest %016llx", (unsigned long long)rt_digest(text, len));
        RtAgreeField f = {"the program's axes and tensors", value, text, len};
        int r = rt_transport_agree(t, &f, 1, err, sizeof err);
        free(text);
        if (r != 0) {
            char msg[600];
            snprintf(msg, sizeof msg, "the processes of the communicator %s%s",
                     r > 0 ? "compiled different programs: " : "cannot start: ", err);
            rt_transport_free(t);
            return api_refuse(p, r > 0 ? MAPC_ERR_INPUT : MAPC_ERR_BACKEND, msg);
        }
    }
    return api_runtime_create(p, threads, t, out);
}
