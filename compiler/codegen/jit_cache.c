/* jit_cache.c — the on-disk cache of compiled JIT objects: a directory of this user only, with this user's
 * secret key, holding one signed entry (jit_entry.c) per module, read without following links or blocking. */
#include "cg_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* An opened cache: the directory (checked once, then reached only through this descriptor, so renaming
 * the path later changes nothing) and the secret. Shared by the loads and stores under way. */
typedef struct CacheDir {
    int fd;
    unsigned char secret[JIT_SECRET_BYTES];
    int refs;
} CacheDir;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static char *cache_path;              /* owned; NULL: no cache */
static bool cache_chosen;             /* jit_cache_set_dir was called */
static enum { UNOPENED, OPENED, REFUSED } cache_state;
static CacheDir *cache_open_dir;      /* OPENED with a path: one reference */
static char cache_warn[1024];         /* REFUSED: why */
static bool cache_warn_taken;
static atomic_ulong cache_hits, cache_misses, cache_rebuilt;

static void dir_release(CacheDir *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&cache_lock);
    bool last = --c->refs == 0;
    pthread_mutex_unlock(&cache_lock);
    if (last) {
        close(c->fd);
        free(c);
    }
}

bool jit_cache_set_dir(const char *dir)
{
    char *copy = dir && *dir ? strdup(dir) : NULL;
    if (dir && *dir && !copy)
        return false;
    pthread_mutex_lock(&cache_lock);
    free(cache_path);
    cache_path = copy;
    cache_chosen = true;
    cache_state = UNOPENED;
    CacheDir *old = cache_open_dir;
    cache_open_dir = NULL;
    cache_warn[0] = 0;
    cache_warn_taken = false;
    pthread_mutex_unlock(&cache_lock);
    dir_release(old); /* loads and stores under way keep their own reference */
    return true;
}

bool jit_cache_use_environment(bool unless_set)
{
    pthread_mutex_lock(&cache_lock);
    bool chosen = cache_chosen;
    pthread_mutex_unlock(&cache_lock);
    if (unless_set && chosen)
        return true;
    const char *dir = getenv("MAPC_CACHE_DIR");
    if (dir) /* set: that directory, or no cache when empty */
        return jit_cache_set_dir(dir);
    const char *base = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    const char *tail = base && base[0] == '/' ? "/mapc" : home && home[0] == '/' ? "/.cache/mapc" : NULL;
    if (!tail)
        return jit_cache_set_dir(NULL); /* nowhere to keep it: every process compiles */
    const char *head = base && base[0] == '/' ? base : home;
    size_t n = strlen(head) + strlen(tail) + 1;
    char *path = malloc(n);
    if (!path)
        return false;
    snprintf(path, n, "%s%s", head, tail);
    bool ok = jit_cache_set_dir(path);
    free(path);
    return ok;
}

JitCacheStats jit_cache_stats(void)
{
    return (JitCacheStats){.hits = atomic_load(&cache_hits), .compiled = atomic_load(&cache_misses),
                           .rebuilt = atomic_load(&cache_rebuilt)};
}

/* Creates dir and its missing parents (mode 0700); true if the last exists afterwards. */
static bool make_dirs(char *dir)
{
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            int r = mkdir(dir, 0700);
            *p = '/';
            if (r != 0 && errno != EEXIST)
                return false;
        }
    return mkdir(dir, 0700) == 0 || errno == EEXIST;
}

/* What is wrong with a file or directory of status st for the cache ("" when nothing): owned by another
 * user, or writable (with secret: readable or writable) by its group or others. */
static void judge_owner(const struct stat *st, bool secret, char *why, size_t cap)
{
    mode_t open_bits = secret ? 077 : 022;
    why[0] = 0;
    if (st->st_uid != geteuid())
        snprintf(why, cap, "it belongs to uid %lu, not to this user (uid %lu)", (unsigned long)st->st_uid,
                 (unsigned long)geteuid());
    else if (st->st_mode & open_bits)
        snprintf(why, cap, "it is %s by %s (mode %04o)", secret ? "readable or writable" : "writable",
                 (st->st_mode & open_bits & 070) && (st->st_mode & open_bits & 007) ? "its group and others"
                 : st->st_mode & open_bits & 070                                     ? "its group"
                                                                                     : "others",
                 (unsigned)(st->st_mode & 07777));
}

/* Why the open file fd cannot be a key (secret) or an entry of the cache ("" when it can): not a regular file
 * (a FIFO, a device, a directory), or judge_owner's reasons. Its status goes to *st. */
