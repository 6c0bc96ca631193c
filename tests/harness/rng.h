/* rng.h — the one seeded generator of the tests: splitmix64, header-only so that support libraries
 * (mapgen, eqgen) and the benchmarks that link them need no harness library. */
#ifndef MAPC_TESTS_RNG_H
#define MAPC_TESTS_RNG_H

#include <stdint.h>

/* A splitmix64 stream: the state is the seed, and each draw advances it by the golden gamma. */
typedef struct Rng {
    uint64_t state;
} Rng;

/* Case streams: rng_case_seed keys. RNG_KEY_CASE is the one the property and equivalence tests use;
 * RNG_KEY_GAMMA (the splitmix increment) keys the corpus of test_equiv_large, which predates it. */
#define RNG_KEY_CASE UINT64_C(0xD1B54A32D192ED03)
#define RNG_KEY_GAMMA UINT64_C(0x9E3779B97F4A7C15)

/* A stream that starts at seed (the same seed gives the same values on every machine). */
static inline Rng rng_seeded(uint64_t seed) { return (Rng){seed}; }

/* The next 64 random bits of r. */
static inline uint64_t rng_next(Rng *r)
{
    uint64_t z = (r->state += RNG_KEY_GAMMA);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* A value in [0, n), n >= 1 (rng_next modulo n: slightly biased for huge n, which no test draws);
 * it always consumes one draw, even for n == 1. */
static inline uint64_t rng_below(Rng *r, uint64_t n) { return rng_next(r) % n; }

/* A value in [-1, 1) from the top 53 bits of one draw (exact in a double). */
static inline double rng_signed_unit(Rng *r) { return (double)(rng_next(r) >> 11) * 0x1p-52 - 1.0; }

/* The seed of case `index` of a run seeded with `seed`: the first draw of a stream started at
 * seed ^ (index * key), so every case has its own stream and reruns alone from (seed, index). */
static inline uint64_t rng_case_seed(uint64_t seed, uint64_t index, uint64_t key)
{
    Rng r = rng_seeded(seed ^ (index * key));
    return rng_next(&r);
}

#endif
