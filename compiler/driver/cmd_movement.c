/* cmd_movement.c — "mapc sequence", "mapc dma", "mapc tails" and "mapc dma-cost": how the NPU moves tensors (compiler/movement). */
#include "driver.h"
#include "out_file.h"
#include "movement/movement.h"

#include <stdlib.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

/* Prints "error: CODE: MESSAGE" and returns DRV_EXIT_INPUT. */
static int mv_error(const MvDiag *d)
{
    char line[sizeof d->msg + 64];
    snprintf(line, sizeof line, "error: %s: %s\n", mv_code_name(d->code), d->msg);
    drv_put_diag(line, stderr);
    return DRV_EXIT_INPUT;
}

/* Options VALUE pairs: fills the slot of each known option from argv[from..argc), positional words into pos (at
 * most npos); DRV_EXIT_OK or a usage error. */
static int parse(const char *cmd, int argc, char **argv, const char *const *known, const char **values, const char **pos,
                 int npos, int *got)
{
    *got = 0;
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        if (drv_is_option(s)) {
            int k = 0;
            while (known[k] && strcmp(known[k], s) != 0)
                k++;
            if (!known[k])
                return drv_unknown_option(cmd, s, known);
            if (i + 1 >= argc)
                return drv_usage_error("%s needs a value", s);
            values[k] = argv[++i];
        } else if (*got == npos) {
            return drv_usage_error("unexpected argument '%s'", s);
        } else {
            pos[(*got)++] = s;
        }
    }
    return DRV_EXIT_OK;
}

/* What sequence and draw of a walk share: the mode and element options (usage errors first), then the program and
 * the derived config of BUF walked as [TIME, PACKET]. DRV_EXIT_OK with *p (the caller frees it), BUF's mapping in
 * *bufmap and the config in *s, or the exit status after printing why (nothing left to free). */
static int derive_seq(const char *file, const char *buf, const char *time, const char *packet, const char *mode_word,
                      const char *type_word, Prog **p, const Map **bufmap, MvSeq *s)
{
    MvMode mode = MV_READ;
    unsigned bits = 8;
    if (mode_word && !mv_mode_parse(mode_word, &mode))
        return drv_usage_error("--mode takes read, write or carve, not '%s'", mode_word);
    if (type_word && !mv_elem_bits_parse(type_word, &bits))
        return drv_usage_error("--type takes an element type (i4, i8, f8, bf16, f16, f32, i32, f64), not '%s'", type_word);
    if (!(*p = drv_load(file, false)))
        return DRV_EXIT_INPUT;
    const Map *b = *bufmap = drv_resolve(*p, buf);
    const Map *t = b ? drv_resolve(*p, time) : NULL;
    const Map *k = t ? drv_resolve(*p, packet) : NULL;
    MvDiag d;
    int st = !k ? DRV_EXIT_INPUT : mv_sequence(*p, b, t, k, mode, bits, true, s, &d) != MV_OK ? mv_error(&d) : DRV_EXIT_OK;
    if (st != DRV_EXIT_OK) {
        prog_free(*p);
        *p = NULL;
    }
    return st;
}

int cmd_sequence(int argc, char **argv)
{
    static const char *const known[] = {"--time", "--packet", "--mode", "--type", "--cycles", NULL};
    const char *v[5] = {NULL}, *pos[2];
    int npos, st = parse("sequence", argc, argv, known, v, pos, 2, &npos);
    if (st != DRV_EXIT_OK)
        return st;
    if (npos != 2 || !v[0] || !v[1])
        return drv_usage_error("sequence needs FILE, BUF, --time T and --packet P%s", "");
    if (v[4] && strcmp(v[4], "on") != 0 && strcmp(v[4], "off") != 0)
        return drv_usage_error("--cycles takes on or off, not '%s'", v[4]);
    Prog *p;
    const Map *buf;
    MvSeq s;
    if ((st = derive_seq(pos[0], pos[1], v[0], v[1], v[2], v[3], &p, &buf, &s)) != DRV_EXIT_OK)
        return st;
    char line[1024];
    Text t = {line, sizeof line, 0};
    mv_config_text(&t, s.cfg, s.ncfg, s.packet);
    printf("config: %s\n", line);
    t.n = 0;
    mv_config_text(&t, s.raw, s.nraw, s.packet);
    printf("raw: %s\n", line);
    printf("entries: %d (time %d, packet %d)\n", s.ncfg, s.cfg_time, s.ncfg - s.cfg_time);
    printf("access: %llu (run %llu, read %llu, reads %llu)\n", U(s.access), U(s.run), U(s.read_size), U(s.reads));
    printf("bank run: %llu\n", U(s.bank_run));
    if (v[4] && strcmp(v[4], "on") == 0)
        printf("fetch cycles: %llu\n", U(s.fetch_cycles));
    prog_free(p);
    return DRV_EXIT_OK;
}

