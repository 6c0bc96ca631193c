/* fuzz_options.c — libFuzzer target: arbitrary argument lists through the option parsers of mapc run and mapc emit.
 *
 * The input is split at NUL and newline bytes into at most MAX_ARGS arguments, which go to
 * run_parse_options and emit_parse_options in-process. What the parsers print goes to a memory stream
 * (stderr is redirected for the call). Findings: a crash or sanitizer report, a status other than OK or
 * usage, a usage status without a "mapc: " message or an OK one with a message, and an accepted option
 * set that breaks the parser's contract (missing positionals, counts out of range, non-finite scalars,
 * an optimization level out of 0..3, a prefix that is not a C identifier prefix). */
#include "driver/cmd_options.h"
#include "driver/driver.h"

#include <math.h>
#include <float.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INPUT 2048
#define MAX_ARGS 24

/* Splits data[size] into NUL-terminated arguments in buf (size + 1 bytes); returns their number. */
static int split_args(const uint8_t *data, size_t size, char *buf, char **argv)
{
    int argc = 0;
    size_t start = 0;
    for (size_t i = 0; i <= size && argc < MAX_ARGS; i++) {
        if (i == size || data[i] == 0 || data[i] == '\n') {
            memcpy(buf + start, data + start, i - start);
            buf[i] = 0;
            argv[argc++] = buf + start;
            start = i + 1;
        }
    }
    return argc;
}

/* Whether s is empty or a C identifier prefix (letters, digits and '_', not starting with a digit). */
static bool identifier_prefix(const char *s)
{
    for (const char *c = s; *c; c++)
        if (!(isalnum((unsigned char)*c) || *c == '_') || (c == s && isdigit((unsigned char)*c)))
            return false;
    return true;
}

/* Runs parse with stderr sent to a memory stream; returns its status and the printed text in *msg
 * (malloc'ed). */
static int captured(int (*parse)(int, char **, void *), int argc, char **argv, void *out, char **msg)
{
    size_t len = 0;
    FILE *mem = open_memstream(msg, &len);
    if (!mem)
        abort();
    FILE *saved = stderr;
    stderr = mem;
    int status = parse(argc, argv, out);
    stderr = saved;
    fclose(mem);
    return status;
}

static int parse_run(int argc, char **argv, void *out) { return run_parse_options(argc, argv, out); }
static int parse_emit(int argc, char **argv, void *out) { return emit_parse_options(argc, argv, out); }

/* The status and message agree: OK prints nothing, usage prints "mapc: ..." and a help hint ("Try 'mapc
 * [CMD] --help'."). */
static void check_status(int status, const char *msg)
{
    if (status == DRV_EXIT_OK && msg[0])
        __builtin_trap();
    if (status == DRV_EXIT_USAGE &&
        (strncmp(msg, "mapc: ", 6) != 0 || !strstr(msg, "Try 'mapc ") || !strstr(msg, "--help'.")))
        __builtin_trap();
    if (status != DRV_EXIT_OK && status != DRV_EXIT_USAGE)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_INPUT)
        return 0;
    char *buf = malloc(size + 1);
    if (!buf)
        abort();
    char *argv[MAX_ARGS + 1];
    int argc = split_args(data, size, buf, argv);
    argv[argc] = NULL;
    char *msg = NULL;

    RunOptions r;
    int st = captured(parse_run, argc, argv, &r, &msg);
    check_status(st, msg);
    if (st == DRV_EXIT_OK) {
        if (!r.file || !r.kernel || r.threads < 1 || r.threads > 1024 || r.reps < 1 || r.reps > 1024)
            __builtin_trap();
        if (!isfinite(r.alpha) || !isfinite(r.beta) || fabs(r.alpha) > FLT_MAX || fabs(r.beta) > FLT_MAX)
            __builtin_trap();
        if (r.mpi < -1 || r.mpi > 1 || r.transport)
            __builtin_trap();
        if (r.isa != drv_isa && r.isa != TARGET_ISA_AVX512 && r.isa != TARGET_ISA_AVX2 &&
            r.isa != TARGET_ISA_PORTABLE)
            __builtin_trap();
    }
    free(msg);

    EmitOptions e;
    st = captured(parse_emit, argc, argv, &e, &msg);
    check_status(st, msg);
    if (st == DRV_EXIT_OK) {
        if (!e.file || !e.out || !e.cg.prefix || e.cg.opt_level < 0 || e.cg.opt_level > 3)
            __builtin_trap();
        if (!identifier_prefix(e.cg.prefix) || (e.header && strcmp(e.header, e.out) == 0))
            __builtin_trap();
        if (e.kind != CG_EMIT_OBJ && e.kind != CG_EMIT_ASM && e.kind != CG_EMIT_LLVM)
            __builtin_trap();
        if (e.isa != drv_isa && e.isa != TARGET_ISA_AVX512 && e.isa != TARGET_ISA_AVX2 && e.isa != TARGET_ISA_PORTABLE)
            __builtin_trap();
    }
    free(msg);
    free(buf);
    return 0;
}
