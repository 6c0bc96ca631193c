/* test_sha256.c — SHA-256 against the FIPS 180-4 examples, HMAC-SHA-256 against the RFC 4231 test cases, the
 * incremental interface against the one-shot one over seeded random splits, and the cache entries' format
 * (jit_entry.c): an entry made under a secret checks under it and under no other key, secret or byte. */
#include "codegen/cg_impl.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hex(const unsigned char *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

/* n bytes of one value. */
static unsigned char *filled(int byte, size_t n)
{
    unsigned char *p = malloc(n);
    if (!p)
        abort();
    memset(p, byte, n);
    return p;
}

static void fips_examples(void)
{
    static const struct {
        const char *msg;
        const char *digest;
    } cases[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    char got[65];
    unsigned char d[SHA256_BYTES];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        sha256(cases[i].msg, strlen(cases[i].msg), d);
        hex(d, sizeof d, got);
        CHECK_EQ_STR(got, cases[i].digest, "SHA-256 of \"%s\"", cases[i].msg);
    }
    unsigned char *a = filled('a', 1000000);
    sha256(a, 1000000, d);
    free(a);
    hex(d, sizeof d, got);
    CHECK_EQ_STR(got, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", "SHA-256 of a million 'a'");
}

static void rfc4231_cases(void)
{
    static const char long_data[] = "This is a test using a larger than block-size key and a larger than block-size "
                                    "data. The key needs to be hashed before being used by the HMAC algorithm.";
    unsigned char k25[25];
    for (int i = 0; i < 25; i++)
        k25[i] = (unsigned char)(i + 1);
    unsigned char *k0b = filled(0x0b, 20), *kaa = filled(0xaa, 131), *k0c = filled(0x0c, 20);
    unsigned char *ddd = filled(0xdd, 50), *dcd = filled(0xcd, 50);
    const struct {
        const void *key;
        size_t kn;
        const void *data;
        size_t dn;
        const char *mac; /* case 5 is truncated to 128 bits by the RFC */
    } cases[] = {
        {k0b, 20, "Hi There", 8, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
        {"Jefe", 4, "what do ya want for nothing?", 28,
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
        {kaa, 20, ddd, 50, "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
        {k25, 25, dcd, 50, "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
        {k0c, 20, "Test With Truncation", 20, "a3b6167473100ee06e0c796c2955552b"},
        {kaa, 131, "Test Using Larger Than Block-Size Key - Hash Key First", 54,
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
        {kaa, 131, long_data, sizeof long_data - 1, "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        unsigned char m[SHA256_BYTES];
        char got[65];
        hmac_sha256(cases[i].key, cases[i].kn, cases[i].data, cases[i].dn, m);
        hex(m, strlen(cases[i].mac) / 2, got);
        CHECK_EQ_STR(got, cases[i].mac, "HMAC-SHA-256, RFC 4231 test case %zu", i + 1);
    }
    free(k0b), free(kaa), free(k0c), free(ddd), free(dcd);
}

/* Random messages fed in random pieces hash as they do at once (block boundaries, the padding's two cases). */
static void splits(Rng *r, uint64_t count)
{
    unsigned char msg[300], once[SHA256_BYTES], pieces[SHA256_BYTES];
    for (uint64_t c = 0; c < count; c++) {
        harness_case(c);
        size_t n = (size_t)rng_below(r, sizeof msg + 1);
        for (size_t i = 0; i < n; i++)
            msg[i] = (unsigned char)rng_below(r, 256);
        sha256(msg, n, once);
        Sha256 s;
        sha256_init(&s);
        for (size_t at = 0; at < n;) {
            size_t k = (size_t)rng_below(r, n - at + 1);
            sha256_update(&s, msg + at, k);
            at += k;
        }
        sha256_final(&s, pieces);
        CHECK(memcmp(once, pieces, sizeof once) == 0, "%zu bytes hashed in pieces", n);
    }
}

/* Entries: made and checked under one key and secret; any other key, secret, length or flipped byte fails. */
static void entries(Rng *r, uint64_t count)
{
    for (uint64_t c = 0; c < count; c++) {
        harness_case(c);
        JitCacheKey key, other;
        unsigned char secret[JIT_SECRET_BYTES], wrong[JIT_SECRET_BYTES];
        for (int i = 0; i < SHA256_BYTES; i++) {
            key.bytes[i] = (unsigned char)rng_below(r, 256);
            secret[i] = (unsigned char)rng_below(r, 256);
        }
        other = key;
        other.bytes[rng_below(r, SHA256_BYTES)] ^= (unsigned char)(1 + rng_below(r, 255));
        memcpy(wrong, secret, sizeof wrong);
        wrong[rng_below(r, JIT_SECRET_BYTES)] ^= (unsigned char)(1 + rng_below(r, 255));
        unsigned char obj[200];
        size_t size = 1 + (size_t)rng_below(r, sizeof obj);
        for (size_t i = 0; i < size; i++)
            obj[i] = (unsigned char)rng_below(r, 256);
        size_t n, off = 0, got = 0;
        unsigned char *e = jit_cache_entry_make(&key, secret, obj, size, &n);
        if (!CHECK(e != NULL, "entry made"))
            continue;
        CHECK(jit_cache_entry_check(e, n, &key, secret, &off, &got) && got == size &&
                  memcmp(e + off, obj, size) == 0,
              "an entry of %zu bytes checks under its key and secret and holds the object", size);
        CHECK(!jit_cache_entry_check(e, n, &other, secret, &off, &got), "refused under another key");
        CHECK(!jit_cache_entry_check(e, n, &key, wrong, &off, &got), "refused under another secret");
        CHECK(!jit_cache_entry_check(e, n - 1 - (size_t)rng_below(r, n), &key, secret, &off, &got), "truncated: refused");
        size_t flip = (size_t)rng_below(r, n);
        e[flip] ^= (unsigned char)(1 << rng_below(r, 8));
        CHECK(!jit_cache_entry_check(e, n, &key, secret, &off, &got), "byte %zu of %zu flipped: refused", flip, n);
        free(e);
    }
    char name[JIT_ENTRY_NAME_BYTES];
    JitCacheKey k = {{0xab, 0x01}};
    jit_cache_entry_name(&k, name);
    CHECK_EQ_STR(name, "ab01000000000000000000000000000000000000000000000000000000000000.o", "entry name");
}

int main(int argc, char **argv)
{
    HarnessArgs a = {.seed = 1, .count = 400};
    harness_args(argc, argv, "[SEED [COUNT]]", &a);
    Rng r = rng_seeded(a.seed);
    fips_examples();
    rfc4231_cases();
    splits(&r, a.count);
    entries(&r, a.count / 4);
    return harness_report();
}
