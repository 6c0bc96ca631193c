/* emit.c — target machines, the -O pass pipelines, and object / assembly / IR / header output. */
#include "codegen.h"

#include <llvm-c/Transforms/PassBuilder.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *r = malloc(n);
    if (r)
        memcpy(r, s, n);
    return r;
}

static void init_native(void)
{
    LLVMInitializeNativeTarget();
    LLVMInitializeNativeAsmPrinter();
    LLVMInitializeNativeAsmParser();
}

LLVMTargetMachineRef cg_target_machine(const CgOptions *opt, bool jit, char **err)
{
    init_native();
    char *triple = LLVMGetDefaultTargetTriple(); /* owned: LLVMDisposeMessage */
    LLVMTargetRef target;
    char *msg = NULL;
    if (LLVMGetTargetFromTriple(triple, &target, &msg)) {
        *err = dup_str(msg ? msg : "unknown target");
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
        *err = dup_str("cannot create a target machine");
    LLVMDisposeMessage(triple);
    if (host_cpu)
        LLVMDisposeMessage(host_cpu);
    if (host_features)
        LLVMDisposeMessage(host_features);
    return tm;
}

bool cg_optimize(LLVMModuleRef mod, LLVMTargetMachineRef tm, int opt_level, char **err)
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
    LLVMErrorRef e = LLVMRunPasses(mod, pipeline, tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (e) {
        char *m = LLVMGetErrorMessage(e); /* consumes e */
        *err = dup_str(m);
        LLVMDisposeErrorMessage(m);
        return false;
    }
    return true;
}

bool cg_emit_file(const Prog *prog, const CgOptions *opt, CgEmitKind kind, const char *path, Diags *d)
{
    LLVMContextRef ctx = LLVMContextCreate(); /* owned: one context for this module */
    LLVMModuleRef mod = cg_module(prog, ctx, opt, d); /* owned: disposed below */
    bool ok = mod != NULL;
    char *err = NULL;
    LLVMTargetMachineRef tm = ok ? cg_target_machine(opt, false, &err) : NULL; /* owned */
    if (ok && !tm) {
        diag_error(d, (Loc){0}, "%s", err);
        ok = false;
    }
    if (ok && !cg_optimize(mod, tm, opt->opt_level, &err)) {
        diag_error(d, (Loc){0}, "optimization failed: %s", err);
        ok = false;
    }
    if (ok) {
        char *msg = NULL;
        LLVMBool fail;
        if (kind == CG_EMIT_LLVM)
            fail = LLVMPrintModuleToFile(mod, path, &msg);
        else
            fail = LLVMTargetMachineEmitToFile(tm, mod, (char *)path,
                                               kind == CG_EMIT_ASM ? LLVMAssemblyFile : LLVMObjectFile, &msg);
        if (fail) {
            diag_error(d, (Loc){0}, "cannot write '%s': %s", path, msg ? msg : "unknown error");
            ok = false;
        }
        if (msg)
            LLVMDisposeMessage(msg);
    }
    free(err);
    if (tm)
        LLVMDisposeTargetMachine(tm);
    if (mod)
        LLVMDisposeModule(mod);
    LLVMContextDispose(ctx);
    return ok;
}

bool cg_write_header(const Prog *prog, const CgOptions *opt, const char *path, const char *guard, Diags *d)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        diag_error(d, (Loc){0}, "cannot write '%s'", path);
        return false;
    }
    const char *p = opt->prefix ? opt->prefix : "";
    fprintf(f, "/* Generated by mapc emit: declarations of the emitted symbols. Do not edit. */\n");
    fprintf(f, "#ifndef %s\n#define %s\n\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
            guard, guard);
    fprintf(f, "#ifndef MAPC_CELL_KINDS_DEFINED\n#define MAPC_CELL_KINDS_DEFINED\n");
    fprintf(f, "/* Cell kinds returned by *_cell and passed to *_each visitors (SPEC §1). */\n");
    fprintf(f, "enum mapc_cell_kind {\n    MAPC_CELL_LIVE = 0,\n    MAPC_CELL_PAD_TOP = 1,\n"
               "    MAPC_CELL_PAD_ZERO = 2,\n    MAPC_CELL_PAD_BOTTOM = 3,\n    MAPC_CELL_OOB = 4,\n"
               "    MAPC_CELL_OVERFLOW = 5\n};\n#endif\n\n");
    fprintf(f, "/* Coordinates: int64_t[%d], one per axis in declaration order:", prog->naxes);
    for (int a = 0; a < prog->naxes; a++)
        fprintf(f, " %s=%llu", prog->axes[a].name, (unsigned long long)prog->axes[a].size);
    fprintf(f, " */\n#define %sNAXES %d\n\n", p, prog->naxes);
    for (int i = 0; i < prog->ntypes; i++) {
        const Name *n = prog->types[i];
        if (!n->map)
            continue;
        fprintf(f, "/* type %s: %llu positions */\n", n->name, (unsigned long long)n->map->size);
        fprintf(f, "#define %s%s_SIZE UINT64_C(%llu)\n", p, n->name, (unsigned long long)n->map->size);
        fprintf(f, "int %s%s_cell(uint64_t pos, int64_t *coords);\n", p, n->name);
        fprintf(f, "int64_t %s%s_offset(const int64_t *coords);\n", p, n->name);
        fprintf(f, "void %s%s_each(void (*visit)(void *ctx, uint64_t pos, int kind, const int64_t *coords), "
                   "void *ctx);\n\n", p, n->name);
    }
    for (int i = 0; i < prog->ncopies; i++) {
        const Copy *c = prog->copies[i];
        fprintf(f, "/* copy %s as %s: dst holds %llu elements, src %llu */\n", c->name, elem_type_name(c->elem),
                (unsigned long long)c->dst->size, (unsigned long long)c->src->size);
        fprintf(f, "void %s%s(void *dst, const void *src);\n\n", p, c->name);
    }
    fprintf(f, "#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
    bool ok = !ferror(f);
    if (fclose(f) != 0 || !ok) {
        diag_error(d, (Loc){0}, "cannot write '%s'", path);
        return false;
    }
    return true;
}
