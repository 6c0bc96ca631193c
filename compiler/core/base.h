/* base.h — arena memory, source files, positioned diagnostics and checked 64-bit arithmetic. */
#ifndef MAPC_BASE_H
#define MAPC_BASE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Out of memory: one mechanism for the whole library (mem.c) ----
 *
 * The compiler's data structures are allocated through mem_alloc, mem_calloc, mem_realloc and arenas.
 * When the heap is exhausted they do not return NULL: they unwind (longjmp) to the innermost guard of
 * the calling thread. Every entry point into the library sets one — each public mapc_* function, and
 * the mapc driver around a whole command — and turns the unwinding into an out-of-memory status:
 *
 *     MemGuard g;
 *     if (MEM_GUARD(g))
 *         return MAPC_ERR_NOMEM;          // memory was exhausted below; g is already released
 *     mapc_status s = work(...);          // the guarded body: a separate function, so no local of
 *     mem_guard_release(&g);              //   this frame is modified between setjmp and longjmp
 *     return s;
 *
 * What the failed call had allocated is not freed (arena memory is freed with its arena's owner). No
 * guarded body may hold a lock while it allocates through these functions. Calling them with no guard
 * set is a programming error: the process traps. Large buffers whose size the user controls (tensors,
 * packing buffers) are allocated with plain malloc and their failure is reported as an error instead. */
typedef struct MemGuard {
    jmp_buf env;
    struct MemGuard *outer;
} MemGuard;

/* Pushes g as the calling thread's innermost guard; MEM_GUARD calls it and then setjmp. */
MemGuard *mem_guard_push(MemGuard *g);
/* Pops g (the innermost guard) after its body returned normally. */
void mem_guard_release(MemGuard *g);
/* Sets the guard: 0 now, nonzero when an allocation below ran out of memory (g is then popped). */
#define MEM_GUARD(g) setjmp(mem_guard_push(&(g))->env)

/* malloc, calloc and realloc that unwind to the innermost guard instead of returning NULL (a size of 0
 * allocates 1 byte). */
void *mem_alloc(size_t size);
void *mem_calloc(size_t n, size_t size);
void *mem_realloc(void *p, size_t size);
/* Unwinds to the innermost guard (an allocation of another library failed); never returns. */
_Noreturn void mem_fail(void);

/* ---- The machine's memory (sysmem.c) ---- */

/* The bytes this process can have: the machine's physical memory, or less under an address-space or data
 * resource limit (ulimit -v, -d). */
uint64_t mem_available_bytes(void);
/* Whether a request of bytes can be met at all; false with "N bytes, more than the M bytes of memory this
 * process can have" in why[cap]. An allocation that passes may still fail (other processes use memory too). */
bool mem_fits(uint64_t bytes, char *why, size_t cap);

/* ---- Arena: every allocation of one compilation, freed at once. ---- */

typedef struct ArenaChunk ArenaChunk;
typedef struct Arena {
    ArenaChunk *chunks;
} Arena;

/* Returns zeroed memory owned by the arena (unwinds to the guard if the heap is exhausted, see above). */
void *arena_alloc(Arena *a, size_t size);
/* Copies n bytes of s into the arena and NUL-terminates the copy. */
char *arena_strndup(Arena *a, const char *s, size_t n);
/* Makes room for element n of an arena array of elem-byte elements whose capacity is *cap: returns
 * items, or when it is full a copy with twice the capacity (8 at first; the old copy stays in the
 * arena until it is freed). */
void *arena_grow(Arena *a, void *items, int n, int *cap, size_t elem);
/* printf into arena-owned memory; fmt is never NULL (declared, so that no compiler sees a path where it is:
 * gcc's UBSan instrumentation otherwise makes one and -Wformat-truncation rejects it). */
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3), nonnull(2)));
char *arena_vprintf(Arena *a, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0), nonnull(2)));
/* Frees every chunk; the arena may be reused afterwards. */
void arena_free(Arena *a);

