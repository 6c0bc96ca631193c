/* cpu.c — the host CPU as LLVM compiles the GEMM kernels for it: its signature and the features that choose kernels. */
#include "gemm_impl.h"

#include <pthread.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;
static GemmCpu cpu;

/* Whether the feature list of signature sig has exactly "+name". */
static bool has_feature(const char *sig, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strchr(sig, '+'); p; p = strchr(p + 1, '+'))
        if (strncmp(p + 1, name, n) == 0 && (p[1 + n] == ',' || p[1 + n] == '\0'))
            return true;
    return false;
}

/* Whether CPUID names an AMD core of family 17h (Zen) or later: LLVM's host name lags new cores (LLVM 14
 * calls a Zen 5 "generic"), so its "znver" prefix alone misses them. */
static bool cpuid_zen(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d) || b != 0x68747541u || d != 0x69746e65u || c != 0x444d4163u) /* AuthenticAMD */
        return false;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return false;
    unsigned family = (a >> 8) & 0xf;
    if (family == 0xf)
        family += (a >> 20) & 0xff;
    return family >= 0x17;
#else
    return false;
#endif
}

/* Fills cpu from LLVM's view of the host (once, through cpu_once). */
static void cpu_init(void)
{
    const char *sig = cg_host_signature(); /* kept until the process ends */
    cpu.signature = sig;
    cpu.bf16 = sig && has_feature(sig, "avx512bf16");
    cpu.vnni = sig && has_feature(sig, "avx512vnni");
    /* AMD Zen 4 and later run vdpbf16ps at twice the f32 FMA rate; Intel cores (Cooper Lake to
     * Emerald Rapids) on a single port, no faster than two FMA ports, so there bf16 is widened to f32
     * in packing and runs on the f32 kernel (measured: 0.55x vs 1.0x of f32 on a Xeon model 207). */
    cpu.zen = (sig && strncmp(sig, "znver", 5) == 0) || cpuid_zen();
    cpu.caches = target_host_caches();
}

const GemmCpu *gemm_cpu(void)
{
    pthread_once(&cpu_once, cpu_init);
    return &cpu;
}

bool gemm_cpu_has_op(TargetOp op)
{
    const GemmCpu *c = gemm_cpu();
    switch (op) {
    case TARGET_OP_DPBF16: return c->bf16;
    case TARGET_OP_VNNI: return c->vnni;
    case TARGET_OP_FMA:
    case TARGET_OP_MULADD:
    case TARGET_OP_I32_MULADD: return true;
    }
    return false;
}