/* The declared tensor NAME of p, or NULL after printing why. */
static const TensorDecl *tensor_named(const Prog *p, const char *file, const char *name)
{
    const Name *n = prog_lookup(p, name);
    if (n && n->kind == NAME_TENSOR && n->tensor)
        return n->tensor;
    drv_no_such(p, file, "tensor", name, NAME_TENSOR);
    return NULL;
}

int cmd_dma(int argc, char **argv)
{
    static const char *const known[] = {"--time", "--packet", "--engines", "--stream", NULL};
    const char *v[4] = {NULL}, *pos[3];
    int npos, st = parse("dma", argc, argv, known, v, pos, 3, &npos);
    if (st != DRV_EXIT_OK)
        return st;
    if (npos != 3)
        return drv_usage_error("dma needs FILE, SRC and DST (tensors)%s", "");
    if (!v[0] != !v[1])
        return drv_usage_error("dma takes --time and --packet together (neither: the destination's own stream)%s", "");
    if (v[3] && strcmp(v[3], "default") != 0 && strcmp(v[3], "fit") != 0)
        return drv_usage_error("--stream takes default or fit, not '%s'", v[3]);
    bool fit = v[3] && strcmp(v[3], "fit") == 0;
    Prog *p = drv_load(pos[0], false);
    if (!p)
        return DRV_EXIT_INPUT;
    const TensorDecl *src = tensor_named(p, pos[0], pos[1]);
    const TensorDecl *dst = src ? tensor_named(p, pos[0], pos[2]) : NULL;
    const Map *m[3] = {NULL};
    bool ok = dst != NULL;
    for (int i = 0; i < 3 && ok; i++)
        ok = !v[i] || (m[i] = drv_resolve(p, v[i])) != NULL;
    if (!ok) {
        prog_free(p);
        return DRV_EXIT_INPUT;
    }
    MvDma x;
    MvDiag d;
    if (mv_dma(p, src, dst, m[0], m[1], m[2], fit, &x, &d) != MV_OK) {
        prog_free(p);
        return mv_error(&d);
    }
    char line[1024];
    Text t = {line, sizeof line, 0};
    mv_dma_text(&t, &x, false);
    printf("read: %s\n", line);
    t.n = 0;
    mv_dma_text(&t, &x, true);
    printf("write: %s\n", line);
    printf("engines: %llu\n", U(x.engines));
    printf("tails: %llu %llu %llu\n", U(x.tails[0]), U(x.tails[1]), U(x.tails[2]));
    printf("align: %u ok\n", x.min_align);
    printf("cycles: %llu\n", U(x.cycles));
    prog_free(p);
    return DRV_EXIT_OK;
}

int cmd_tails(int argc, char **argv)
{
    int st = drv_no_options("tails", argc, argv, 0);
    if (st != DRV_EXIT_OK)
        return st;
    if (argc != 3)
        return drv_usage_error("tails needs FILE, SRC and DST (mappings)%s", "");
    Prog *p = drv_load(argv[0], false);
    if (!p)
        return DRV_EXIT_INPUT;
    const Map *a = drv_resolve(p, argv[1]);
    const Map *b = a ? drv_resolve(p, argv[2]) : NULL;
    uint64_t out[3];
    MvDiag d;
    int status = DRV_EXIT_INPUT;
    if (b && mv_tails(p, a, b, out, &d)) {
        printf("tails: %llu %llu %llu\n", U(out[0]), U(out[1]), U(out[2]));
        status = DRV_EXIT_OK;
    } else if (b) {
        status = mv_error(&d);
    }
    prog_free(p);
    return status;
}

int cmd_dma_cost(int argc, char **argv)
{
    int st = drv_no_options("dma-cost", argc, argv, 0);
    if (st != DRV_EXIT_OK)
        return st;
    if (argc != 1)
        return drv_usage_error("dma-cost needs one PLAN, as '65536:256:hbm/32c>dm*8'%s", "");
    MvCmd *cmds;
    uint32_t *per, n;
    MvDiag d;
    if (!mv_plan_parse(argv[0], &cmds, &per, &n, &d))
        return mv_error(&d);
    printf("cycles: %llu\n", U(mv_cost(cmds, per, n)));
    free(cmds);
    free(per);
    return DRV_EXIT_OK;
}

