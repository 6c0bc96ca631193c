/* fuzz_cache.c — libFuzzer target: arbitrary bytes as an entry of the on-disk JIT cache (jit_entry.c,
 * jit_cache.c).
 *
 * The input is checked three ways under a fixed key and secret. As raw entry bytes: jit_cache_entry_check must
 * refuse them unless they are byte for byte the entry jit_cache_entry_make writes for the object they claim
 * (forging needs the secret). As an object: the entry made for it must check and give back exactly the input,
 * and must be refused when the input's first byte says which byte of the entry to flip. As a file: the bytes
 * written as the entry of the key in a real cache directory (made once, 0700, whose key file holds the same
 * secret) are read by jit_cache_load, which must return exactly what the check accepts (nothing, or for a
 * genuine entry its object) and never crash, leak or block. A crash, a sanitizer report, a leak or a broken contract is a finding. */
#include "codegen/cg_impl.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REQUIRE(cond)      \
    do {                   \
        if (!(cond))       \
            __builtin_trap(); \
    } while (0)

static const unsigned char secret[JIT_SECRET_BYTES] = "a fixed secret for the fuzzer..";
static JitCacheKey key;
static char cache_dir[64], entry_path[4096];

/* Removes the cache directory at exit. */
static void cleanup(void)
{
    char keyfile[96];
    snprintf(keyfile, sizeof keyfile, "%s/key", cache_dir);
    unlink(entry_path);
    unlink(keyfile);
    rmdir(cache_dir);
}

/* The cache directory of this process, made at the first input. */
static void setup(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    jit_cache_key("fuzz", 4, "cpu features -O2", &key);
    char tmpl[] = "/tmp/mapc-fuzz-cache-XXXXXX", keyfile[64];
    REQUIRE(mkdtemp(tmpl));
    snprintf(keyfile, sizeof keyfile, "%s/key", tmpl); /* the fixed secret as the directory's key */
    int fd = open(keyfile, O_WRONLY | O_CREAT | O_EXCL, 0600);
    REQUIRE(fd >= 0 && write(fd, secret, sizeof secret) == (ssize_t)sizeof secret && close(fd) == 0);
    REQUIRE(jit_cache_set_dir(tmpl) && jit_cache_open() == JIT_CACHE_ON);
    snprintf(cache_dir, sizeof cache_dir, "%s", tmpl);
    atexit(cleanup);
    char name[JIT_ENTRY_NAME_BYTES];
    jit_cache_entry_name(&key, name);
    snprintf(entry_path, sizeof entry_path, "%s/%s", tmpl, name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    /* raw bytes as an entry */
    size_t off = 0, n = 0, got = 0;
    if (jit_cache_entry_check(data, size, &key, secret, &off, &got)) {
        REQUIRE(off + got <= size && got > 0);
        unsigned char *e = jit_cache_entry_make(&key, secret, data + off, got, &n);
        REQUIRE(e && n == size && memcmp(e, data, n) == 0); /* only the genuine entry passes */
        free(e);
    }
    /* the input as an object */
    if (size > 0) {
        unsigned char *e = jit_cache_entry_make(&key, secret, data, size, &n);
        REQUIRE(e);
        REQUIRE(jit_cache_entry_check(e, n, &key, secret, &off, &got) && got == size && memcmp(e + off, data, size) == 0);
        size_t flip = data[0] * 131u % n;
        e[flip] ^= 0x5a;
        REQUIRE(!jit_cache_entry_check(e, n, &key, secret, &off, &got));
        free(e);
    }
    /* the input as the entry's file, read by the cache */
    int fd = open(entry_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, data, size) == (ssize_t)size);
    close(fd);
    size_t loaded = 0;
    void *obj = jit_cache_load(&key, &loaded);
    if (obj) { /* only a genuine entry: the same one the check accepted */
        REQUIRE(jit_cache_entry_check(data, size, &key, secret, &off, &got) && loaded == got &&
                memcmp(obj, data + off, got) == 0);
        free(obj);
    }
    return 0;
}
