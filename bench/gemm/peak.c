/* peak.c — throughput loops for the peak rate of each multiply-add instruction, run on pinned threads. */
#include "peak.h"
#include "bench.h"

#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Twelve independent accumulators: more than the latency (4 to 5 cycles) times the issue ports (2) of any
 * of the vector instructions, so the loop runs at the instruction's throughput. */
#define TWELVE(op) op(0) op(1) op(2) op(3) op(4) op(5) op(6) op(7) op(8) op(9) op(10) op(11)
#define ACC_CLOBBERS "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11"

#define FMA_ZMM(i) "vfmadd231ps %%zmm14, %%zmm15, %%zmm" #i "\n"
#define FMA_YMM(i) "vfmadd231ps %%ymm14, %%ymm15, %%ymm" #i "\n"
#define DPBF16(i) "vdpbf16ps %%zmm14, %%zmm15, %%zmm" #i "\n"
#define VNNI(i) "vpdpbusd %%zmm14, %%zmm15, %%zmm" #i "\n"
#define LOOP(body) \
    __asm__ volatile("vxorps %%xmm14, %%xmm14, %%xmm14\nvxorps %%xmm15, %%xmm15, %%xmm15\n1:\n" body "dec %0\njnz 1b\n" \
                     : "+r"(n)::ACC_CLOBBERS, "xmm14", "xmm15", "cc")

__attribute__((target("avx512f"))) static void loop_fma_zmm(long n) { LOOP(TWELVE(FMA_ZMM)); }
__attribute__((target("avx2,fma"))) static void loop_fma_ymm(long n) { LOOP(TWELVE(FMA_YMM)); }
__attribute__((target("avx512f,avx512bf16"))) static void loop_dpbf16(long n) { LOOP(TWELVE(DPBF16)); }
__attribute__((target("avx512f,avx512vnni"))) static void loop_vnni(long n) { LOOP(TWELVE(VNNI)); }

/* The AMX tile configuration (palette 1): eight tiles of 16 rows of 64 bytes. */
typedef struct TileConfig {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} TileConfig;

static const TileConfig tiles16x64 = {
    .palette = 1, .colsb = {64, 64, 64, 64, 64, 64, 64, 64}, .rows = {16, 16, 16, 16, 16, 16, 16, 16}};

/* Source tiles of ones (bf16 1.0, s8 1): the results never overflow to infinity within a run. */
static uint16_t tile_src[16 * 32] __attribute__((aligned(64)));

/* Four accumulator tiles fed from four source tiles: four independent dot products per step, more than the
 * instruction's latency over its throughput. */
#define AMX_LOOP(op) \
    do { \
        _tile_loadconfig(&tiles16x64); \
        _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3); \
        _tile_loadd(4, tile_src, 64); _tile_loadd(5, tile_src, 64); \
        _tile_loadd(6, tile_src, 64); _tile_loadd(7, tile_src, 64); \
        for (long i = 0; i < n; i++) { \
            op(0, 4, 6); op(1, 4, 7); op(2, 5, 6); op(3, 5, 7); \
        } \
        _tile_release(); \
    } while (0)

__attribute__((target("amx-tile,amx-bf16"))) static void loop_amx_bf16(long n) { AMX_LOOP(_tile_dpbf16ps); }
__attribute__((target("amx-tile,amx-int8"))) static void loop_amx_i8(long n) { AMX_LOOP(_tile_dpbssd); }

typedef struct Loop {
    const char *name;
    void (*run)(long n);
    double ops;             /* operations per iteration (a multiply-add is 2) */
    long chunk;             /* iterations per timed call: about 0.1 ms */
} Loop;

static const Loop loops[PEAK_COUNT] = {
    [PEAK_FMA_ZMM] = {"f32 FMA zmm", loop_fma_zmm, 12 * 16 * 2, 20000},
    [PEAK_FMA_YMM] = {"f32 FMA ymm", loop_fma_ymm, 12 * 8 * 2, 20000},
    [PEAK_DPBF16] = {"vdpbf16ps", loop_dpbf16, 12 * 16 * 2 * 2, 10000},
    [PEAK_VNNI] = {"vpdpbusd", loop_vnni, 12 * 16 * 4 * 2, 20000},
    [PEAK_AMX_BF16] = {"AMX bf16", loop_amx_bf16, 4 * 16 * 16 * 32 * 2, 1000},
    [PEAK_AMX_I8] = {"AMX i8", loop_amx_i8, 4 * 16 * 16 * 64 * 2, 1000},
};

