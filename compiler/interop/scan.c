/* scan.c — the scanner the literal readers share: blanks, numbers, identifiers and punctuation of a body with
 * positioned errors, the axes a literal names or takes in order, and growable arena text. */
#include "interop_impl.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

void iop_scan_init(IopScan *s, Prog *p, Diags *diags, IopText t)
{
    *s = (IopScan){.p = p, .diags = diags, .t = t, .cur = t.s, .end = t.s + t.len};
}

Loc iop_loc(const IopScan *s, const char *at) { return iop_text_loc(s->t, at); }

Loc iop_text_loc(IopText t, const char *at)
{
    Loc l = t.loc;
    for (const char *c = t.s; c < at && c < t.s + t.len; c++) {
        if (*c == '\n') {
            l.line++;
            l.col = 1;
        } else {
            l.col++;
        }
    }
    return l;
}

bool iop_fail(IopScan *s, const char *at, const char *fmt, ...)
{
    if (s->failed)
        return false;
    s->failed = true;
    va_list ap;
    va_start(ap, fmt);
    diag_verror(s->diags, iop_loc(s, at ? at : s->cur), fmt, ap);
    va_end(ap);
    return false;
}

const char *iop_skip(IopScan *s)
{
    while (s->cur < s->end && isspace((unsigned char)*s->cur))
        s->cur++;
    return s->cur;
}

static bool is_word(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* The length of the token at s->cur (after blanks): a word, a number, or one punctuation byte. */
static size_t token_len(IopScan *s)
{
    const char *c = iop_skip(s);
    if (c == s->end)
        return 0;
    if (is_word(*c)) {
        const char *e = c;
        while (e < s->end && is_word(*e))
            e++;
        return (size_t)(e - c);
    }
    return 1;
}

const char *iop_near(IopScan *s)
{
    size_t n = token_len(s);
    if (!n)
        return "the end of the literal";
    return arena_printf(&s->p->arena, "'%.*s'", (int)n, s->cur);
}

bool iop_peek(IopScan *s, const char *w)
{
    const char *c = iop_skip(s);
    size_t n = strlen(w);
    if ((size_t)(s->end - c) < n || memcmp(c, w, n) != 0)
        return false;
    if (is_word(w[0]))
        return c + n == s->end || !is_word(c[n]);
    return true;
}

bool iop_accept(IopScan *s, const char *w)
{
    if (!iop_peek(s, w))
        return false;
    s->cur += strlen(w);
    return true;
}

bool iop_expect(IopScan *s, const char *w, const char *context)
{
    if (iop_accept(s, w))
        return true;
    return iop_fail(s, s->cur, "expected '%s' %s, found %s", w, context, iop_near(s));
}

bool iop_number(IopScan *s, uint64_t *v, const char **at)
{
    const char *c = iop_skip(s);
    if (c == s->end || !isdigit((unsigned char)*c))
        return false;
    if (at)
        *at = c;
    uint64_t x = 0;
    bool over = false;
    for (; c < s->end && isdigit((unsigned char)*c); c++)
        over |= !u64_mul(x, 10, &x) || __builtin_add_overflow(x, (uint64_t)(*c - '0'), &x);
    if (c < s->end && is_word(*c))
        return iop_fail(s, s->cur, "malformed number '%.*s'", (int)token_len(s), s->cur);
    if (over)
        return iop_fail(s, s->cur, "number %.*s does not fit in 64 bits", (int)(c - s->cur), s->cur);
    s->cur = c;
    *v = x;
    return true;
}

bool iop_ident(IopScan *s, const char **id, size_t *len)
{
    const char *c = iop_skip(s);
    if (c == s->end || !(isalpha((unsigned char)*c) || *c == '_'))
        return false;
    *len = token_len(s);
    *id = c;
    s->cur += *len;
    return true;
}

bool iop_end(IopScan *s, const char *context)
{
    if (iop_skip(s) == s->end)
        return true;
    return iop_fail(s, s->cur, "unexpected %s after %s", iop_near(s), context);
}

void iop_buf_init(IopBuf *b, Arena *a) { *b = (IopBuf){.a = a}; }

void iop_buf_printf(IopBuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (b->n + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->n + (size_t)n + 1)
            cap *= 2;
        char *s = arena_alloc(b->a, cap);
        if (b->n)
            memcpy(s, b->s, b->n);
        b->s = s;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)n;
}

bool iop_axes(IopScan *s, const IopAxes *ax, int rank, const char *what, const char *at, int *out)
{
    Prog *p = s->p;
    if (ax && ax->n >= 0) {
        if (ax->n != rank) {
            s->failed = true;
            diag_error(s->diags, ax->loc, "%d ax%s named for %s of %d dimension%s", ax->n, ax->n == 1 ? "is" : "es",
                       what, rank, rank == 1 ? "" : "s");
            return false;
        }
        memcpy(out, ax->axis, (size_t)rank * sizeof *out);
        return true;
    }
    int have = prog_public_axes(p);
    if (have < rank)
        return iop_fail(s, at, "%s has %d dimension%s but the program declares %d ax%s; declare them, or name them "
                        "after the literal as [A, B, ...]", what, rank, rank == 1 ? "" : "s", have,
                        have == 1 ? "is" : "es");
    int k = 0;
    for (int a = 0; a < p->naxes && k < rank; a++)
        if (prog_public_index(p, a) >= 0)
            out[k++] = a;
    return true;
}
