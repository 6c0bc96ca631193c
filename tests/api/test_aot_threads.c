/* test_aot_threads.c — the threads an emitted kernel leaves alive: a kernel emitted by this mapc, called with
 * every thread count from 1 to 128 (rising, falling, interleaved), keeps at most one engine's workers alive, so
 * the process's threads (/proc/self/task) stay bounded by the largest count requested, never their sum; every
 * call's C equals the one-thread result (the runner's results do not depend on the thread count). */
#include "harness.h"

#include <mapc.h>

#include <dirent.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M = 48, N = 40, K = 32, MAX_THREADS = 128 };

typedef int (*AotFn)(const void *, const void *, void *, double, double, int);

static const char program[] = "axes![M = 48, N = 40, K = 32];\n"
                              "tensor A: HbmTensor<f32, m![1], m![M, K]>;\n"
                              "tensor B: HbmTensor<f32, m![1], m![N, K]>;\n"
                              "tensor C: HbmTensor<f32, m![1], m![M, N]>;\n"
                              "kernel k: C[M, N] = A[M, K] * B[K, N] { tile M = 16, N = 16, K = 16; }\n";

/* The threads of this process: the entries of /proc/self/task (-1 when it cannot be read). */
static int thread_count(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Emits program into dir with the prefix thr_ and links it into dir/case.so; the loaded object, or NULL. */
static void *emit_and_load(const char *mapc, const char *dir)
{
    char path[512], cmd[2048];
    snprintf(path, sizeof path, "%s/case.map", dir);
    FILE *f = fopen(path, "w");
    if (!CHECK(f != NULL, "write %s", path))
        return NULL;
    fputs(program, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cd %s && MAPC_ISA= '%s' emit case.map -o case.o --header case.h --prefix thr_ && "
             "cc -shared -o case.so case.o", dir, mapc);
    if (!CHECK(system(cmd) == 0, "emit and link: %s", cmd))
        return NULL;
    snprintf(path, sizeof path, "%s/case.so", dir);
    void *lib = dlopen(path, RTLD_NOW);
    CHECK(lib != NULL, "dlopen %s: %s", path, lib ? "" : dlerror());
    return lib;
}

/* Calls fn with threads, checks C against want and the threads alive against base + bound - 1 (the caller
 * and the workers of one engine of bound threads). */
static void call_with(AotFn fn, const float *a, const float *b, float *c, const float *want, int threads, int base,
                      int bound)
{
    memset(c, 0, sizeof(float) * M * N);
    int s = fn(a, b, c, 1.0, 0.0, threads);
    if (!CHECK(s == MAPC_OK, "threads %d: %s", threads, mapc_aot_error()))
        return;
    CHECK(memcmp(c, want, sizeof(float) * M * N) == 0, "threads %d: C differs from the one-thread result", threads);
    int alive = thread_count();
    CHECK(alive >= base && alive <= base + bound - 1,
          "after a call with %d threads (the largest so far %d): %d threads alive, at most %d expected", threads,
          bound, alive, base + bound - 1);
}

int main(int argc, char **argv)
{
    HarnessArgs args = {.seed = 1, .count = MAX_THREADS};
    harness_args(argc, argv, "[SEED [COUNT]]", &args);
    int max_threads = args.count < 2 ? 2 : args.count > 1024 ? 1024 : (int)args.count;
    const char *mapc = getenv("MAPC_TEST_MAPC");
    if (!mapc || !*mapc) {
        FAIL("MAPC_TEST_MAPC names no mapc");
        return harness_report();
    }
    char dir[] = "/tmp/mapc-threads-XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL, "a temporary directory"))
        return harness_report();
    void *lib = emit_and_load(mapc, dir);
    AotFn fn = lib ? (AotFn)(uintptr_t)dlsym(lib, "thr_k") : NULL;
    if (lib)
        CHECK(fn != NULL, "the emitted kernel thr_k");
    if (fn) {
        static float a[M * K], b[N * K], c[M * N], want[M * N];
        Rng rng = rng_seeded(args.seed);
        for (int i = 0; i < M * K; i++)
            a[i] = (float)rng_below(&rng, 17) - 8.0f;
        for (int i = 0; i < N * K; i++)
            b[i] = (float)rng_below(&rng, 9) * 0.25f;
        int base = thread_count();
        CHECK(base >= 1, "/proc/self/task is readable");
        CHECK(fn(a, b, want, 1.0, 0.0, 1) == MAPC_OK, "one thread: %s", mapc_aot_error());
        int largest = 1;
        for (int t = 1; t <= max_threads; t++) { /* rising: 1..128 */
            largest = t > largest ? t : largest;
            call_with(fn, a, b, c, want, t, base, largest);
        }
        for (int t = max_threads; t >= 1; t -= 7) /* falling, then interleaved small and large */
            call_with(fn, a, b, c, want, t, base, largest);
        for (int i = 0; i < 16; i++)
            call_with(fn, a, b, c, want, i % 2 ? 2 + i : max_threads - i, base, largest);
        /* a bad count is refused without touching the engine; the next good one runs */
        CHECK(fn(a, b, c, 1.0, 0.0, 1025) == MAPC_ERR_ARGUMENT, "1025 threads refused");
        call_with(fn, a, b, c, want, 3, base, largest);
        /* the last call's engine has 3 threads: the others are gone, not parked */
        CHECK(thread_count() == base + 2, "%d threads alive after a call with 3, %d expected", thread_count(),
              base + 2);
    }
    if (lib)
        dlclose(lib);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    return harness_report();
}
