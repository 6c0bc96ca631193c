/* jit.c — ORC LLJIT: load an optimized module into its own JIT with the runtime helpers defined
 * explicitly (jit_module_*), and a whole program's functions on top of it (jit_*). */
#include "codegen.h"

#include <llvm/Config/llvm-config.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
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

static char *jm_dup(const char *what, const char *msg)
{
    size_t n = strlen(what) + strlen(msg) + 3;
    char *r = malloc(n);
    if (r) {
        strcpy(r, what);
        strcat(r, ": ");
        strcat(r, msg);
    }
    return r;
}

/* Converts e (consumed) into a malloc'ed message prefixed by what. */
static char *jm_error(const char *what, LLVMErrorRef e)
{
    char *m = LLVMGetErrorMessage(e); /* consumes e; m owned until disposed */
    char *r = jm_dup(what, m);
    LLVMDisposeErrorMessage(m);
    return r;
}

/* memcpy/memmove/memset, defined explicitly (LLVM may lower copies and fills to them); nothing is
 * resolved from the host process by name. */
static LLVMErrorRef jm_define_helpers(LLVMOrcLLJITRef j)
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

JitModule *jit_module_new(LLVMOrcThreadSafeContextRef tsc, LLVMModuleRef mod, LLVMTargetMachineRef tm, int opt_level,
                          char **err)
{
    *err = NULL;
    char *msg = NULL;
    if (!cg_optimize(mod, tm, opt_level, &msg)) {
        *err = jm_dup("optimization failed", msg ? msg : "unknown error");
        free(msg);
        LLVMDisposeModule(mod);
        LLVMOrcDisposeThreadSafeContext(tsc);
        LLVMDisposeTargetMachine(tm);
        return NULL;
    }
    /* ownership: tm -> jtmb -> builder -> lljit; mod -> tsm -> lljit */
    LLVMOrcJITTargetMachineBuilderRef jtmb = LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm);
    LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, jtmb);
    JitModule *j = calloc(1, sizeof *j);
    if (!j) {
        LLVMOrcDisposeLLJITBuilder(builder);
        LLVMDisposeModule(mod);
        LLVMOrcDisposeThreadSafeContext(tsc);
        *err = jm_dup("JIT", "out of memory");
        return NULL;
    }
    LLVMErrorRef e = LLVMOrcCreateLLJIT(&j->lljit, builder); /* consumes builder */
    if (e) {
        *err = jm_error("cannot create the JIT", e);
        LLVMDisposeModule(mod);
        LLVMOrcDisposeThreadSafeContext(tsc);
        free(j);
        return NULL;
    }
    e = jm_define_helpers(j->lljit);
    if (e) {
        *err = jm_error("cannot define the runtime helpers", e);
        LLVMDisposeModule(mod);
        LLVMOrcDisposeThreadSafeContext(tsc);
        jit_module_free(j);
        return NULL;
    }
    LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(mod, tsc); /* takes mod */
    LLVMOrcDisposeThreadSafeContext(tsc); /* the module keeps the context alive */
    e = LLVMOrcLLJITAddLLVMIRModule(j->lljit, LLVMOrcLLJITGetMainJITDylib(j->lljit), tsm); /* takes tsm */
    if (e) {
        *err = jm_error("cannot add the module to the JIT", e);
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
    LLVMErrorRef e = LLVMOrcLLJITLookup(j->lljit, &addr, symbol); /* compiles on first lookup */
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

struct Jit {
    JitModule *m;   /* owned */
    char *prefix;   /* owned */
};

Jit *jit_new(const Prog *prog, const CgOptions *opt, Diags *d)
{
    char *err = NULL;
    /* The target machine is built first so the module is optimized for exactly the JIT's target. */
    LLVMTargetMachineRef tm = cg_target_machine(opt, true, &err); /* owned until jit_module_new */
    if (!tm) {
        diag_error(d, (Loc){0}, "%s", err);
        free(err);
        return NULL;
    }
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext(); /* our reference: to jit_module_new */
    LLVMContextRef ctx = LLVMOrcThreadSafeContextGetContext(tsc);     /* borrowed from tsc */
    LLVMModuleRef mod = cg_module(prog, ctx, opt, d);                  /* owned until jit_module_new */
    if (!mod) {
        LLVMOrcDisposeThreadSafeContext(tsc);
        LLVMDisposeTargetMachine(tm);
        return NULL;
    }
    Jit *j = calloc(1, sizeof *j);
    const char *p = opt->prefix ? opt->prefix : "";
    if (j)
        j->prefix = malloc(strlen(p) + 1);
    if (!j || !j->prefix) {
        free(j);
        LLVMDisposeModule(mod);
        LLVMOrcDisposeThreadSafeContext(tsc);
        LLVMDisposeTargetMachine(tm);
        diag_error(d, (Loc){0}, "JIT: out of memory");
        return NULL;
    }
    strcpy(j->prefix, p);
    j->m = jit_module_new(tsc, mod, tm, opt->opt_level, &err); /* takes tsc, mod, tm */
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
