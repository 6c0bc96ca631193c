/* cmd_table.c — "mapc table": a mapping as a grid of short cells split like its pictures (at most 16 columns by
 * default), long grids cut in the middle with a count of what is hidden, colour on terminals; a tensor's units. */
#include "draw/draw.h"
#include "driver.h"

#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

/* Rows and columns shown before a grid is cut (--all shows everything), and the default width of the split. */
#define TABLE_MAX_ROWS 32
#define TABLE_MAX_COLS 16
/* What one shown cell holds in memory while the table is built: its pointer, its kind and its text's block. */
#define TABLE_CELL_BYTES 48

/* Cells --all prints at most unless --max-cells says otherwise. */
#define TABLE_ALL_CELLS 65536

/* ANSI styles of the kinds of cells (live cells are plain), of numbering and of the "hidden" marks. */
static const char *const kind_style[] = {"", "\033[2m", "\033[36m", "\033[35m", "\033[31m", "\033[1;31m"};
#define STYLE_DIM "\033[2m"
#define STYLE_OFF "\033[0m"

/* The table's short form of a cell: the coordinates of the shown axes joined by commas ("1,7"), or the padding
 * operator of its kind (#, #{0}, #{!}), oob, overflow. Written into buf. */
static void short_cell(const Prog *p, const bool *axes, const Cell *c, char *buf, size_t size)
{
    static const char *const kind_text[] = {"", "#", "#{0}", "#{!}", "oob", "overflow"};
    Text t = {buf, size, 0};
    buf[0] = 0;
    if (c->kind != CELL_LIVE) {
        text_printf(&t, "%s", kind_text[c->kind]);
        return;
    }
    bool any = false;
    for (int a = 0; a < p->naxes; a++)
        if (axes[a]) {
            text_printf(&t, "%s%llu", any ? "," : "", U(c->coord[a]));
            any = true;
        }
    if (!any)
        text_printf(&t, "{}");
}

/* The grid: the indices of the shown rows and columns (head and tail of each), cells evaluated only there. */
typedef struct Grid {
    uint64_t rows, cols, rhead, rtail, chead, ctail;
    char **text;        /* shown rows x shown columns */
    uint8_t *kind;
    size_t width;       /* of a cell column */
    bool seen[CELL_OVERFLOW + 1];
} Grid;

/* The i-th shown row (or column) of n, head ones first and then the last tail ones. */
static uint64_t nth_shown(uint64_t i, uint64_t head, uint64_t tail, uint64_t n)
{
    return i < head ? i : n - tail + (i - head);
}

