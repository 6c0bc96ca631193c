/* text.c — the harness's text helpers: appending to a fixed or a growing string, reading a file. */
#include "harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void harness_cat(char *buf, size_t size, const char *fmt, ...)
{
    size_t n = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, n < size ? size - n : 0, fmt, ap);
    va_end(ap);
}

char *harness_vappend(char *s, const char *fmt, va_list ap)
{
    size_t n = s ? strlen(s) : 0;
    va_list measure;
    va_copy(measure, ap);
    int k = vsnprintf(NULL, 0, fmt, measure);
    va_end(measure);
    char *t = realloc(s, n + (size_t)k + 1);
    if (!t)
        abort();
    vsnprintf(t + n, (size_t)k + 1, fmt, ap);
    return t;
}

char *harness_append(char *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    s = harness_vappend(s, fmt, ap);
    va_end(ap);
    return s;
}

char *harness_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *s = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (s = malloc((size_t)n + 1)) != NULL) {
        *len = fread(s, 1, (size_t)n, f);
        s[*len] = 0;
    }
    fclose(f);
    return s;
}
