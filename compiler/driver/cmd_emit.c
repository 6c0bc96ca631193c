/* cmd_emit.c — "mapc emit": compile a program's types, copies and kernels to an object, assembly or IR file. */
#include "cmd_options.h"
#include "driver.h"
#include "out_file.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The include guard of a generated header: MAPC_GEN_, the symbol prefix, then the file name, uppercased
 * with non-alphanumerics as '_' (headers of two prefixes can be included together). */
static char *header_guard(const char *path, const char *prefix)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base) + strlen(prefix);
    char *g = malloc(n + 16);
    if (!g)
        return NULL;
    strcpy(g, "MAPC_GEN_");
    char *o = g + strlen(g);
    for (const char *s = prefix; *s; s++)
        *o++ = isalnum((unsigned char)*s) ? (char)toupper((unsigned char)*s) : '_';
    if (*prefix && o[-1] != '_')
        *o++ = '_';
    for (const char *s = base; *s; s++)
        *o++ = isalnum((unsigned char)*s) ? (char)toupper((unsigned char)*s) : '_';
    *o = 0;
    return g;
}

static bool valid_prefix(const char *p)
{
    for (const char *s = p; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_') || (s == p && isdigit((unsigned char)*s)))
            return false;
    return true;
}

int emit_parse_options(int argc, char **argv, EmitOptions *o)
{
    *o = (EmitOptions){.cg = {.opt_level = 2, .prefix = ""}, .kind = CG_EMIT_OBJ, .isa = drv_isa};
    const char *file = NULL, *out = NULL, *header = NULL;
    CgOptions opt = o->cg;
    CgEmitKind kind = o->kind;
    TargetIsa isa = o->isa;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-o") == 0 || strcmp(a, "--header") == 0 || strcmp(a, "--cpu") == 0 ||
            strcmp(a, "--prefix") == 0) {
            if (i + 1 >= argc)
                return drv_usage_error("option %s needs a value", a);
            const char *v = argv[++i];
            if (a[1] == 'o')
                out = v;
            else if (a[2] == 'h')
                header = v;
            else if (a[2] == 'c')
                opt.cpu = v;
            else
                opt.prefix = v;
        } else if (strcmp(a, "--isa") == 0) {
            if (i + 1 >= argc || !target_isa_parse(argv[i + 1], &isa))
                return drv_usage_error("--isa takes avx512, avx2 or portable%s", "");
            i++;
        } else if (strncmp(a, "--emit=", 7) == 0) {
            if (strcmp(a + 7, "obj") == 0)
                kind = CG_EMIT_OBJ;
            else if (strcmp(a + 7, "asm") == 0)
                kind = CG_EMIT_ASM;
            else if (strcmp(a + 7, "llvm") == 0)
                kind = CG_EMIT_LLVM;
            else
                return drv_usage_error("--emit takes obj, asm or llvm, not '%s'", a + 7);
        } else if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && a[3] == 0) {
            opt.opt_level = a[2] - '0';
        } else if (a[0] == '-' && a[1]) {
            static const char *const known[] = {"-o", "--header", "--cpu", "--prefix", "--isa", "--emit", "-O0",
                                                "-O1", "-O2", "-O3", "--help", "--color", NULL};
            return drv_unknown_option("emit", a, known);
        } else if (!file) {
            file = a;
        } else {
            return drv_usage_error("unexpected argument '%s'", a);
        }
    }
    if (!file)
        return drv_usage_error("emit needs a FILE%s", "");
    if (!out)
        return drv_usage_error("emit needs -o OUT%s", "");
    if (!valid_prefix(opt.prefix))
        return drv_usage_error("--prefix '%s' is not a C identifier prefix", opt.prefix);
    if (!cg_cpu_known(opt.cpu))
        return drv_usage_error("--cpu '%s' is not a CPU this LLVM can compile for (try x86-64-v3, skylake-avx512, "
                               "znver3 or native)", opt.cpu);
    const char *inputs[1] = {file};
    int refused = out_refuse_inputs("-o", out, inputs, 1);
    if (refused == DRV_EXIT_OK && header)
        refused = out_refuse_inputs("--header", header, inputs, 1);
    if (refused != DRV_EXIT_OK)
        return refused;
    if (header && out_same_file(header, out))
        return drv_usage_error("-o and --header both name %s", out);
    *o = (EmitOptions){.file = file, .out = out, .header = header, .cg = opt, .kind = kind, .isa = isa};
    return DRV_EXIT_OK;
}

int cmd_emit(int argc, char **argv)
{
    EmitOptions eo;
    int parsed = emit_parse_options(argc, argv, &eo);
    if (parsed != DRV_EXIT_OK)
        return parsed;
    const char *file = eo.file, *out = eo.out, *header = eo.header;
    CgOptions opt = eo.cg;
    opt.linked = &drv_linked_names; /* no emitted name may be one a program linking libmapc already has */
    CgEmitKind kind = eo.kind;
    drv_isa = eo.isa; /* the ISA the program's kernels are checked and compiled for */
    Prog *p = drv_load(file, false);
    if (!p)
        return DRV_EXIT_INPUT;
    /* both outputs are written to temporary files and put in place once both are complete */
    OutFile fo = {0}, fh = {0};
    int status = out_begin(&fo, out) && (!header || out_begin(&fh, header)) ? DRV_EXIT_OK : DRV_EXIT_INPUT;
    if (status == DRV_EXIT_OK && !cg_emit_file(p, &opt, kind, fo.tmp, &p->diags))
        status = DRV_EXIT_INPUT;
    if (status == DRV_EXIT_OK && header) {
        char *guard = header_guard(header, opt.prefix);
        if (!guard || !cg_write_header(p, &opt, fh.tmp, guard, &p->diags))
            status = DRV_EXIT_INPUT;
        free(guard);
    }
    if (status == DRV_EXIT_OK)
        status = out_commit(&fo);
    else
        out_abandon(&fo);
    if (status == DRV_EXIT_OK && header)
        status = out_commit(&fh);
    else if (header)
        out_abandon(&fh);
    /* drv_load() succeeded, so every diagnostic is ours; back-end ones have no source position */
    for (const Diag *d = p->diags.head; d; d = d->next) {
        if (d->loc.src) {
            drv_print_diags(p, d);
            break; /* prints d and the rest */
        }
        fprintf(stderr, "mapc: %s\n", d->msg); /* the one prefix of messages without a position */
    }
    prog_free(p);
    return status;
}
