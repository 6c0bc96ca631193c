/* test_oom.c — the public API when memory runs out: the Nth heap allocation that mapc's own code makes in a
 * sequence of calls fails (an interposed malloc), for every N, and each call returns MAPC_ERR_NOMEM or its
 * normal answer, never a crash or a wrong answer; a declared tensor larger than the memory the process can
 * have is MAPC_ERR_NOMEM with its numbers, before anything is allocated. */
#include "harness.h"
#include "mapc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <link.h>
#include <string.h>
#include <sys/resource.h>

/* ---- the failing allocator (glibc's entry points behind it) ---- */

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
void __libc_free(void *p);

static _Thread_local int inside;    /* the harness's own output allocates through these too */
static long countdown = -1;         /* mapc allocations left before the failing one (-1: none fails) */
static long counted;                /* mapc allocations since counting began */

/* The addresses of libmapc's code (found once, by dl_iterate_phdr). */
static uintptr_t lib_lo = 1, lib_hi;

static int find_lib(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    if (!info->dlpi_name || !strstr(info->dlpi_name, "libmapc"))
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            lib_lo = info->dlpi_addr + ph->p_vaddr;
            lib_hi = lib_lo + ph->p_memsz;
        }
    }
    return 1;
}

/* Whether the allocation called from ra is the one to fail. Only the library's own allocations count: isl
 * (in libisl, or in LLVM's copy of it) cannot survive a failure while it makes a context, which is isl's to
 * fix. Single-threaded: the calls below start no threads. */
static int fails(void *ra)
{
    uintptr_t a = (uintptr_t)ra;
    if (inside || a < lib_lo || a >= lib_hi)
        return 0;
    counted++;
    if (countdown < 0)
        return 0;
    return countdown-- == 0;
}

void *malloc(size_t n) { return fails(__builtin_return_address(0)) ? NULL : __libc_malloc(n); }
void *calloc(size_t n, size_t size) { return fails(__builtin_return_address(0)) ? NULL : __libc_calloc(n, size); }
void *realloc(void *p, size_t n) { return fails(__builtin_return_address(0)) ? NULL : __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }

/* ---- the calls ---- */

static const char text[] = "axes![A = 8, B = 512, C = 13];\n"
                           "type R = m![A, B];\n"
                           "type T = m![[A, B] / 4, [A, B] % 4];\n"
                           "type S = m![B / 64, A, B % 64];\n"
                           "type P = m![C, B # 520];\n"
                           "assert R[519] == i![A: 1, B: 7];\n"
                           "assert R == T;\n";

/* One sequence of calls: MAPC_OK with every answer right, the first MAPC_ERR_NOMEM, or -1 for a wrong
 * answer or an unexpected status (what *what names). */
static int sequence(const char **what)
{
    mapc_program *p = NULL;
    mapc_status s = mapc_compile_string("oom.map", text, sizeof text - 1, &p);
    *what = "compile";
    if (s != MAPC_OK) {
        mapc_program_free(p);
        return s == MAPC_ERR_NOMEM && !p ? (int)s : -1;
    }
    int r = -1, kind = -1, eq = -1;
    int64_t coords[3] = {0};
    uint64_t pos = 0, size = 0;
    *what = "eval R 519";
    if ((s = mapc_eval(p, "R", 519, &kind, coords)) != MAPC_OK)
        goto done;
    if (kind != MAPC_CELL_LIVE || coords[0] != 1 || coords[1] != 7)
        goto wrong;
    *what = "eval P 512";
    if ((s = mapc_eval(p, "P", 515, &kind, coords)) != MAPC_OK)
        goto done;
    if (kind != MAPC_CELL_PAD_TOP)
        goto wrong;
    *what = "equiv R T";
    if ((s = mapc_equiv(p, "R", "T", &eq, &pos)) != MAPC_OK)
        goto done;
    if (eq != 1)
        goto wrong;
    *what = "equiv R S";
    if ((s = mapc_equiv(p, "R", "S", &eq, &pos)) != MAPC_OK)
        goto done;
    if (eq != 0 || pos != 64)
        goto wrong;
    *what = "equiv inline";
    if ((s = mapc_equiv(p, "m![B / 64, B % 64]", "m![B]", &eq, NULL)) != MAPC_OK)
        goto done;
    if (eq != 1)
        goto wrong;
    *what = "type size";
    if ((s = mapc_type_size(p, "P", &size)) != MAPC_OK)
        goto done;
    if (size != 13 * 520)
        goto wrong;
    r = MAPC_OK;
    goto out;
done:
    r = s == MAPC_ERR_NOMEM ? (int)s : -1;
    goto out;
wrong:
    r = -1;
out:
    mapc_program_free(p);
    return r;
}

