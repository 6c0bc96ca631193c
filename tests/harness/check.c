/* check.c — the harness's case counters, the checks and their failure messages, and the closing line. */
#include "harness.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long passed, failed;
static uint64_t seed;
static bool has_seed; /* a program without a seed prints none */
static char context[1024];
static long report_limit = 50;
static bool last_printed; /* the last check failed and its message was printed */

/* Counts a failure and prints its header "FAIL FILE:LINE (seed S, CONTEXT): " (without the seed before
 * harness_set_seed, without the parentheses when there is neither); whether it printed
 * (false past the report limit, after one line saying so). */
static bool begin_failure(const char *file, int line)
{
    failed++;
    last_printed = failed <= report_limit;
    if (failed == report_limit + 1)
        fprintf(stderr, "(more than %ld failures: the rest are counted, not printed)\n", report_limit);
    if (!last_printed)
        return false;
    fprintf(stderr, "FAIL %s:%d", file, line);
    if (has_seed)
        fprintf(stderr, " (seed %" PRIu64 "%s%s)", seed, context[0] ? ", " : "", context);
    else if (context[0])
        fprintf(stderr, " (%s)", context);
    fputs(": ", stderr);
    return true;
}

bool harness_check(const char *file, int line, bool ok, const char *fmt, ...)
{
    if (ok) {
        passed++;
        last_printed = false;
        return true;
    }
    if (begin_failure(file, line)) {
        va_list ap;
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
    return false;
}

void harness_show_u64(const char *expr, uint64_t got, uint64_t want)
{
    harness_detail("%s is %" PRIu64 ", expected %" PRIu64, expr, got, want);
}

void harness_show_i64(const char *expr, int64_t got, int64_t want)
{
    harness_detail("%s is %" PRId64 ", expected %" PRId64, expr, got, want);
}

/* s quoted, or NULL. */
#define QUOTED(s) (s) ? "\"" : "", (s) ? (s) : "NULL", (s) ? "\"" : ""

void harness_show_str(const char *expr, const char *got, const char *want)
{
    harness_detail("%s is %s%s%s, expected %s%s%s", expr, QUOTED(got), QUOTED(want));
}

void harness_show_near(const char *expr, double got, double want, double tol)
{
    harness_detail("%s is %.17g, expected %.17g within %.3g", expr, got, want, tol);
}

bool harness_str_equal(const char *a, const char *b) { return a && b ? strcmp(a, b) == 0 : a == b; }

bool harness_near(double got, double want, double tol) { return !isnan(got) && fabs(got - want) <= tol; }

void harness_detail(const char *fmt, ...)
{
    if (!last_printed)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *text = harness_vappend(NULL, fmt, ap);
    va_end(ap);
    /* every line indented; a final newline ends the last line */
    for (const char *line = text; *line || line == text;) {
        size_t len = strcspn(line, "\n");
        fprintf(stderr, "  %.*s\n", (int)len, line);
        line += len + (line[len] == '\n');
    }
    free(text);
}

void harness_set_seed(uint64_t s)
{
    seed = s;
    has_seed = true;
}

void harness_context(const char *fmt, ...)
{
    context[0] = 0;
    if (!fmt)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(context, sizeof context, fmt, ap);
    va_end(ap);
}

void harness_report_limit(long n) { report_limit = n; }

long harness_passed(void) { return passed; }

long harness_failed(void) { return failed; }

int harness_report(void)
{
    fflush(stderr);
    printf("%ld passed, %ld failed\n", passed, failed);
    fflush(stdout);
    return failed != 0;
}
