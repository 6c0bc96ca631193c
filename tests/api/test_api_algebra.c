/* test_api_algebra.c — <mapc/algebra.h> through the shared library: every operation and query with its expected
 * result (the normal form `mapc algebra` prints, and the equivalence decision), chained calls, the algebra's
 * error codes with their messages, and the refusals of bad arguments. */
#include "harness.h"

#include <algebra.h>

#include <stdlib.h>
#include <string.h>

static const char src_divide[] =
    "axes![O = 24, X = 24, X10 = 10, W = 24, Y = 6, M = 6, N = 20, M5 = 5, Mo = 3, Mi = 2, No = 4, Ni = 5,\n"
    "      R = 6, Cl = 4, O2 = 24];\n"
    "type A = m![O / 8, O % 2, O / 2 % 4];\n";
static const char src_inverse[] = "axes![O = 12, P = 12, E = 8, P8 = 8, P4 = 4, O1 = 1, A = 4, P3 = 3, C = 3, Q = 16];\n";
static const char src_cover[] = "axes![X = 10, Y = 20, A = 4, Q8 = 8, Big = 4194304, Z = 1099511627776];\n"
                                "type T = m![X = 4];\n";

static mapc_program *compile(const char *src)
{
    mapc_program *p = NULL;
    CHECK(mapc_compile_string("<test>", src, strlen(src), &p) == MAPC_OK, "the program compiles");
    return p;
}

/* Whether the call (status s, text got) succeeded with the normal form want, which is also equivalent to it;
 * frees the result and clears *res. */
static bool same(mapc_program *p, int s, char **res, const mapc_algebra_error *err, const char *want, const char *what)
{
    int eq = 0;
    char *got = *res;
    *res = NULL;
    bool ok = CHECK_EQ_INT(s, MAPC_OK, "%s: %s %s", what, err->code, err->message) && got &&
              CHECK(strcmp(got, want) == 0, "%s is %s, expected %s", what, got, want) &&
              CHECK(mapc_equiv(p, got, want, &eq, NULL) == MAPC_OK && eq, "%s: equivalent", what) &&
              CHECK(err->status == MAPC_OK && !err->code[0] && !err->message[0], "%s: err cleared", what);
    free(got);
    return ok;
}

/* Whether the call failed with MAPC_ERR_ALGEBRA, the code, and a message containing msg; *out stays NULL. */
static bool refused(int s, char *const *res, const mapc_algebra_error *err, const char *code, const char *msg,
                    const char *what)
{
    return CHECK_EQ_INT(s, MAPC_ERR_ALGEBRA, "%s", what) && CHECK(!res || *res == NULL, "%s: no result", what) &&
           CHECK(err->status == MAPC_ERR_ALGEBRA && strcmp(err->code, code) == 0, "%s: code %s, expected %s", what,
                 err->code, code) &&
           CHECK(strstr(err->message, msg) != NULL, "%s: message '%s' has '%s'", what, err->message, msg);
}

