/* caches.c — the host's data caches per core, read at run time, and the cache-block model built on them. */
#include "target.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define HAVE_CPUID 1
#endif

enum {
    ASSUMED_L1D = 32 << 10,     /* what nearly every core of the last decade has at least */
    ASSUMED_L2 = 1 << 20,
    MAX_CACHE_INDEX = 16,       /* sysfs lists a handful of cache levels per CPU */
};

/* The text of a small sysfs file, without its newline; false if it cannot be read. */
static bool read_line(const char *path, char *out, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(out, (int)cap, f) != NULL;
    fclose(f);
    if (ok)
        out[strcspn(out, "\n")] = 0;
    return ok;
}

/* The CPUs of a list such as "0-3,8": their number, at least 1. */
static uint64_t count_cpus(const char *list)
{
    uint64_t n = 0;
    for (const char *s = list; *s;) {
        char *end;
        unsigned long a = strtoul(s, &end, 10), b = a;
        if (end == s)
            break;
        if (*end == '-')
            b = strtoul(end + 1, &end, 10);
        n += b >= a ? b - a + 1 : 1;
        s = *end == ',' ? end + 1 : end;
        if (*end != ',')
            break;
    }
    return n ? n : 1;
}

/* From /sys/devices/system/cpu/cpu0/cache (Linux): L1 data and L2 per core (a shared cache divided among the
 * CPUs that share it). */
static bool from_sysfs(TargetCaches *c)
{
    uint64_t l1d = 0, l2 = 0;
    for (int i = 0; i < MAX_CACHE_INDEX; i++) {
        char path[96], level[16], type[32], size[32], shared[256];
        const char *fields[] = {"level", "type", "size", "shared_cpu_list"};
        char *vals[] = {level, type, size, shared};
        size_t caps[] = {sizeof level, sizeof type, sizeof size, sizeof shared};
        bool ok = true;
        for (int f = 0; f < 4 && ok; f++) {
            snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/%s", i, fields[f]);
            ok = read_line(path, vals[f], caps[f]);
        }
        if (!ok)
            continue;
        uint64_t bytes;
        if (!target_cache_size_parse(size, &bytes))
            continue;
        bytes /= count_cpus(shared);
        if (strcmp(level, "1") == 0 && strcmp(type, "Data") == 0)
            l1d = bytes;
        else if (strcmp(level, "2") == 0 && strcmp(type, "Instruction") != 0)
            l2 = bytes;
    }
    if (!l1d || !l2)
        return false;
    *c = (TargetCaches){.l1d = l1d, .l2 = l2, .source = "sysfs"};
    return true;
}

/* From CPUID's deterministic cache parameters: leaf 4 (Intel) or 0x8000001D (AMD). */
static bool from_cpuid(TargetCaches *c)
{
#ifdef HAVE_CPUID
    unsigned a, b, cx, d;
    unsigned leaves[] = {4, 0x8000001D};
    for (int l = 0; l < 2; l++) {
        unsigned top = __get_cpuid_max(leaves[l] & 0x80000000u, NULL);
        if (top < leaves[l])
            continue;
        uint64_t l1d = 0, l2 = 0;
        for (unsigned i = 0; i < MAX_CACHE_INDEX; i++) {
            __cpuid_count(leaves[l], i, a, b, cx, d);
            unsigned type = a & 31, level = (a >> 5) & 7;
            if (type == 0)
                break;
            uint64_t bytes = (uint64_t)((b >> 22) + 1) * (((b >> 12) & 1023) + 1) * ((b & 4095) + 1) * ((uint64_t)cx + 1);
            bytes /= ((a >> 14) & 4095) + 1; /* the logical CPUs sharing it */
            if (level == 1 && type == 1)
                l1d = bytes;
            else if (level == 2 && type != 2)
                l2 = bytes;
        }
        if (l1d && l2) {
            *c = (TargetCaches){.l1d = l1d, .l2 = l2, .source = "cpuid"};
            return true;
        }
    }
#endif
    (void)c;
    return false;
}

