/* cg_target.c — target machines for the JIT and for objects, the -O pass pipelines, LLVM messages, and the
 * target features of a relayout kernel's ISA. */
#include "cg_impl.h"

#include <llvm/Config/llvm-config.h>

#include <llvm-c/Transforms/PassBuilder.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void init_native(void)
{
    LLVMInitializeNativeTarget();
    LLVMInitializeNativeAsmPrinter();
    LLVMInitializeNativeAsmParser();
}

/* The x86-64 processors of LLVM's X86 backend that run 64-bit code (LLVM 14's list, then what later
 * releases added). LLVM only warns about a name it does not know and then aborts when the processor
 * cannot run 64-bit code, so names are checked against this list first. */
static const char *const x86_64_cpus[] = {
    "alderlake", "amdfam10", "athlon-fx", "athlon64", "athlon64-sse3", "atom", "barcelona", "bdver1", "bdver2",
    "bdver3", "bdver4", "bonnell", "broadwell", "btver1", "btver2", "cannonlake", "cascadelake", "cooperlake",
    "core-avx-i", "core-avx2", "core2", "corei7", "corei7-avx", "generic", "goldmont", "goldmont-plus", "haswell",
    "icelake-client", "icelake-server", "ivybridge", "k8", "k8-sse3", "knl", "knm", "nehalem", "nocona", "opteron",
    "opteron-sse3", "penryn", "rocketlake", "sandybridge", "sapphirerapids", "silvermont", "skx", "skylake",
    "skylake-avx512", "slm", "tigerlake", "tremont", "westmere", "x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4",
    "znver1", "znver2", "znver3",
#if LLVM_VERSION_MAJOR >= 15
    "raptorlake", "meteorlake",
#endif
#if LLVM_VERSION_MAJOR >= 16
    "znver4", "sierraforest", "grandridge", "graniterapids", "graniterapids-d", "emeraldrapids",
#endif
#if LLVM_VERSION_MAJOR >= 18
    "arrowlake", "arrowlake-s", "lunarlake", "pantherlake", "clearwaterforest", "gracemont",
#endif
#if LLVM_VERSION_MAJOR >= 19
    "znver5",
#endif
};

bool cg_cpu_known(const char *cpu)
{
    if (!cpu || strcmp(cpu, "native") == 0)
        return true;
    char *triple = LLVMGetDefaultTargetTriple(); /* owned: LLVMDisposeMessage */
    bool x86 = strncmp(triple, "x86_64", 6) == 0;
    LLVMDisposeMessage(triple);
    if (!x86) /* other hosts: a plain name, which that backend judges */
        return cpu[0] && strspn(cpu, "abcdefghijklmnopqrstuvwxyz0123456789-_.") == strlen(cpu);
    for (size_t i = 0; i < sizeof x86_64_cpus / sizeof *x86_64_cpus; i++)
        if (strcmp(cpu, x86_64_cpus[i]) == 0)
            return true;
    return false;
}

LLVMTargetMachineRef cg_target_machine(const CgOptions *opt, bool jit, char **err)
{
    init_native();
    if (!cg_cpu_known(opt->cpu)) {
        size_t n = strlen(opt->cpu) + 128;
        if ((*err = malloc(n)))
            snprintf(*err, n, "unknown CPU '%s' (LLVM %s knows x86-64, x86-64-v2..v4, skylake-avx512, znver3, native, ...)",
                     opt->cpu, LLVM_VERSION_STRING);
        return NULL;
    }
    char *triple = LLVMGetDefaultTargetTriple(); /* owned: LLVMDisposeMessage */
    LLVMTargetRef target;
    char *msg = NULL;
    if (LLVMGetTargetFromTriple(triple, &target, &msg)) {
        *err = strdup(msg ? msg : "unknown target");
        LLVMDisposeMessage(msg);
        LLVMDisposeMessage(triple);
        return NULL;
    }
    /* The host CPU and its features for the JIT; a portable level for objects. */
    char *host_cpu = NULL, *host_features = NULL; /* owned: LLVMDisposeMessage */
    const char *cpu = opt->cpu, *features = opt->features;
    bool host = jit;
    if (cpu && strcmp(cpu, "native") == 0) {
        cpu = NULL; /* the host CPU, as for the JIT */
        host = true;
    }
    if (!cpu && host) {
        cpu = host_cpu = LLVMGetHostCPUName();
        if (!features)
            features = host_features = LLVMGetHostCPUFeatures();
    }
    if (!cpu)
        cpu = strncmp(triple, "x86_64", 6) == 0 ? CG_DEFAULT_CPU : "generic";
    LLVMCodeGenOptLevel lvl = opt->opt_level <= 0   ? LLVMCodeGenLevelNone
                              : opt->opt_level == 1 ? LLVMCodeGenLevelLess
                              : opt->opt_level == 2 ? LLVMCodeGenLevelDefault
                                                    : LLVMCodeGenLevelAggressive;
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, triple, cpu, features ? features : "", lvl,
                                                      LLVMRelocPIC,
                                                      jit ? LLVMCodeModelJITDefault : LLVMCodeModelDefault);
    if (!tm)
        *err = strdup("cannot create a target machine");
    LLVMDisposeMessage(triple);
    if (host_cpu)
        LLVMDisposeMessage(host_cpu);
    if (host_features)
        LLVMDisposeMessage(host_features);
    return tm;
}