/* ---- SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104) (sha256.c) ---- */
enum { SHA256_BYTES = 32 };
typedef struct Sha256 {
    uint32_t h[8];
    uint64_t bytes;         /* hashed so far */
    unsigned char buf[64];  /* the pending partial block */
    size_t nbuf;
} Sha256;
void sha256_init(Sha256 *s);
void sha256_update(Sha256 *s, const void *data, size_t n);
/* The digest of everything updated since init; s must be initialized again before another use. */
void sha256_final(Sha256 *s, unsigned char out[SHA256_BYTES]);
void sha256(const void *data, size_t n, unsigned char out[SHA256_BYTES]);
typedef struct HmacSha256 {
    Sha256 inner;
    unsigned char opad[64];
} HmacSha256;
/* HMAC-SHA-256 under the key of n bytes (a longer key than 64 bytes is hashed first, as RFC 2104 says). */
void hmac_sha256_init(HmacSha256 *m, const void *key, size_t n);
void hmac_sha256_update(HmacSha256 *m, const void *data, size_t n);
void hmac_sha256_final(HmacSha256 *m, unsigned char out[SHA256_BYTES]);
void hmac_sha256(const void *key, size_t kn, const void *data, size_t n, unsigned char out[SHA256_BYTES]);
/* Whether n bytes are equal, in a time that does not depend on where they differ (for MACs). */
bool digest_equal(const unsigned char *a, const unsigned char *b, size_t n);

/* ---- Text into a caller's buffer, snprintf-style (n counts what the whole text needs) ---- */

typedef struct Text {
    char *buf;
    size_t size, n;
} Text;

/* Appends to t, truncating at t->size but counting every byte in t->n. */
void text_printf(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- Sources and positions ---- */

typedef struct Source {
    const char *name;   /* file name as given, or "<command-line>" */
    const char *text;   /* the bytes, NUL-terminated copy (may contain NULs before len) */
    size_t len;
} Source;

typedef struct Loc {
    const Source *src;
    uint32_t line, col;  /* 1-based; col counts bytes */
} Loc;

/* ---- Diagnostics: collected, never printed by library code. ---- */

typedef struct Diag {
    Loc loc;
    const char *msg;
    struct Diag *next;
} Diag;

typedef struct Diags {
    Arena *arena;
    Diag *head, **tail;
    int count;
} Diags;

void diags_init(Diags *d, Arena *a);
/* Records one error at loc; the message is formatted into the arena. */
void diag_error(Diags *d, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_verror(Diags *d, Loc loc, const char *fmt, va_list ap);
/* Writes "FILE:LINE:COL: error: MSG\n<source line>\n<caret>\n" (a diagnostic without a source: "error: MSG\n")
 * into buf (truncating);
 * returns the number of bytes the full text needs, like snprintf. */
size_t diag_format(const Diag *d, char *buf, size_t size);

/* ---- "Did you mean": the closest of some candidates to a mistyped word (suggest.c) ---- */

typedef struct Suggest {
    const char *word;   /* the mistyped word: len bytes */
    size_t len;
    const char *best;   /* the closest candidate offered so far, or NULL */
    unsigned dist;
} Suggest;

void suggest_init(Suggest *s, const char *word, size_t len);
/* Considers cand (NUL-terminated, borrowed until the result is read): it becomes s->best when it is close to
 * the word (at most 2 edits and a third of the word's length; a change of case is no edit) and closer than
 * the candidates before it. The word itself is never suggested. */
void suggest_offer(Suggest *s, const char *cand);
/* The closest close candidate of a NULL-terminated list, or NULL. */
const char *suggest_among(const char *word, const char *const *cands);

/* ---- Checked arithmetic on sizes ---- */

/* *out = a * b; false on 64-bit overflow. */
static inline bool u64_mul(uint64_t a, uint64_t b, uint64_t *out) { return !__builtin_mul_overflow(a, b, out); }
/* a + b, saturating at UINT64_MAX. */
static inline uint64_t u64_sat_add(uint64_t a, uint64_t b) { uint64_t r; return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r; }
/* a * b, saturating at UINT64_MAX. */
static inline uint64_t u64_sat_mul(uint64_t a, uint64_t b) { uint64_t r; return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r; }
/* The greatest common divisor of a and b (gcd(a, 0) = a). */
static inline uint64_t u64_gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}
/* Parses the len characters at s as a number, decimal or 0x hex (the language's literals), into *out; false for
 * anything else (empty, a sign, other characters, a value past 2^64 - 1). */
static inline bool u64_parse(const char *s, size_t len, uint64_t *out)
{
    unsigned base = 10;
    if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
        len -= 2;
    }
    if (len == 0)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : base == 16 && c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : base == 16 && c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 99;
        if (d >= base || __builtin_mul_overflow(v, base, &v) || __builtin_add_overflow(v, d, &v))
            return false;
    }
    *out = v;
    return true;
}

#endif