static void judge_file(int fd, bool secret, struct stat *st, char *why, size_t cap)
{
    if (fstat(fd, st) != 0)
        snprintf(why, cap, "%s", strerror(errno));
    else if (!S_ISREG(st->st_mode))
        snprintf(why, cap, "it is not a regular file");
    else
        judge_owner(st, secret, why, cap);
}

/* A name for a new file of this process and thread in the directory (distinct across threads and time). */
static void fresh_name(char *buf, size_t cap, const char *what)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    static atomic_ulong serial;
    snprintf(buf, cap, ".%s-%ld-%lx-%lx-%lu", what, (long)getpid(), (unsigned long)pthread_self(),
             (unsigned long)t.tv_nsec, (unsigned long)atomic_fetch_add(&serial, 1));
}

/* Writes n bytes to fd; false on any failure. */
static bool write_all(int fd, const void *data, size_t n)
{
    const unsigned char *p = data;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Makes the key file of the directory dfd: random bytes in a new file (O_EXCL, 0600), then linked as "key",
 * which never replaces one another process made first. 0, or an errno. */
static int key_create(int dfd)
{
    unsigned char k[JIT_SECRET_BYTES];
    size_t got = 0;
    while (got < sizeof k) {
        ssize_t r = getrandom(k + got, sizeof k - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r < 0 ? errno : EIO;
        got += (size_t)r;
    }
    char tmp[96];
    fresh_name(tmp, sizeof tmp, "key");
    int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return errno;
    bool ok = write_all(fd, k, sizeof k) && fsync(fd) == 0;
    int e = ok ? 0 : errno ? errno : EIO;
    if (close(fd) != 0 && ok)
        ok = false, e = errno;
    if (ok && linkat(dfd, tmp, dfd, "key", 0) != 0 && errno != EEXIST) {
        /* a file system without hard links: renamed instead (two first processes may then use two keys
         * for a moment, which only costs the loser's entries a compile) */
        if (renameat(dfd, tmp, dfd, "key") != 0)
            ok = false, e = errno;
    }
    unlinkat(dfd, tmp, 0);
    return ok ? 0 : e;
}

/* Reads the secret key of the directory dfd (path for messages), creating it on first use: a regular file of
 * this user that only they may read, of JIT_SECRET_BYTES bytes. false with the warning in why[cap]. */
static bool key_read(int dfd, const char *path, unsigned char secret[JIT_SECRET_BYTES], char *why, size_t cap)
{
    for (int attempt = 0;; attempt++) {
        int fd = openat(dfd, "key", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT && attempt == 0) {
            int e = key_create(dfd);
            if (e) {
                snprintf(why, cap, "the JIT cache %s is not used: its key %s/key cannot be made: %s", path, path,
                         strerror(e));
                return false;
            }
            continue;
        }
        if (fd < 0) {
            snprintf(why, cap, "the JIT cache %s is not used: its key %s/key cannot be read: %s", path, path,
                     errno == ELOOP ? "it is a symbolic link" : strerror(errno));
            return false;
        }
        struct stat st;
        char bad[160];
        judge_file(fd, true, &st, bad, sizeof bad);
        if (!bad[0] && st.st_size != JIT_SECRET_BYTES)
            snprintf(bad, sizeof bad, "it holds %lld bytes, not %d", (long long)st.st_size, JIT_SECRET_BYTES);
        else if (!bad[0] && read(fd, secret, JIT_SECRET_BYTES) != JIT_SECRET_BYTES)
            snprintf(bad, sizeof bad, "it cannot be read whole");
        close(fd);
        if (bad[0]) {
            snprintf(why, cap, "the JIT cache %s is not used: its key %s/key is refused: %s", path, path, bad);
            return false;
        }
        return true;
    }
}

/* Opens and checks the cache at path (created if need be): NULL with the warning in why[cap]. */
static CacheDir *dir_open(const char *path, char *why, size_t cap)
{
    char *copy = strdup(path);
    CacheDir *c = copy ? calloc(1, sizeof *c) : NULL;
    if (!c) {
        free(copy);
        snprintf(why, cap, "the JIT cache %s is not used: out of memory", path);
        return NULL;
    }
    bool made = make_dirs(copy);
    free(copy);
    c->fd = made ? open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    struct stat st;
    char bad[160] = "";
    if (c->fd < 0 || fstat(c->fd, &st) != 0)
        snprintf(bad, sizeof bad, "%s", strerror(errno));
    else
        judge_owner(&st, false, bad, sizeof bad);
    if (bad[0])
        snprintf(why, cap, "the JIT cache %s is not used: %s", path, bad);
    if (bad[0] || !key_read(c->fd, path, c->secret, why, cap)) {
        if (c->fd >= 0)
            close(c->fd);
        free(c);
        return NULL;
    }
    c->refs = 1;
    return c;
}

/* Opens the cache if it was not tried yet; the caller holds cache_lock. */
static void open_locked(void)
{
    if (cache_state != UNOPENED)
        return;
    cache_state = OPENED;
    if (!cache_path)
        return;
    if (!(cache_open_dir = dir_open(cache_path, cache_warn, sizeof cache_warn))) {
        size_t n = strlen(cache_warn);
        snprintf(cache_warn + n, sizeof cache_warn - n, "; compiled code is not cached");
        cache_state = REFUSED;
    }
}

JitCacheState jit_cache_open(void)
{
    pthread_mutex_lock(&cache_lock);
    open_locked();
    JitCacheState s = cache_state == REFUSED ? JIT_CACHE_REFUSED : cache_open_dir ? JIT_CACHE_ON : JIT_CACHE_OFF;
    pthread_mutex_unlock(&cache_lock);
    return s;
}

size_t jit_cache_warning(char *buf, size_t cap, bool take)
{
    pthread_mutex_lock(&cache_lock);
    bool has = cache_state == REFUSED && !(take && cache_warn_taken);
    if (has && take)
        cache_warn_taken = true;
    size_t n = has ? strlen(cache_warn) : 0;
    if (cap)
        snprintf(buf, cap, "%s", has ? cache_warn : "");
    pthread_mutex_unlock(&cache_lock);
    return n;
}

/* The opened cache with a reference for the caller (dir_release), or NULL when there is none. */
static CacheDir *dir_acquire(void)
{
    pthread_mutex_lock(&cache_lock);
    open_locked();
    CacheDir *c = cache_open_dir;
    if (c)
        c->refs++;
    pthread_mutex_unlock(&cache_lock);
    return c;
}

/* The whole contents of the entry `name` of c when it is a regular file of this user that no one else may
 * write, of a size an entry can have, malloc'ed with its length; NULL otherwise. Never follows a link and
 * never blocks (a FIFO or device is refused by its type before anything is read). *present: there was
 * something of that name. */
static unsigned char *entry_read(const CacheDir *c, const char *name, size_t *n, bool *present)
{
    int fd = openat(c->fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    *present = fd >= 0 || errno != ENOENT;
    if (fd < 0)
        return NULL;
    struct stat st;
    char bad[160];
    unsigned char *data = NULL;
    judge_file(fd, false, &st, bad, sizeof bad);
    if (!bad[0] && st.st_size > 0 && (uint64_t)st.st_size <= JIT_ENTRY_MAX_OBJECT + 128 && (data = malloc((size_t)st.st_size))) {
        size_t got = 0, want = (size_t)st.st_size;
        while (got < want) {
            ssize_t r = read(fd, data + got, want - got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        if (got != want) { /* changed under us: refused like any other bad entry */
            free(data);
            data = NULL;
        }
        *n = want;
    }
    close(fd);
    return data;
}

void *jit_cache_load(const JitCacheKey *key, size_t *size)
{
    CacheDir *c = dir_acquire();
    if (!c)
        return NULL;
    char name[JIT_ENTRY_NAME_BYTES];
    jit_cache_entry_name(key, name);
    size_t n = 0, off = 0;
    bool present;
    unsigned char *e = entry_read(c, name, &n, &present);
    bool ok = e && jit_cache_entry_check(e, n, key, c->secret, &off, size);
    dir_release(c);
    if (!ok) {
        free(e);
        if (present) /* refused: the caller compiles, and its store replaces the entry */
            atomic_fetch_add(&cache_rebuilt, 1);
        return NULL;
    }
    memmove(e, e + off, *size);
    atomic_fetch_add(&cache_hits, 1);
    return e;
}

void jit_cache_store(const JitCacheKey *key, const void *data, size_t size)
{
    atomic_fetch_add(&cache_misses, 1);
    CacheDir *c = dir_acquire();
    if (!c)
        return;
    size_t n;
    unsigned char *e = jit_cache_entry_make(key, c->secret, data, size, &n);
    if (e) {
        /* written under a new name, then renamed: readers see whole entries only */
        char tmp[96], name[JIT_ENTRY_NAME_BYTES];
        fresh_name(tmp, sizeof tmp, "tmp");
        jit_cache_entry_name(key, name);
        int fd = openat(c->fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        bool ok = fd >= 0 && write_all(fd, e, n);
        if (fd >= 0)
            ok = close(fd) == 0 && ok;
        if (fd >= 0 && (!ok || renameat(c->fd, tmp, c->fd, name) != 0))
            unlinkat(c->fd, tmp, 0); /* a cache that cannot be written only costs the next process a compile */
        free(e);
    }
    dir_release(c);
}
