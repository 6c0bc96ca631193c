/* aot_run.c — the runner of kernels compiled ahead of time by `mapc emit`: an emitted descriptor's routines on
 * the caller's buffers, with one engine and staging buffers kept per kernel (the engine remade for another
 * thread count, so the threads alive are bounded by the last count, not the sum of every count used). */
#include "gemm_impl.h"
#include "rt_gemm.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a descriptor runs with, made on its first call and kept until gemm_aot_forget or gemm_release_kernels. */
typedef struct AotState {
    const CgAotKernel *d;
    CgAotKernel copy;       /* *d when the state was made: an object unloaded and another loaded at the same
                             * address (dlclose, dlopen) has a descriptor there that differs */
    int threads;            /* the engine's */
    pthread_mutex_t lock;   /* one call at a time: the engine and the staging buffers are the state's */
    Gemm *engine;           /* owned; remade by a call with another thread count */
    void *stage[3];         /* owned: row-major buffers of staged operands */
    GemmUnit *units;        /* owned: nblocks units, their views made per call */
    struct AotState *next;
} AotState;

static pthread_mutex_t states_lock = PTHREAD_MUTEX_INITIALIZER;
static AotState *states;

static void state_free(AotState *s)
{
    if (!s)
        return;
    gemm_free(s->engine);
    for (int i = 0; i < 3; i++)
        free(s->stage[i]);
    free(s->units);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* The tiling the descriptor's routines were compiled for. */
static GemmTiling tiling_of(const CgAotKernel *d)
{
    return (GemmTiling){.mr = (int)d->mr, .nr = (int)(d->nv * d->vl), .kgroup = (int)d->kgroup, .mc = d->mc,
                        .nc = d->nc, .kc = d->kc, .order = {d->order[0], d->order[1], d->order[2]},
                        .split = (int)d->split};
}

/* An engine of threads for d (refusing an ISA the host lacks) with d's routines as its kernels. NULL with err. */
static Gemm *engine_new(const CgAotKernel *d, int threads, char *err, size_t cap)
{
    char why[256];
    Gemm *g = gemm_new(&(GemmOptions){.threads = threads, .isa = (TargetIsa)d->isa}, why, sizeof why);
    if (!g) {
        snprintf(err, cap, "kernel %s: %s", d->name, why);
        return NULL;
    }
    CgGemmSpec spec = {.kind = (CgGemmKind)d->kind, .mr = (int)d->mr, .nv = (int)d->nv, .vl = (int)d->vl,
                       .fused = d->fused != 0, .a_outer = d->a_outer != 0,
                       .order = {d->order[0], d->order[1], d->order[2]}};
    GemmKernels k = {.macro = d->macro, .pack_a = (GemmPackFn)d->pack_a, .pack_b = (GemmPackFn)d->pack_b,
                     .blocks = (GemmBlocksFn)d->loop_nest};
    GemmTiling tl = tiling_of(d);
    if (gemm_use_kernels(g, &tl, gemm_type_of((ElemType)d->op[0].elem), &spec, (CgPackConv)d->conv_a,
                         (CgPackConv)d->conv_b, &k, why, sizeof why)) {
        snprintf(err, cap, "kernel %s: %s", d->name, why);
        gemm_free(g);
        return NULL;
    }
    return g;
}

/* A new state for d with an engine of threads and the staging buffers. NULL with err. */
static AotState *state_new(const CgAotKernel *d, int threads, char *err, size_t cap)
{
    AotState *s = calloc(1, sizeof *s);
    if (!s || !(s->units = calloc(d->nblocks ? (size_t)d->nblocks : 1, sizeof *s->units))) {
        free(s);
        snprintf(err, cap, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&s->lock, NULL);
    s->d = d;
    s->copy = *d;
    s->threads = threads;
    if (!(s->engine = engine_new(d, threads, err, cap))) {
        state_free(s);
        return NULL;
    }
    for (int i = 0; i < 3; i++) {
        const CgAotOperand *o = &d->op[i];
        if (o->strided)
            continue;
        size_t n = (size_t)o->rows * (size_t)o->cols * elem_type_size((ElemType)o->elem);
        if (!(s->stage[i] = malloc(n ? n : 1))) {
            snprintf(err, cap, "out of memory");
            state_free(s);
            return NULL;
        }
    }
    return s;
}

/* The state of d, made on first use with an engine of threads (a stale one of an unloaded object is dropped).
 * NULL with err. */
static AotState *state_of(const CgAotKernel *d, int threads, char *err, size_t cap)
{
    pthread_mutex_lock(&states_lock);
    AotState *s = states, **link = &states;
    while (s && s->d != d) {
        link = &s->next;
        s = s->next;
    }
    if (s && memcmp(&s->copy, d, sizeof *d) != 0) {
        *link = s->next;
        state_free(s);
        s = NULL;
    }
    if (!s && (s = state_new(d, threads, err, cap))) {
        s->next = states;
        states = s;
    }
    pthread_mutex_unlock(&states_lock);
    return s;
}

void gemm_aot_forget(const CgAotKernel *d)
{
    pthread_mutex_lock(&states_lock);
    for (AotState **link = &states; *link;) {
        AotState *s = *link;
        if (s->d == d) {
            *link = s->next;
            state_free(s);
        } else {
            link = &s->next;
        }
    }
    pthread_mutex_unlock(&states_lock);
}

/* The runner's engines go first: they hold kernels of the cache (their tilings' routines). */
void gemm_release_kernels(void)
{
    pthread_mutex_lock(&states_lock);
    while (states) {
        AotState *s = states;
        states = s->next;
        state_free(s);
    }
    pthread_mutex_unlock(&states_lock);
    gemm_kernels_release();
}

/* The view of operand o over data (the caller's buffer when in place, the staging buffer otherwise). */
static GemmView operand_view(const CgAotOperand *o, void *data)
{
    GemmType t = gemm_type_of((ElemType)o->elem);
    if (!o->strided)
        return gemm_view(data, (uint64_t)(o->rows * o->cols), (uint64_t)o->rows, (uint64_t)o->cols, o->cols, 1, t);
    return gemm_view((char *)data + (size_t)o->base * gemm_type_size(t), (uint64_t)(o->elems - o->base),
                     (uint64_t)o->rows, (uint64_t)o->cols, o->rs, o->cs, t);
}

int gemm_aot_run(const CgAotKernel *d, const void *a, const void *b, void *c, double alpha, double beta, int threads,
                 char *err, size_t cap)
{
    if (d->abi != CG_AOT_ABI) {
        snprintf(err, cap, "the kernel's object was emitted for runner ABI %lld; this libmapc runs ABI %d (emit it "
                 "again with this mapc)", (long long)d->abi, CG_AOT_ABI);
        return -1;
    }
    if (gemm_aot_host_check(d, gemm_cpu()->signature, err, cap)) /* no routine runs on a host without its ISA */
        return -1;
    AotState *s = state_of(d, threads, err, cap);
    if (!s)
        return -1;
    pthread_mutex_lock(&s->lock);
    if (s->threads != threads) {
        /* the old engine's pool goes before the new one starts, so at most one pool per kernel is alive */
        gemm_free(s->engine);
        s->threads = threads;
        if (!(s->engine = engine_new(d, threads, err, cap))) {
            s->threads = 0;
            pthread_mutex_unlock(&s->lock);
            return -1;
        }
    }
    const void *in[3] = {a, b, c};
    GemmView v[3];
    for (int i = 0; i < 3; i++) {
        const CgAotOperand *o = &d->op[i];
        if (!o->strided && (i < 2 || beta != 0.0))
            ((void (*)(void *, const void *))o->stage_in)(s->stage[i], in[i]);
        v[i] = operand_view(o, o->strided ? (void *)in[i] : s->stage[i]);
    }
    uint64_t K = (uint64_t)d->op[0].cols;
    for (int64_t i = 0; i < d->nblocks; i++) {
        const int64_t *x = d->blocks + 4 * i;
        uint64_t m0 = (uint64_t)x[0], n0 = (uint64_t)x[1], rows = (uint64_t)x[2], cols = (uint64_t)x[3];
        s->units[i] = (GemmUnit){.a = gemm_sub_view(&v[0], m0, 0, rows, K), .b = gemm_sub_view(&v[1], 0, n0, K, cols),
                                 .c = gemm_sub_view(&v[2], m0, n0, rows, cols)};
    }
    GemmTiling tl = tiling_of(d);
    char why[256];
    bool is_int = d->op[0].elem == ELEM_I8;
    int r = is_int ? gemm_i8_units(s->engine, &tl, (int32_t)alpha, (int32_t)beta, s->units, (size_t)d->nblocks, why,
                                   sizeof why)
                   : gemm_f32_units(s->engine, &tl, (float)alpha, (float)beta, s->units, (size_t)d->nblocks, why,
                                    sizeof why);
    if (r)
        snprintf(err, cap, "kernel %s: %s", d->name, why);
    else if (!d->op[2].strided)
        ((void (*)(void *, const void *))d->op[2].stage_out)(c, s->stage[2]);
    pthread_mutex_unlock(&s->lock);
    return r;
}
