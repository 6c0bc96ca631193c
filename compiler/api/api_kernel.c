/* api_kernel.c — the public declared-kernel API (mapc_kernel_*): a program's GEMM kernel, JIT-compiled, run on
 * the caller's buffers by the runner that also runs emitted kernels. */
#include "api_impl.h"
#include "gemm/rt_gemm.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mapc_kernel {
    const KernelDecl *k;
    GemmJitKernel *jit;     /* owned: the descriptor the runner runs */
    int threads;
    size_t bytes[3];
    char error[512];
};

void mapc_kernel_free(mapc_kernel *k)
{
    if (!k)
        return;
    gemm_jit_kernel_free(k->jit);
    free(k);
}

static mapc_status kernel_create_body(mapc_program *p, const char *name, const mapc_kernel_options *opts,
                                      mapc_kernel **out)
{
    if (!out)
        return MAPC_ERR_ARGUMENT;
    *out = NULL;
    if (!p || !name)
        return MAPC_ERR_ARGUMENT;
    if (p->compile_errors)
        return MAPC_ERR_INPUT;
    mapc_kernel_options o = opts ? *opts : (mapc_kernel_options){0};
    if (o.threads < 0 || o.threads > 1024)
        return api_refuse(p, MAPC_ERR_ARGUMENT, "kernel threads must be 0 (one) to 1024");
    const Prog *prog = p->prog;
    const KernelDecl *decl = NULL;
    for (int i = 0; i < prog->nkernels && !decl; i++)
        if (strcmp(prog->kernels[i]->name, name) == 0)
            decl = prog->kernels[i];
    if (!decl)
        return MAPC_ERR_NOT_FOUND;
    if (!target_host_supports(decl->isa)) {
        char msg[160];
        snprintf(msg, sizeof msg, "kernel %s: the host CPU cannot run the %s kernels", name, target_isa_name(decl->isa));
        return api_refuse(p, MAPC_ERR_BACKEND, msg);
    }
    mapc_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return MAPC_ERR_NOMEM;
    k->k = decl;
    k->threads = o.threads ? o.threads : 1;
    char err[512];
    if (!(k->jit = gemm_jit_kernel_new(p->prog, decl, err, sizeof err))) {
        free(k);
        return api_refuse(p, strstr(err, "out of memory") ? MAPC_ERR_NOMEM : MAPC_ERR_BACKEND, err);
    }
    const CgAotKernel *d = gemm_jit_kernel_descriptor(k->jit);
    for (int i = 0; i < 3; i++)
        k->bytes[i] = (size_t)d->op[i].elems * elem_type_size((ElemType)d->op[i].elem);
    /* a zero-scale product of zeros starts the runner's engine and buffers now, so the first run does not pay */
    /* each operand's zeros start on a 64-byte boundary, as the elements' alignment needs */
    size_t off_b = (k->bytes[0] + 63) / 64 * 64, off_c = off_b + (k->bytes[1] + 63) / 64 * 64;
    char *zero = aligned_alloc(64, off_c + (k->bytes[2] + 63) / 64 * 64 + 64);
    if (zero)
        memset(zero, 0, off_c + (k->bytes[2] + 63) / 64 * 64 + 64);
    int r = zero ? gemm_aot_run(d, zero, zero + off_b, zero + off_c, 0.0, 0.0, k->threads, err, sizeof err) : -1;
    free(zero);
    if (r) {
        mapc_kernel_free(k);
        return api_refuse(p, zero ? MAPC_ERR_BACKEND : MAPC_ERR_NOMEM, zero ? err : "out of memory");
    }
    *out = k;
    return MAPC_OK;
}

mapc_status mapc_kernel_create(mapc_program *p, const char *name, const mapc_kernel_options *opts,
                               mapc_kernel **out)
{
    if (api_cache_default() != MAPC_OK)
        return MAPC_ERR_NOMEM;
    GUARDED(kernel_create_body(p, name, opts, out));
}

size_t mapc_kernel_operand_bytes(const mapc_kernel *k, int operand)
{
    return k && operand >= 0 && operand < 3 ? k->bytes[operand] : 0;
}

bool api_scalar_ok(bool is_int, const char *what, double v, char *err, size_t cap)
{
    if (!isfinite(v) || fabs(v) > FLT_MAX || (is_int && (v != floor(v) || v < INT32_MIN || v > INT32_MAX))) {
        api_set_error(err, cap, "%s (%g) must be %s", what, v,
                      is_int ? "a 32-bit integer for an i8 kernel" : "finite and within the range of f32");
        return false;
    }
    return true;
}

static mapc_status kernel_run_body(mapc_kernel *k, const void *a, const void *b, void *c, double alpha, double beta)
{
    if (!k)
        return MAPC_ERR_ARGUMENT;
    k->error[0] = 0;
    const void *in[3] = {a, b, c};
    for (int i = 0; i < 3; i++)
        if (!in[i]) {
            api_set_error(k->error, sizeof k->error, "operand %c's buffer is missing (a null pointer)", "ABC"[i]);
            return MAPC_ERR_ARGUMENT;
        }
    bool is_int = k->k->c->elem == ELEM_I32;
    if (!api_scalar_ok(is_int, "alpha", alpha, k->error, sizeof k->error) ||
        !api_scalar_ok(is_int, "beta", beta, k->error, sizeof k->error))
        return MAPC_ERR_ARGUMENT;
    /* in place on the caller's buffers: operands with strided layouts are read (C written) where they are,
     * the others staged by the kernel's relayout kernels */
    char err[512];
    if (gemm_aot_run(gemm_jit_kernel_descriptor(k->jit), a, b, c, alpha, beta, k->threads, err, sizeof err)) {
        api_set_error(k->error, sizeof k->error, "%s", err);
        return strstr(err, "out of memory") ? MAPC_ERR_NOMEM : MAPC_ERR_BACKEND;
    }
    return MAPC_OK;
}

mapc_status mapc_kernel_run(mapc_kernel *k, const void *a, const void *b, void *c, double alpha, double beta)
{
    GUARDED(kernel_run_body(k, a, b, c, alpha, beta));
}

const char *mapc_kernel_error(const mapc_kernel *k) { return k ? k->error : "no kernel (a null pointer)"; }
