/* buf.c — the growable byte buffer the renderers write their documents into. */
#include "draw_impl.h"

#include <stdio.h>
#include <string.h>

/* Makes room for n more bytes (and a NUL after them), doubling the capacity. */
static void reserve(Buf *b, size_t n)
{
    if (b->cap - b->len > n)
        return;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->len <= n) {
        if (cap > SIZE_MAX / 2)
            mem_fail();
        cap *= 2;
    }
    b->data = mem_realloc(b->data, cap);
    b->cap = cap;
}

void buf_put(Buf *b, const void *s, size_t n)
{
    reserve(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

void buf_puts(Buf *b, const char *s) { buf_put(b, s, strlen(s)); }

void buf_printf(Buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        buf_put(b, small, (size_t)n);
        return;
    }
    reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void buf_xml(Buf *b, const char *s)
{
    for (const char *run = s;; s++) {
        const char *esc = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '"' ? "&quot;" : NULL;
        if (!esc && *s)
            continue;
        buf_put(b, run, (size_t)(s - run));
        if (!*s)
            return;
        buf_puts(b, esc);
        run = s + 1;
    }
}