/* Evaluates the shown cells of m into g; DRV_EXIT_OK, or DRV_EXIT_INPUT after saying why. */
static int fill(Prog *p, const Map *m, const bool *axes, Grid *g)
{
    uint64_t sr = g->rhead + g->rtail, sc = g->chead + g->ctail;
    g->text = mem_calloc((size_t)(sr * sc), sizeof *g->text);
    g->kind = mem_calloc((size_t)(sr * sc), 1);
    Evaluator *ev = eqv_evaluator_new(p);
    Cell c = {.coord = mem_calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    int status = DRV_EXIT_OK;
    char buf[1024];
    for (uint64_t i = 0; i < sr && status == DRV_EXIT_OK; i++)
        for (uint64_t j = 0; j < sc; j++) {
            uint64_t row_start, pos;
            bool past = !u64_mul(nth_shown(i, g->rhead, g->rtail, g->rows), g->cols, &row_start) ||
                        __builtin_add_overflow(row_start, nth_shown(j, g->chead, g->ctail, g->cols), &pos);
            if (past) { /* beyond 2^64 - 1, in the last row of a mapping that large: past its end */
                c.kind = CELL_OOB;
            } else if (eval_cell(ev, m, pos, &c) != EVAL_OK) {
                fprintf(stderr, "mapc: cannot evaluate position %llu: %s\n", U(pos), eval_error(ev));
                status = DRV_EXIT_INPUT;
                break;
            }
            short_cell(p, axes, &c, buf, sizeof buf);
            g->text[i * sc + j] = strcpy(mem_alloc(strlen(buf) + 1), buf);
            g->kind[i * sc + j] = (uint8_t)c.kind;
            g->seen[c.kind] = true;
            if (strlen(buf) > g->width)
                g->width = strlen(buf);
        }
    free(c.coord);
    eqv_evaluator_free(ev);
    return status;
}

/* Prints text right-aligned in width, styled when colour is on. */
static void put(const char *text, size_t width, const char *style, bool color)
{
    printf("%*s", (int)(width - strlen(text)), "");
    if (color && *style)
        printf("%s%s%s", style, text, STYLE_OFF);
    else
        fputs(text, stdout);
}

/* The header lines: what the grid is, the key of the short cells, the column numbers. */
static void print_head(const Prog *p, const Map *m, const bool *axes, const Grid *g, int lw, bool color)
{
    char *name = drv_fmt_map(p, m);
    printf("%s: %llu position%s, %llu row%s x %llu column%s; position = %llu*row + column\n", name, U(m->size),
           m->size == 1 ? "" : "s", U(g->rows), g->rows == 1 ? "" : "s", U(g->cols), g->cols == 1 ? "" : "s", U(g->cols));
    free(name);
    printf("cells:");
    bool any = false;
    for (int a = 0; a < p->naxes; a++)
        if (axes[a]) {
            printf("%s%s", any ? "," : " ", p->axes[a].name);
            any = true;
        }
    printf(any ? " coordinates" : " {} (no axis)");
    static const char *const key[] = {"", "# pad(top)", "#{0} pad(zero)", "#{!} pad(bottom)", "oob", "overflow"};
    for (int k = CELL_PAD_TOP; k <= CELL_OVERFLOW; k++)
        if (g->seen[k])
            printf("; %s", key[k]);
    if (g->ctail)
        printf("; %llu columns hidden", U(g->cols - g->chead - g->ctail));
    printf("\n");
    put("row\\col", (size_t)lw, STYLE_DIM, color);
    char num[32];
    for (uint64_t j = 0; j < g->chead + g->ctail; j++) {
        if (g->ctail && j == g->chead)
            put("…", 2, STYLE_DIM, color);
        snprintf(num, sizeof num, "%llu", U(nth_shown(j, g->chead, g->ctail, g->cols)));
        printf(" ");
        put(num, g->width, STYLE_DIM, color);
    }
    printf("\n");
}

/* Prints the grid of m: its shown rows, a line for the hidden ones. */
static void print_grid(const Prog *p, const Map *m, const bool *axes, const Grid *g, bool color)
{
    char num[32];
    snprintf(num, sizeof num, "%llu", U(g->rows - 1));
    int lw = (int)strlen(num) < 7 ? 7 : (int)strlen(num);
    print_head(p, m, axes, g, lw, color);
    uint64_t sc = g->chead + g->ctail;
    for (uint64_t i = 0; i < g->rhead + g->rtail; i++) {
        if (g->rtail && i == g->rhead) {
            uint64_t hidden = g->rows - g->rhead - g->rtail;
            char line[128];
            snprintf(line, sizeof line, "… %llu rows hidden (positions %llu..%llu)", U(hidden), U(g->rhead * g->cols),
                     U((g->rhead + hidden) * g->cols - 1));
            put(line, strlen(line), STYLE_DIM, color);
            printf("\n");
        }
        uint64_t r = nth_shown(i, g->rhead, g->rtail, g->rows);
        snprintf(num, sizeof num, "%llu", U(r));
        put(num, (size_t)lw, STYLE_DIM, color);
        for (uint64_t j = 0; j < sc; j++) {
            if (g->ctail && j == g->chead)
                put("…", 2, STYLE_DIM, color);
            printf(" ");
            put(g->text[i * sc + j], g->width, kind_style[g->kind[i * sc + j]], color);
        }
        printf("\n");
    }
}

/* The options of table: DRV_EXIT_OK or a usage error. */
typedef struct TableArgs {
    const char *pos[2];
    int npos;
    uint64_t rows, cols, max_cells;
    bool all;
} TableArgs;

static int parse_args(int argc, char **argv, TableArgs *a)
{
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        if (strcmp(s, "--rows") == 0 || strcmp(s, "--cols") == 0 || strcmp(s, "--max-cells") == 0) {
            uint64_t n = 0;
            if (i + 1 >= argc || !drv_parse_pos(argv[i + 1], &n) || n == 0)
                return drv_usage_error("%s takes a positive number (decimal or 0x hex)", s);
            *(strcmp(s, "--rows") == 0 ? &a->rows : strcmp(s, "--cols") == 0 ? &a->cols : &a->max_cells) = n;
            i++;
        } else if (strcmp(s, "--all") == 0) {
            a->all = true;
        } else if (strncmp(s, "--color=", 8) == 0 || strcmp(s, "--color") == 0) {
            const char *v = s[7] == '=' ? s + 8 : i + 1 < argc ? argv[++i] : "";
            if (!drv_set_color(v))
                return drv_usage_error("--color takes auto, always or never, not '%s'", v);
        } else if (drv_is_option(s)) {
            static const char *const known[] = {"--rows", "--cols", "--all", "--color", "--max-cells", "--help", NULL};
            return drv_unknown_option("table", s, known);
        } else if (a->npos == 2) {
            return drv_usage_error("table needs FILE and NAME, not also '%s'", s);
        } else {
            a->pos[a->npos++] = s;
        }
    }
    if (a->npos != 2)
        return drv_usage_error("table needs FILE and NAME%s", "");
    if (a->rows && a->cols)
        return drv_usage_error("table takes --rows or --cols, not both%s", "");
    return DRV_EXIT_OK;
}

