/* test_threads.c — the library from 8 host threads at once: JITs of a shared program and of programs of their own,
 * lookups on a shared JIT, GEMM engines compiling the same kernels concurrently, declared kernels of one
 * signature created at once, one kernel emitted ahead of time (an object linked into a shared object) run by all
 * through mapc_aot_run, the on-disk JIT cache written and read by all, and runtimes moving tensors.
 * Built with ThreadSanitizer by tests/tsan/run (a race is a failure there); in other builds it checks the
 * results alone.
 *
 * Usage: test_threads [SEED [COUNT]]   (defaults 1, 3): COUNT rounds per thread; SEED varies the data. */
#include "codegen/codegen.h"
#include "front/front.h"
#include "harness.h"

#include <mapc.h>

#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THREADS 8

static const char shared_src[] = "axes![A = 8, B = 12];\n"
                                 "type R = m![A, B];\n"
                                 "type P = m![A # 10, B #{0} 16];\n"
                                 "type S = m![B / 4, A, B % 4];\n"
                                 "copy rs: R -> S as f32;\n";
/* one kernel signature for every thread (micro-tile 4x16 fits AVX2 and AVX-512) */
static const char kernel_src[] = "axes![M = 32, N = 32, K = 32];\n"
                                 "tensor A: HbmTensor<f32, m![1], m![M, K]>;\n"
                                 "tensor B: HbmTensor<f32, m![1], m![K, N]>;\n"
                                 "tensor C: HbmTensor<f32, m![1], m![M, N]>;\n"
                                 "kernel k: C[M, N] = A[M, K] * B[K, N] { tile M = 16, N = 16, K = 32; "
                                 "pack A = m![M / 4, K, M % 4]; pack B = m![N / 16, K, N % 16]; }\n";
static const char tensor_src[] = "axes![S = 4, A = 8];\n"
                                 "tensor H: HbmTensor<f32, m![1], m![S, A]>;\n"
                                 "tensor D: DmTensor<f32, m![1], m![1], m![S], m![A % 4, A / 4]>;\n";

typedef struct Shared {
    mapc_program *prog;     /* shared_src: read-only calls and JIT creations from every thread */
    mapc_jit *jit;          /* made by the main thread; lookups and calls from every thread */
    const char *cache_dir;
    int (*aot)(const void *, const void *, void *, double, double, int); /* kernel k emitted as tt_k */
    uint64_t seed;
    int rounds;
    pthread_barrier_t start;
} Shared;

/* What one thread found: counts of its checks and the first failure's description. */
typedef struct Worker {
    Shared *sh;
    int index;
    long ok, bad;
    char first[256];
} Worker;

static void note(Worker *w, bool ok, const char *what)
{
    if (ok) {
        w->ok++;
    } else if (w->bad++ == 0) {
        snprintf(w->first, sizeof w->first, "thread %d: %s", w->index, what);
    }
}

/* Every position of every type of p: the JIT's cell function agrees with mapc_eval. */
static bool jit_agrees(mapc_program *p, mapc_jit *j)
{
    int nt = mapc_type_count(p);
    for (int t = 0; t < nt; t++) {
        const char *name;
        uint64_t size;
        mapc_cell_fn cell;
        if (mapc_type_name(p, t, &name) != MAPC_OK || mapc_type_size(p, name, &size) != MAPC_OK ||
            mapc_jit_cell(j, name, &cell) != MAPC_OK)
            return false;
        for (uint64_t pos = 0; pos <= size; pos++) {
            int64_t c1[4] = {0}, c2[4] = {0};
            int k1 = -1;
            if (mapc_eval(p, name, pos, &k1, c1) != MAPC_OK || cell(pos, c2) != k1 || memcmp(c1, c2, sizeof c1))
                return false;
        }
    }
    return true;
}

/* The shared program: a JIT of its own, lookups and calls on the shared JIT and on it. */
static void shared_jit(Worker *w)
{
    mapc_jit *j = NULL;
    note(w, mapc_jit_create(w->sh->prog, NULL, &j) == MAPC_OK && jit_agrees(w->sh->prog, j),
         "JIT of the shared program");
    note(w, jit_agrees(w->sh->prog, w->sh->jit), "the shared JIT");
    mapc_copy_fn rs = NULL;
    float a[96], b[96];
    for (int i = 0; i < 96; i++)
        a[i] = (float)(i + w->index);
    note(w, mapc_jit_copy(w->sh->jit, "rs", &rs) == MAPC_OK && (rs(b, a), b[4] == a[12] && b[1] == a[1]),
         "the shared JIT's copy kernel");
    mapc_jit_free(j);
}

