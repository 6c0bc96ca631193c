/* driver.h — what the mapc command implementations share: loading programs, resolving NAME
 * arguments, printing diagnostics and cells, and the exit statuses of docs/cli.md. */
#ifndef MAPC_DRIVER_H
#define MAPC_DRIVER_H

#include "codegen/codegen.h"
#include "core/ast.h"
#include "draw/draw.h"
#include "eval/eval.h"
#include "front/front.h"

#include <stdio.h>

enum { DRV_EXIT_OK = 0, DRV_EXIT_INPUT = 1, DRV_EXIT_USAGE = 2 };

/* Prints "mapc: <fmt with arg>" and the --help hint to stderr; returns DRV_EXIT_USAGE. */
int drv_usage_error(const char *fmt, const char *arg);
/* Prints "mapc: unknown option 'ARG' for CMD", with "; did you mean 'X'?" when one of known (a NULL-terminated
 * list of option names) is close to ARG's name (what comes before any '='), or "mapc: unknown value 'V' for
 * OPTION of CMD" when ARG is OPTION=V of a known one; then the --help hint; returns DRV_EXIT_USAGE. */
int drv_unknown_option(const char *cmd, const char *arg, const char *const *known);
/* Prints "mapc: FILE declares no WHAT 'NAME'" and either "; did you mean 'X'?" (the closest name of that
 * kind) or the list of the names of that kind, "(WHATs: A, B)". */
void drv_no_such(const Prog *p, const char *file, const char *what, const char *name, NameKind kind);
/* For the commands without options of their own: drv_unknown_option for the first option word of
 * argv[from..argc), or DRV_EXIT_OK when there is none. */
int drv_no_options(const char *cmd, int argc, char **argv, int from);
/* Whether a command-line word is an option: '-' and then not a digit ("-" alone is standard input, "-1" a
 * number). */
bool drv_is_option(const char *arg);
/* Prints the program's diagnostics from `from` (NULL: all) to stderr, coloured when drv_use_color(stderr). */
void drv_print_diags(const Prog *p, const Diag *from);
/* Prints one formatted diagnostic ("WHERE: error: MESSAGE", perhaps the source line and the caret line) to f,
 * with the severity word (error, warning, note) and the caret coloured when drv_use_color(f). */
void drv_put_diag(const char *text, FILE *f);
/* The ISA kernel declarations are checked for: the host's best, or the environment's MAPC_ISA (avx512, avx2 or
 * portable; read by main), or a command's --isa. */
extern TargetIsa drv_isa;
/* The caches kernels without a tile clause are modelled for: the host's (l1d 0), or the environment's
 * MAPC_CACHES=L1D,L2 (read by main). drv_new_prog applies both. */
extern TargetCaches drv_caches;
/* The CPU seconds all the assertions of a program may take: the environment's MAPC_CHECK_BUDGET (read by main),
 * or 0 for the default (MAPC_CHECK_BUDGET_SECONDS). drv_new_prog applies it. */
extern double drv_check_budget;
/* MAPC_CHECK_BUDGET's value: a decimal number of seconds, more than 0 and at most 10^9; false for another text. */
bool drv_parse_seconds(const char *s, double *seconds);
/* An empty program for drv_isa or isa (when not TARGET_ISA_HOST) and drv_caches; NULL if out of memory. */
Prog *drv_new_prog(TargetIsa isa);
/* Points the JIT's on-disk cache at $MAPC_CACHE_DIR (none when it is set but empty), else
 * $XDG_CACHE_HOME/mapc, else $HOME/.cache/mapc (jit_cache_use_environment). false if out of memory. */
bool drv_setup_cache(void);
/* The names a program linking libmapc already has (its exports and imports, the C library's), read from the
 * built libmapc and the C library when mapc was built (linked_names.py): what emit's names are checked against. */
extern const CgNameTable drv_linked_names;
/* Prints the cache's warning on stderr ("mapc: warning: the JIT cache DIR is not used: ...") if the cache
 * was refused and the warning was not printed yet. */
