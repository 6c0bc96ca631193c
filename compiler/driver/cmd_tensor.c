/* cmd_tensor.c — "mapc where" (the units and element positions holding an index) and "mapc table" of a tensor
 * (which unit holds what), from the tensor's layout through the layout queries of algebra/. */
#include "algebra/algebra.h"
#include "driver.h"

#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

/* Positions printed at most by "where" (an index replicated on more units is summarized after them). */
#define WHERE_MAX_LINES 100000

/* The declared tensor NAME of p, or NULL after printing why. */
static const TensorDecl *find_tensor(const Prog *p, const char *file, const char *name)
{
    const Name *n = prog_lookup(p, name);
    if (n && n->kind == NAME_TENSOR)
        return n->tensor;
    drv_no_such(p, file, "tensor", name, NAME_TENSOR);
    return NULL;
}

/* "chip C, cluster L, slice S, element P" (DmTensor), "chip C, element P" (HbmTensor), "element P" (HostTensor)
 * of layout position pos. */
static void print_unit(MemKind mem, TensorUnits u, uint64_t pos, const char *end)
{
    uint64_t e = pos % u.elements, unit = pos / u.elements;
    uint64_t s = unit % u.slices, l = unit / u.slices % u.clusters, c = unit / u.slices / u.clusters;
    if (mem == MEM_DM)
        printf("chip %llu, cluster %llu, slice %llu, element %llu%s", U(c), U(l), U(s), U(e), end);
    else if (mem == MEM_HBM)
        printf("chip %llu, element %llu%s", U(c), U(e), end);
    else
        printf("element %llu%s", U(e), end);
}

