/* check.h — what the C test programs share: case counters, CHECK, the closing "N passed, N failed"
 * line, and a seeded splitmix64 generator (header-only; include once per test program). */
#ifndef MAPC_TESTS_CHECK_H
#define MAPC_TESTS_CHECK_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int passed, failed;
static uint64_t check_seed; /* printed with every failure, so a run can be repeated */

/* Counts one case; on failure prints FILE:LINE, the seed and the printf-style message. */
#define CHECK(cond, ...)                                                                         \
    do {                                                                                         \
        if (cond) {                                                                              \
            passed++;                                                                            \
        } else {                                                                                 \
            failed++;                                                                            \
            fprintf(stderr, "FAIL %s:%d (seed %llu): ", __FILE__, __LINE__,                     \
                    (unsigned long long)check_seed);                                             \
            fprintf(stderr, __VA_ARGS__);                                                        \
            fputc('\n', stderr);                                                                 \
        }                                                                                        \
    } while (0)

/* Prints the closing line and returns the exit status. */
static inline int check_report(void)
{
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}

static uint64_t rng_state;
/* The next 64 random bits (splitmix64) and a uniform value in [0, n). */
static inline uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}
static inline uint64_t below(uint64_t n) { return rng() % n; }

/* Appends printf-style text to the NUL-terminated string buf of capacity size (truncating). */
static void cat(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4), unused));
static void cat(char *buf, size_t size, const char *fmt, ...)
{
    size_t n = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, n < size ? size - n : 0, fmt, ap);
    va_end(ap);
}

#endif
