/* key.c — the colour keys of pictures: parsing `--color-by` (a digit of an axis or of the position, padding, unit,
 * tile), a digit's value for a cell, and the key's legend. */
#include "draw_impl.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

/* Skips spaces. */
static const char *skip(const char *s)
{
    while (*s == ' ')
        s++;
    return s;
}

/* Reads a number (decimal or 0x hex) at *s into *v, advancing *s; false when there is none. */
static bool number(const char **s, uint64_t *v)
{
    const char *e = *s;
    while (isalnum((unsigned char)*e))
        e++;
    if (!u64_parse(*s, (size_t)(e - *s), v))
        return false;
    *s = e;
    return true;
}

/* The axes a key may name, for an error message. */
static void list_axes(const Prog *p, Text *t)
{
    for (int a = 0; a < p->naxes; a++)
        if (!p->axes[a].local)
            text_printf(t, " %s", p->axes[a].name);
}

bool draw_key_parse(const Prog *p, const char *s, bool tensor, DrawKey *k, char *why, size_t size)
{
    if (!s)
        return true;
    *k = (DrawKey){.kind = KEY_DIGIT, .axis = -1, .div = 1};
    snprintf(k->text, sizeof k->text, "%s", s);
    if (strcmp(s, "padding") == 0 || strcmp(s, "tile") == 0 || strcmp(s, "unit") == 0) {
        k->kind = s[0] == 'p' ? KEY_PADDING : s[0] == 't' ? KEY_TILE : KEY_UNIT;
        if (k->kind == KEY_UNIT && !tensor) {
            snprintf(why, size, "colour by unit needs a tensor; this is a mapping (colour by an axis, a digit such as "
                                "'M / 8', position, tile or padding)");
            return false;
        }
        return true;
    }
    const char *c = skip(s), *start = c;
    while (isalnum((unsigned char)*c) || *c == '_')
        c++;
    size_t len = (size_t)(c - start);
    const Name *n = len ? prog_lookup_n(p, start, len) : NULL;
    if (len == 8 && strncmp(start, "position", 8) == 0) {
        k->axis = -1;
    } else if (n && n->kind == NAME_AXIS && !p->axes[n->axis].local) {
        k->axis = n->axis;
    } else {
        Text t = {why, size, 0};
        text_printf(&t, "cannot colour by '%s': it is not an axis, a digit of one (AXIS / D, AXIS %% M, AXIS / D %% M), "
                        "position, tile, padding%s (axes:", s, tensor ? " or unit" : "");
        list_axes(p, &t);
        text_printf(&t, ")");
        return false;
    }
    c = skip(c);
    for (const char *op = "/%"; *op; op++) {
        if (*c != *op)
            continue;
        c = skip(c + 1);
        uint64_t *v = *op == '/' ? &k->div : &k->mod;
        if (!number(&c, v) || *v == 0) {
            snprintf(why, size, "cannot colour by '%s': '%c' needs a positive number (decimal or 0x hex)", s, *op);
            return false;
        }
        c = skip(c);
    }
    if (*c) {
        snprintf(why, size, "cannot colour by '%s': unexpected '%s' (a digit is AXIS / D %% M)", s, c);
        return false;
    }
    return true;
}

uint64_t draw_key_digit(const DrawKey *k, const uint64_t *coord, uint64_t pos)
{
    uint64_t v = (k->axis < 0 ? pos : coord[k->axis]) / k->div;
    return k->mod ? v % k->mod : v;
}

uint64_t draw_key_count(const DrawKey *k, uint64_t range)
{
    uint64_t n = range / k->div + (range % k->div != 0);
    if (k->mod && n > k->mod)
        n = k->mod;
    return n ? n : 1;
}

void draw_key_legend(Pic *pic, const DrawKey *k, uint64_t n)
{
    if (k->kind == KEY_TILE && n > PAL_DISCRETE)
        return; /* the colours repeat: the subtitle says so */
    char label[128];
    bool all = n <= PAL_DISCRETE && n + (uint64_t)pic->nlegend + 6 <= PIC_MAX_LEGEND;
    int samples = all ? (int)n : 5;
    for (int i = 0; i < samples; i++) {
        uint64_t v = all ? (uint64_t)i : (n - 1) * (uint64_t)i / 4;
        if (k->kind == KEY_UNIT)
            snprintf(label, sizeof label, "unit %llu", U(v));
        else if (k->kind == KEY_TILE)
            snprintf(label, sizeof label, "tile %llu", U(v));
        else
            snprintf(label, sizeof label, "%s=%llu", k->text, U(v));
        pic_legend(pic, pal_value(v, n), label);
    }
}