int cmd_table(int argc, char **argv)
{
    TableArgs a = {0};
    int status = parse_args(argc, argv, &a);
    if (status != DRV_EXIT_OK)
        return status;
    Prog *p = drv_load(a.pos[0], false);
    if (!p)
        return DRV_EXIT_INPUT;
    const Name *tn = prog_lookup(p, a.pos[1]);
    if (tn && tn->kind == NAME_TENSOR) { /* a tensor: its units as rows */
        status = drv_tensor_table(p, tn->tensor, a.all ? 0 : a.rows ? a.rows : TABLE_MAX_ROWS);
        prog_free(p);
        return status;
    }
    const Map *m = drv_mistyped_tensor(p, a.pos[0], a.pos[1]) ? NULL : drv_resolve(p, a.pos[1]);
    if (!m) {
        prog_free(p);
        return DRV_EXIT_INPUT;
    }
    Grid g = {.width = 1};
    uint64_t max_cells = a.max_cells ? a.max_cells : a.all ? TABLE_ALL_CELLS : UINT64_MAX;
    if (m->size > max_cells) {
        fprintf(stderr, "mapc: the mapping has %llu cells, more than %s %llu\n", U(m->size),
                a.max_cells ? "--max-cells" : "--all prints (raise it with --max-cells N)", U(max_cells));
        status = DRV_EXIT_INPUT;
    } else if (a.rows > m->size || a.cols > m->size) {
        fprintf(stderr, "mapc: %llu %s is more than the %llu positions of the mapping\n", U(a.rows ? a.rows : a.cols),
                a.rows ? "rows" : "columns", U(m->size));
        status = DRV_EXIT_INPUT;
    } else {
        if (a.cols) {
            g.cols = a.cols;
            g.rows = m->size / a.cols + (m->size % a.cols != 0);
        } else {
            draw_split(m, a.rows, TABLE_MAX_COLS, &g.rows, &g.cols);
        }
        drv_truncate(g.rows, a.all ? 0 : TABLE_MAX_ROWS, &g.rhead, &g.rtail);
        drv_truncate(g.cols, a.all ? 0 : TABLE_MAX_COLS, &g.chead, &g.ctail);
        /* the cells shown are kept until the widest is known: a pointer, a kind and a short text each */
        uint64_t shown = u64_sat_mul(g.rhead + g.rtail, g.chead + g.ctail);
        char why[160];
        if (!mem_fits(u64_sat_mul(shown, TABLE_CELL_BYTES), why, sizeof why)) {
            fprintf(stderr, "mapc: a table of %llu cells needs about %s\n", U(shown), why);
            prog_free(p);
            return DRV_EXIT_INPUT;
        }
        bool *axes = mem_calloc((size_t)p->naxes + 1, 1);
        map_mark_axes(m, axes);
        for (int i = 0; i < p->naxes; i++)
            axes[i] = axes[i] && !p->axes[i].local;
        status = fill(p, m, axes, &g);
        if (status == DRV_EXIT_OK)
            print_grid(p, m, axes, &g, drv_use_color(stdout));
        free(axes);
    }
    for (uint64_t i = 0; g.text && i < (g.rhead + g.rtail) * (g.chead + g.ctail); i++)
        free(g.text[i]);
    free(g.text);
    free(g.kind);
    prog_free(p);
    return status;
}