/* The cleanup pipeline: scalar replacement of the accumulator arrays, redundancy elimination, peepholes,
 * control-flow cleanup, loop-invariant code motion. No unrolling or vectorization: the generators did it. */
#define CLEANUP_PIPELINE "function(sroa,early-cse,instcombine,simplifycfg,loop-mssa(licm),gvn,instcombine,simplifycfg)"

bool cg_optimize(LLVMModuleRef mod, LLVMTargetMachineRef tm, int opt_level, bool cleanup_only, char **err)
{
    char *triple = LLVMGetTargetMachineTriple(tm);
    LLVMSetTarget(mod, triple);
    LLVMDisposeMessage(triple);
    LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm); /* owned: disposed below */
    LLVMSetModuleDataLayout(mod, td);
    LLVMDisposeTargetData(td);
    char pipeline[32];
    snprintf(pipeline, sizeof pipeline, "default<O%d>", opt_level < 0 ? 0 : opt_level > 3 ? 3 : opt_level);
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions(); /* owned: disposed below */
    LLVMPassBuilderOptionsSetLoopVectorization(po, opt_level >= 2);
    LLVMPassBuilderOptionsSetSLPVectorization(po, opt_level >= 2);
    LLVMErrorRef e = LLVMRunPasses(mod, cleanup_only && opt_level > 0 ? CLEANUP_PIPELINE : pipeline, tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (e) {
        char *m = LLVMGetErrorMessage(e); /* consumes e */
        *err = strdup(m);
        LLVMDisposeErrorMessage(m);
        return false;
    }
    return true;
}

char *cg_message(const char *what, const char *msg)
{
    size_t n = strlen(what) + strlen(msg) + 3;
    char *r = malloc(n);
    if (r)
        snprintf(r, n, "%s: %s", what, msg);
    return r;
}

const char *cg_llvm_version(void) { return LLVM_VERSION_STRING; }

char *cg_host_signature(void)
{
    char *name = LLVMGetHostCPUName(), *feat = LLVMGetHostCPUFeatures(); /* owned: disposed below */
    size_t n = strlen(name) + strlen(feat) + 2;
    char *sig = malloc(n);
    if (sig)
        snprintf(sig, n, "%s %s", name, feat);
    LLVMDisposeMessage(name);
    LLVMDisposeMessage(feat);
    return sig;
}

void cg_isa_attribute(Cg *cg, LLVMValueRef fn)
{
    /* objects: what the ISA adds to any x86-64 CPU; the JIT: what the host has beyond it */
    const char *f = cg->isa == TARGET_ISA_AVX512 ? "+avx512f,+avx512bw,+avx512vl,+avx512dq,+avx2,+avx,+fma,+f16c"
                    : cg->isa == TARGET_ISA_AVX2 ? (target_host_isa() == TARGET_ISA_AVX512 ? "+avx2,+avx,+fma,-avx512f"
                                                                                             : "+avx2,+avx,+fma")
                                                 : "-avx";
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateStringAttribute(cg->ctx, "target-features", 15, f, (unsigned)strlen(f)));
}
