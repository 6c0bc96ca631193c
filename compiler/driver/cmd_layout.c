/* cmd_layout.c — "mapc lower" and "mapc describe": layout descriptors to mapping expressions and back. */
#include "desc/desc.h"
#include "driver.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Loads FILE and resolves NAME (a type, an inline m![...], tiled![...] or strided![...]). */
static int load_one(int argc, char **argv, const char *cmd, Prog **p, const Map **m)
{
    int st = drv_no_options(cmd, argc, argv, 0);
    if (st != DRV_EXIT_OK)
        return st;
    if (argc != 2)
        return drv_usage_error("%s needs FILE and NAME", cmd);
    return drv_load_named(argv[0], false, argv[1], p, m);
}

int cmd_lower(int argc, char **argv)
{
    Prog *p = NULL;
    const Map *m = NULL;
    int st = load_one(argc, argv, "lower", &p, &m);
    if (st != DRV_EXIT_OK)
        return st;
    char *s = drv_fmt_map(p, m);
    printf("%s\n", s);
    free(s);
    prog_free(p);
    return DRV_EXIT_OK;
}

/* The text of NAME's definition: NAME itself when it is written inline, else the source after the
 * type's name up to the end of its statement (a descriptor holds no ';'). NULL when neither. */
static const char *definition(const Prog *p, const char *name, size_t *len)
{
    const Name *n = prog_lookup(p, name);
    if (!n || n->kind != NAME_TYPE) {
        *len = strlen(name);
        return name;
    }
    const char *t = n->loc.src->text, *end = t + n->loc.src->len;
    for (uint32_t line = 1; line < n->loc.line && t < end; t++)
        line += *t == '\n';
    t = (size_t)(end - t) >= n->loc.col - 1 ? t + n->loc.col - 1 : end;
    const char *semi = memchr(t, ';', (size_t)(end - t));
    *len = (size_t)((semi ? semi : end) - t);
    return t;
}

/* The shape order a user wrote for NAME: the axes of the "shape: [...]" list of its descriptor when
 * NAME is (or names) a tiled![...] or strided![...]. Otherwise the declaration order of d's axes, but
 * only when it is d's order or its reverse (a tiled layout keeps its row- and column-major orders
 * then; under another permutation they would become strides): else d's own order. Fills axes[] with
 * d->rank entries; returns their number. */
static int shape_order(const Prog *p, const char *name, const Desc *d, int *axes)
{
    size_t len;
    const char *t = definition(p, name, &len), *end = t + len;
    const char *tiled = memmem(t, len, "tiled!", 6), *strided = memmem(t, len, "strided!", 8);
    const char *shape = (tiled || strided) ? memmem(t, len, "shape", 5) : NULL;
    while (shape && shape > t && (isalnum((unsigned char)shape[-1]) || shape[-1] == '_')) /* not tile_shape */
        shape = memmem(shape + 5, (size_t)(end - shape - 5), "shape", 5);
    int n = 0;
    if (shape && (shape = memchr(shape, '[', (size_t)(end - shape))) != NULL)
        for (const char *c = shape + 1; c < end && *c != ']' && n < d->rank;) {
            if (!isalpha((unsigned char)*c)) {
                c++;
                continue;
            }
            const char *w = c;
            while (c < end && (isalnum((unsigned char)*c) || *c == '_'))
                c++;
            const Name *a = prog_lookup_n(p, w, (size_t)(c - w));
            if (!a || a->kind != NAME_AXIS)
                break;
            axes[n++] = a->axis;
        }
    if (n == d->rank)
        return n;
    n = 0; /* declaration order */
    for (int a = 0; a < p->naxes; a++)
        for (int i = 0; i < d->rank; i++)
            if (d->axes[i] == a)
                axes[n++] = a;
    bool reversed = true;
    for (int i = 0; i < n; i++)
        reversed &= axes[i] == d->axes[n - 1 - i];
    if (!reversed && d->kind == DESC_KIND_TILED)
        memcpy(axes, d->axes, (size_t)n * sizeof *axes);
    return n;
}

int cmd_describe(int argc, char **argv)
{
    Prog *p = NULL;
    const Map *m = NULL;
    int st = load_one(argc, argv, "describe", &p, &m);
    if (st != DRV_EXIT_OK)
        return st;
    const char *note, *why;
    const Desc *d = desc_recognize(p, m, &note, &why);
    if (!d) {
        printf("not a tiled or strided layout: %s\n", why);
        prog_free(p);
        return DRV_EXIT_INPUT;
    }
    int *order = mem_alloc((size_t)d->rank * sizeof *order);
    d = desc_reorder(p, m, d, order, shape_order(p, argv[1], d, order), &note);
    free(order);
    size_t n = desc_format(p, d, NULL, 0);
    char *s = mem_alloc(n + 1);
    desc_format(p, d, s, n + 1);
    if (note)
        printf("%s  // %s\n", s, note);
    else
        printf("%s\n", s);
    free(s);
    prog_free(p);
    return DRV_EXIT_OK;
}
