/* kernel_cache.c — the process-wide cache of JIT-compiled GEMM kernels, keyed by their signature and the host CPU. */
#include "gemm_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct KernelEntry {
    CgGemmSpec spec;
    CgPackConv conv_a, conv_b;
    bool direct;            /* with the macro-kernel reading A unpacked */
    char *cpu;              /* host CPU name and features the code was compiled for */
    JitModule *jm;          /* owned; kept until gemm_kernels_release */
    GemmKernels k;
    struct KernelEntry *next;
} KernelEntry;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static KernelEntry *cache;

bool gemm_spec_same(const CgGemmSpec *a, const CgGemmSpec *b)
{
    return a->kind == b->kind && a->mr == b->mr && a->nv == b->nv && a->vl == b->vl && a->fused == b->fused &&
           a->a_outer == b->a_outer && memcmp(a->order, b->order, sizeof a->order) == 0;
}

int gemm_kernels(const CgGemmSpec *spec, CgPackConv conv_a, CgPackConv conv_b, bool want_direct, GemmKernels *out,
                 char *err, size_t cap)
{
    /* the f32 and bf16 dot-product kernels also read row-major A unpacked (f32, bf16 pairs), which needs the M
     * block loop innermost; the f32 one also B (the small-product path) */
    bool direct = want_direct &&
                  ((spec->kind == CG_GEMM_F32 && conv_a == CG_PACK_F32) ||
                   (spec->kind == CG_GEMM_BF16DP && conv_a == CG_PACK_BF16)) &&
                  spec->order[2] == GEMM_M;
    bool small = direct && spec->kind == CG_GEMM_F32;
    const char *sig = gemm_cpu()->signature;
    pthread_mutex_lock(&cache_lock);
    for (KernelEntry *e = cache; e; e = e->next)
        if (gemm_spec_same(&e->spec, spec) && e->conv_a == conv_a && e->conv_b == conv_b && e->direct == direct && sig &&
            strcmp(e->cpu, sig) == 0) {
            *out = e->k;
            pthread_mutex_unlock(&cache_lock);
            return 0;
        }
    char *msg = NULL;
    void *fn = NULL;
    KernelEntry *e = calloc(1, sizeof *e);
    if (e && (e->jm = cg_gemm_jit(spec, conv_a, conv_b, direct, &msg))) {
        e->k.macro = jit_module_lookup(e->jm, "gemm_macro");
        e->k.macro_direct = direct ? jit_module_lookup(e->jm, "gemm_macro_direct") : NULL;
        e->k.macro_small = small ? jit_module_lookup(e->jm, "gemm_macro_small") : NULL;
        e->k.pack_a = (GemmPackFn)jit_module_lookup(e->jm, "gemm_pack_a");
        e->k.pack_b = (GemmPackFn)jit_module_lookup(e->jm, "gemm_pack_b");
        e->k.blocks = (GemmBlocksFn)jit_module_lookup(e->jm, "gemm_blocks");
        bool whole = e->k.macro && e->k.pack_a && e->k.pack_b && e->k.blocks &&
                     (!direct || e->k.macro_direct) && (!small || e->k.macro_small);
        fn = whole ? e->k.macro : NULL;
    }
    if (fn && sig) {
        e->spec = *spec;
        e->conv_a = conv_a;
        e->conv_b = conv_b;
        e->direct = direct;
        e->cpu = strdup(sig);
        *out = e->k;
        e->next = cache;
        cache = e;
    } else {
        snprintf(err, cap, "cannot compile the GEMM kernel: %s", msg ? msg : e ? "symbol not found" : "out of memory");
        if (e)
            jit_module_free(e->jm);
        free(e);
        fn = NULL;
    }
    free(msg);
    pthread_mutex_unlock(&cache_lock);
    return fn ? 0 : -1;
}

void gemm_kernels_release(void)
{
    pthread_mutex_lock(&cache_lock);
    while (cache) {
        KernelEntry *e = cache;
        cache = e->next;
        jit_module_free(e->jm);
        free(e->cpu);
        free(e);
    }
    pthread_mutex_unlock(&cache_lock);
}
