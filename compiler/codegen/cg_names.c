/* cg_names.c — the C names an emitted object and header may not take: keywords, the names a program linking the
 * object with libmapc already has (libmapc's exports and imports, the C library's, its libraries'), libmapc's
 * mapc_ namespace, and the names C and POSIX reserve for the implementation. */
#include "cg_impl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
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

/* Names of the C standard library that are macros or types, or a program's own (main), which no shared
 * object's symbol table lists; the functions are in the generated table of the C library's symbols. */
static const char *const library[] = {
    "assert", "errno", "int16_t", "int32_t", "int64_t", "int8_t", "main", "offsetof", "ptrdiff_t", "size_t",
    "uint16_t", "uint32_t", "uint64_t", "uint8_t", "uintptr_t", "va_arg", "va_copy", "va_end", "va_start",
};

/* The names of functions C and POSIX reserve, and libmapc's namespace: a prefix, the characters one of which
 * must follow it ("" any, or none), and the rule (the end of "..., which is ..."). C's are its future library directions for external names (C11 7.31, C23 7.33:
 * "potentially reserved"); POSIX's the prefixes of its headers' functions (POSIX.1-2017 2.2.2). Macro-only
 * reservations (E[0-9A-Z], LC_, SIG, FE_, PRI, SCN) do not apply to functions. */
#define LOWER "abcdefghijklmnopqrstuvwxyz"
static const struct {
    const char *prefix, *then, *rule;
} reserved[] = {
    {"_", "", "reserved by C for the implementation (names beginning with an underscore)"},
    {"is", LOWER, "reserved by C for <ctype.h> (names beginning with 'is' and a lowercase letter)"},
    {"to", LOWER, "reserved by C for <ctype.h> (names beginning with 'to' and a lowercase letter)"},
    {"str", LOWER, "reserved by C for <stdlib.h> and <string.h> (names beginning with 'str' and a lowercase letter)"},
    {"mem", LOWER, "reserved by C for <string.h> (names beginning with 'mem' and a lowercase letter)"},
    {"wcs", LOWER, "reserved by C for <wchar.h> (names beginning with 'wcs' and a lowercase letter)"},
    {"atomic_", LOWER, "reserved by C for <stdatomic.h> (names beginning with 'atomic_' and a lowercase letter)"},
    {"cnd_", "", "reserved by C for <threads.h> (names beginning with 'cnd_')"},
    {"mtx_", "", "reserved by C for <threads.h> (names beginning with 'mtx_')"},
    {"thrd_", "", "reserved by C for <threads.h> (names beginning with 'thrd_')"},
    {"tss_", "", "reserved by C for <threads.h> (names beginning with 'tss_')"},
    {"cr_", "", "reserved by C for <math.h> (names beginning with 'cr_')"},
    {"posix_", "", "reserved by POSIX (names beginning with 'posix_')"},
    {"pthread_", "", "reserved by POSIX for <pthread.h> (names beginning with 'pthread_')"},
    {"sched_", "", "reserved by POSIX for <sched.h> (names beginning with 'sched_')"},
    {"sem_", "", "reserved by POSIX for <semaphore.h> (names beginning with 'sem_')"},
    {"shm_", "", "reserved by POSIX for <sys/mman.h> (names beginning with 'shm_')"},
    {"mq_", "", "reserved by POSIX for <mqueue.h> (names beginning with 'mq_')"},
    {"aio_", "", "reserved by POSIX for <aio.h> (names beginning with 'aio_')"},
    {"lio_", "", "reserved by POSIX for <aio.h> (names beginning with 'lio_')"},
    {"mapc_", "", "in libmapc's own namespace (its functions are named mapc_*)"},
};

/* Whether name is one of the n names of list. */
static bool listed(const char *const *list, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}

