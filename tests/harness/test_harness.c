/* test_harness.c — the harness itself: counters, failure messages and the closing line (of child processes
 * whose output is captured), the argument parser and its errors, the generator's sequence, the text helpers. */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* What a child process printed, and how it ended. */
typedef struct Child {
    char out[4096], err[4096];
    int status; /* the exit status, or -1 when it did not exit normally */
} Child;

/* Reads the whole of f (rewound) into buf of capacity size, NUL-terminated. */
static void slurp(FILE *f, char *buf, size_t size)
{
    rewind(f);
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = 0;
    fclose(f);
}

/* Runs fn (which must exit) in a child process with stdout and stderr captured into *c. The child starts
 * from this process's counts: main runs every child before it checks anything. */
static void run_child(void (*fn)(void), Child *c)
{
    FILE *out = tmpfile(), *err = tmpfile();
    if (!out || !err)
        abort();
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        abort();
    if (pid == 0) {
        dup2(fileno(out), 1);
        dup2(fileno(err), 2);
        fn();
        _exit(99); /* fn did not exit */
    }
    int st = 0;
    waitpid(pid, &st, 0);
    c->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    slurp(out, c->out, sizeof c->out);
    slurp(err, c->err, sizeof c->err);
}

/* ---- the children ---- */

/* Four passing and four failing checks after parsing SEED COUNT FIRST MODE. */
static void child_checks(void)
{
    char *argv[] = {"/some/dir/test_demo", "7", "0x3", "2", "fast", NULL};
    HarnessArgs a = {.seed = 1, .count = 10, .word = "all"};
    harness_args(5, argv, "[SEED [COUNT [FIRST [MODE]]]]", &a);
    printf("args %llu %llu %llu %s\n", (unsigned long long)a.seed, (unsigned long long)a.count,
           (unsigned long long)a.first, a.word);
    CHECK(1 + 1 == 2, "passes");
    harness_case(4);
    uint64_t five = 5;
    CHECK_EQ_U64(five, 6, "five is six");
    harness_detail("a detail line\nand another\n");
    const char *abc = "abc";
    CHECK_EQ_STR(abc, "abc", "the same strings");
    CHECK_EQ_STR(abc, NULL, "a string is not NULL");
    CHECK_NEAR(1.0, 1.0 + 1e-12, 1e-9, "near enough");
    double nan = NAN;
    CHECK_NEAR(nan, 0.0, 1.0, "NaN is never near");
    harness_context(NULL);
    FAIL("a failure of its own");
    int minus3 = -3;
    CHECK_EQ_INT(minus3, -3, "a negative int");
    exit(harness_report());
}

/* Two failures with a report limit of one, and no seed (no SEED in the usage). */
static void child_limit(void)
{
    char *argv[] = {"t", NULL};
    HarnessArgs a = {0};
    harness_args(1, argv, "", &a);
    harness_report_limit(1);
    FAIL("first");
    FAIL("second");
    harness_detail("not printed");
    exit(harness_report());
}

static void child_bad_number(void)
{
    char *argv[] = {"t", "12x", NULL};
    HarnessArgs a = {0};
    harness_args(2, argv, "[SEED [COUNT]]", &a);
    exit(0);
}

/* MAPC_TEST_COUNT lowers a default COUNT (300 to 4), never raises one (2 stays), and an argument (9) wins. */
static void child_count_cap(void)
{
    setenv("MAPC_TEST_COUNT", "4", 1);
    char *none[] = {"t", NULL}, *nine[] = {"t", "1", "9", NULL};
    HarnessArgs a = {.count = 300}, b = {.count = 2}, c = {.count = 300};
    harness_args(1, none, "[SEED [COUNT]]", &a);
    harness_args(1, none, "[SEED [COUNT]]", &b);
    harness_args(3, nine, "[SEED [COUNT]]", &c);
    printf("count %llu %llu %llu\n", (unsigned long long)a.count, (unsigned long long)b.count,
           (unsigned long long)c.count);
    exit(0);
}

static void child_missing(void)
{
    char *argv[] = {"t", NULL};
    HarnessArgs a = {0};
    harness_args(1, argv, "FILE", &a);
    exit(0);
}

static void child_too_many(void)
{
    char *argv[] = {"t", "1", "2", NULL};
    HarnessArgs a = {0};
    harness_args(3, argv, "[SEED]", &a);
    exit(0);
}

/* ---- checks of the children's output ---- */

/* Whether text contains part (one case). */
static void check_has(const char *text, const char *part, const char *what)
{
    if (!CHECK(strstr(text, part) != NULL, "%s: the output has \"%s\"", what, part))
        harness_detail("output:\n%s", text);
}

/* The children, run first. */
static Child checks, limit, bad_number, missing, too_many, count_cap;

