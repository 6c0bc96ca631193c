/* aot_isa.c — whether the host runs an emitted kernel's routines: every target feature they were compiled with
 * (cg_aot_features of the descriptor's ISA and kernel kind) against the host's, before any of them is called. */
#include "gemm_impl.h"
#include "rt_gemm.h"

#include <stdio.h>
#include <string.h>

/* Whether the feature list features ("cpu +a,-b,+c" or "+a,+c") has exactly "+name". */
static bool has_feature(const char *features, const char *name, size_t n)
{
    for (const char *p = strchr(features, '+'); p; p = strchr(p + 1, '+'))
        if (strncmp(p + 1, name, n) == 0 && (p[1 + n] == ',' || p[1 + n] == '\0'))
            return true;
    return false;
}

int gemm_aot_host_check(const CgAotKernel *d, const char *host, char *err, size_t cap)
{
    const char *name = d->name ? d->name : "?";
    if (d->isa != TARGET_ISA_AVX512 && d->isa != TARGET_ISA_AVX2 && d->isa != TARGET_ISA_PORTABLE) {
        snprintf(err, cap, "kernel %s: its object names no ISA this libmapc knows (%lld)", name, (long long)d->isa);
        return -1;
    }
    if (d->kind < 0 || d->kind > CG_GEMM_I32) {
        snprintf(err, cap, "kernel %s: its object names no kernel kind this libmapc knows (%lld)", name,
                 (long long)d->kind);
        return -1;
    }
    const char *need = cg_aot_features((TargetIsa)d->isa, (CgGemmKind)d->kind);
    for (const char *f = need; *f;) {
        f += *f == '+';
        size_t n = strcspn(f, ",");
        if (!host || !has_feature(host, f, n)) {
            snprintf(err, cap, "kernel %s: its routines were compiled for %s and need %.*s, which this host CPU lacks "
                     "(emit it with a lower --isa)", name, target_isa_name((TargetIsa)d->isa), (int)n, f);
            return -1;
        }
        f += n + (f[n] == ',');
    }
    return 0;
}