/* The kind of name in the sorted table t (CG_LINKED_*), or -1 when it is not there. */
static int linked_kind(const CgNameTable *t, const char *name)
{
    size_t lo = 0, hi = t ? t->n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(t->names[mid], name);
        if (c == 0)
            return t->kinds[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* Why sym may not be an emitted function (the end of "..., which is ..."), in why[cap]; false when it may. */
static bool refused(const char *sym, const CgNameTable *linked, char *why, size_t cap)
{
    if (listed(keywords, sizeof keywords / sizeof *keywords, sym)) {
        snprintf(why, cap, "a C keyword");
        return true;
    }
    switch (linked_kind(linked, sym)) {
    case CG_LINKED_EXPORT:
        snprintf(why, cap, "a function of libmapc (the object links with it)");
        return true;
    case CG_LINKED_IMPORT:
        snprintf(why, cap, "a function libmapc calls (the object's would replace it there)");
        return true;
    case CG_LINKED_LIBC:
        snprintf(why, cap, "a name of the C library");
        return true;
    }
    if (listed(library, sizeof library / sizeof *library, sym)) {
        snprintf(why, cap, "a name of the C library");
        return true;
    }
    for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++) {
        size_t n = strlen(reserved[i].prefix);
        if (strncmp(sym, reserved[i].prefix, n) == 0 && (!reserved[i].then[0] || (sym[n] && strchr(reserved[i].then, sym[n])))) {
            snprintf(why, cap, "%s", reserved[i].rule);
            return true;
        }
    }
    size_t n = strlen(sym);
    if (n >= 2 && strcmp(sym + n - 2, "_t") == 0) {
        snprintf(why, cap, "reserved by POSIX for types (names ending in '_t')");
        return true;
    }
    /* what the libraries of this process define (libmapc's dependencies: LLVM, isl, cairo, MPI, libc, ...) */
    void *addr = dlsym(RTLD_DEFAULT, sym);
    if (!addr)
        return false;
    Dl_info info;
    const char *lib = dladdr(addr, &info) && info.dli_fname && info.dli_fname[0] ? info.dli_fname : NULL;
    const char *base = lib && strrchr(lib, '/') ? strrchr(lib, '/') + 1 : lib;
    snprintf(why, cap, "defined by %s, a library programs linking libmapc load", base ? base : "this process");
    return true;
}

/* One emitted function: its symbol and the statement that makes it. */
typedef struct Emitted {
    char *sym;
    const char *what, *name;
    Loc loc;
    size_t order; /* the statement's place in the program, so a clash names the later one */
    const struct Emitted *clash; /* after sorting: the first statement emitting the same symbol, or NULL */
    bool reported;
} Emitted;

/* The functions the program's statements emit, as far as they are usable C names. */
typedef struct EmittedSet {
    Emitted *v;
    size_t n, cap;
} EmittedSet;

/* Whether the function `name` emitted for statement `what` NAME (at loc) is a usable C name; an error if not.
 * The symbol is the prefix, the name and the suffix (a type's _cell, _offset, _each, a copy's _part); a usable
 * one joins set, so that two statements emitting one symbol are found. */
static bool check_one(const CgOptions *opt, bool linkable, EmittedSet *set, size_t order, const char *what,
                      const char *name, const char *suffix, Loc loc, Diags *d)
{
    const char *pre = opt && opt->prefix ? opt->prefix : "";
    size_t np = strlen(pre), nn = strlen(name);
    char *sym = malloc(np + nn + strlen(suffix) + 1);
    if (sym && set->n == set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 64;
        Emitted *v = realloc(set->v, cap * sizeof *v);
        if (v) {
            set->v = v;
            set->cap = cap;
        }
    }
    if (!sym || set->n == set->cap) {
        free(sym);
        diag_error(d, loc, "out of memory");
        return false;
    }
    memcpy(sym, pre, np);
    memcpy(sym + np, name, nn);
    strcpy(sym + np + nn, suffix);
    char why[256];
    bool bad = linkable && refused(sym, opt ? opt->linked : NULL, why, sizeof why);
    if (bad) {
        diag_error(d, loc, "%s %s would be emitted as the C function '%s', which is %s; rename the %s or give emit %s",
                   what, name, sym, why, what, *pre ? "another --prefix" : "a --prefix");
        free(sym);
        return false;
    }
    set->v[set->n++] = (Emitted){.sym = sym, .what = what, .name = name, .loc = loc, .order = order};
    return true;
}

/* Orders emitted functions by symbol, then by statement. */
static int by_symbol(const void *a, const void *b)
{
    const Emitted *x = a, *y = b;
    int c = strcmp(x->sym, y->sym);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

bool cg_check_symbols(const Prog *prog, const CgOptions *opt, bool linkable, Diags *d)
{
    static const char *const type_fns[] = {"_cell", "_offset", "_each"}, *const copy_fns[] = {"", "_part"};
    EmittedSet set = {0};
    bool ok = true;
    size_t order = 0;
    for (int i = 0; i < prog->ntypes; i++, order++) {
        const Name *t = prog->types[i];
        bool type_ok = true;
        for (int f = 0; f < 3 && type_ok && t->map; f++) /* one error per type */
            type_ok = check_one(opt, linkable, &set, order, "type", t->name, type_fns[f], t->loc, d);
        ok &= type_ok;
    }
    for (int i = 0; i < prog->ncopies; i++, order++) {
        bool copy_ok = true;
        for (int f = 0; f < 2 && copy_ok; f++)
            copy_ok = check_one(opt, linkable, &set, order, "copy", prog->copies[i]->name, copy_fns[f], prog->copies[i]->loc, d);
        ok &= copy_ok;
    }
    for (int i = 0; i < prog->nkernels; i++, order++)
        ok &= check_one(opt, linkable, &set, order, "kernel", prog->kernels[i]->name, "", prog->kernels[i]->loc, d);
    /* two statements emitting one symbol: the later one is refused (LLVM would rename it, and the header's
     * declaration or a JIT lookup would bind to the other), reported in the program's order */
    if (set.n > 1)
        qsort(set.v, set.n, sizeof *set.v, by_symbol);
    for (size_t i = 1; i < set.n; i++)
        if (strcmp(set.v[i].sym, set.v[i - 1].sym) == 0) {
            set.v[i].clash = set.v[i - 1].clash ? set.v[i - 1].clash : &set.v[i - 1];
            ok = false;
        }
    for (size_t i = 0, next = SIZE_MAX; i < set.n; i++, next = SIZE_MAX) {
        for (size_t j = 0; j < set.n; j++) /* the earliest clash not yet reported (few: each is an error) */
            if (set.v[j].clash && !set.v[j].reported && (next == SIZE_MAX || set.v[j].order < set.v[next].order))
                next = j;
        if (next == SIZE_MAX)
            break;
        const Emitted *e = &set.v[next], *first = e->clash;
        set.v[next].reported = true;
        diag_error(d, e->loc, "%s %s would be emitted as the C function '%s', which %s %s at %u:%u emits too; "
                   "rename one of them", e->what, e->name, e->sym, first->what, first->name, first->loc.line,
                   first->loc.col);
    }
    for (size_t i = 0; i < set.n; i++)
        free(set.v[i].sym);
    free(set.v);
    return ok;
}
