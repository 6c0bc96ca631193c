/* fuzz_names.c — libFuzzer target: the names `mapc emit` gives emitted functions (cg_check_symbols), chosen by
 * the fuzz bytes.
 *
 * The first byte picks the declaration (bit 0: a copy or a type), a stem for the prefix (bits 1-4: none, mapc_,
 * mapc_aot_, pthread_, str, is, _, LLVM, isl_, ok_) and 0 to 3 more prefix characters (bits 5-6); the next bytes
 * are those characters and then the name (identifier characters as themselves, other bytes mapped onto them). The program `axes![Q = 4]` plus that declaration is parsed; when it parses, the name is checked
 * against mapc's generated table (drv_linked_names) and the rules. A refused name must have one error, at the
 * declaration's line, naming the symbol. An accepted one must be in no table, reserved by no rule, defined by no
 * library of the process, and the generated module must define it under exactly that name (LLVM renames a
 * name it has already, as run.1). A crash, a sanitizer report, a leak or a broken contract is a finding. */
#include "codegen/cg_impl.h"
#include "driver/driver.h"
#include "front/front.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REQUIRE(cond)         \
    do {                      \
        if (!(cond))          \
            __builtin_trap(); \
    } while (0)

static const char ident_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789";
static const char *const stems[] = {"", "mapc_", "mapc_aot_", "pthread_", "str", "is", "_", "LLVM", "isl_", "ok_"};

/* The identifier character of byte b: itself when it is one (a digit only after the first), else one of the table. */
static char ident_char(uint8_t b, bool first)
{
    if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || b == '_' || (!first && b >= '0' && b <= '9'))
        return (char)b;
    return ident_chars[b % (first ? 53 : sizeof ident_chars - 1)];
}

/* Whether name is in the generated table. */
static bool in_table(const char *name)
{
    for (size_t i = 0; i < drv_linked_names.n; i++)
        if (strcmp(drv_linked_names.names[i], name) == 0)
            return true;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || size > 64)
        return 0;
    bool is_type = data[0] & 1;
    const char *stem = stems[(data[0] >> 1) % (sizeof stems / sizeof *stems)];
    size_t at = 1, extra = data[0] >> 5 & 3; /* prefix characters after the stem */
    char prefix[32], name[64], sym[128], text[256];
    size_t np = strlen(stem);
    memcpy(prefix, stem, np);
    for (size_t i = 0; i < extra && at < size; i++, np++)
        prefix[np] = ident_char(data[at++], np == 0);
    prefix[np] = 0;
    size_t nn = 0;
    for (; at < size && nn < 40; at++, nn++)
        name[nn] = ident_char(data[at], nn == 0); /* no leading digit */
    name[nn] = 0;
    if (!nn)
        return 0;
    snprintf(text, sizeof text, is_type ? "axes![Q = 4];\ntype %s = m![Q];\n" : "axes![Q = 4];\ncopy %s: m![Q] -> m![Q] as f32;\n",
             name);
    Prog *p = prog_new();
    REQUIRE(p);
    if (prog_parse(p, "<fuzz>", text, strlen(text)) != 0) { /* a keyword of the language, the axis's name */
        prog_free(p);
        return 0;
    }
    snprintf(sym, sizeof sym, "%s%s%s", prefix, name, is_type ? "_cell" : "");
    CgOptions opt = {.prefix = prefix, .opt_level = 0, .linked = &drv_linked_names};
    REQUIRE(p->diags.count == 0);
    bool ok = cg_check_symbols(p, &opt, true, &p->diags);
    if (!ok) {
        const Diag *d = p->diags.head;
        REQUIRE(p->diags.count == 1 && d->loc.line == 2 && strstr(d->msg, "would be emitted as the C function") &&
                strstr(d->msg, sym));
    } else {
        REQUIRE(!in_table(sym) && strncmp(sym, "mapc_", 5) != 0 && sym[0] != '_' && !dlsym(RTLD_DEFAULT, sym));
        CgUnit u;
        REQUIRE(cg_unit_open(&u, "fuzz"));
        REQUIRE(cg_program(p, &u, &opt, &p->diags));
        LLVMValueRef fn = LLVMGetNamedFunction(u.mod, sym);
        REQUIRE(fn && strcmp(LLVMGetValueName(fn), sym) == 0);
        cg_unit_close(&u);
    }
    prog_free(p);
    return 0;
}
