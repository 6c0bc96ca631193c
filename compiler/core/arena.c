/* arena.c — bump allocator: one arena per compilation, freed at once. */
#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ArenaChunk {
    ArenaChunk *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

enum { CHUNK_MIN = 64 * 1024 };

void *arena_alloc(Arena *a, size_t size)
{
    if (size > SIZE_MAX / 2)
        mem_fail(); /* no heap holds it: the same answer as an exhausted one */
    size = (size + 15) & ~(size_t)15;
    ArenaChunk *c = a->chunks;
    if (!c || c->cap - c->used < size) {
        size_t cap = size > CHUNK_MIN ? size : CHUNK_MIN;
        c = mem_alloc(sizeof *c + cap);
        c->next = a->chunks;
        c->used = 0;
        c->cap = cap;
        a->chunks = c;
    }
    void *p = c->data + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *arena_vprintf(Arena *a, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    char *p = arena_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *arena_printf(Arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = arena_vprintf(a, fmt, ap);
    va_end(ap);
    return p;
}

void arena_free(Arena *a)
{
    for (ArenaChunk *c = a->chunks, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    a->chunks = NULL;
}

void *arena_grow(Arena *a, void *items, int n, int *cap, size_t elem)
{
    if (n < *cap)
        return items;
    int c = *cap ? 2 * *cap : 8;
    void *v = arena_alloc(a, (size_t)c * elem);
    if (n)
        memcpy(v, items, (size_t)n * elem);
    *cap = c;
    return v;
}