int cmd_where(int argc, char **argv)
{
    int st = drv_no_options("where", argc, argv, 0);
    if (st != DRV_EXIT_OK)
        return st;
    if (argc != 3)
        return drv_usage_error("where needs FILE, TENSOR and INDEX (an i![...] literal, or {A:1, B:7} as eval prints)%s", "");
    Prog *p = drv_load(argv[0], false);
    if (!p)
        return DRV_EXIT_INPUT;
    const TensorDecl *t = find_tensor(p, argv[0], argv[1]);
    int status = DRV_EXIT_INPUT;
    uint64_t *out = NULL;
    Cell c = {.coord = mem_calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
    if (!t)
        goto done;
    /* the cell form mapc eval prints, {A:1, B:7}, is the index i![A:1, B:7] */
    const char *index = argv[2];
    size_t len = strlen(index);
    char *literal = NULL;
    if (len >= 2 && index[0] == '{' && index[len - 1] == '}') {
        literal = mem_alloc(len + 3);
        snprintf(literal, len + 3, "i![%.*s]", (int)(len - 2), index + 1);
        index = literal;
    }
    bool parsed = prog_parse_index(p, "<command-line>", index, &c);
    free(literal);
    if (!parsed) {
        drv_print_diags(p, NULL); /* the loaded program had none: these are the index's */
        goto done;
    }
    if (c.kind != CELL_LIVE) {
        fprintf(stderr, "mapc: %s is %s, not an index\n", argv[2], cell_kind_name(c.kind));
        goto done;
    }
    out = mem_alloc(WHERE_MAX_LINES * sizeof *out);
    char why[512];
    int64_t n = tensor_where(p, t, c.coord, out, WHERE_MAX_LINES, why, sizeof why);
    if (n < 0) {
        fprintf(stderr, "mapc: %s: %s\n", argv[2], why);
        goto done;
    }
    TensorUnits u = tensor_units(t->mem, t->maps);
    for (int64_t i = 0; i < n && i < WHERE_MAX_LINES; i++)
        print_unit(t->mem, u, out[i], "\n");
    if (n > WHERE_MAX_LINES)
        printf("... and %lld more positions\n", (long long)(n - WHERE_MAX_LINES));
    if (n == 0)
        printf("nowhere\n");
    status = n == 0 ? DRV_EXIT_INPUT : DRV_EXIT_OK;
done:
    free(out);
    free(c.coord);
    prog_free(p);
    return status;
}

/* The range lo..hi of one coordinate as text ("3", "0..31"). */
static void range_text(char *buf, size_t size, uint64_t lo, uint64_t hi)
{
    if (lo == hi)
        snprintf(buf, size, "%llu", U(lo));
    else
        snprintf(buf, size, "%llu..%llu", U(lo), U(hi));
}

int drv_tensor_table(Prog *p, const TensorDecl *t, uint64_t max_rows)
{
    MapWhy why;
    const Map *layout = tensor_layout(&p->arena, t->mem, t->maps, why);
    bool *axes = tensor_axis_flags(p, t, layout);
    TensorUnits u = tensor_units(t->mem, t->maps);
    uint64_t units = u.chips * u.clusters * u.slices;
    printf("tensor %s: %s<%s", t->name, mem_kind_tensor(t->mem), elem_type_name(t->elem));
    for (int i = 0; i < mem_kind_maps(t->mem); i++) {
        char *m = drv_fmt_map(p, t->maps[i]);
        printf(", %s", m);
        free(m);
    }
    if (t->mem == MEM_HOST)
        printf(">\n1 unit (host memory");
    else
        printf(">\n%llu unit%s (%llu chip%s", U(units), units == 1 ? "" : "s", U(u.chips), u.chips == 1 ? "" : "s");
    if (t->mem == MEM_DM)
        printf(" x %llu cluster%s x %llu slice%s", U(u.clusters), u.clusters == 1 ? "" : "s", U(u.slices),
               u.slices == 1 ? "" : "s");
    printf(") of %llu elements; axes", U(u.elements));
    for (int a = 0; a < p->naxes; a++)
        if (axes[a])
            printf(" %s", p->axes[a].name);
    printf("\n");
    Eqv *q = eqv_new(p);
    uint64_t *lo = mem_calloc((size_t)p->naxes + 1, sizeof *lo), *hi = mem_calloc((size_t)p->naxes + 1, sizeof *hi);
    int status = DRV_EXIT_OK;
    const char *head = t->mem == MEM_DM ? "chip cluster slice" : t->mem == MEM_HBM ? "chip" : "unit";
    printf("%-20s %10s  %s\n", head, "live", "holds");
    uint64_t shown_head, shown_tail;
    drv_truncate(units, max_rows, &shown_head, &shown_tail);
    for (uint64_t k = 0; k < units; k++) {
        if (k == shown_head && shown_tail) {
            printf("… %llu units hidden (%llu..%llu; --all shows them)\n", U(units - shown_head - shown_tail),
                   U(shown_head), U(units - shown_tail - 1));
            k = units - shown_tail;
        }
        uint64_t live = 0;
        int r = layout_live_bounds(q, layout, k * u.elements, (k + 1) * u.elements, lo, hi, &live);
        if (r < 0) {
            fprintf(stderr, "mapc: cannot decide what unit %llu holds: %s\n", U(k), eqv_error(q));
            status = DRV_EXIT_INPUT;
            break;
        }
        char label[64];
        uint64_t s = k % u.slices, l = k / u.slices % u.clusters, c = k / u.slices / u.clusters;
        if (t->mem == MEM_DM)
            snprintf(label, sizeof label, "%llu %llu %llu", U(c), U(l), U(s));
        else if (t->mem == MEM_HBM)
            snprintf(label, sizeof label, "%llu", U(c));
        else
            snprintf(label, sizeof label, "host");
        printf("%-20s %10llu  ", label, U(live));
        if (!live) {
            printf("nothing (padding)\n");
            continue;
        }
        bool first = true;
        for (int a = 0; a < p->naxes; a++)
            if (axes[a]) {
                char rb[48];
                range_text(rb, sizeof rb, lo[a], hi[a]);
                printf("%s%s %s", first ? "" : ", ", p->axes[a].name, rb);
                first = false;
            }
        printf("\n");
    }
    free(lo);
    free(hi);
    eqv_free(q);
    return status;
}
