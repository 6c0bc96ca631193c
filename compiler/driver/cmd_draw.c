/* cmd_draw.c — "mapc draw" (a picture of a mapping, type or tensor) and "mapc diff" (where two mappings differ),
 * written as SVG, PNG or HTML as the extension of -o says. */
#include "draw/draw.h"
#include "driver.h"
#include "out_file.h"

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


/* Parses the arguments of `cmd` (npos positional ones, --color-by only when color): DRV_EXIT_OK or a usage error.
 * The picture's colouring is --color-by KEY; --color=auto|always|never (the diagnostics') was taken out before. */
static int parse_args(const char *cmd, int argc, char **argv, int npos, bool color, DrawArgs *a)
{
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i], *eq = strchr(s, '=');
        char opt[32];
        const char *v = NULL;
        if (strncmp(s, "--", 2) == 0 && eq && (size_t)(eq - s) < sizeof opt) { /* --opt=VALUE */
            snprintf(opt, sizeof opt, "%.*s", (int)(eq - s), s);
            v = eq + 1;
            s = opt;
        }
        if (strcmp(s, "--color") == 0 || strcmp(s, "--colour") == 0)
            return drv_usage_error("%s colours the picture with --color-by KEY (an axis, a digit such as 'M / 8', "
                                   "position, tile, padding or unit); --color=auto|always|never colours the "
                                   "diagnostics", cmd);
        if (strcmp(s, "-o") == 0 || strcmp(s, "--color-by") == 0 || strcmp(s, "--rows") == 0 ||
            strcmp(s, "--max-cells") == 0 || strcmp(s, "--view") == 0 || strcmp(s, "--axes") == 0) {
            if (!v && i + 1 >= argc)
                return drv_usage_error("%s needs a value", s);
            if (!v)
                v = argv[++i];
            uint64_t n = 0;
            if (strcmp(s, "-o") == 0) {
                a->out = v;
            } else if (strcmp(s, "--color-by") == 0 && color) {
                a->o.color = v;
            } else if (strcmp(s, "--color-by") == 0) {
                return drv_usage_error("%s takes no --color-by (the cells are coloured by whether they differ)", cmd);
            } else if (strcmp(s, "--axes") == 0) {
                a->o.axes = v;
            } else if (strcmp(s, "--view") == 0) {
                if (strcmp(v, "index") == 0)
                    a->o.view = DRAW_VIEW_INDEX;
                else if (strcmp(v, "buffer") == 0)
                    a->o.view = DRAW_VIEW_BUFFER;
                else
                    return drv_usage_error("--view takes index (the tensor's coordinates) or buffer (the positions), "
                                           "not '%s'", v);
            } else if (!drv_parse_pos(v, &n) || n == 0) {
                return drv_usage_error("%s takes a positive number (decimal or 0x hex)", s);
            } else if (strcmp(s, "--rows") == 0) {
                a->o.rows = n;
            } else {
                a->o.max_cells = n;
            }
        } else if (drv_is_option(s)) {
            static const char *const draw_known[] = {"-o", "--view", "--axes", "--color-by", "--rows", "--max-cells",
                                                     "--help", NULL};
            static const char *const diff_known[] = {"-o", "--view", "--axes", "--rows", "--max-cells", "--help", NULL};
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
    if (a->o.rows && a->o.view == DRAW_VIEW_INDEX)
        return drv_usage_error("--rows splits the buffer view; the index view's rows are an axis (%s)", "--axes ROWS,COLUMNS");
    if (a->o.rows)
        a->o.view = DRAW_VIEW_BUFFER;
    return DRV_EXIT_OK;
}

/* The start of draw and diff: their arguments parsed, and FILE loaded into *p. DRV_EXIT_OK, a usage error, or
 * DRV_EXIT_INPUT after the diagnostics. */
static int start(const char *cmd, int argc, char **argv, int npos, bool color, DrawArgs *a, Prog **p)
{
    int st = parse_args(cmd, argc, argv, npos, color, a);
    if (st == DRV_EXIT_OK)
        st = out_refuse_inputs("-o", a->out, &a->pos[0], 1);
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
    st = ok ? out_write_bytes(a.out, pic.data, pic.len) : DRV_EXIT_INPUT;
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
    st = out_write_bytes(a.out, pic.data, pic.len);
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
        if (d.by_index && d.differing == 0)
            printf("every index is held alike, so padding or sizes differ: --view buffer shows them\n");
        else if (d.by_index)
            printf("%llu indices are held differently; the first difference is marked in %s\n", U(d.differing), a.out);
        else
            printf("%llu of %llu positions differ; the first is marked in %s\n", U(d.differing),
                   U(m1->size > m2->size ? m1->size : m2->size), a.out);
        st = DRV_EXIT_INPUT;
    }
    prog_free(p);
    return st;
}
