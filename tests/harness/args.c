/* args.c — the one parser of the common test arguments (SEED, COUNT, FIRST, a word) and the rerun
 * command printed with a failing case. */
#include "harness.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { F_SEED, F_COUNT, F_FIRST, F_WORD } Field;

enum { MAX_FIELDS = 8 };

/* The parsed command line, kept for harness_case. */
static const char *prog = "test";
static Field fields[MAX_FIELDS];
static int nfields;
static HarnessArgs args;

/* Prints the usage and the closing line of a run that could not start, and exits 1. */
static void usage_error(const char *usage, const char *why, const char *arg)
{
    fprintf(stderr, "%s: %s%s%s\nusage: %s %s\n", prog, why, arg ? ": " : "", arg ? arg : "", prog, usage);
    printf("0 passed, 1 failed\n");
    exit(1);
}

/* A decimal or 0x-hexadecimal number, or a usage error. */
static uint64_t number(const char *usage, const char *s)
{
    char *end;
    errno = 0;
    uint64_t v = strtoull(s, &end, strncmp(s, "0x", 2) == 0 || strncmp(s, "0X", 2) == 0 ? 16 : 10);
    if (errno || end == s || *end || *s == '-')
        usage_error(usage, "not a number", s);
    return v;
}

void harness_args(int argc, char **argv, const char *usage, HarnessArgs *a)
{
    if (argc > 0 && argv[0]) {
        const char *slash = strrchr(argv[0], '/');
        prog = slash ? slash + 1 : argv[0];
    }
    /* the fields of the usage, in order; the ones from the first '[' on are optional */
    int required = -1, words = 0;
    nfields = 0;
    for (const char *u = usage; *u;) {
        if (*u == '[' && required < 0)
            required = nfields;
        if (*u == ' ' || *u == '[' || *u == ']') {
            u++;
            continue;
        }
        size_t n = strcspn(u, " []");
        Field f = n == 4 && strncmp(u, "SEED", 4) == 0    ? F_SEED
                  : n == 5 && strncmp(u, "COUNT", 5) == 0 ? F_COUNT
                  : n == 5 && strncmp(u, "FIRST", 5) == 0 ? F_FIRST
                                                          : F_WORD;
        words += f == F_WORD;
        if (nfields == MAX_FIELDS || words > 1) {
            fprintf(stderr, "harness_args: bad usage \"%s\"\n", usage);
            abort();
        }
        fields[nfields++] = f;
        u += n;
    }
    if (required < 0)
        required = nfields;
    /* MAPC_TEST_COUNT=N (a CI knob: shorter extra passes) lowers the default COUNT to at most N; an argument wins */
    const char *cap = getenv("MAPC_TEST_COUNT");
    for (int i = 0; i < nfields && cap && *cap; i++)
        if (fields[i] == F_COUNT) {
            uint64_t n = number(usage, cap);
            if (n < a->count)
                a->count = n;
        }
    if (argc - 1 < required)
        usage_error(usage, "missing arguments", NULL);
    if (argc - 1 > nfields)
        usage_error(usage, "too many arguments", argv[nfields + 1]);
    for (int i = 0; i + 1 < argc; i++) {
        const char *s = argv[i + 1];
        switch (fields[i]) {
        case F_SEED: a->seed = number(usage, s); break;
        case F_COUNT: a->count = number(usage, s); break;
        case F_FIRST: a->first = number(usage, s); break;
        case F_WORD: a->word = s; break;
        }
    }
    for (int i = 0; i < nfields; i++)
        if (fields[i] == F_SEED)
            harness_set_seed(a->seed);
    args = *a;
}

void harness_case(uint64_t index)
{
    bool count = false, first = false;
    for (int i = 0; i < nfields; i++) {
        count |= fields[i] == F_COUNT;
        first |= fields[i] == F_FIRST;
    }
    if (!count || !first) {
        harness_context("index %" PRIu64, index);
        return;
    }
    char cmd[512];
    size_t n = (size_t)snprintf(cmd, sizeof cmd, "%s", prog);
    for (int i = 0; i < nfields && n < sizeof cmd; i++) {
        switch (fields[i]) {
        case F_SEED: n += (size_t)snprintf(cmd + n, sizeof cmd - n, " %" PRIu64, args.seed); break;
        case F_COUNT: n += (size_t)snprintf(cmd + n, sizeof cmd - n, " 1"); break;
        case F_FIRST: n += (size_t)snprintf(cmd + n, sizeof cmd - n, " %" PRIu64, index); break;
        case F_WORD:
            if (args.word)
                n += (size_t)snprintf(cmd + n, sizeof cmd - n, " %s", args.word);
            break;
        }
    }
    harness_context("index %" PRIu64 "; rerun: %s", index, cmd);
}