/* A program of the thread's own (an axis size of its own, so a JIT module of its own in the cache). */
static void own_jit(Worker *w, int round)
{
    char src[160];
    snprintf(src, sizeof src, "axes![A = %d, B = 6];\ntype E = m![B / 3, A # %d, B %% 3];\n", 3 + w->index,
             3 + w->index + round); /* a padding >= the axis, growing each round */
    mapc_program *p = NULL;
    mapc_jit *j = NULL;
    note(w, mapc_compile_string("own", src, strlen(src), &p) == MAPC_OK && mapc_jit_create(p, NULL, &j) == MAPC_OK &&
                jit_agrees(p, j),
         "JIT of a program of its own");
    mapc_jit_free(j);
    mapc_program_free(p);
}

/* An engine of the thread's own: a 40x24 by 24x40 product (one kernel signature for all threads). */
static void gemm(Worker *w, Rng *rng)
{
    enum { M = 40, K = 24, N = 40 };
    float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N), *c = malloc(sizeof(float) * M * N);
    for (int i = 0; i < M * K; i++)
        a[i] = (float)(int)rng_below(rng, 7) - 3;
    for (int i = 0; i < K * N; i++)
        b[i] = (float)(int)rng_below(rng, 5) - 2;
    mapc_gemm *g = NULL;
    mapc_gemm_options o = {.threads = 2};
    mapc_matrix ma = mapc_row_major(a, M, K, MAPC_F32), mb = mapc_col_major(b, K, N, MAPC_F32),
                mc = mapc_row_major(c, M, N, MAPC_F32);
    bool ok = mapc_gemm_create(&o, &g) == MAPC_OK && mapc_gemm_f32(g, 1.0f, &ma, &mb, 0.0f, &mc) == MAPC_OK;
    for (int i = 0; ok && i < M; i++)
        for (int j = 0; ok && j < N; j++) {
            float s = 0; /* small integers: exact in any order */
            for (int k = 0; k < K; k++)
                s += a[i * K + k] * b[j * K + k];
            ok = c[i * N + j] == s;
        }
    note(w, ok, "GEMM over strided views");
    mapc_gemm_free(g);
    free(a);
    free(b);
    free(c);
}

/* The declared kernel k of a program of the thread's own, on ones: C = 32 + beta * 2 everywhere. */
static void kernel(Worker *w)
{
    mapc_program *p = NULL;
    mapc_kernel *k = NULL;
    mapc_kernel_options o = {.threads = 2};
    bool ok = mapc_compile_string("kernel", kernel_src, strlen(kernel_src), &p) == MAPC_OK &&
              mapc_kernel_create(p, "k", &o, &k) == MAPC_OK;
    size_t n = ok ? mapc_kernel_operand_bytes(k, 0) / sizeof(float) : 0;
    float *a = malloc(n * sizeof(float) + 1), *c = malloc(n * sizeof(float) + 1);
    for (size_t i = 0; i < n; i++)
        a[i] = 1.0f, c[i] = 2.0f;
    ok = ok && n == 32 * 32 && mapc_kernel_run(k, a, a, c, 1.0, 1.0) == MAPC_OK;
    for (size_t i = 0; ok && i < n; i++)
        ok = c[i] == 34.0f;
    note(w, ok, "a declared kernel");
    free(a);
    free(c);
    mapc_kernel_free(k);
    mapc_program_free(p);
}

/* The emitted kernel from every thread, with 1 or 2 threads of its own (runs with one count are serialized
 * on one engine, different counts run on their own): C = 32 + 2 everywhere. */
static void aot_kernel(Worker *w, int round)
{
    float *a = malloc(32 * 32 * sizeof(float)), *c = malloc(32 * 32 * sizeof(float));
    for (int i = 0; i < 32 * 32; i++)
        a[i] = 1.0f, c[i] = 2.0f;
    bool ok = w->sh->aot(a, a, c, 1.0, 1.0, 1 + (w->index + round) % 2) == MAPC_OK;
    for (int i = 0; ok && i < 32 * 32; i++)
        ok = c[i] == 34.0f;
    char what[200];
    snprintf(what, sizeof what, "the kernel emitted ahead of time: %s", mapc_aot_error()); /* this thread's */
    note(w, ok, what);
    free(a);
    free(c);
}

