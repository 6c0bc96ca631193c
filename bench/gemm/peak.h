/* peak.h — the machine's own peak multiply-add rates, measured by throughput loops per instruction, and its CPU. */
#ifndef MAPC_BENCH_PEAK_H
#define MAPC_BENCH_PEAK_H

#include <stdbool.h>

/* The instructions whose throughput bounds a GEMM kernel. */
typedef enum PeakKind {
    PEAK_FMA_ZMM,   /* vfmadd231ps on 512-bit vectors (f32; bf16 and f16 widened to f32) */
    PEAK_FMA_YMM,   /* vfmadd231ps on 256-bit vectors (the avx2 kernels) */
    PEAK_DPBF16,    /* vdpbf16ps (bf16 pairs into f32) */
    PEAK_VNNI,      /* vpdpbusd (u8 x s8 quads into i32) */
    PEAK_AMX_BF16,  /* tdpbf16ps (AMX tiles of bf16) */
    PEAK_AMX_I8,    /* tdpbssd (AMX tiles of s8) */
    PEAK_COUNT
} PeakKind;

/* "f32 FMA zmm", "vdpbf16ps", ...; whether the host can run the loop of k. */
const char *peak_name(PeakKind k);
bool peak_available(PeakKind k);

/* The rate of k's loop in G operations per second (a multiply-add counts 2) on `threads` threads pinned to
 * CPUs 0 .. threads-1, running together for about `seconds`: the sum over the threads, and each thread's rate in
 * per_thread[threads] (may be NULL). 0 when k is unavailable or a thread cannot start. */
double peak_rate(PeakKind k, int threads, double seconds, double *per_thread);

/* The CPU's model name (/proc/cpuinfo "model name", with family and model numbers), in buf[cap]. */
void peak_cpu_model(char *buf, int cap);

/* Pins the calling thread to CPU cpu (false if the host refuses). */
bool peak_pin_self(int cpu);

#endif
