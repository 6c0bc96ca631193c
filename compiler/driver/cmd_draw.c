/* cmd_draw.c — "mapc draw" (a picture of a mapping, type or tensor) and "mapc diff" (where two mappings differ),
 * written as SVG, PNG or HTML as the extension of -o says. */
#include "draw/draw.h"
#include "driver.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define U(x) ((unsigned long long)(x))

/* The command line of draw and diff: positional arguments and options. */
typedef struct DrawArgs {
    const char *pos[3];
    int npos;
    const char *out;
    DrawOptions o;
} DrawArgs;


/* Parses the arguments of `cmd` (npos positional ones, --color only when color): DRV_EXIT_OK or a usage error. */
static int parse_args(const char *cmd, int argc, char **argv, int npos, bool color, DrawArgs *a)
{
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(s, "-o") == 0 || strcmp(s, "--color") == 0 || strcmp(s, "--rows") == 0 ||
            strcmp(s, "--max-cells") == 0) {
            if (!has_value)
                return drv_usage_error("%s needs a value", s);
            const char *v = argv[++i];
            uint64_t n = 0;
            if (strcmp(s, "-o") == 0) {
                a->out = v;
            } else if (strcmp(s, "--color") == 0 && color) {
                a->o.color = v;
            } else if (strcmp(s, "--color") == 0) {
                return drv_usage_error("%s takes no --color (the cells are coloured by whether they differ)", cmd);
            } else if (!drv_parse_pos(v, &n) || n == 0) {
                return drv_usage_error("%s takes a positive decimal number", s);
            } else if (strcmp(s, "--rows") == 0) {
                a->o.rows = n;
            } else {
                a->o.max_cells = n;
            }
        } else if (drv_is_option(s)) {
            static const char *const draw_known[] = {"-o", "--color", "--rows", "--max-cells", "--help", NULL};
            static const char *const diff_known[] = {"-o", "--rows", "--max-cells", "--help", NULL};
            return drv_unknown_option(cmd, s, color ? draw_known : diff_known);
        } else if (a->npos == npos) {
            return drv_usage_error("unexpected argument '%s'", s);
        } else {
            a->pos[a->npos++] = s;
        }
    }
    if (a->npos != npos)
        return drv_usage_error(npos == 2 ? "%s needs FILE and NAME, and -o OUT" : "%s needs FILE, NAME1 and NAME2, and -o OUT",
                               cmd);
    if (!a->out)
        return drv_usage_error("%s needs -o OUT (.svg, .png or .html)", cmd);
    if (!drv_draw_format(a->out, &a->o.format))
        return drv_usage_error("cannot tell the format of '%s': name it .svg, .png or .html", a->out);
    return DRV_EXIT_OK;
}

/* The start of draw and diff: their arguments parsed, and FILE loaded into *p. DRV_EXIT_OK, a usage error, or
 * DRV_EXIT_INPUT after the diagnostics. */
static int start(const char *cmd, int argc, char **argv, int npos, bool color, DrawArgs *a, Prog **p)
{
    int st = parse_args(cmd, argc, argv, npos, color, a);
    if (st != DRV_EXIT_OK)
        return st;
    *p = drv_load(a->pos[0], false);
    return *p ? DRV_EXIT_OK : DRV_EXIT_INPUT;
}


int cmd_draw(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--time") == 0) /* a sequencer walk (cmd_movement.c) */
            return cmd_draw_walk(argc, argv);
    DrawArgs a = {0};
    Prog *p = NULL;
    int st = start("draw", argc, argv, 2, true, &a, &p);
    if (st != DRV_EXIT_OK)
        return st;
    const char *name = a.pos[1];
    const Name *n = prog_lookup(p, name);
    DrawBytes pic = {0};
    char why[512];
    bool ok;
    if (n && n->kind == NAME_TENSOR) {
        ok = draw_tensor(p, n->tensor, &a.o, &pic, why, sizeof why);
    } else {
        const Map *m = drv_mistyped_tensor(p, a.pos[0], name) ? NULL : drv_resolve(p, name);
        if (!m) {
            prog_free(p);
            return DRV_EXIT_INPUT;
        }
        ok = draw_map(p, name, m, &a.o, &pic, why, sizeof why);
    }
    st = ok ? drv_write_picture(a.out, &pic) : DRV_EXIT_INPUT;
    if (!ok)
        fprintf(stderr, "mapc: cannot draw %s: %s\n", name, why);
    free(pic.data);
    prog_free(p);
    return st;
}

int cmd_diff(int argc, char **argv)
{
    DrawArgs a = {0};
    Prog *p = NULL;
    int st = start("diff", argc, argv, 3, false, &a, &p);
    if (st != DRV_EXIT_OK)
        return st;
    const Map *m1 = drv_resolve(p, a.pos[1]);
    const Map *m2 = m1 ? drv_resolve(p, a.pos[2]) : NULL;
    if (!m1 || !m2) {
        prog_free(p);
        return DRV_EXIT_INPUT;
    }
    DrawBytes pic = {0};
    DrawDiff d;
    char why[512];
    if (!draw_diff(p, a.pos[1], m1, a.pos[2], m2, &a.o, &d, &pic, why, sizeof why)) {
        fprintf(stderr, "mapc: cannot draw the difference of %s and %s: %s\n", a.pos[1], a.pos[2], why);
        prog_free(p);
        return DRV_EXIT_INPUT;
    }
    st = drv_write_picture(a.out, &pic);
    free(pic.data);
    if (st == DRV_EXIT_OK && d.equivalent) {
        printf("equivalent\n");
    } else if (st == DRV_EXIT_OK) {
        if (d.sizes_differ) {
            printf("not equivalent: sizes %llu vs %llu\n", U(m1->size), U(m2->size));
        } else {
            Evaluator *ev = eqv_evaluator_new(p);
            Cell c1 = {.coord = mem_calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
            Cell c2 = {.coord = mem_calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
            eval_cell(ev, m1, d.first, &c1); /* decided already while drawing */
            eval_cell(ev, m2, d.first, &c2);
            char *s1 = drv_fmt_cell(p, &c1), *s2 = drv_fmt_cell(p, &c2);
            printf("not equivalent: position %llu: %s vs %s\n", U(d.first), s1, s2);
            free(s1);
            free(s2);
            free(c1.coord);
            free(c2.coord);
            eqv_evaluator_free(ev);
        }
        printf("%llu of %llu positions differ; the first is marked in %s\n", U(d.differing),
               U(m1->size > m2->size ? m1->size : m2->size), a.out);
        st = DRV_EXIT_INPUT;
    }
    prog_free(p);
    return st;
}