static void test_checks(void)
{
    const Child c = checks;
    CHECK_EQ_INT(c.status, 1, "a run with failures exits with 1");
    CHECK_EQ_STR(c.out, "args 7 3 2 fast\n4 passed, 4 failed\n", "stdout ends with the closing line");
    check_has(c.err, "test_harness.c:", "FILE:LINE");
    check_has(c.err, " (seed 7, index 4; rerun: test_demo 7 1 4 fast): five is six\n  five is 5, expected 6\n"
                     "  a detail line\n  and another\n",
              "a failure with the case's rerun command, both values and details, indented line by line");
    check_has(c.err, ": a string is not NULL\n  abc is \"abc\", expected NULL\n", "strings");
    check_has(c.err, ": NaN is never near\n  nan is nan, expected 0 within 1\n", "NaN");
    check_has(c.err, " (seed 7): a failure of its own\n", "the context cleared");
    CHECK(!strstr(c.err, "passes") && !strstr(c.err, "near enough") && !strstr(c.err, "negative"),
          "passing checks print nothing");

    CHECK_EQ_STR(limit.out, "0 passed, 2 failed\n", "the closing line counts failures past the limit");
    check_has(limit.err, ": first\n(more than 1 failures: the rest are counted, not printed)\n", "the limit");
    CHECK(!strstr(limit.err, "second") && !strstr(limit.err, "not printed\n") && !strstr(limit.err, "seed"),
          "nothing past the limit, and no seed without SEED: %s", limit.err);
}

static void test_args(void)
{
    CHECK_EQ_INT(bad_number.status, 1, "a bad number exits with 1");
    CHECK_EQ_STR(bad_number.out, "0 passed, 1 failed\n", "a bad number counts as one failure");
    check_has(bad_number.err, "t: not a number: 12x\nusage: t [SEED [COUNT]]\n", "a bad number");
    CHECK_EQ_INT(missing.status, 1, "a missing argument exits with 1");
    check_has(missing.err, "t: missing arguments\nusage: t FILE\n", "a missing argument");
    CHECK_EQ_INT(too_many.status, 1, "too many arguments exit with 1");
    check_has(too_many.err, "t: too many arguments: 2\n", "too many arguments");
    CHECK_EQ_STR(count_cap.out, "count 4 2 9\n", "MAPC_TEST_COUNT caps the default COUNT");
}

/* ---- the generator ---- */

static void test_rng(void)
{
    /* splitmix64 from state 0: the reference sequence */
    Rng r = rng_seeded(0);
    CHECK_EQ_U64(rng_next(&r), UINT64_C(0xE220A8397B1DCDAF), "splitmix64 draw 1");
    CHECK_EQ_U64(rng_next(&r), UINT64_C(0x6E789E6AA1B965F4), "splitmix64 draw 2");
    CHECK_EQ_U64(rng_next(&r), UINT64_C(0x06C45D188009454F), "splitmix64 draw 3");
    /* rng_below draws once even for n == 1, and is the draw modulo n */
    Rng a = rng_seeded(42), b = rng_seeded(42);
    CHECK_EQ_U64(rng_below(&a, 1), 0, "below 1");
    rng_next(&b);
    CHECK_EQ_U64(rng_below(&a, 1000), rng_next(&b) % 1000, "below 1 consumed one draw");
    /* a case seed is the first draw of the keyed stream */
    Rng k = rng_seeded(UINT64_C(5) ^ (UINT64_C(3) * RNG_KEY_CASE));
    CHECK_EQ_U64(rng_case_seed(5, 3, RNG_KEY_CASE), rng_next(&k), "rng_case_seed");
    CHECK(rng_case_seed(5, 3, RNG_KEY_CASE) != rng_case_seed(5, 4, RNG_KEY_CASE), "cases have their own streams");
    /* rng_signed_unit: [-1, 1), from the top 53 bits */
    Rng u = rng_seeded(0);
    CHECK_NEAR(rng_signed_unit(&u), (double)(UINT64_C(0xE220A8397B1DCDAF) >> 11) / 4503599627370496.0 - 1.0, 0,
               "signed unit of the first draw");
    double lo = 1, hi = -1;
    for (int i = 0; i < 10000; i++) {
        double x = rng_signed_unit(&u);
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    CHECK(lo >= -1 && lo < -0.99 && hi < 1 && hi > 0.99, "signed units span [-1, 1): %g .. %g", lo, hi);
}

/* ---- text and clock ---- */

static void test_text(void)
{
    char buf[8] = "ab";
    harness_cat(buf, sizeof buf, "%d-%s", 12, "xyz");
    CHECK_EQ_STR(buf, "ab12-xy", "harness_cat truncates to the capacity");
    char *s = harness_append(NULL, "%s", "one");
    s = harness_append(s, ", %d", 2);
    CHECK_EQ_STR(s, "one, 2", "harness_append");
    free(s);

    char path[] = "/tmp/test_harness_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "a temporary file");
    if (fd >= 0) {
        CHECK_EQ_INT(write(fd, "line\n", 5), 5, "write the temporary file");
        close(fd);
        size_t len = 0;
        char *text = harness_read_file(path, &len);
        CHECK_EQ_STR(text, "line\n", "harness_read_file");
        CHECK_EQ_U64(len, 5, "harness_read_file length");
        free(text);
        unlink(path);
        CHECK(harness_read_file(path, &len) == NULL, "harness_read_file of a missing file");
    }

    double t0 = harness_seconds(), c0 = harness_cpu_seconds();
    volatile double x = 0;
    for (int i = 0; i < 2000000; i++)
        x += i;
    CHECK(harness_seconds() >= t0 && harness_cpu_seconds() > c0 && c0 >= 0, "the clocks advance (%g)", x);
}

int main(int argc, char **argv)
{
    run_child(child_checks, &checks); /* first: the children start from this process's counts */
    run_child(child_limit, &limit);
    run_child(child_bad_number, &bad_number);
    run_child(child_missing, &missing);
    run_child(child_too_many, &too_many);
    run_child(child_count_cap, &count_cap);
    HarnessArgs a = {0};
    harness_args(argc, argv, "", &a);
    test_checks();
    test_args();
    test_rng();
    test_text();
    return harness_report();
}
