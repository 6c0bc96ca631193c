/* emit.c — writing a program's generated code as an object, assembly or LLVM IR file. */
#include "cg_impl.h"

#include <stdlib.h>

bool cg_emit_file(const Prog *prog, const CgOptions *opt, CgEmitKind kind, const char *path, Diags *d)
{
    CgUnit u;
    if (!cg_unit_open(&u, "mapc")) {
        diag_error(d, (Loc){0}, "cannot create an LLVM module");
        return false;
    }
    bool ok = cg_program(prog, &u, opt, d);
    LLVMModuleRef mod = u.mod; /* owned by the unit */
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
    cg_unit_close(&u);
    return ok;
}