static void test_compose_cover(mapc_program *p)
{
    mapc_algebra_error e;
    char *r = NULL;
    const char *ax[] = {"X"}, *fs[] = {"m![Y = 10]"};
    same(p, mapc_complement(p, "T", "X", &r, &e), &r, &e, "m![X # 12 / 4]", "complement(T, X)");
    same(p, mapc_cover(p, "T", "X", MAPC_PAD_TOP, &r, &e), &r, &e, "m![X # 12]", "cover(T, X)");
    same(p, mapc_cover(p, "T", "X", MAPC_PAD_BOTTOM, &r, &e), &r, &e, "m![X #{!} 12]", "cover(T, X, #{!})");
    same(p, mapc_cover(p, "T", "X", MAPC_PAD_ZERO, &r, &e), &r, &e, "m![X #{0} 12]", "cover(T, X, #{0})");
    same(p, mapc_complement(p, "m![X = 3 #{0} 4]", "X", &r, &e), &r, &e, "m![X # 12 / 3]", "a padded tiler");
    /* chained: the complement's text is the next call's argument */
    char *c = NULL;
    if (CHECK_EQ_INT(mapc_complement(p, "T", "X", &c, &e), MAPC_OK, "complement for the chain")) {
        same(p, mapc_compose(p, c, 1, ax, fs, &r, &e), &r, &e, "m![Y = 10 # 12 / 4]", "compose(complement(T, X), ...)");
        free(c);
    }
    const char *ax2[] = {"X", "Y"}, *fs2[] = {"m![Y = 10]", "m![X # 20]"};
    same(p, mapc_compose(p, "m![X, Y]", 2, ax2, fs2, &r, &e), &r, &e, "m![Y = 10, X # 20]", "simultaneous");
    same(p, mapc_complement(p, "m![Z]", "Z", &r, &e), &r, &e, "m![1]", "any size, by digits");
    /* errors of the algebra */
    const char *fy[] = {"m![Y]"};
    r = NULL;
    refused(mapc_compose(p, "m![X]", 1, ax, fy, &r, &e), &r, &e, "size-mismatch", "|F| = 20 but |X| = 10", "compose");
    refused(mapc_complement(p, "m![X = 4]", "Nope", &r, &e), &r, &e, "undeclared-axis", "'Nope' is not a declared axis",
            "an unknown axis");
    refused(mapc_complement(p, "m![A, A]", "A", &r, &e), &r, &e, "overflow", "overflows at position 7", "overflow");
    refused(mapc_complement(p, "m![X, Y]", "X", &r, &e), &r, &e, "foreign-axis", "holds axis Y", "foreign");
    refused(mapc_complement(p, "m![[X # 30] / 3 % 2, X % 2]", "X", &r, &e), &r, &e, "no-complement",
            "reached from origins 0 and 2", "no complement");
    refused(mapc_complement(p, "m![Big, Big]", "Big", &r, &e), &r, &e, "too-large", "more than the 4194304", "too large");
    /* refusals of the arguments */
    CHECK_EQ_INT(mapc_cover(p, "T", "X", (mapc_pad_kind)7, &r, &e), MAPC_ERR_ARGUMENT, "a bad pad kind");
    CHECK(e.status == MAPC_ERR_ARGUMENT && strstr(e.message, "padding kind 7"), "its message: %s", e.message);
    CHECK_EQ_INT(mapc_cover(p, "T", "X", (mapc_pad_kind)0, &r, NULL), MAPC_ERR_ARGUMENT, "pad kind 0, err NULL");
    CHECK_EQ_INT(mapc_complement(p, "Nope", "X", &r, &e), MAPC_ERR_NOT_FOUND, "an unknown type");
    CHECK(strstr(e.message, "no type named 'Nope'") != NULL, "its message: %s", e.message);
    CHECK_EQ_INT(mapc_complement(p, "m![Q]", "X", &r, &e), MAPC_ERR_INPUT, "a mapping with errors");
    mapc_diag_clear(p);
    CHECK_EQ_INT(mapc_complement(NULL, "T", "X", &r, &e), MAPC_ERR_ARGUMENT, "a NULL program");
    CHECK_EQ_INT(mapc_complement(p, NULL, "X", &r, &e), MAPC_ERR_ARGUMENT, "a NULL tiler");
    CHECK_EQ_INT(mapc_complement(p, "T", NULL, &r, &e), MAPC_ERR_ARGUMENT, "a NULL axis");
    CHECK_EQ_INT(mapc_complement(p, "T", "X", NULL, &e), MAPC_ERR_ARGUMENT, "a NULL out");
    CHECK_EQ_INT(mapc_compose(p, "m![X]", 0, ax, fs, &r, &e), MAPC_ERR_ARGUMENT, "no substitution");
    CHECK_EQ_INT(mapc_compose(p, "m![X]", -1, ax, fs, &r, &e), MAPC_ERR_ARGUMENT, "a negative count");
    CHECK_EQ_INT(mapc_compose(p, "m![X]", 1, NULL, fs, &r, &e), MAPC_ERR_ARGUMENT, "NULL axes");
    CHECK_EQ_INT(mapc_compose(p, "m![X]", 1, ax, NULL, &r, &e), MAPC_ERR_ARGUMENT, "NULL mappings");
    const char *axn[] = {NULL};
    CHECK_EQ_INT(mapc_compose(p, "m![X]", 1, axn, fs, &r, &e), MAPC_ERR_ARGUMENT, "a NULL axis in the list");
    CHECK_EQ_INT(mapc_compose(p, "m![X]", 1, ax, axn, &r, &e), MAPC_ERR_ARGUMENT, "a NULL mapping in the list");
    CHECK(r == NULL, "no result after the refusals");
    /* queries */
    int inj = -1;
    uint64_t p1 = 9, p2 = 9, w = 9;
    refused(mapc_injective(p, "m![Big, Big]", &inj, &p1, &p2, &e), NULL, &e, "too-large", "positions", "injective");
    CHECK_EQ_INT(mapc_injective(p, "m![X]", NULL, &p1, &p2, &e), MAPC_ERR_ARGUMENT, "NULL injective");
    CHECK_EQ_INT(mapc_vector_width(p, "m![X]", NULL, NULL, &e), MAPC_ERR_ARGUMENT, "NULL width");
    CHECK_EQ_INT(mapc_vector_width(p, "m![X]", "Nope", &w, &e), MAPC_ERR_NOT_FOUND, "an unknown destination");
}

