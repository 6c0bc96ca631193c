/* cg_names.c — the C names an emitted object and header may not take: keywords, and the standard
 * library's functions, macros and types, which a program linking the object also sees. */
#include "cg_impl.h"

#include <stdlib.h>
#include <string.h>

/* C23's keywords (C11's and the newer ones). */
static const char *const keywords[] = {
    "_Alignas", "_Alignof", "_Atomic", "_BitInt", "_Bool", "_Complex", "_Decimal128", "_Decimal32", "_Decimal64",
    "_Generic", "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local", "alignas", "alignof", "auto", "bool",
    "break", "case", "char", "const", "constexpr", "continue", "default", "do", "double", "else", "enum", "extern",
    "false", "float", "for", "goto", "if", "inline", "int", "long", "nullptr", "register", "restrict", "return",
    "short", "signed", "sizeof", "static", "static_assert", "struct", "switch", "thread_local", "true", "typedef",
    "typeof", "typeof_unqual", "union", "unsigned", "void", "volatile", "while",
};

/* The standard library's common functions, macros and types, and main: an emitted symbol of that name
 * would clash at link time or in the header. */
static const char *const library[] = {
    "abort", "abs", "assert", "atexit", "atof", "atoi", "atol", "bsearch", "calloc", "clock", "div", "errno",
    "exit", "fclose", "fflush", "fgetc", "fgets", "fopen", "fprintf", "fputc", "fputs", "fread", "free", "fscanf",
    "fseek", "ftell", "fwrite", "getc", "getchar", "getenv", "int16_t", "int32_t", "int64_t", "int8_t", "labs",
    "longjmp", "main", "malloc", "memchr", "memcmp", "memcpy", "memmove", "memset", "offsetof", "perror",
    "printf", "ptrdiff_t", "putc", "putchar", "puts", "qsort", "raise", "rand", "realloc", "remove", "rename",
    "scanf", "setjmp", "signal", "size_t", "snprintf", "sprintf", "srand", "sscanf", "strcat", "strchr", "strcmp",
    "strcpy", "strerror", "strlen", "strncmp", "strncpy", "strrchr", "strstr", "strtod", "strtol", "strtoul",
    "system", "time", "uint16_t", "uint32_t", "uint64_t", "uint8_t", "uintptr_t", "va_arg", "va_end", "va_start",
};

/* Whether name is one of the n names of list. */
static bool listed(const char *const *list, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}

/* Whether the function emitted for statement `what` NAME (at loc) is a usable C name; an error if not. */
static bool check_one(const char *pre, const char *what, const char *name, Loc loc, Diags *d)
{
    size_t np = strlen(pre);
    char *sym = malloc(np + strlen(name) + 1);
    if (!sym) {
        diag_error(d, loc, "out of memory");
        return false;
    }
    memcpy(sym, pre, np);
    strcpy(sym + np, name);
    const char *is = listed(keywords, sizeof keywords / sizeof *keywords, sym) ? "a C keyword"
                     : listed(library, sizeof library / sizeof *library, sym) ? "a name of the C library"
                                                                              : NULL;
    if (is)
        diag_error(d, loc, "%s %s would be emitted as the C function '%s', which is %s; rename the %s or give emit "
                           "a --prefix",
                   what, name, sym, is, what);
    free(sym);
    return !is;
}

bool cg_check_symbols(const Prog *prog, const CgOptions *opt, Diags *d)
{
    const char *pre = opt->prefix ? opt->prefix : "";
    bool ok = true;
    for (int i = 0; i < prog->ncopies; i++)
        ok &= check_one(pre, "copy", prog->copies[i]->name, prog->copies[i]->loc, d);
    for (int i = 0; i < prog->nkernels; i++)
        ok &= check_one(pre, "kernel", prog->kernels[i]->name, prog->kernels[i]->loc, d);
    return ok;
}
