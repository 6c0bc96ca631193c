/* harness.h — what every C test program shares: case counters and checks, the closing line, the seeded
 * generator (rng.h), the argument parser, the clock and text appending (one process runs one test). */
#ifndef MAPC_TESTS_HARNESS_H
#define MAPC_TESTS_HARNESS_H

/*
 * A test program:
 *
 *     int main(int argc, char **argv)
 *     {
 *         HarnessArgs a = {.seed = 1, .count = 100};
 *         harness_args(argc, argv, "[SEED [COUNT [FIRST]]]", &a);  // sets the seed failures print
 *         Rng rng = rng_seeded(a.seed);
 *         for (uint64_t i = a.first; i < a.first + a.count; i++) {
 *             harness_case(i);                                      // failures name i and a rerun command
 *             CHECK_EQ_U64(size_of(i), want(i), "size of case %llu", (unsigned long long)i);
 *         }
 *         return harness_report();                                  // "N passed, N failed"; exit status
 *     }
 *
 * Every CHECK counts one case. A failure prints "FAIL FILE:LINE (seed S, CONTEXT): MESSAGE" on stderr;
 * the comparison checks add a line "  EXPR is GOT, expected WANT", and harness_detail adds more lines
 * to the failure just printed. The last line of stdout is "N passed, N failed" (scripts/count-tests
 * sums it) and the exit status is 1 when anything failed.
 */

#include "rng.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HARNESS_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* ---- checks (check.c) ---- */

/* Counts one case, passed when cond holds; a failure prints FILE:LINE, the seed, the context and the
 * message. cond is evaluated before the message's arguments (so they may show its effects, such as an
 * error text). Returns whether cond held, so that a caller can add details or stop:
 *     if (!CHECK(...)) harness_detail(...); */
#define CHECK(cond, ...)                                                                                 \
    __extension__({                                                                                      \
        bool harness_ok_ = (cond) ? true : false;                                                        \
        harness_check(__FILE__, __LINE__, harness_ok_, __VA_ARGS__);                                     \
    })
/* Counts one failed case, printed as CHECK prints it: for a precondition (the input parses, a name
 * exists) whose success is no case of its own. */
#define FAIL(...) harness_check(__FILE__, __LINE__, false, __VA_ARGS__)
/* Like CHECK, for got == want (unsigned, signed, int or enum); a failure adds a line with both values
 * and the expression of got. got and want are evaluated once, before the message's arguments. */
#define CHECK_EQ_U64(got, want, ...) \
    HARNESS_CHECK_EQ_(u64, uint64_t, harness_got_ == harness_want_, got, want, __VA_ARGS__)
#define CHECK_EQ_I64(got, want, ...) \
    HARNESS_CHECK_EQ_(i64, int64_t, harness_got_ == harness_want_, got, want, __VA_ARGS__)
#define CHECK_EQ_INT(got, want, ...) \
    HARNESS_CHECK_EQ_(i64, int64_t, harness_got_ == harness_want_, got, want, __VA_ARGS__)
/* Strings, compared with strcmp; NULL is a value of its own (equal only to NULL). */
#define CHECK_EQ_STR(got, want, ...) \
    HARNESS_CHECK_EQ_(str, const char *, harness_str_equal(harness_got_, harness_want_), got, want, __VA_ARGS__)
