/* peers.c — calls into OpenBLAS, BLIS and oneDNN for the GEMM bench, and the choice of oneDNN's implementation. */
#include "peers.h"

#include <dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The peers' entry points, declared here: OpenBLAS and BLIS both export cblas_sgemm, so OpenBLAS is
 * reached through cblas_sgemm (linked first) and BLIS through its own typed API. */
void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda, const float *b,
                 int ldb, float beta, float *c, int ldc);
void openblas_set_num_threads(int n);
void bli_sgemm(int transa, int transb, int64_t m, int64_t n, int64_t k, float *alpha, float *a, int64_t rsa,
               int64_t csa, float *b, int64_t rsb, int64_t csb, float *beta, float *c, int64_t rsc, int64_t csc);
void bli_thread_set_num_threads(int64_t n);
void omp_set_num_threads(int n);

enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111, BLIS_NO_TRANSPOSE = 0 };

void peers_set_threads(int threads)
{
    openblas_set_num_threads(threads);
    bli_thread_set_num_threads(threads);
    omp_set_num_threads(threads);
}

void peer_openblas(void *p)
{
    PeerSgemm *s = p;
    cblas_sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, (int)s->m, (int)s->n, (int)s->k, 1.0f, s->a, (int)s->k,
                s->b, (int)s->n, 0.0f, s->c, (int)s->n);
}

void peer_blis(void *p)
{
    PeerSgemm *s = p;
    float one = 1.0f, zero = 0.0f;
    bli_sgemm(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, s->m, s->n, s->k, &one, s->a, s->k, 1, s->b, s->n, 1, &zero, s->c,
              s->n, 1);
}

struct PeerDnnl {
    dnnl_primitive_t prim;
    dnnl_primitive_desc_t pd;
    dnnl_memory_t mem[3];
    dnnl_exec_arg_t args[3];
    char impl[64];
};

/* One engine and stream for every matmul of the run, made on first use. */
static dnnl_engine_t engine;
static dnnl_stream_t stream;

/* oneDNN's implementation name of pd. */
static const char *impl_of(const_dnnl_primitive_desc_t pd)
{
    const char *s = NULL;
    return dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &s) == dnnl_success && s ? s : "?";
}

/* The first implementation of md that oneDNN offers, or with no_amx the first whose name lacks "amx"; NULL if
 * there is none. */
static dnnl_primitive_desc_t choose_impl(const dnnl_matmul_desc_t *md, bool no_amx)
{
    dnnl_primitive_desc_iterator_t it;
    if (dnnl_primitive_desc_iterator_create(&it, md, NULL, engine, NULL) != dnnl_success)
        return NULL;
    dnnl_primitive_desc_t pd = NULL;
    do {
        dnnl_primitive_desc_t cand = dnnl_primitive_desc_iterator_fetch(it);
        if (cand && (!no_amx || !strstr(impl_of(cand), "amx"))) {
            pd = cand;
            break;
        }
        if (cand)
            dnnl_primitive_desc_destroy(cand);
    } while (dnnl_primitive_desc_iterator_next(it) == dnnl_success);
    dnnl_primitive_desc_iterator_destroy(it);
    return pd;
}

PeerDnnl *peer_dnnl_new(PeerType t, int64_t m, int64_t n, int64_t k, void *a, void *b, void *c, bool no_amx,
                        const char **why)
{
    *why = NULL;
    if (!engine && (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success ||
                    dnnl_stream_create(&stream, engine, dnnl_stream_default_flags) != dnnl_success)) {
        *why = "cannot create the oneDNN engine";
        return NULL;
    }
    static const dnnl_data_type_t types[3][3] = {{dnnl_f32, dnnl_f32, dnnl_f32},
                                                 {dnnl_bf16, dnnl_bf16, dnnl_f32},
                                                 {dnnl_u8, dnnl_s8, dnnl_s32}};
    dnnl_memory_desc_t md[3];
    dnnl_dims_t dims[3] = {{m, k}, {k, n}, {m, n}};
    dnnl_matmul_desc_t mm;
    for (int i = 0; i < 3; i++)
        if (dnnl_memory_desc_init_by_tag(&md[i], 2, dims[i], types[t][i], dnnl_ab) != dnnl_success) {
            *why = "cannot describe the oneDNN operands";
            return NULL;
        }
    if (dnnl_matmul_desc_init(&mm, &md[0], &md[1], NULL, &md[2]) != dnnl_success) {
        *why = "cannot describe the oneDNN matmul";
        return NULL;
    }
    PeerDnnl *d = calloc(1, sizeof *d);
    if (!d || !(d->pd = choose_impl(&mm, no_amx))) {
        free(d);
        return NULL;
    }
    snprintf(d->impl, sizeof d->impl, "%s", impl_of(d->pd));
    void *data[3] = {a, b, c};
    static const int arg[3] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
    bool ok = dnnl_primitive_create(&d->prim, d->pd) == dnnl_success;
    for (int i = 0; i < 3 && ok; i++) {
        ok = dnnl_memory_create(&d->mem[i], &md[i], engine, data[i]) == dnnl_success;
        d->args[i] = (dnnl_exec_arg_t){arg[i], d->mem[i]};
    }
    if (!ok) {
        peer_dnnl_free(d);
        *why = "cannot create the oneDNN matmul";
        return NULL;
    }
    return d;
}

void peer_dnnl_run(void *ctx)
{
    PeerDnnl *d = ctx;
    if (dnnl_primitive_execute(d->prim, stream, 3, d->args) != dnnl_success ||
        dnnl_stream_wait(stream) != dnnl_success) {
        fprintf(stderr, "bench-gemm: oneDNN execution failed\n");
        exit(1);
    }
}

const char *peer_dnnl_impl(const PeerDnnl *d) { return d->impl; }

void peer_dnnl_free(PeerDnnl *d)
{
    if (!d)
        return;
    if (d->prim)
        dnnl_primitive_destroy(d->prim);
    if (d->pd)
        dnnl_primitive_desc_destroy(d->pd);
    for (int i = 0; i < 3; i++)
        if (d->mem[i])
            dnnl_memory_destroy(d->mem[i]);
    free(d);
}
