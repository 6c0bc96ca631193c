/* emit.c — writing a program's generated code as an object, assembly or LLVM IR file. */
#include "cg_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool cg_write_bytes(const char *path, const void *data, size_t n, Diags *d)
{
    struct stat st;
    bool existed = stat(path, &st) == 0;
    FILE *f = fopen(path, "wb");
    if (!f) {
        diag_error(d, (Loc){0}, "cannot write '%s': %s", path, strerror(errno));
        return false;
    }
    bool ok = fwrite(data, 1, n, f) == n && fflush(f) == 0;
    int e = errno;
    if (fclose(f) != 0 && ok) {
        ok = false;
        e = errno;
    }
    if (!ok) {
        diag_error(d, (Loc){0}, "cannot write '%s': %s", path, strerror(e ? e : EIO));
        if (!existed)
            remove(path); /* no partial file of ours is left behind (an existing file or device stays) */
    }
    return ok;
}

bool cg_emit_file(const Prog *prog, const CgOptions *opt, CgEmitKind kind, const char *path, Diags *d)
{
    if (!cg_check_symbols(prog, opt, true, d))
        return false;
    CgUnit u;
    if (!cg_unit_open(&u, "mapc")) {
        diag_error(d, (Loc){0}, "cannot create an LLVM module");
        return false;
    }
    CgOptions with_kernels = *opt;
    with_kernels.kernels = true; /* an object holds the declared kernels too */
    with_kernels.object = true;
    bool ok = cg_program(prog, &u, &with_kernels, d);
    LLVMModuleRef mod = u.mod; /* owned by the unit */
    char *err = NULL;
    LLVMTargetMachineRef tm = ok ? cg_target_machine(opt, false, &err) : NULL; /* owned */
    if (ok && !tm) {
        diag_error(d, (Loc){0}, "%s", err ? err : "cannot create a target machine");
        ok = false;
    }
    if (ok && !cg_optimize(mod, tm, opt->opt_level, false, &err)) {
        diag_error(d, (Loc){0}, "optimization failed: %s", err);
        ok = false;
    }
    /* the bytes are made in memory and written here, so a full disk is an error, not an LLVM abort */
    if (ok && kind == CG_EMIT_LLVM) {
        char *text = LLVMPrintModuleToString(mod); /* owned: LLVMDisposeMessage */
        ok = cg_write_bytes(path, text, strlen(text), d);
        LLVMDisposeMessage(text);
    } else if (ok) {
        char *msg = NULL;
        LLVMMemoryBufferRef buf = NULL; /* owned */
        if (LLVMTargetMachineEmitToMemoryBuffer(tm, mod, kind == CG_EMIT_ASM ? LLVMAssemblyFile : LLVMObjectFile,
                                                &msg, &buf)) {
            diag_error(d, (Loc){0}, "code generation failed: %s", msg ? msg : "unknown error");
            ok = false;
        } else {
            ok = cg_write_bytes(path, LLVMGetBufferStart(buf), LLVMGetBufferSize(buf), d);
            LLVMDisposeMemoryBuffer(buf);
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
