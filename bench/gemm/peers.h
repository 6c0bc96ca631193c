/* peers.h — the libraries mapc's GEMM is measured against: OpenBLAS, BLIS and oneDNN, on row-major buffers. */
#ifndef MAPC_BENCH_PEERS_H
#define MAPC_BENCH_PEERS_H

#include <stdbool.h>
#include <stdint.h>

/* The thread count of every peer (OpenBLAS, BLIS, OpenMP for oneDNN). */
void peers_set_threads(int threads);

/* C = A * B in f32 (m x k times k x n, row-major) through OpenBLAS's and BLIS's sgemm. */
typedef struct PeerSgemm {
    int64_t m, n, k;
    float *a, *b, *c;
} PeerSgemm;
void peer_openblas(void *sgemm);
void peer_blis(void *sgemm);

/* The element types of a oneDNN matmul (C f32 for f32 and bf16 inputs, s32 for u8 x s8). */
typedef enum PeerType { PEER_F32, PEER_BF16, PEER_U8S8 } PeerType;

/* oneDNN's matmul C = A * B on row-major buffers, ready to run. `no_amx`: the first implementation oneDNN
 * offers whose name does not mention AMX (its best on AVX-512 alone), else its first choice. NULL when
 * oneDNN offers none (or cannot start: then *why says so). */
typedef struct PeerDnnl PeerDnnl;
PeerDnnl *peer_dnnl_new(PeerType t, int64_t m, int64_t n, int64_t k, void *a, void *b, void *c, bool no_amx,
                        const char **why);
/* Runs the matmul (a Contender call: ctx is the PeerDnnl); exits the bench on a oneDNN failure. */
void peer_dnnl_run(void *ctx);
/* oneDNN's name of the implementation ("brg:avx512_core_amx"). */
const char *peer_dnnl_impl(const PeerDnnl *d);
void peer_dnnl_free(PeerDnnl *d);

#endif
