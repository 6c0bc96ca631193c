/* test_aot_isa.c — the runner of emitted kernels refuses routines the host cannot run (gemm_aot_host_check), judged
 * against given hosts' feature lists so that an AVX-512 machine tests an AVX2 and a portable host too: every
 * feature of the kernel's ISA and kind (cg_aot_features) must be the host's, "-feature" is not having it, an ISA or
 * kind the runner does not know is refused, and mapc_aot_run itself refuses such a descriptor before it runs
 * anything. */
#include "gemm/rt_gemm.h"
#include "harness.h"

#include <string.h>

static const char avx512_host[] = "znver4 +avx512f,+avx512bw,+avx512vl,+avx512dq,+avx2,+avx,+fma,+f16c,+avx512bf16,"
                                  "+avx512vnni,+sse4.2";
static const char avx512_no_dot[] = "skylake-avx512 +avx512f,+avx512bw,+avx512vl,+avx512dq,+avx2,+avx,+fma,+f16c,"
                                    "-avx512bf16,-avx512vnni";
static const char avx2_host[] = "haswell +avx2,+avx,+fma,+f16c,+sse4.2,-avx512f,-avx512bw,-avx512vl,-avx512dq";
static const char avx2_no_f16c[] = "somecpu +avx2,+avx,+fma,-f16c";
static const char sse_host[] = "x86-64 +sse2,-avx,-avx2,-fma,-avx512f";

/* Checks d against host: refused (with want in the message) or, want NULL, accepted. */
static void expect(TargetIsa isa, CgGemmKind kind, const char *host, const char *want, const char *what)
{
    CgAotKernel d = {.abi = CG_AOT_ABI, .name = "k", .isa = isa, .kind = kind};
    char err[512] = "";
    int r = gemm_aot_host_check(&d, host, err, sizeof err);
    if (want)
        CHECK(r == -1 && strstr(err, want) && strstr(err, "kernel k:"), "%s: refused with '%s': %s", what, want, err);
    else
        CHECK(r == 0, "%s: runs (%s)", what, err);
}

int main(int argc, char **argv)
{
    HarnessArgs a = {.seed = 1};
    harness_args(argc, argv, "[SEED]", &a);
    expect(TARGET_ISA_AVX512, CG_GEMM_F32, avx512_host, NULL, "avx512 f32 on an AVX-512 host");
    expect(TARGET_ISA_AVX512, CG_GEMM_BF16DP, avx512_host, NULL, "avx512 bf16 dot products on a host with them");
    expect(TARGET_ISA_AVX512, CG_GEMM_I8VNNI, avx512_host, NULL, "avx512 VNNI on a host with it");
    expect(TARGET_ISA_AVX512, CG_GEMM_BF16DP, avx512_no_dot, "need avx512bf16", "bf16 dot products without them");
    expect(TARGET_ISA_AVX512, CG_GEMM_I8VNNI, avx512_no_dot, "need avx512vnni", "VNNI without it");
    expect(TARGET_ISA_AVX512, CG_GEMM_F32, avx512_no_dot, NULL, "avx512 f32 without the dot products");
    expect(TARGET_ISA_AVX512, CG_GEMM_F32, avx2_host, "compiled for avx512 and need avx512f", "avx512 on an AVX2 host");
    expect(TARGET_ISA_AVX2, CG_GEMM_F32, avx2_host, NULL, "avx2 on an AVX2 host");
    expect(TARGET_ISA_AVX2, CG_GEMM_I32, avx512_host, NULL, "avx2 on an AVX-512 host");
    expect(TARGET_ISA_AVX2, CG_GEMM_F32, avx2_no_f16c, "need f16c", "avx2 on a host without F16C");
    expect(TARGET_ISA_AVX2, CG_GEMM_F32, sse_host, "need avx2", "avx2 on an SSE host ('-avx2' is not having it)");
    expect(TARGET_ISA_PORTABLE, CG_GEMM_F32, sse_host, NULL, "portable on an SSE host");
    expect(TARGET_ISA_PORTABLE, CG_GEMM_I32, NULL, NULL, "portable on a host of unknown features");
    expect(TARGET_ISA_AVX2, CG_GEMM_F32, NULL, "need avx2", "avx2 on a host of unknown features");
    expect((TargetIsa)99, CG_GEMM_F32, avx512_host, "no ISA this libmapc knows (99)", "an unknown ISA");
    expect(TARGET_ISA_HOST, CG_GEMM_F32, avx512_host, "no ISA this libmapc knows (0)", "the host ISA is no ISA");
    expect(TARGET_ISA_AVX2, (CgGemmKind)17, avx512_host, "no kernel kind this libmapc knows (17)", "an unknown kind");
    /* the features list cg_aot_features gives is what the checks above read */
    CHECK(strstr(cg_aot_features(TARGET_ISA_AVX2, CG_GEMM_F32), "avx512") == NULL &&
              cg_aot_features(TARGET_ISA_PORTABLE, CG_GEMM_F32)[0] == 0,
          "avx2 names no AVX-512 feature, portable none at all");

    /* the runner checks before anything runs: a descriptor of an unknown ISA, no routine pointers */
    CgAotKernel bad = {.abi = CG_AOT_ABI, .name = "forged", .isa = 42, .kind = CG_GEMM_F32};
    char err[512] = "";
    float buf[4] = {0};
    int r = gemm_aot_run(&bad, buf, buf, buf, 1.0, 0.0, 1, err, sizeof err);
    CHECK(r == -1 && strstr(err, "kernel forged: its object names no ISA this libmapc knows (42)"),
          "gemm_aot_run refuses an unknown ISA before running: %s", err);
    return harness_report();
}