/* Fails each allocation of the sequence in turn (every one up to 4000, then every 7th). */
static void test_each_allocation(void)
{
    const char *what;
    counted = 0;
    int base = sequence(&what);
    long total = counted;
    CHECK(base == MAPC_OK && total > 10, "the sequence without failures: %d at %s, %ld allocations", base, what,
          total);
    long nomem = 0;
    for (long n = 0; n < total; n += n < 4000 ? 1 : 7) {
        countdown = n;
        int r = sequence(&what);
        countdown = -1;
        nomem += r == MAPC_ERR_NOMEM;
        if (!CHECK(r == MAPC_OK || r == MAPC_ERR_NOMEM, "allocation %ld of %ld failing: %d at %s", n, total, r, what))
            break;
    }
    CHECK(nomem > 0, "no call reported the failures (%ld allocations)", total);
    printf("%ld allocations in the sequence, %ld of the failures reported as MAPC_ERR_NOMEM\n", total, nomem);
}

/* A declared HBM tensor within the HBM's capacity but beyond the address space (ulimit -v of 1 GiB). */
static void test_tensor_too_large(void)
{
    static const char big[] = "axes![A = 1000000000];\ntensor H: HbmTensor<f32, m![1], m![A]>;\n";
    mapc_program *p = NULL;
    mapc_runtime *rt = NULL;
    mapc_tensor *t = NULL;
    CHECK(mapc_compile_string("big.map", big, sizeof big - 1, &p) == MAPC_OK, "compile: %s",
          p && mapc_diag_count(p) ? mapc_diag_text(p, 0) : "");
    CHECK(p && mapc_runtime_create(p, 1, &rt) == MAPC_OK, "runtime");
    struct rlimit old, lim = {.rlim_cur = (rlim_t)1 << 30};
    getrlimit(RLIMIT_AS, &old);
    lim.rlim_max = old.rlim_max;
    setrlimit(RLIMIT_AS, &lim);
    mapc_status s = rt ? mapc_tensor_create(rt, "H", &t) : MAPC_ERR_ARGUMENT;
    setrlimit(RLIMIT_AS, &old);
    const char *want = "a tensor of 1000000000 f32 elements needs 4000000000 bytes, more than the 1073741824 bytes of "
                       "memory this process can have";
    CHECK(s == MAPC_ERR_NOMEM && !t && rt && strcmp(mapc_runtime_error(rt), want) == 0, "tensor_create: %d \"%s\"",
          (int)s, rt ? mapc_runtime_error(rt) : "");
    mapc_runtime_free(rt);
    mapc_program_free(p);
}

int main(int argc, char **argv)
{
    HarnessArgs args = {.seed = 1, .count = 1};
    harness_args(argc, argv, "", &args);
    inside = 1;
    printf("the public API when memory runs out\n"); /* stdout's buffer, allocated once, outside the count */
    dl_iterate_phdr(find_lib, NULL);
    inside = 0;
    CHECK(lib_lo < lib_hi, "libmapc's code is not mapped (the test must link the shared library)");
    test_each_allocation();
    test_tensor_too_large();
    inside = 1;
    return harness_report();
}
