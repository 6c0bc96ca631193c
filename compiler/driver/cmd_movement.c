/* cmd_movement.c — "mapc sequence", "mapc dma", "mapc tails" and "mapc dma-cost": how the NPU moves tensors (compiler/movement). */
#include "driver.h"
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

int cmd_sequence(int argc, char **argv)
{
    static const char *const known[] = {"--time", "--packet", "--mode", "--type", "--cycles", NULL};
    const char *v[5] = {NULL}, *pos[2];
    int npos, st = parse("sequence", argc, argv, known, v, pos, 2, &npos);
    if (st != DRV_EXIT_OK)
        return st;
    if (npos != 2 || !v[0] || !v[1])
        return drv_usage_error("sequence needs FILE, BUF, --time T and --packet P%s", "");
    MvMode mode = MV_READ;
    if (v[2] && !mv_mode_parse(v[2], &mode))
        return drv_usage_error("--mode takes read, write or carve, not '%s'", v[2]);
    unsigned bits = 8;
    if (v[3] && !mv_elem_bits_parse(v[3], &bits))
        return drv_usage_error("--type takes an element type (i4, i8, f8, bf16, f16, f32, i32, f64), not '%s'", v[3]);
    if (v[4] && strcmp(v[4], "on") != 0 && strcmp(v[4], "off") != 0)
        return drv_usage_error("--cycles takes on or off, not '%s'", v[4]);
    Prog *p = drv_load(pos[0], false);
    if (!p)
        return DRV_EXIT_INPUT;
    const Map *buf = drv_resolve(p, pos[1]);
    const Map *time = buf ? drv_resolve(p, v[0]) : NULL;
    const Map *packet = time ? drv_resolve(p, v[1]) : NULL;
    if (!packet) {
        prog_free(p);
        return DRV_EXIT_INPUT;
    }
    MvSeq s;
    MvDiag d;
    if (mv_sequence(p, buf, time, packet, mode, bits, true, &s, &d) != MV_OK) {
        prog_free(p);
        return mv_error(&d);
    }
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
