/* base.h — arena memory, source files, positioned diagnostics and checked 64-bit arithmetic. */
#ifndef MAPC_BASE_H
#define MAPC_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Arena: every allocation of one compilation, freed at once. ---- */

typedef struct ArenaChunk ArenaChunk;
typedef struct Arena {
    ArenaChunk *chunks;
} Arena;

/* Returns zeroed memory owned by the arena (aborts only if malloc itself fails). */
void *arena_alloc(Arena *a, size_t size);
/* Copies n bytes of s into the arena and NUL-terminates the copy. */
char *arena_strndup(Arena *a, const char *s, size_t n);
/* Makes room for element n of an arena array of elem-byte elements whose capacity is *cap: returns
 * items, or when it is full a copy with twice the capacity (8 at first; the old copy stays in the
 * arena until it is freed). */
void *arena_grow(Arena *a, void *items, int n, int *cap, size_t elem);
/* printf into arena-owned memory. */
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *arena_vprintf(Arena *a, const char *fmt, va_list ap);
/* Frees every chunk; the arena may be reused afterwards. */
void arena_free(Arena *a);

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
/* Writes "FILE:LINE:COL: error: MSG\n<source line>\n<caret>\n" into buf (truncating);
 * returns the number of bytes the full text needs, like snprintf. */
size_t diag_format(const Diag *d, char *buf, size_t size);

/* ---- Checked arithmetic on sizes ---- */

/* *out = a * b; false on 64-bit overflow. */
static inline bool u64_mul(uint64_t a, uint64_t b, uint64_t *out) { return !__builtin_mul_overflow(a, b, out); }
/* a + b, saturating at UINT64_MAX. */
static inline uint64_t u64_sat_add(uint64_t a, uint64_t b) { uint64_t r; return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r; }
/* a * b, saturating at UINT64_MAX. */
static inline uint64_t u64_sat_mul(uint64_t a, uint64_t b) { uint64_t r; return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r; }

#endif