int cmd_draw_walk(int argc, char **argv)
{
    static const char *const known[] = {"--time", "--packet", "--mode", "--type", "-o", "--rows", "--max-cells", NULL};
    const char *v[7] = {NULL}, *pos[2];
    int npos, st = parse("draw", argc, argv, known, v, pos, 2, &npos);
    if (st != DRV_EXIT_OK)
        return st;
    if (npos != 2 || !v[0] || !v[1] || !v[4])
        return drv_usage_error("draw of a sequencer walk needs FILE, BUF, --time T, --packet P and -o OUT%s", "");
    DrawOptions o = {0};
    if (!drv_draw_format(v[4], &o.format))
        return drv_usage_error("cannot tell the format of '%s': name it .svg, .png or .html", v[4]);
    if ((st = out_refuse_inputs("-o", v[4], &pos[0], 1)) != DRV_EXIT_OK)
        return st;
    if ((v[5] && (!drv_parse_pos(v[5], &o.rows) || o.rows == 0)) || (v[6] && (!drv_parse_pos(v[6], &o.max_cells) || o.max_cells == 0)))
        return drv_usage_error("--rows and --max-cells take a positive decimal number%s", "");
    Prog *p;
    const Map *buf;
    MvSeq s;
    if ((st = derive_seq(pos[0], pos[1], v[0], v[1], v[2], v[3], &p, &buf, &s)) != DRV_EXIT_OK)
        return st;
    uint64_t n[MV_MAX_RAW];
    int64_t stride[MV_MAX_RAW];
    for (int i = 0; i < s.nraw; i++) {
        n[i] = s.raw[i].n;
        stride[i] = s.raw[i].s;
    }
    char cfg[1024];
    Text t = {cfg, sizeof cfg, 0};
    mv_config_text(&t, s.cfg, s.ncfg, s.packet);
    DrawWalk w = {n, stride, s.nraw, cfg};
    DrawBytes pic = {0};
    char why[512];
    if (draw_walk(p, pos[1], buf, &w, &o, &pic, why, sizeof why)) {
        st = out_write_bytes(v[4], pic.data, pic.len);
    } else {
        fprintf(stderr, "mapc: cannot draw the walk of %s: %s\n", pos[1], why);
        st = DRV_EXIT_INPUT;
    }
    free(pic.data);
    prog_free(p);
    return st;
}

/* The row-major HBM tensor (one chip) of a kernel operand over its axes rows and cols, in p's arena. */
static TensorDecl row_major(Prog *p, const TensorDecl *op, int rows, int cols)
{
    MapWhy why;
    Loc nowhere = {0};
    const Map *r = map_make_sym(&p->arena, rows, p->axes[rows].size, nowhere, why);
    const Map *c = map_make_sym(&p->arena, cols, p->axes[cols].size, nowhere, why);
    TensorDecl t = {.name = "row-major", .mem = MEM_HBM, .elem = op->elem};
    t.maps[0] = map_make_bcast(&p->arena, 1, nowhere, why);
    t.maps[1] = r && c ? map_make_pair(&p->arena, r, c, nowhere, why) : NULL;
    return t;
}

void drv_npu_staging(Prog *p, const KernelDecl *k, const bool staged[3])
{
    static const char *const names[3] = {"A", "B", "C"};
    const TensorDecl *ops[3] = {k->a, k->b, k->c};
    const int rows[3] = {k->axis[GEMM_M], k->axis[GEMM_K], k->axis[GEMM_M]};
    const int cols[3] = {k->axis[GEMM_K], k->axis[GEMM_N], k->axis[GEMM_N]};
    for (int i = 0; i < 3; i++) {
        if (!staged[i])
            continue;
        TensorDecl rm = row_major(p, ops[i], rows[i], cols[i]);
        if (!rm.maps[0] || !rm.maps[1])
            continue;
        /* C comes back from row-major HBM into its layout; A and B go from theirs into it */
        const TensorDecl *src = i == 2 ? &rm : ops[i], *dst = i == 2 ? ops[i] : &rm;
        MvDma x;
        MvDiag d;
        printf("  npu %s: %s -> %s as one DMA: ", names[i], src->name, dst->name);
        if (mv_dma(p, src, dst, NULL, NULL, NULL, true, &x, &d) != MV_OK) {
            printf("none (%s: %s)\n", mv_code_name(d.code), d.msg);
            continue;
        }
        char r[512], w[512];
        Text tr = {r, sizeof r, 0}, tw = {w, sizeof w, 0};
        mv_dma_text(&tr, &x, false);
        mv_dma_text(&tw, &x, true);
        printf("read %s, write %s, %llu cycles (the CPU runs it as a relayout kernel: staging below)\n", r, w,
               U(x.cycles));
    }
}