const char *peak_name(PeakKind k) { return loops[k].name; }

/* Linux gives a process the AMX tile state only on request (arch_prctl ARCH_REQ_XCOMP_PERM for
 * XFEATURE_XTILEDATA); granted once for every thread. */
static bool amx_permitted(void)
{
    enum { ARCH_REQ_XCOMP_PERM = 0x1023, XFEATURE_XTILEDATA = 18 };
    static int state; /* 0 unknown, 1 granted, -1 refused */
    if (!state)
        state = syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0 ? 1 : -1;
    return state > 0;
}

bool peak_available(PeakKind k)
{
    __builtin_cpu_init();
    switch (k) {
    case PEAK_FMA_ZMM: return __builtin_cpu_supports("avx512f");
    case PEAK_FMA_YMM: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case PEAK_DPBF16: return __builtin_cpu_supports("avx512bf16");
    case PEAK_VNNI: return __builtin_cpu_supports("avx512vnni");
    case PEAK_AMX_BF16:
    case PEAK_AMX_I8: {
        /* CPUID leaf 7: AMX-BF16 is EDX bit 22, AMX-TILE bit 24, AMX-INT8 bit 25 */
        unsigned a, b, c, d;
        __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(7), "c"(0));
        unsigned need = (1u << 24) | (k == PEAK_AMX_BF16 ? 1u << 22 : 1u << 25);
        return (d & need) == need && amx_permitted();
    }
    case PEAK_COUNT: break;
    }
    return false;
}

bool peak_pin_self(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0;
}

typedef struct Runner {
    const Loop *loop;
    int cpu;
    double seconds, rate;
    const int *go;          /* 0 while threads start, 1 to run, -1 to give up */
} Runner;

/* One thread of peak_rate: pinned, released with the others, then timed calls of the loop until `seconds`. */
static void *runner(void *arg)
{
    Runner *r = arg;
    peak_pin_self(r->cpu);
    int go;
    while ((go = __atomic_load_n(r->go, __ATOMIC_ACQUIRE)) == 0)
        sched_yield();
    if (go < 0)
        return NULL;
    r->loop->run(r->loop->chunk); /* warm: the vector units' power-up, the code in cache */
    long calls = 0;
    double t0 = bench_seconds(), t;
    do {
        r->loop->run(r->loop->chunk);
        calls++;
    } while ((t = bench_seconds() - t0) < r->seconds);
    r->rate = r->loop->ops * (double)r->loop->chunk * (double)calls / t * 1e-9;
    return NULL;
}

double peak_rate(PeakKind k, int threads, double seconds, double *per_thread)
{
    enum { MAX_THREADS = 64 };
    if (!peak_available(k) || threads < 1 || threads > MAX_THREADS)
        return 0;
    Runner r[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    int go = 0, started = 0;
    for (int t = 0; t < threads; t++) {
        r[t] = (Runner){.loop = &loops[k], .cpu = t, .seconds = seconds, .go = &go};
        if (pthread_create(&tid[t], NULL, runner, &r[t]) != 0)
            break;
        started++;
    }
    __atomic_store_n(&go, started == threads ? 1 : -1, __ATOMIC_RELEASE);
    double sum = 0;
    for (int t = 0; t < started; t++) {
        pthread_join(tid[t], NULL);
        sum += r[t].rate;
        if (per_thread)
            per_thread[t] = r[t].rate;
    }
    return started == threads ? sum : 0;
}

void peak_cpu_model(char *buf, int cap)
{
    char line[512], name[256] = "unknown CPU";
    int family = -1, model = -1;
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f)) {
        char *v = strchr(line, ':');
        if (!v)
            continue;
        v += v[1] == ' ' ? 2 : 1;
        v[strcspn(v, "\n")] = '\0';
        if (strncmp(line, "model name", 10) == 0 && strcmp(name, "unknown CPU") == 0)
            snprintf(name, sizeof name, "%s", v);
        else if (strncmp(line, "cpu family", 10) == 0 && family < 0)
            sscanf(v, "%d", &family);
        else if (strncmp(line, "model\t", 6) == 0 && model < 0)
            sscanf(v, "%d", &model);
    }
    if (f)
        fclose(f);
    snprintf(buf, (size_t)cap, "%s (family %d, model %d)", name, family, model);
}