static void test_divide_product(mapc_program *p)
{
    mapc_algebra_error e;
    char *r = NULL;
    const char *ax[] = {"X"}, *ts[] = {"m![X / 2 % 4]"};
    same(p, mapc_divide(p, "A", 1, ax, ts, 0, &r, &e), &r, &e, "m![O / 8, O % 4, O / 4 % 2]", "divide");
    same(p, mapc_compose(p, "m![X / 2 % 4]", 1, ax, (const char *[]){"A"}, &r, &e), &r, &e,
         "m![[O / 8, O % 2, O / 2 % 4] / 2 % 4]", "compose with A");
    const char *rc[] = {"R", "Cl"}, *rt[] = {"m![R % 3]", "m![Cl % 2]"};
    same(p, mapc_divide(p, "m![O2 % 4, O2 / 4]", 2, rc, rt, 0, &r, &e), &r, &e, "m![O2 % 4, O2 / 4]", "two modes");
    same(p, mapc_divide(p, "m![O2 % 4, O2 / 4]", 2, rc, rt, 1, &r, &e), &r, &e,
         "m![O2 / 2 % 2, O2 / 12, O2 % 2, O2 / 4 % 3]", "zipped");
    const char *x10[] = {"X10"}, *t4[] = {"m![X10 = 4]"};
    same(p, mapc_divide(p, "m![X10]", 1, x10, t4, 0, &r, &e), &r, &e, "m![X10 # 12]", "an overhang");
    same(p, mapc_product(p, "m![W % 2, W / 4 % 2]", "W", "m![Y]", "Y", &r, &e), &r, &e, "m![W / 8, W % 4, W / 4 % 2]",
         "product");
    same(p, mapc_product(p, "m![W % 2, W / 4 % 2]", "W", "m![Y % 2, Y / 2]", "Y", &r, &e), &r, &e,
         "m![W / 2 % 2, W / 8, W % 2, W / 4 % 2]", "product, reordered");
    const char *x[] = {"M", "N"}, *xo[] = {"Mo", "No"}, *xi[] = {"Mi", "Ni"};
    same(p, mapc_blocked_product(p, "m![No, Mo]", "m![Mi, Ni]", 2, x, xo, xi, 0, &r, &e), &r, &e, "m![N / 5, M, N % 5]",
         "blocked");
    same(p, mapc_blocked_product(p, "m![No, Mo]", "m![Mi, Ni]", 2, x, xo, xi, 1, &r, &e), &r, &e,
         "m![N % 4, M % 3, M / 3, N / 4]", "raked");
    const char *x5[] = {"M5", "N"};
    same(p, mapc_blocked_product(p, "m![No, Mo]", "m![Mi, Ni]", 2, x5, xo, xi, 0, &r, &e), &r, &e,
         "m![N / 5, M5 # 6 / 1, N % 5]", "blocked with padding");
    /* refusals */
    r = NULL;
    CHECK_EQ_INT(mapc_divide(p, "A", 0, ax, ts, 0, &r, &e), MAPC_ERR_ARGUMENT, "no mode");
    CHECK_EQ_INT(mapc_divide(p, "A", 1, ax, NULL, 0, &r, &e), MAPC_ERR_ARGUMENT, "NULL tilers");
    const char *bad[] = {"Bad"};
    refused(mapc_divide(p, "A", 1, bad, ts, 0, &r, &e), &r, &e, "undeclared-axis", "'Bad'", "divide's axis");
    refused(mapc_product(p, "m![W]", "W", "m![Y]", "Nope", &r, &e), &r, &e, "undeclared-axis", "'Nope'",
            "product's axis");
    CHECK_EQ_INT(mapc_product(p, "m![W]", "W", NULL, "Y", &r, &e), MAPC_ERR_ARGUMENT, "a NULL B");
    CHECK_EQ_INT(mapc_blocked_product(p, "m![No, Mo]", "m![Mi, Ni]", 2, x, xo, NULL, 0, &r, &e), MAPC_ERR_ARGUMENT,
                 "NULL inner axes");
    CHECK_EQ_INT(mapc_blocked_product(p, "m![No, Mo]", "m![Mi, Ni]", 0, x, xo, xi, 0, &r, &e), MAPC_ERR_ARGUMENT,
                 "no fused axis");
    const char *xbad[] = {"M", "Nq"};
    refused(mapc_blocked_product(p, "m![No, Mo]", "m![Mi, Ni]", 2, xbad, xo, xi, 0, &r, &e), &r, &e,
            "undeclared-axis", "'Nq'", "blocked's axis");
    CHECK(r == NULL, "no result after the refusals");
}

