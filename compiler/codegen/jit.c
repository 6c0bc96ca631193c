/* jit.c — ORC LLJIT: a unit optimized and loaded into its own JIT with the runtime helpers defined
 * explicitly (JitModule), a whole program's functions (Jit), and the runtime's relayout kernels. */
#include "cg_impl.h"

#include <llvm/Config/llvm-config.h>
#include <llvm-c/Error.h>
#include <llvm-c/ExecutionEngine.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/OrcEE.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if LLVM_VERSION_MAJOR < 15
typedef LLVMJITCSymbolMapPair CgSymbolPair; /* renamed LLVMOrcCSymbolMapPair in 15 */
#else
typedef LLVMOrcCSymbolMapPair CgSymbolPair;
#endif

struct JitModule {
    LLVMOrcLLJITRef lljit; /* owned: LLVMOrcDisposeLLJIT releases the code and the module */
};

static atomic_bool perf_events; /* jit_set_perf_events */

void jit_set_perf_events(bool on)
{
    atomic_store(&perf_events, on);
}

/* The object layer of a JIT whose code perf should name: RTDyld with a section memory manager, each loaded
 * object reported to LLVM's perf listener (a jitdump file for `perf inject --jit`). */
static LLVMOrcObjectLayerRef perf_object_layer(void *ctx, LLVMOrcExecutionSessionRef es, const char *triple)
{
    (void)ctx;
    (void)triple;
    LLVMOrcObjectLayerRef layer = LLVMOrcCreateRTDyldObjectLinkingLayerWithSectionMemoryManager(es);
    LLVMJITEventListenerRef perf = LLVMCreatePerfJITEventListener(); /* LLVM's singleton; NULL without perf */
    if (layer && perf)
        LLVMOrcRTDyldObjectLinkingLayerRegisterJITEventListener(layer, perf);
    return layer;
}

/* Converts e (consumed) into a malloc'ed message prefixed by what. */
static char *jit_error(const char *what, LLVMErrorRef e)
{
    char *m = LLVMGetErrorMessage(e); /* consumes e; m owned until disposed */
    char *r = cg_message(what, m);
    LLVMDisposeErrorMessage(m);
    return r;
}

/* memcpy/memmove/memset, defined explicitly (LLVM may lower copies and fills to them); nothing is
 * resolved from the host process by name. */
static LLVMErrorRef define_helpers(LLVMOrcLLJITRef j)
{
    static const struct { const char *name; void *addr; } helpers[] = {
        {"memcpy", (void *)memcpy}, {"memmove", (void *)memmove}, {"memset", (void *)memset}};
    enum { N = sizeof helpers / sizeof *helpers };
    CgSymbolPair pairs[N];
    for (int i = 0; i < N; i++) {
        pairs[i].Name = LLVMOrcLLJITMangleAndIntern(j, helpers[i].name); /* reference moves into the unit */
        pairs[i].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)helpers[i].addr;
        pairs[i].Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
        pairs[i].Sym.Flags.TargetFlags = 0;
    }
    LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(pairs, N); /* owned until defined */
    return LLVMOrcJITDylibDefine(LLVMOrcLLJITGetMainJITDylib(j), mu);  /* takes mu, even on error */
}

/* The object code of the unit's module for tm at opt->opt_level: from the cache when it holds it, else
 * optimized, compiled and stored there. A memory buffer (owned by the caller), or NULL with *err set. */
static LLVMMemoryBufferRef unit_object(CgUnit *u, LLVMTargetMachineRef tm, const CgOptions *opt, char **err)
{
    char *ir = LLVMPrintModuleToString(u->mod); /* owned: LLVMDisposeMessage */
    char *cpu = LLVMGetTargetMachineCPU(tm), *features = LLVMGetTargetMachineFeatureString(tm);
    size_t tn = strlen(cpu) + strlen(features) + 24;
    char *target = malloc(tn);
    JitCacheKey key = {0};
    bool keyed = ir && target;
    if (keyed) {
        snprintf(target, tn, "%s %s -O%d%s", cpu, features, opt->opt_level, opt->cleanup_only ? " cleanup" : "");
        jit_cache_key(ir, strlen(ir), target, &key);
    }
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(features);
    free(target);
    if (ir)
        LLVMDisposeMessage(ir);
    size_t size = 0;
    void *cached = keyed ? jit_cache_load(&key, &size) : NULL;
    if (cached) {
        LLVMMemoryBufferRef b = LLVMCreateMemoryBufferWithMemoryRangeCopy(cached, size, "mapc-cached");
        free(cached);
        return b;
    }
    char *msg = NULL;
    if (!cg_optimize(u->mod, tm, opt->opt_level, opt->cleanup_only, &msg)) {
        *err = cg_message("optimization failed", msg ? msg : "unknown error");
        free(msg);
        return NULL;
    }
    LLVMMemoryBufferRef obj = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, u->mod, LLVMObjectFile, &msg, &obj)) {
        *err = cg_message("code generation failed", msg ? msg : "unknown error");
        LLVMDisposeMessage(msg);
        return NULL;
    }
    if (keyed)
        jit_cache_store(&key, LLVMGetBufferStart(obj), LLVMGetBufferSize(obj));
    return obj;
}

