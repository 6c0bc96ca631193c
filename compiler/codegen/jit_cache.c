/* jit_cache.c — the on-disk cache of compiled JIT objects: one file per module, named by a hash of its
 * IR, the optimization level, the target CPU and features, and the mapc and LLVM versions. */
#include "cg_impl.h"
#include "mapc_version.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The file: magic, payload bytes, payload checksum, the key's two hashes, then the object. */
typedef struct EntryHeader {
    char magic[8];
    uint64_t size, checksum, key_hi, key_lo;
} EntryHeader;
static const char entry_magic[8] = {'M', 'A', 'P', 'C', 'J', 'I', 'T', '1'};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static char *cache_dir;             /* owned; NULL: no cache */
static atomic_ulong cache_hits, cache_misses, cache_rebuilt;

bool jit_cache_set_dir(const char *dir)
{
    char *copy = dir && *dir ? strdup(dir) : NULL;
    if (dir && *dir && !copy)
        return false;
    pthread_mutex_lock(&cache_lock);
    free(cache_dir);
    cache_dir = copy;
    pthread_mutex_unlock(&cache_lock);
    return true;
}

JitCacheStats jit_cache_stats(void)
{
    return (JitCacheStats){.hits = atomic_load(&cache_hits), .compiled = atomic_load(&cache_misses),
                           .rebuilt = atomic_load(&cache_rebuilt)};
}

/* FNV-1a over n bytes from h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 0x100000001b3ULL;
    return h;
}

/* A second, independent 64-bit hash (a multiply-rotate over 8-byte words, with a final mix). */
static uint64_t mix(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = 0;
        memcpy(&w, s + i, n - i < 8 ? n - i : 8);
        h = (h ^ (w * 0xbf58476d1ce4e5b9ULL)) * 0x94d049bb133111ebULL;
        h = h << 29 | h >> 35;
    }
    h ^= h >> 31;
    h *= 0xd6e8feb86659fd93ULL;
    return h ^ (h >> 32);
}

void jit_cache_key(const char *ir, size_t n, const char *target, JitCacheKey *key)
{
    char ctx[512];
    int m = snprintf(ctx, sizeof ctx, "mapc %s llvm %s %s", MAPC_VERSION_STRING, cg_llvm_version(), target);
    size_t cn = m < 0 ? 0 : (size_t)m < sizeof ctx ? (size_t)m : sizeof ctx - 1;
    key->hi = fnv(fnv(0xcbf29ce484222325ULL, ctx, cn), ir, n);
    key->lo = mix(ir, n) ^ mix(ctx, cn) * 0x2545f4914f6cdd1dULL;
}

/* The entry's path under the current directory, malloc'ed; NULL without a cache. */
static char *entry_path(const JitCacheKey *key)
{
    pthread_mutex_lock(&cache_lock);
    char *path = NULL;
    if (cache_dir) {
        size_t n = strlen(cache_dir) + 40;
        if ((path = malloc(n)))
            snprintf(path, n, "%s/%016llx%016llx.o", cache_dir, (unsigned long long)key->hi,
                     (unsigned long long)key->lo);
    }
    pthread_mutex_unlock(&cache_lock);
    return path;
}

void *jit_cache_load(const JitCacheKey *key, size_t *size)
{
    char *path = entry_path(key);
    if (!path)
        return NULL;
    FILE *f = fopen(path, "rb");
    void *data = NULL;
    EntryHeader h;
    if (f && fread(&h, sizeof h, 1, f) == 1 && memcmp(h.magic, entry_magic, sizeof h.magic) == 0 &&
        h.key_hi == key->hi && h.key_lo == key->lo && h.size > 0 && h.size < ((uint64_t)1 << 32) &&
        (data = malloc((size_t)h.size)) && fread(data, 1, (size_t)h.size, f) == h.size &&
        fgetc(f) == EOF && fnv(0xcbf29ce484222325ULL, data, (size_t)h.size) == h.checksum) {
        *size = (size_t)h.size;
        atomic_fetch_add(&cache_hits, 1);
    } else {
        free(data);
        data = NULL;
        if (f) { /* corrupt, truncated or foreign: removed, and rebuilt by the caller */
            unlink(path);
            atomic_fetch_add(&cache_rebuilt, 1);
        }
    }
    if (f)
        fclose(f);
    free(path);
    return data;
}

/* Creates dir and its parents (mode 0700 for new ones); true if it exists afterwards. */
static bool make_dirs(char *dir)
{
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
                *p = '/';
                return false;
            }
            *p = '/';
        }
    return mkdir(dir, 0700) == 0 || errno == EEXIST;
}

void jit_cache_store(const JitCacheKey *key, const void *data, size_t size)
{
    atomic_fetch_add(&cache_misses, 1);
    char *path = entry_path(key);
    if (!path)
        return;
    char *slash = strrchr(path, '/');
    *slash = 0;
    bool dir_ok = make_dirs(path);
    *slash = '/';
    size_t n = strlen(path) + 48;
    char *tmp = dir_ok ? malloc(n) : NULL;
    if (tmp) {
        /* written under a name of this process and thread, then renamed: readers see whole entries only */
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        snprintf(tmp, n, "%s.%ld.%lx.%lx.tmp", path, (long)getpid(), (unsigned long)pthread_self(),
                 (unsigned long)t.tv_nsec);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0600);
        EntryHeader h = {.size = size, .checksum = fnv(0xcbf29ce484222325ULL, data, size), .key_hi = key->hi,
                         .key_lo = key->lo};
        memcpy(h.magic, entry_magic, sizeof h.magic);
        bool ok = fd >= 0 && write(fd, &h, sizeof h) == (ssize_t)sizeof h && write(fd, data, size) == (ssize_t)size;
        if (fd >= 0)
            ok = close(fd) == 0 && ok;
        if (!ok || rename(tmp, path) != 0)
            unlink(tmp); /* a cache that cannot be written only costs the next process a compile */
        free(tmp);
    }
    free(path);
}
