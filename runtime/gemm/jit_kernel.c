/* jit_kernel.c — a declared kernel described for the runner with JIT-compiled code: the cached GEMM routines
 * of its spec and the relayout kernels of its staged operands, so that mapc_kernel_run and emitted objects run
 * through one path (gemm_aot_run) on the caller's buffers. */
#include "gemm_impl.h"
#include "rt_gemm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct GemmJitKernel {
    CgAotKernel d;          /* d.blocks owned */
    JitModule *stage[4];    /* owned: A, B and C in, C out (NULL: not staged) */
};

/* The relayout kernel from src to dst as elem, compiled into *jm; its entry point, or NULL with err. */
static void *stage_kernel(Prog *p, const Map *src, const Map *dst, ElemType elem, JitModule **jm, char *err,
                          size_t cap)
{
    Arena scratch = {0};
    Diags d;
    diags_init(&d, &scratch);
    Copy c = {.name = "mapc_stage", .src = src, .dst = dst, .elem = elem};
    void *fn = NULL;
    if (!(*jm = jit_copy_kernel(p, &c, 2, &d)))
        snprintf(err, cap, "cannot compile a staging kernel: %s", d.head ? d.head->msg : "?");
    else if (!(fn = jit_module_lookup(*jm, "mapc_stage")))
        snprintf(err, cap, "the compiled staging kernel has no entry point");
    arena_free(&scratch);
    return fn;
}

GemmJitKernel *gemm_jit_kernel_new(Prog *p, const KernelDecl *k, char *err, size_t cap)
{
    GemmJitKernel *j = calloc(1, sizeof *j);
    if (!j) {
        snprintf(err, cap, "out of memory");
        return NULL;
    }
    /* a declared K group whose dot product this CPU lacks runs widened, as rt_gemm runs it */
    char why[256];
    Gemm *probe = gemm_new(&(GemmOptions){.threads = 1, .isa = k->isa}, why, sizeof why);
    if (!probe) {
        snprintf(err, cap, "kernel %s: %s", k->name, why);
        free(j);
        return NULL;
    }
    int kgroup = gemm_runnable_kgroup(probe, gemm_type_of(k->a->elem), k->kgroup);
    gemm_free(probe);
    const Map *layout[3], *staging[3];
    if (cg_kernel_describe(p, k, kgroup, &j->d, layout, staging, err, cap)) {
        free(j);
        return NULL;
    }
    j->d.name = k->name;
    CgGemmSpec spec = {.kind = (CgGemmKind)j->d.kind, .mr = (int)j->d.mr, .nv = (int)j->d.nv, .vl = (int)j->d.vl,
                       .fused = j->d.fused != 0, .a_outer = j->d.a_outer != 0,
                       .order = {j->d.order[0], j->d.order[1], j->d.order[2]}};
    GemmKernels g;
    bool ok = gemm_kernels(&spec, (CgPackConv)j->d.conv_a, (CgPackConv)j->d.conv_b, false, &g, why, sizeof why) == 0;
    if (!ok)
        snprintf(err, cap, "kernel %s: %s", k->name, why);
    j->d.macro = g.macro;
    j->d.pack_a = (void *)g.pack_a;
    j->d.pack_b = (void *)g.pack_b;
    j->d.loop_nest = (void *)g.blocks;
    for (int i = 0; i < 3 && ok; i++) {
        if (!staging[i])
            continue;
        CgAotOperand *o = &j->d.op[i];
        ElemType e = (ElemType)o->elem;
        ok = (o->stage_in = (void (*)(void *, const void *))stage_kernel(p, layout[i], staging[i], e, &j->stage[i],
                                                                          err, cap)) != NULL;
        if (ok && i == 2)
            ok = (o->stage_out = (void (*)(void *, const void *))stage_kernel(p, staging[i], layout[i], e,
                                                                               &j->stage[3], err, cap)) != NULL;
    }
    if (!ok) {
        gemm_jit_kernel_free(j);
        return NULL;
    }
    return j;
}

const CgAotKernel *gemm_jit_kernel_descriptor(const GemmJitKernel *j)
{
    return &j->d;
}

void gemm_jit_kernel_free(GemmJitKernel *j)
{
    if (!j)
        return;
    gemm_aot_forget(&j->d);
    for (int i = 0; i < 4; i++)
        jit_module_free(j->stage[i]);
    free((void *)j->d.blocks);
    free(j);
}