JitModule *cg_unit_jit(CgUnit *u, const CgOptions *opt, char **err)
{
    *err = NULL;
    char *msg = NULL;
    /* The target machine is built first so the module is compiled for exactly the JIT's target. */
    LLVMTargetMachineRef tm = cg_target_machine(opt, true, &msg); /* owned until the builder takes it */
    if (!tm) {
        *err = cg_message("cannot target the host", msg ? msg : "?");
        free(msg);
        cg_unit_close(u);
        return NULL;
    }
    LLVMMemoryBufferRef obj = unit_object(u, tm, opt, err); /* owned until the JIT takes it */
    cg_unit_close(u);
    JitModule *j = obj ? calloc(1, sizeof *j) : NULL;
    if (!j) {
        if (obj)
            *err = cg_message("JIT", "out of memory");
        if (obj)
            LLVMDisposeMemoryBuffer(obj);
        LLVMDisposeTargetMachine(tm);
        return NULL;
    }
    /* ownership: tm -> jtmb -> builder -> lljit; obj -> lljit */
    LLVMOrcJITTargetMachineBuilderRef jtmb = LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm);
    LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, jtmb);
    if (atomic_load(&perf_events))
        LLVMOrcLLJITBuilderSetObjectLinkingLayerCreator(builder, perf_object_layer, NULL);
    LLVMErrorRef e = LLVMOrcCreateLLJIT(&j->lljit, builder); /* consumes builder */
    if (!e && (e = define_helpers(j->lljit)))
        *err = jit_error("cannot define the runtime helpers", e);
    else if (e)
        *err = jit_error("cannot create the JIT", e);
    if (*err) {
        LLVMDisposeMemoryBuffer(obj);
        jit_module_free(j);
        return NULL;
    }
    e = LLVMOrcLLJITAddObjectFile(j->lljit, LLVMOrcLLJITGetMainJITDylib(j->lljit), obj); /* takes obj */
    if (e) {
        *err = jit_error("cannot add the object to the JIT", e);
        jit_module_free(j);
        return NULL;
    }
    return j;
}

void *jit_module_lookup(JitModule *j, const char *symbol)
{
    if (!j || !symbol)
        return NULL;
    LLVMOrcExecutorAddress addr = 0;
    LLVMErrorRef e = LLVMOrcLLJITLookup(j->lljit, &addr, symbol); /* links the object on first lookup */
    if (e) {
        LLVMConsumeError(e);
        return NULL;
    }
    return (void *)(uintptr_t)addr;
}

void jit_module_free(JitModule *j)
{
    if (!j)
        return;
    if (j->lljit) {
        LLVMErrorRef e = LLVMOrcDisposeLLJIT(j->lljit);
        if (e)
            LLVMConsumeError(e);
    }
    free(j);
}

JitModule *jit_copy_kernel(const Prog *prog, const Copy *c, int opt_level, Diags *d)
{
    CgOptions opt = {.prefix = "", .opt_level = opt_level};
    CgUnit u;
    if (!cg_unit_open(&u, "mapc_move")) {
        diag_error(d, (Loc){0}, "cannot create an LLVM module");
        return NULL;
    }
    if (!cg_copy_only(prog, &u, c, &opt, d)) {
        cg_unit_close(&u);
        return NULL;
    }
    char *err = NULL;
    JitModule *j = cg_unit_jit(&u, &opt, &err); /* consumes the unit */
    if (!j)
        diag_error(d, (Loc){0}, "%s", err ? err : "JIT: unknown error");
    free(err);
    return j;
}

struct Jit {
    JitModule *m;   /* owned */
    char *prefix;   /* owned */
};

Jit *jit_new(const Prog *prog, const CgOptions *opt, Diags *d)
{
    Jit *j = calloc(1, sizeof *j);
    if (!j || !(j->prefix = strdup(opt->prefix ? opt->prefix : ""))) {
        free(j);
        diag_error(d, (Loc){0}, "JIT: out of memory");
        return NULL;
    }
    CgUnit u;
    if (!cg_unit_open(&u, "mapc")) {
        diag_error(d, (Loc){0}, "cannot create an LLVM module");
        jit_free(j);
        return NULL;
    }
    if (!cg_program(prog, &u, opt, d)) {
        cg_unit_close(&u);
        jit_free(j);
        return NULL;
    }
    char *err = NULL;
    j->m = cg_unit_jit(&u, opt, &err); /* consumes the unit */
    if (!j->m) {
        diag_error(d, (Loc){0}, "%s", err ? err : "JIT: unknown error");
        free(err);
        jit_free(j);
        return NULL;
    }
    return j;
}

void *jit_lookup(Jit *j, const char *symbol)
{
    if (!j || !symbol)
        return NULL;
    size_t n = strlen(j->prefix) + strlen(symbol) + 1;
    char *full = malloc(n);
    if (!full)
        return NULL;
    snprintf(full, n, "%s%s", j->prefix, symbol);
    void *addr = jit_module_lookup(j->m, full);
    free(full);
    return addr;
}

void jit_free(Jit *j)
{
    if (!j)
        return;
    jit_module_free(j->m);
    free(j->prefix);
    free(j);
}
