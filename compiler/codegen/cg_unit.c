/* cg_unit.c — LLVM units: the one place a context and a module are created, verified and disposed. */
#include "cg_impl.h"

#include <llvm-c/Analysis.h>
#include <stdlib.h>
#include <string.h>

bool cg_unit_open(CgUnit *u, const char *name)
{
    *u = (CgUnit){0};
    u->tsc = LLVMOrcCreateNewThreadSafeContext();          /* owned by the unit */
    u->ctx = u->tsc ? LLVMOrcThreadSafeContextGetContext(u->tsc) : NULL;
    u->mod = u->ctx ? LLVMModuleCreateWithNameInContext(name, u->ctx) : NULL; /* owned by the unit */
    if (!u->mod) {
        cg_unit_close(u);
        return false;
    }
    return true;
}

void cg_unit_close(CgUnit *u)
{
    if (u->mod)
        LLVMDisposeModule(u->mod);
    if (u->tsc)
        LLVMOrcDisposeThreadSafeContext(u->tsc);
    *u = (CgUnit){0};
}

bool cg_unit_verify(CgUnit *u, const char *what, char **err)
{
    char *msg = NULL; /* owned: LLVMDisposeMessage */
    bool bad = LLVMVerifyModule(u->mod, LLVMReturnStatusAction, &msg);
    if (bad) {
        char *w = cg_message(what, "does not verify");
        *err = cg_message(w ? w : what, msg ? msg : "?");
        free(w);
    }
    if (msg)
        LLVMDisposeMessage(msg);
    return !bad;
}
