/* jit_entry.c — the bytes of one entry of the on-disk JIT cache: a header naming its key, the object, and an
 * HMAC-SHA-256 over both under the cache's secret, so that only a holder of the secret can write an entry. */
#include "cg_impl.h"
#include "mapc_version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The header: magic, the object's size (little-endian), the key. The object follows, then the MAC. */
static const char entry_magic[8] = {'M', 'A', 'P', 'C', 'J', 'I', 'T', '2'};
enum { HEADER_BYTES = 8 + 8 + SHA256_BYTES };

void jit_cache_key(const char *ir, size_t n, const char *target, JitCacheKey *key)
{
    char ctx[512];
    int m = snprintf(ctx, sizeof ctx, "mapc %s llvm %s %s", MAPC_VERSION_STRING, cg_llvm_version(), target);
    size_t cn = m < 0 ? 0 : (size_t)m < sizeof ctx ? (size_t)m : sizeof ctx - 1;
    Sha256 s;
    sha256_init(&s);
    sha256_update(&s, ctx, cn + 1); /* with its NUL: the context and the IR cannot run into each other */
    sha256_update(&s, ir, n);
    sha256_final(&s, key->bytes);
}

void jit_cache_entry_name(const JitCacheKey *key, char name[JIT_ENTRY_NAME_BYTES])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < SHA256_BYTES; i++) {
        name[2 * i] = hex[key->bytes[i] >> 4];
        name[2 * i + 1] = hex[key->bytes[i] & 15];
    }
    memcpy(name + 2 * SHA256_BYTES, ".o", 3);
}

/* The header of an entry of size object bytes under key. */
static void header_of(const JitCacheKey *key, size_t size, unsigned char h[HEADER_BYTES])
{
    memcpy(h, entry_magic, 8);
    for (int i = 0; i < 8; i++)
        h[8 + i] = (unsigned char)((uint64_t)size >> (8 * i));
    memcpy(h + 16, key->bytes, SHA256_BYTES);
}

/* The MAC of header and object under secret. */
static void mac_of(const unsigned char secret[JIT_SECRET_BYTES], const unsigned char *header, const void *obj,
                   size_t size, unsigned char mac[SHA256_BYTES])
{
    HmacSha256 m;
    hmac_sha256_init(&m, secret, JIT_SECRET_BYTES);
    hmac_sha256_update(&m, header, HEADER_BYTES);
    hmac_sha256_update(&m, obj, size);
    hmac_sha256_final(&m, mac);
}

unsigned char *jit_cache_entry_make(const JitCacheKey *key, const unsigned char secret[JIT_SECRET_BYTES],
                                    const void *obj, size_t size, size_t *n)
{
    if (size == 0 || size > JIT_ENTRY_MAX_OBJECT)
        return NULL;
    unsigned char *e = malloc(HEADER_BYTES + size + SHA256_BYTES);
    if (!e)
        return NULL;
    header_of(key, size, e);
    memcpy(e + HEADER_BYTES, obj, size);
    mac_of(secret, e, obj, size, e + HEADER_BYTES + size);
    *n = HEADER_BYTES + size + SHA256_BYTES;
    return e;
}

bool jit_cache_entry_check(const unsigned char *e, size_t n, const JitCacheKey *key,
                           const unsigned char secret[JIT_SECRET_BYTES], size_t *offset, size_t *size)
{
    if (n <= HEADER_BYTES + SHA256_BYTES || n - HEADER_BYTES - SHA256_BYTES > JIT_ENTRY_MAX_OBJECT)
        return false; /* no object, or a larger one than any entry holds */
    size_t obj = n - HEADER_BYTES - SHA256_BYTES;
    unsigned char want[HEADER_BYTES];
    header_of(key, obj, want); /* the magic, this size and this key: another key's entry is refused */
    if (memcmp(e, want, HEADER_BYTES) != 0)
        return false;
    unsigned char mac[SHA256_BYTES];
    mac_of(secret, e, e + HEADER_BYTES, obj, mac);
    if (!digest_equal(mac, e + HEADER_BYTES + obj, SHA256_BYTES))
        return false;
    *offset = HEADER_BYTES;
    *size = obj;
    return true;
}