static void test_inverse_queries(mapc_program *p)
{
    mapc_algebra_error e;
    char *r = NULL;
    const char *o[] = {"O"}, *a[] = {"A"}, *ac[] = {"A", "C"}, *ca[] = {"C", "A"};
    same(p, mapc_inverse(p, "m![O % 3, O / 3]", "P", 1, o, MAPC_PAD_BOTTOM, 0, &r, &e), &r, &e, "m![P % 4, P / 4]",
         "inverse");
    same(p, mapc_inverse(p, "m![A = 3]", "P3", 1, a, MAPC_PAD_BOTTOM, 0, &r, &e), &r, &e, "m![P3 #{!} 4]",
         "inverse, the non-image bottom");
    same(p, mapc_inverse(p, "m![A = 3]", "P3", 1, a, MAPC_PAD_ZERO, 0, &r, &e), &r, &e, "m![P3 #{0} 4]",
         "inverse, the non-image zero");
    same(p, mapc_inverse(p, "m![C, A]", "P", 2, ac, MAPC_PAD_BOTTOM, 0, &r, &e), &r, &e, "m![P % 4, P / 4]",
         "inverse, two axes");
    same(p, mapc_inverse(p, "m![A, C]", "P", 2, ca, MAPC_PAD_BOTTOM, 1, &r, &e), &r, &e, "m![P % 3, P / 3]",
         "left inverse");
    same(p, mapc_conversion(p, "m![C, A]", "m![A, C]", "P", &r, &e), &r, &e, "m![P % 3, P / 3]", "conversion");
    same(p, mapc_conversion(p, "m![C, A # 8]", "m![A, C]", "P", &r, &e), &r, &e, "m![P # 24 % 3, P # 24 / 3]",
         "conversion with padding");
    same(p, mapc_nullspace(p, "m![A, 3]", "P", &r, &e), &r, &e, "m![P % 3]", "nullspace");
    same(p, mapc_nullspace(p, "m![2, A, 2, C % 1 # 3 / 3]", "Q", &r, &e), &r, &e, "m![Q / 8, Q % 2]", "nullspace 2");
    same(p, mapc_coalesce(p, "m![A / 2, A % 2, C]", &r, &e), &r, &e, "m![A, C]", "coalesce");
    int inj = -1;
    uint64_t p1 = 9, p2 = 9, w = 0;
    CHECK(mapc_injective(p, "m![A, C]", &inj, &p1, &p2, &e) == MAPC_OK && inj == 1, "m![A, C] is injective");
    CHECK(mapc_injective(p, "m![A, A % 2]", &inj, &p1, &p2, &e) == MAPC_OK && inj == 0 && p1 == 1 && p2 == 2,
          "m![A, A %% 2]: positions %llu and %llu", (unsigned long long)p1, (unsigned long long)p2);
    CHECK(mapc_injective(p, "m![C, 2, A]", &inj, NULL, NULL, &e) == MAPC_OK && inj == 0, "positions may be NULL");
    CHECK(mapc_vector_width(p, "m![A, C]", NULL, &w, &e) == MAPC_OK && w == 12, "vector(m![A, C]) = %llu",
          (unsigned long long)w);
    CHECK(mapc_vector_width(p, "m![C, A]", "m![A, C]", &w, &e) == MAPC_OK && w == 1, "vector(CA, AC) = 1");
    CHECK(mapc_vector_width(p, "m![A, C # 6]", NULL, &w, &e) == MAPC_OK && w == 3, "vector(m![A, C # 6]) = 3");
    /* errors */
    r = NULL;
    const char *e8[] = {"E"};
    refused(mapc_inverse(p, "m![2, A]", "P8", 1, a, MAPC_PAD_BOTTOM, 1, &r, &e), &r, &e, "not-injective",
            "positions 0 and 4", "left inverse of a non-injective mapping");
    refused(mapc_inverse(p, "m![A]", "P8", 1, a, MAPC_PAD_BOTTOM, 0, &r, &e), &r, &e, "size-mismatch", "|P8| = 8",
            "inverse's sizes");
    refused(mapc_conversion(p, "m![A]", "m![A = 2 # 4]", "A", &r, &e), &r, &e, "not-held", "holds nowhere",
            "conversion");
    refused(mapc_inverse(p, "m![E]", "P8", 1, (const char *[]){"Nope"}, MAPC_PAD_BOTTOM, 0, &r, &e), &r, &e,
            "undeclared-axis", "'Nope'", "an unknown index axis");
    refused(mapc_nullspace(p, "m![A]", "Nope", &r, &e), &r, &e, "undeclared-axis", "'Nope'", "nullspace's axis");
    CHECK_EQ_INT(mapc_inverse(p, "m![E]", "P8", 1, e8, (mapc_pad_kind)4, 0, &r, &e), MAPC_ERR_ARGUMENT, "pad kind 4");
    CHECK_EQ_INT(mapc_inverse(p, "m![E]", "P8", 1, NULL, MAPC_PAD_TOP, 0, &r, &e), MAPC_ERR_ARGUMENT, "NULL order");
    CHECK_EQ_INT(mapc_inverse(p, "m![E]", "P8", -2, e8, MAPC_PAD_TOP, 0, &r, &e), MAPC_ERR_ARGUMENT, "k -2");
    CHECK_EQ_INT(mapc_conversion(p, "m![A]", "m![A]", NULL, &r, &e), MAPC_ERR_ARGUMENT, "a NULL Q");
    CHECK_EQ_INT(mapc_coalesce(p, NULL, &r, &e), MAPC_ERR_ARGUMENT, "a NULL E");
    CHECK_EQ_INT(mapc_coalesce(p, "m![A]", NULL, &e), MAPC_ERR_ARGUMENT, "a NULL out");
    CHECK(r == NULL, "no result after the refusals");
}

/* A program that did not compile is refused, never crashed on. */
static void test_bad_program(void)
{
    mapc_program *p = NULL;
    static const char bad[] = "axes![X = 4];\ntype T = m![Q];\n";
    if (!CHECK(mapc_compile_string("<bad>", bad, sizeof bad - 1, &p) == MAPC_ERR_INPUT, "a program with errors"))
        return;
    mapc_algebra_error e;
    char *r = NULL;
    CHECK_EQ_INT(mapc_complement(p, "m![X]", "X", &r, &e), MAPC_ERR_INPUT, "refused");
    CHECK(r == NULL && e.status == MAPC_ERR_INPUT, "no result, the status in err");
    mapc_program_free(p);
}

int main(void)
{
    mapc_program *p;
    if ((p = compile(src_cover))) {
        test_compose_cover(p);
        mapc_program_free(p);
    }
    if ((p = compile(src_divide))) {
        test_divide_product(p);
        mapc_program_free(p);
    }
    if ((p = compile(src_inverse))) {
        test_inverse_queries(p);
        mapc_program_free(p);
    }
    test_bad_program();
    return harness_report();
}
