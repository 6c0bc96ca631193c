/* test_api_mpi.c — the public MPI runtime (mapc_mpi.h) under mpirun -np 2: a tensor written from process 0,
 * moved between chip distributions and read back to process 0, value for value; the processes' count checked;
 * processes that compiled different tensors refused on every process. */
#include "mapc_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char text[] = "axes![I = 64, J = 48];\n"
                           "tensor Rows: HbmTensor<f32, m![I / 32], m![I % 32, J]>;\n"
                           "tensor Cols: DmTensor<f32, m![J / 24], m![1], m![I / 16], m![J % 24, I % 16]>;\n"
                           "tensor Rep: HbmTensor<f32, m![2], m![J, I]>;\n"
                           "tensor Four: HbmTensor<f32, m![I / 16], m![I % 16, J]>;\n";

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, passed = 0, failed = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mapc_program *p = NULL;
    mapc_runtime *rt = NULL;
    mapc_tensor *rows = NULL, *cols = NULL, *rep = NULL, *four = NULL;
    mapc_view *wr = NULL, *rr = NULL, *wc = NULL, *rc = NULL, *wp = NULL, *rp = NULL;
    float host[64 * 48], back[64 * 48];
    for (int i = 0; i < 64 * 48; i++)
        host[i] = (float)(i * 7 % 1009) - 3.5f;
    int ok = mapc_compile_string("<api-mpi>", text, strlen(text), &p) == MAPC_OK &&
             mapc_runtime_create_mpi(p, 1, MPI_COMM_WORLD, &rt) == MAPC_OK &&
             mapc_tensor_create(rt, "Rows", &rows) == MAPC_OK && mapc_tensor_create(rt, "Cols", &cols) == MAPC_OK &&
             mapc_tensor_create(rt, "Rep", &rep) == MAPC_OK && mapc_tensor_view(rt, rows, 1, &wr) == MAPC_OK &&
             mapc_tensor_view(rt, rows, 0, &rr) == MAPC_OK && mapc_tensor_view(rt, cols, 1, &wc) == MAPC_OK &&
             mapc_tensor_view(rt, cols, 0, &rc) == MAPC_OK && mapc_tensor_view(rt, rep, 1, &wp) == MAPC_OK &&
             mapc_tensor_view(rt, rep, 0, &rp) == MAPC_OK;
    if (!ok) {
        fprintf(stderr, "rank %d: setup: %s\n", rank, rt ? mapc_runtime_error(rt) : "no runtime");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* host -> rows over chips -> columns over chips (every element crosses or stays) -> replicas -> host */
    int moved = mapc_view_write(rt, wr, rank == 0 ? host : NULL) == MAPC_OK && mapc_dma(rt, wc, rr) == MAPC_OK &&
                mapc_dma(rt, wp, rc) == MAPC_OK;
    memset(back, 0, sizeof back);
    moved = moved && mapc_view_read(rt, rp, rank == 0 ? back : NULL) == MAPC_OK;
    if (!moved) {
        fprintf(stderr, "rank %d: moves: %s\n", rank, mapc_runtime_error(rt));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* a tensor over 4 chips in a job of 2 processes is refused, on every process */
    mapc_status four_st = mapc_tensor_create(rt, "Four", &four);
    if (rank == 0) {
        int same = memcmp(host, back, sizeof host) == 0;
        same ? passed++ : failed++;
        if (!same)
            fprintf(stderr, "FAIL: the tensor read back after three moves differs\n");
        int refused = four_st == MAPC_ERR_INPUT && strstr(mapc_runtime_error(rt), "spans 4 chips") != NULL;
        refused ? passed++ : failed++;
        if (!refused)
            fprintf(stderr, "FAIL: a 4-chip tensor on 2 processes: status %d, %s\n", (int)four_st,
                    mapc_runtime_error(rt));
    }
    mapc_runtime_free(rt);
    mapc_program_free(p);

    /* processes that compiled different tensors: refused on every process before anything moves */
    char other[256];
    snprintf(other, sizeof other, "axes![I = %d, J = 48];\ntensor Rows: HbmTensor<f32, m![I / 32], m![I %% 32, J]>;\n",
             rank == 0 ? 64 : 96);
    mapc_runtime *bad = NULL;
    int local = 0, total = 0;
    if (mapc_compile_string("<api-mpi-other>", other, strlen(other), &p) != MAPC_OK) {
        local = 1;
    } else {
        mapc_status st = mapc_runtime_create_mpi(p, 1, MPI_COMM_WORLD, &bad);
        const char *d = mapc_diag_count(p) ? mapc_diag_text(p, mapc_diag_count(p) - 1) : "";
        local = !(st == MAPC_ERR_INPUT && !bad &&
                  strstr(d, "compiled different programs: the program's axes and tensors: text digest "));
        if (local)
            fprintf(stderr, "FAIL: rank %d: different programs: status %d, %s\n", rank, (int)st, d);
        mapc_runtime_free(bad);
    }
    mapc_program_free(p);
    MPI_Reduce(&local, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        total ? failed++ : passed++;
        printf("%d passed, %d failed\n", passed, failed);
    }
    MPI_Finalize();
    return failed != 0;
}