/* A runtime of the thread's own: HBM to DM by DMA and back to the host. */
static void runtime(Worker *w, Rng *rng)
{
    mapc_program *p = NULL;
    mapc_runtime *rt = NULL;
    mapc_tensor *h = NULL, *d = NULL;
    mapc_view *vh = NULL, *vd = NULL, *rd = NULL;
    float in[32], out[32] = {0};
    for (int i = 0; i < 32; i++)
        in[i] = (float)rng_below(rng, 1000);
    bool ok = mapc_compile_string("tensors", tensor_src, strlen(tensor_src), &p) == MAPC_OK &&
              mapc_runtime_create(p, 2, &rt) == MAPC_OK && mapc_tensor_create(rt, "H", &h) == MAPC_OK &&
              mapc_tensor_create(rt, "D", &d) == MAPC_OK && mapc_tensor_view(rt, h, 1, &vh) == MAPC_OK &&
              mapc_tensor_view(rt, d, 1, &vd) == MAPC_OK && mapc_tensor_view(rt, d, 0, &rd) == MAPC_OK &&
              mapc_view_write(rt, vh, in) == MAPC_OK && mapc_dma(rt, vd, vh) == MAPC_OK &&
              mapc_view_read(rt, rd, out) == MAPC_OK;
    note(w, ok && memcmp(in, out, sizeof in) == 0, "a runtime's DMA");
    mapc_runtime_free(rt);
    mapc_program_free(p);
}

static void *work(void *arg)
{
    Worker *w = arg;
    Rng rng = rng_seeded(rng_case_seed(w->sh->seed, (uint64_t)w->index, RNG_KEY_CASE));
    pthread_barrier_wait(&w->sh->start);
    for (int r = 0; r < w->sh->rounds; r++) {
        if (w->index == 0)
            note(w, jit_cache_set_dir(w->sh->cache_dir), "set the cache directory"); /* the same one, under the lock */
        shared_jit(w);
        own_jit(w, r);
        gemm(w, &rng);
        kernel(w);
        if (w->sh->aot)
            aot_kernel(w, r);
        runtime(w, &rng);
    }
    return NULL;
}

/* Emits kernel_src's kernel with prefix tt_ into dir, links it into a shared object and loads it: the address of
 * tt_k, or NULL after a failed check. *lib receives the handle. */
static void *emit_kernel(const char *dir, void **lib)
{
    char obj[256], so[256], cmd[700];
    snprintf(obj, sizeof obj, "%s/k.o", dir);
    snprintf(so, sizeof so, "%s/k.so", dir);
    Prog *p = prog_new();
    CgOptions o = {.prefix = "tt_", .opt_level = 2};
    bool ok = CHECK(prog_parse(p, "kernel", kernel_src, strlen(kernel_src)) == 0 &&
                        cg_emit_file(p, &o, CG_EMIT_OBJ, obj, &p->diags),
                    "emit the kernel ahead of time");
    prog_free(p);
    snprintf(cmd, sizeof cmd, "cc -shared -o '%s' '%s'", so, obj);
    ok = ok && CHECK(system(cmd) == 0, "link the emitted kernel: %s", cmd);
    *lib = ok ? dlopen(so, RTLD_NOW) : NULL;
    void *fn = *lib ? dlsym(*lib, "tt_k") : NULL;
    CHECK(!ok || fn, "load the emitted kernel: %s", *lib ? "no tt_k" : dlerror());
    return fn;
}

int main(int argc, char **argv)
{
    HarnessArgs args = {.seed = 1, .count = 3};
    harness_args(argc, argv, "[SEED [COUNT]]", &args);
    char dir[] = "/tmp/mapc-threads-XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL, "a temporary cache directory"))
        return harness_report();
    jit_cache_set_dir(dir);
    Shared sh = {.cache_dir = dir, .seed = args.seed, .rounds = (int)args.count};
    CHECK(mapc_compile_string("shared", shared_src, strlen(shared_src), &sh.prog) == MAPC_OK, "the shared program");
    CHECK(mapc_jit_create(sh.prog, NULL, &sh.jit) == MAPC_OK, "the shared JIT");
    if (!sh.jit)
        return harness_report();
    void *lib = NULL;
    sh.aot = (int (*)(const void *, const void *, void *, double, double, int))emit_kernel(dir, &lib);
    pthread_barrier_init(&sh.start, NULL, THREADS);
    pthread_t tid[THREADS];
    Worker w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (Worker){.sh = &sh, .index = i};
        CHECK(pthread_create(&tid[i], NULL, work, &w[i]) == 0, "start thread %d", i);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(tid[i], NULL);
        if (!CHECK(w[i].bad == 0 && w[i].ok > 0, "thread %d: %ld checks passed, %ld failed", i, w[i].ok, w[i].bad))
            harness_detail("%s", w[i].first);
    }
    pthread_barrier_destroy(&sh.start);
    JitCacheStats st = jit_cache_stats();
    CHECK(st.hits > 0 && st.rebuilt == 0, "the shared on-disk cache: %lu hits, %lu compiled, %lu rebuilt", st.hits,
          st.compiled, st.rebuilt);
    mapc_jit_free(sh.jit);
    mapc_program_free(sh.prog);
    mapc_release_caches(); /* the engines of the emitted kernel too, before its code goes */
    if (lib)
        dlclose(lib);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "remove the cache directory");
    return harness_report();
}