static pthread_once_t host_once = PTHREAD_ONCE_INIT;
static TargetCaches host;

/* Reads the host's caches into host (once, through host_once). */
static void read_host(void)
{
    if (!from_sysfs(&host) && !from_cpuid(&host))
        host = (TargetCaches){.l1d = ASSUMED_L1D, .l2 = ASSUMED_L2, .source = "assumed"};
}

TargetCaches target_host_caches(void)
{
    pthread_once(&host_once, read_host);
    return host;
}

bool target_cache_size_parse(const char *s, uint64_t *out)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    switch (*end) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end == 'i' && end[1] == 'B')
        end += 2;
    else if (*end == 'B')
        end++;
    if (*end || v == 0 || v > (UINT64_MAX >> shift))
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

bool target_caches_parse(const char *s, TargetCaches *out)
{
    char l1[32];
    const char *comma = strchr(s, ',');
    if (!comma || (size_t)(comma - s) >= sizeof l1)
        return false;
    memcpy(l1, s, (size_t)(comma - s));
    l1[comma - s] = 0;
    TargetCaches c = {.source = "MAPC_CACHES"};
    if (!target_cache_size_parse(l1, &c.l1d) || !target_cache_size_parse(comma + 1, &c.l2) ||
        c.l1d < TARGET_MIN_L1D || c.l2 < TARGET_MIN_L2 || c.l1d > TARGET_MAX_CACHE || c.l2 > TARGET_MAX_CACHE)
        return false;
    *out = c;
    return true;
}

static uint64_t round_down(uint64_t n, uint64_t m, uint64_t least)
{
    n = n / m * m;
    return n < least ? least : n;
}

static uint64_t round_up(uint64_t n, uint64_t m)
{
    return (n + m - 1) / m * m;
}

TargetBlocks target_cache_blocks_kc(const TargetCaches *c, int mr, int nr, uint64_t kc, uint64_t e)
{
    uint64_t umr = (uint64_t)mr, unr = (uint64_t)nr, row = kc * e;
    /* the micro-kernels sweep each A micro-panel (in L1) across the whole kc x nc B block, which stays in L2: it
     * takes half of it, leaving room for the C rows being updated and the A panels streaming past. A is not
     * reused from L2 in that order, so the mc x kc A block need not fit beside B: half of L2 again, which
     * spreads the cost of each macro-kernel call and of packing B over more rows */
    TargetBlocks b = {.kc = kc, .nc = round_down(c->l2 / 2 / row, unr, unr), .mc = round_down(c->l2 / 2 / row, umr, umr)};
    if (b.nc > TARGET_MAX_BLOCK)
        b.nc = round_down(TARGET_MAX_BLOCK, unr, unr);
    if (b.mc > TARGET_MAX_BLOCK)
        b.mc = round_down(TARGET_MAX_BLOCK, umr, umr);
    return b;
}

TargetBlocks target_cache_blocks(const TargetCaches *c, int mr, int nr, int g, uint64_t e, const uint64_t *shape)
{
    uint64_t umr = (uint64_t)mr, unr = (uint64_t)nr, ug = (uint64_t)g;
    /* the A micro-panel (mr x kc) takes a quarter of L1d, so it stays there while B's micro-panels stream
     * past it; K blocks are whole multiples of 8 groups */
    uint64_t kc = round_down(c->l1d / 4 / (umr * e), 8 * ug, 8 * ug);
    if (kc > TARGET_MAX_KC)
        kc = round_down(TARGET_MAX_KC, 8 * ug, 8 * ug);
    if (shape && kc > round_up(shape[GEMM_K], ug))
        kc = round_up(shape[GEMM_K], ug); /* a short K leaves L2 room for wider blocks below */
    TargetBlocks b = target_cache_blocks_kc(c, mr, nr, kc, e);
    if (shape) {
        if (b.mc > round_up(shape[GEMM_M], umr))
            b.mc = round_up(shape[GEMM_M], umr);
        if (b.nc > round_up(shape[GEMM_N], unr))
            b.nc = round_up(shape[GEMM_N], unr);
    }
    return b;
}
