/* mv_common.c — the names compiler/movement prints and parses: error codes, modes, element widths, and the diagnostic helper. */
#include "mv_impl.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *mv_code_name(MvCode c)
{
    static const char *const names[] = {
#define X(k, s) s,
        MV_CODES(X)
#undef X
    };
    return (unsigned)c < MV_NCODES ? names[c] : "?";
}

MvCode mv_fail(MvDiag *d, MvCode code, const char *fmt, ...)
{
    if (d) {
        d->code = code;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(d->msg, sizeof d->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

const char *mv_mode_name(MvMode m)
{
    return m == MV_READ ? "read" : m == MV_WRITE ? "write" : m == MV_CARVE ? "carve" : "?";
}

bool mv_mode_parse(const char *word, MvMode *out)
{
    static const MvMode modes[] = {MV_READ, MV_WRITE, MV_CARVE};
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
        if (strcmp(word, mv_mode_name(modes[i])) == 0) {
            *out = modes[i];
            return true;
        }
    return false;
}

unsigned mv_elem_bits(ElemType t)
{
    return (unsigned)(elem_type_size(t) * 8);
}

bool mv_elem_bits_parse(const char *word, unsigned *bits)
{
    static const struct {
        const char *name;
        unsigned bits;
    } extra[] = {{"i4", 4}, {"f8", 8}, {"f8e4m3", 8}, {"f8e5m2", 8}, {"4", 4}, {"8", 8}, {"16", 16}, {"32", 32}, {"64", 64}};
    ElemType t;
    if (elem_type_parse(word, strlen(word), &t)) {
        *bits = mv_elem_bits(t);
        return true;
    }
    for (size_t i = 0; i < sizeof extra / sizeof *extra; i++)
        if (strcmp(word, extra[i].name) == 0) {
            *bits = extra[i].bits;
            return true;
        }
    return false;
}