/* |got - want| <= tol; NaN never passes. A failure adds both values and tol. */
#define CHECK_NEAR(got, want, tol, ...)                                                                   \
    __extension__({                                                                                       \
        double harness_got_ = (double)(got);                                                              \
        double harness_want_ = (double)(want);                                                            \
        double harness_tol_ = (double)(tol);                                                              \
        bool harness_ok_ = harness_check(__FILE__, __LINE__, harness_near(harness_got_, harness_want_, harness_tol_), \
                                         __VA_ARGS__);                                                    \
        if (!harness_ok_)                                                                                 \
            harness_show_near(#got, harness_got_, harness_want_, harness_tol_);                           \
        harness_ok_;                                                                                      \
    })

/* The comparison checks: same is the test on harness_got_ and harness_want_; harness_show_KIND adds the
 * values to a failure. */
#define HARNESS_CHECK_EQ_(kind, type, same, got, want, ...)                                               \
    __extension__({                                                                                       \
        type harness_got_ = (type)(got);                                                                  \
        type harness_want_ = (type)(want);                                                                \
        bool harness_ok_ = harness_check(__FILE__, __LINE__, same, __VA_ARGS__);                          \
        if (!harness_ok_)                                                                                 \
            harness_show_##kind(#got, harness_got_, harness_want_);                                       \
        harness_ok_;                                                                                      \
    })

/* The functions behind the macros. harness_check counts the case (file and line name the check) and
 * returns ok; harness_show_KIND adds "EXPR is GOT, expected WANT" (and the tolerance) to the failure
 * just reported. */
bool harness_check(const char *file, int line, bool ok, const char *fmt, ...) HARNESS_PRINTF(4, 5);
void harness_show_u64(const char *expr, uint64_t got, uint64_t want);
void harness_show_i64(const char *expr, int64_t got, int64_t want);
void harness_show_str(const char *expr, const char *got, const char *want);
void harness_show_near(const char *expr, double got, double want, double tol);
bool harness_str_equal(const char *a, const char *b);
bool harness_near(double got, double want, double tol);

/* More lines about the failure just reported, on stderr, each line indented by two spaces (a final
 * newline is optional); nothing when that failure was not printed (past the report limit) or the last
 * check passed. */
void harness_detail(const char *fmt, ...) HARNESS_PRINTF(1, 2);

/* The seed printed with every failure (harness_args sets it when the usage has SEED; until then none). */
void harness_set_seed(uint64_t seed);

/* Text printed with every following failure, after the seed (a program, a case); NULL clears it. */
void harness_context(const char *fmt, ...) HARNESS_PRINTF(1, 2);

/* At most n failures are printed (default 50); later ones are only counted. */
void harness_report_limit(long n);

/* The cases counted so far. */
long harness_passed(void);
long harness_failed(void);

/* Prints the closing line "N passed, N failed" on stdout (after flushing stderr) and returns the
 * exit status: 0 when nothing failed, else 1. */
int harness_report(void);

/* ---- arguments (args.c) ---- */

/* The common test arguments; a test sets its defaults before harness_args. */
typedef struct HarnessArgs {
    uint64_t seed;      /* SEED: the run's seed, printed with every failure */
    uint64_t count;     /* COUNT: how many generated cases */
    uint64_t first;     /* FIRST: the index of the first case */
    const char *word;   /* any other upper-case name in the usage (MODE, FILE): one word */
} HarnessArgs;

/* Parses the positional arguments argv[1..] into *a (which holds the defaults) by usage, the program's
 * argument list: the names SEED, COUNT, FIRST and at most one other (the word), in order, optional
 * from the first '[' ("FILE", "[SEED [COUNT [FIRST [MODE]]]]"). Numbers are decimal or 0x-hex. The
 * environment variable MAPC_TEST_COUNT=N lowers a default COUNT to at most N (a COUNT argument wins). Sets
 * the seed failures print. On a bad or missing argument prints the usage and "0 passed, 1 failed",
 * and exits with status 1. */
void harness_args(int argc, char **argv, const char *usage, HarnessArgs *a);

/* Names case `index` in every following failure: "index I; rerun: PROG SEED 1 I [WORD]" when the
 * usage has COUNT and FIRST (the command that reruns that case alone), else "index I". */
void harness_case(uint64_t index);

/* ---- clock (clock.c) ---- */

/* Seconds on the monotonic clock (wall time; only differences mean anything). */
double harness_seconds(void);
/* CPU seconds of this process (all threads): steadier than wall time on a shared machine. */
double harness_cpu_seconds(void);

/* ---- text (text.c) ---- */

/* Appends printf-style text to the NUL-terminated string buf of capacity size (truncating). */
void harness_cat(char *buf, size_t size, const char *fmt, ...) HARNESS_PRINTF(3, 4);

/* Appends printf-style text to the malloc'ed string s (NULL: empty); returns the reallocated string
 * (aborts when out of memory). */
char *harness_append(char *s, const char *fmt, ...) HARNESS_PRINTF(2, 3);
/* harness_append with the arguments in ap (which it consumes). */
char *harness_vappend(char *s, const char *fmt, va_list ap) HARNESS_PRINTF(2, 0) __attribute__((nonnull(2)));

/* The whole file at path as a malloc'ed NUL-terminated string and its length in *len; NULL when it
 * cannot be read. */
char *harness_read_file(const char *path, size_t *len);

#endif