void drv_cache_warning(void);
/* Loads and checks a program from a file ("-": standard input, named <stdin> in diagnostics; read once, every
 * later "-" gets the same text) or, with is_source, from the text itself; NULL after printing the
 * diagnostics or the I/O error (a directory is "cannot read DIR: Is a directory"). */
Prog *drv_load(const char *arg, bool is_source);
/* load into a program made (and perhaps configured, e.g. prog_override_axis) by the caller; p is
 * consumed: freed on failure. */
Prog *drv_load_into(Prog *p, const char *arg, bool is_source);
/* Resolves a NAME argument (a type name or an inline m![...]); NULL after printing why. */
const Map *drv_resolve(Prog *p, const char *name);
/* load + resolve: on success *p owns the program and *m is NAME in it (DRV_EXIT_OK); otherwise the
 * diagnostics are printed, nothing is left to free, and DRV_EXIT_INPUT is returned. */
int drv_load_named(const char *arg, bool is_source, const char *name, Prog **p, const Map **m);
/* The printed form of a mapping as m![...], malloc'ed. */
char *drv_fmt_map(const Prog *p, const Map *m);
/* Parses a 64-bit number, decimal or 0x hex; false if malformed or too large. */
bool drv_parse_pos(const char *s, uint64_t *out);
/* The printed form of a cell, malloc'ed. */
char *drv_fmt_cell(const Prog *p, const Cell *c);

/* Colour on terminals: auto (a terminal that is not "dumb", and NO_COLOR unset), always or never. One function
 * decides, so that a global option can set drv_color_mode later. */
typedef enum { DRV_COLOR_AUTO, DRV_COLOR_ALWAYS, DRV_COLOR_NEVER } DrvColorMode;
extern DrvColorMode drv_color_mode;
/* Parses "auto", "always" or "never" into drv_color_mode; false if it is none of them. */
bool drv_set_color(const char *mode);
/* Whether to write ANSI colours to f. */
bool drv_use_color(FILE *f);

/* The commands: argv holds the arguments after the command name. */
int cmd_check(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_table(int argc, char **argv);
int cmd_equiv(int argc, char **argv);
int cmd_norm(int argc, char **argv);
int cmd_lower(int argc, char **argv);
int cmd_describe(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_emit(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_where(int argc, char **argv);
int cmd_draw(int argc, char **argv);
int cmd_diff(int argc, char **argv);
/* cmd_movement.c: the NPU's sequencers and DMA commands (docs/movement.md). */
int cmd_sequence(int argc, char **argv);
int cmd_dma(int argc, char **argv);
int cmd_tails(int argc, char **argv);
int cmd_dma_cost(int argc, char **argv);
/* cmd_algebra.c: one call of the layout algebra (docs/algebra.md). */
int cmd_algebra(int argc, char **argv);
/* mapc run's plan: for each staged operand (staged[i]: A, B, C), the NPU DMA command its move between the declared
 * layout and row-major HBM corresponds to, with its cycles, or why there is no single command. */
void drv_npu_staging(Prog *p, const KernelDecl *k, const bool staged[3]);
/* "mapc draw FILE BUF --time T --packet P -o OUT ...": the picture of a sequencer walk (cmd_draw hands it over). */
int cmd_draw_walk(int argc, char **argv);
/* The picture format named by the extension of path; false if it is none of .svg, .png, .html (.htm). */
bool drv_draw_format(const char *path, DrawFormat *f);
/* "mapc table FILE TENSOR": the tensor's units as rows, each with its live count and what it holds; with more
 * than max_rows units (0: no limit) the first and last ones, and a line saying how many are hidden. */
int drv_tensor_table(Prog *p, const TensorDecl *t, uint64_t max_rows);
/* For the commands that take a type or a tensor: when NAME is no name of p but close to a tensor's (and to no
 * type's), prints drv_no_such's "FILE declares no type or tensor 'NAME'; did you mean ...?" and returns true. */
bool drv_mistyped_tensor(const Prog *p, const char *file, const char *name);
/* The rows of n shown under a limit (0: none): all of them (*tail 0), or the first *head and the last *tail. */
void drv_truncate(uint64_t n, uint64_t limit, uint64_t *head, uint64_t *tail);

#endif
