/* diag.c — text into caller buffers, and diagnostics rendered as FILE:LINE:COL with the line and a caret. */
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

void text_printf(Text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(t->n < t->size ? t->buf + t->n : NULL, t->n < t->size ? t->size - t->n : 0, fmt, ap);
    va_end(ap);
    t->n += w > 0 ? (size_t)w : 0;
}

size_t diag_format(const Diag *d, char *buf, size_t size)
{
    Text t = {buf, size, 0};
    const Source *src = d->loc.src;
    if (size)
        buf[0] = 0;
    if (!src) { /* a call's refusal (the C API's), not a place in a source: no FILE:LINE:COL */
        text_printf(&t, "error: %s\n", d->msg);
        return t.n;
    }
    text_printf(&t, "%s:%u:%u: error: %s\n", src->name, d->loc.line, d->loc.col, d->msg);
    if (d->loc.line == 0)
        return t.n;
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
        text_printf(&t, "%c", c);
    }
    text_printf(&t, "\n");
    for (uint32_t c = 1; c < d->loc.col && p + c - 1 < e; c++)
        text_printf(&t, "%c", p[c - 1] == '\t' ? '\t' : ' ');
    text_printf(&t, "^\n");
    return t.n;
}
