/* api_kernel.c — the public declared-kernel API (mapc_kernel_*): a program's GEMM kernel run on the
 * caller's buffers through the runtime. */
#include "api_impl.h"
#include "gemm/rt_gemm.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct mapc_kernel {
    const KernelDecl *k;
    RtContext *rt;          /* owned */
    RtTensor *t[3];         /* owned: A, B, C as declared */
    size_t bytes[3];
    RtGemm *g;              /* owned */
    char error[512];
};

void mapc_kernel_free(mapc_kernel *k)
{
    if (!k)
        return;
    rt_gemm_free(k->g);
    for (int i = 0; i < 3; i++)
        rt_tensor_free(k->t[i]);
    rt_free(k->rt);
    free(k);
}

/* Appends a diagnostic without a source position to the program (what the kernel calls report). */
static mapc_status refuse(mapc_program *p, mapc_status s, const char *msg)
{
    diag_error(&p->prog->diags, (Loc){0}, "%s", msg);
    return s;
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
        return refuse(p, MAPC_ERR_ARGUMENT, "kernel threads must be 0 (one) to 1024");
    const Prog *prog = p->prog;
    const KernelDecl *decl = NULL;
    for (int i = 0; i < prog->nkernels && !decl; i++)
        if (strcmp(prog->kernels[i]->name, name) == 0)
            decl = prog->kernels[i];
    if (!decl)
        return MAPC_ERR_NOT_FOUND;
    mapc_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return MAPC_ERR_NOMEM;
    k->k = decl;
    RtConfig cfg = rt_default_config();
    cfg.threads = o.threads ? o.threads : 1;
    if (!(k->rt = rt_new(p->prog, &cfg))) {
        free(k);
        return MAPC_ERR_NOMEM;
    }
    const TensorDecl *ops[3] = {decl->a, decl->b, decl->c};
    mapc_status s = MAPC_OK;
    for (int i = 0; i < 3 && s == MAPC_OK; i++) {
        k->t[i] = rt_tensor_declared(k->rt, ops[i]->name);
        if (!k->t[i])
            s = refuse(p, MAPC_ERR_INPUT, rt_error(k->rt));
        else
            k->bytes[i] = (size_t)rt_tensor_elems(k->t[i]) * elem_type_size(ops[i]->elem);
    }
    if (s == MAPC_OK && !(k->g = rt_gemm_new(k->rt, decl, k->t[0], k->t[1], k->t[2])))
        s = refuse(p, strstr(rt_error(k->rt), "memory") ? MAPC_ERR_NOMEM : MAPC_ERR_BACKEND, rt_error(k->rt));
    if (s != MAPC_OK) {
        mapc_kernel_free(k);
        return s;
    }
    *out = k;
    return MAPC_OK;
}

mapc_status mapc_kernel_create(mapc_program *p, const char *name, const mapc_kernel_options *opts,
                               mapc_kernel **out)
{
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
    /* the caller's buffers have the tensors' layouts: their bytes go in and C's come back (C goes in even
     * when beta is 0, so that the cells of C's layout that are padding come back as the caller left them) */
    memcpy(rt_tensor_data(k->t[0]), a, k->bytes[0]);
    memcpy(rt_tensor_data(k->t[1]), b, k->bytes[1]);
    memcpy(rt_tensor_data(k->t[2]), c, k->bytes[2]);
    if (rt_gemm_run(k->g, alpha, beta)) {
        api_set_error(k->error, sizeof k->error, "%s", rt_error(k->rt));
        return MAPC_ERR_BACKEND;
    }
    memcpy(c, rt_tensor_data(k->t[2]), k->bytes[2]);
    return MAPC_OK;
}

mapc_status mapc_kernel_run(mapc_kernel *k, const void *a, const void *b, void *c, double alpha, double beta)
{
    GUARDED(kernel_run_body(k, a, b, c, alpha, beta));
}

const char *mapc_kernel_error(const mapc_kernel *k) { return k ? k->error : "no kernel (a null pointer)"; }
