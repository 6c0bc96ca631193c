/* test_cache_model.c — the cache model (core/caches.c): parsing MAPC_CACHES sizes, the host's caches, the blocks
 * of target_cache_blocks for known machines and, over generated caches, micro-tiles and shapes, the rules its
 * contract states.
 * Usage: test_cache_model [SEED [COUNT]] (COUNT generated cases, default 5000). */
#include "harness.h"
#include "core/target.h"

#include <string.h>

#define U(x) ((unsigned long long)(x))

static uint64_t round_up(uint64_t n, uint64_t m) { return (n + m - 1) / m * m; }

static void parse_cases(void)
{
    static const struct {
        const char *text;
        bool ok;
        uint64_t l1d, l2;
    } cases[] = {
        {"48K,2M", true, 48 << 10, 2 << 20},      {"32KiB,1MiB", true, 32 << 10, 1 << 20},
        {"65536,262144", true, 65536, 262144},    {"1G,1G", true, 1u << 30, 1u << 30},
        {"4K,64K", true, 4 << 10, 64 << 10},      {"48,2M", false, 0, 0},
        {"3K,2M", false, 0, 0},                   {"48K,63K", false, 0, 0},
        {"2G,1M", false, 0, 0},                   {"48K", false, 0, 0},
        {"48K,2M,8M", false, 0, 0},               {",2M", false, 0, 0},
        {"-48K,2M", false, 0, 0},                 {"48k,2M", false, 0, 0},
        {"48K,2MB ", false, 0, 0},                {"99999999999999999999K,1M", false, 0, 0},
        {"18014398509481984K,1M", false, 0, 0},   {"0,1M", false, 0, 0},
        {"48KB,2MB", true, 48 << 10, 2 << 20},    {"", false, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        TargetCaches c = {0};
        bool ok = target_caches_parse(cases[i].text, &c);
        CHECK(ok == cases[i].ok, "target_caches_parse(\"%s\") gave %d", cases[i].text, ok);
        if (ok && cases[i].ok) {
            CHECK_EQ_U64(c.l1d, cases[i].l1d, "L1d of \"%s\"", cases[i].text);
            CHECK_EQ_U64(c.l2, cases[i].l2, "L2 of \"%s\"", cases[i].text);
            CHECK_EQ_STR(c.source, "MAPC_CACHES", "source of \"%s\"", cases[i].text);
        }
    }
}

static void host_cases(void)
{
    TargetCaches c = target_host_caches(), again = target_host_caches();
    CHECK(c.l1d >= 1024 && c.l2 >= c.l1d && c.l2 <= (1ull << 32), "host caches L1d %llu, L2 %llu (from %s)",
          U(c.l1d), U(c.l2), c.source);
    CHECK(c.source && (!strcmp(c.source, "sysfs") || !strcmp(c.source, "cpuid") || !strcmp(c.source, "assumed")),
          "host caches from %s", c.source ? c.source : "NULL");
    CHECK(c.l1d == again.l1d && c.l2 == again.l2 && c.source == again.source, "the host's caches are read once");
}

/* Blocks on known machines: a Xeon (48 KiB L1d, 2 MiB L2), a Zen 4 (32 KiB, 1 MiB) and a Zen 5 (48 KiB, 1 MiB).
 * kc = L1d / 4 / (mr * e) down to 8 groups; nc = L2 / 2 / (kc * e) down to nr; mc = L2 / 2 / (kc * e) down to mr. */
static void known_cases(void)
{
    static const struct {
        uint64_t l1d, l2;
        int mr, nr, g;
        uint64_t e, mc, nc, kc;
    } cases[] = {
        {48 << 10, 2 << 20, 12, 32, 1, 4, 1020, 1024, 256}, /* AVX-512 f32 */
        {48 << 10, 2 << 20, 12, 32, 2, 2, 1020, 1024, 512}, /* bf16 pairs (vdpbf16ps) */
        {48 << 10, 2 << 20, 12, 32, 4, 1, 1020, 1024, 1024}, /* i8 quads (VNNI) */
        {48 << 10, 2 << 20, 6, 16, 1, 4, 510, 512, 512},    /* AVX2 f32 */
        {32 << 10, 1 << 20, 12, 32, 1, 4, 780, 768, 168},   /* Zen 4 f32: 32K / 4 / 48 = 170 -> 168 */
        {48 << 10, 1 << 20, 12, 32, 1, 4, 504, 512, 256},   /* Zen 5 f32 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        TargetCaches c = {cases[i].l1d, cases[i].l2, "test"};
        TargetBlocks b = target_cache_blocks(&c, cases[i].mr, cases[i].nr, cases[i].g, cases[i].e, NULL);
        CHECK(b.mc == cases[i].mc && b.nc == cases[i].nc && b.kc == cases[i].kc,
              "case %zu: blocks %llu x %llu x %llu, expected %llu x %llu x %llu", i, U(b.mc), U(b.nc), U(b.kc),
              U(cases[i].mc), U(cases[i].nc), U(cases[i].kc));
    }
    /* a short K frees L2 for wider blocks; small M and N cut them */
    TargetCaches xeon = {48 << 10, 2 << 20, "test"};
    const uint64_t shape[3] = {50, 4000, 64};
    TargetBlocks b = target_cache_blocks(&xeon, 12, 32, 1, 4, shape);
    CHECK(b.kc == 64 && b.mc == 60 && b.nc == 4000, "50 x 4000 x 64: blocks %llu x %llu x %llu", U(b.mc), U(b.nc),
          U(b.kc));
}

/* The contract over generated caches, micro-tiles, groups, element sizes and shapes. */
static void generated_cases(Rng *rng, uint64_t count)
{
    for (uint64_t i = 0; i < count; i++) {
        harness_case(i);
        TargetCaches c = {TARGET_MIN_L1D + rng_below(rng, 256 << 10), TARGET_MIN_L2 + rng_below(rng, 64 << 20),
                          "test"};
        int mr = 1 + (int)rng_below(rng, 32), nr = 8 * (1 + (int)rng_below(rng, 8));
        static const int groups[] = {1, 2, 4};
        int g = groups[rng_below(rng, 3)];
        uint64_t e = g == 1 ? 4 : (uint64_t)(4 / g), shape[3];
        for (int r = 0; r < 3; r++)
            shape[r] = 1 + rng_below(rng, rng_below(rng, 2) ? 100 : 20000);
        bool shaped = rng_below(rng, 2);
        TargetBlocks b = target_cache_blocks(&c, mr, nr, g, e, shaped ? shape : NULL);
        uint64_t umr = (uint64_t)mr, unr = (uint64_t)nr, ug = (uint64_t)g;
        bool kc_short = shaped && b.kc == round_up(shape[2], ug);
        bool ok = b.kc >= ug && b.kc % ug == 0 && (kc_short || b.kc % (8 * ug) == 0) && b.kc <= TARGET_MAX_KC &&
                  (b.kc * umr * e <= c.l1d / 4 || b.kc == 8 * ug || kc_short);
        ok &= b.mc >= umr && b.mc % umr == 0 && (b.mc * b.kc * e <= c.l2 / 2 || b.mc == umr);
        ok &= b.nc >= unr && b.nc % unr == 0 && (b.nc * b.kc * e <= c.l2 / 2 || b.nc == unr);
        ok &= b.mc <= TARGET_MAX_BLOCK && b.nc <= TARGET_MAX_BLOCK;
        if (shaped)
            ok &= b.mc <= round_up(shape[0], umr) && b.nc <= round_up(shape[1], unr) && b.kc <= round_up(shape[2], ug);
        CHECK(ok, "caches %llu, %llu; micro-tile %dx%d, g %d, %llu-byte elements, shape %s%llu x %llu x %llu: blocks "
              "%llu x %llu x %llu", U(c.l1d), U(c.l2), mr, nr, g, U(e), shaped ? "" : "(none) ", U(shape[0]),
              U(shape[1]), U(shape[2]), U(b.mc), U(b.nc), U(b.kc));
    }
}

int main(int argc, char **argv)
{
    HarnessArgs a = {.seed = 1, .count = 5000};
    harness_args(argc, argv, "[SEED [COUNT]]", &a);
    Rng rng = rng_seeded(a.seed);
    parse_cases();
    host_cases();
    known_cases();
    generated_cases(&rng, a.count);
    return harness_report();
}
