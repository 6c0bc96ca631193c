/* diag.c — collecting diagnostics and rendering them as FILE:LINE:COL with the line and a caret. */
#include "base.h"

#include <stdio.h>
#include <string.h>

void diags_init(Diags *d, Arena *a)
{
    d->arena = a;
    d->head = NULL;
    d->tail = &d->head;
    d->count = 0;
}

void diag_verror(Diags *d, Loc loc, const char *fmt, va_list ap)
{
    Diag *e = arena_alloc(d->arena, sizeof *e);
    e->loc = loc;
    e->msg = arena_vprintf(d->arena, fmt, ap);
    *d->tail = e;
    d->tail = &e->next;
    d->count++;
}

void diag_error(Diags *d, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_verror(d, loc, fmt, ap);
    va_end(ap);
}

/* Appends to buf as snprintf would, tracking the full length in *n. */
static void put(char *buf, size_t size, size_t *n, const char *s, size_t len)
{
    if (*n < size) {
        size_t room = size - *n - 1;
        memcpy(buf + *n, s, len < room ? len : room);
        buf[*n + (len < room ? len : room)] = 0;
    }
    *n += len;
}

size_t diag_format(const Diag *d, char *buf, size_t size)
{
    size_t n = 0;
    char head[64];
    const Source *src = d->loc.src;
    const char *name = src ? src->name : "<input>";
    if (size)
        buf[0] = 0;
    put(buf, size, &n, name, strlen(name));
    int hl = snprintf(head, sizeof head, ":%u:%u: error: ", d->loc.line, d->loc.col);
    put(buf, size, &n, head, (size_t)hl);
    put(buf, size, &n, d->msg, strlen(d->msg));
    put(buf, size, &n, "\n", 1);
    if (!src || d->loc.line == 0)
        return n;
    /* find the line */
    const char *p = src->text, *end = src->text + src->len;
    for (uint32_t l = 1; l < d->loc.line && p < end; p++)
        if (*p == '\n')
            l++;
    const char *e = p;
    while (e < end && *e != '\n')
        e++;
    if (e > p && e[-1] == '\r')
        e--;
    /* the source line, with NULs and control bytes shown as '?' so the terminal stays sane */
    for (const char *q = p; q < e; q++) {
        char c = (*q == '\t' || (unsigned char)*q >= 0x20) && *q != 0x7f ? *q : '?';
        put(buf, size, &n, &c, 1);
    }
    put(buf, size, &n, "\n", 1);
    for (uint32_t c = 1; c < d->loc.col && p + c - 1 < e; c++)
        put(buf, size, &n, p[c - 1] == '\t' ? "\t" : " ", 1);
    put(buf, size, &n, "^\n", 2);
    return n;
}
