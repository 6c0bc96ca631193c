/* api_aot.c — the public runner of kernels that `mapc emit` compiled ahead of time (mapc_aot_*): what an
 * emitted entry point calls, with its last error kept per thread. */
#include "api_impl.h"
#include "gemm/rt_gemm.h"

#include <string.h>

static _Thread_local char aot_error[512];

static mapc_status aot_run_body(const void *descriptor, const void *a, const void *b, void *c, double alpha,
                                double beta, int threads)
{
    aot_error[0] = 0;
    const CgAotKernel *d = descriptor;
    if (!d) {
        api_set_error(aot_error, sizeof aot_error, "no kernel descriptor (a null pointer)");
        return MAPC_ERR_ARGUMENT;
    }
    const void *in[3] = {a, b, c};
    for (int i = 0; i < 3; i++)
        if (!in[i]) {
            api_set_error(aot_error, sizeof aot_error, "kernel %s: operand %c's buffer is missing (a null pointer)",
                          d->abi == CG_AOT_ABI ? d->name : "?", "ABC"[i]);
            return MAPC_ERR_ARGUMENT;
        }
    if (threads < 0 || threads > 1024) {
        api_set_error(aot_error, sizeof aot_error, "kernel threads must be 0 (one) to 1024, not %d", threads);
        return MAPC_ERR_ARGUMENT;
    }
    bool is_int = d->abi == CG_AOT_ABI && d->op[0].elem == ELEM_I8;
    if (!api_scalar_ok(is_int, "alpha", alpha, aot_error, sizeof aot_error) ||
        !api_scalar_ok(is_int, "beta", beta, aot_error, sizeof aot_error))
        return MAPC_ERR_ARGUMENT;
    char err[512];
    if (gemm_aot_run(d, a, b, c, alpha, beta, threads ? threads : 1, err, sizeof err)) {
        api_set_error(aot_error, sizeof aot_error, "%s", err);
        return strstr(err, "out of memory") ? MAPC_ERR_NOMEM : MAPC_ERR_BACKEND;
    }
    return MAPC_OK;
}

mapc_status mapc_aot_run(const void *descriptor, const void *a, const void *b, void *c, double alpha, double beta,
                         int threads)
{
    GUARDED(aot_run_body(descriptor, a, b, c, alpha, beta, threads));
}

const char *mapc_aot_error(void) { return aot_error; }
