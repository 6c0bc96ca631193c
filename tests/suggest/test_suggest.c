/* test_suggest.c — the "did you mean" rule (core/suggest.c): which candidate is suggested for a mistyped word,
 * and when none is: edits and swaps, case, the closeness bound, ties, long words, and names by kind. */
#include "harness.h"

#include "core/ast.h"
#include "front/front.h"

#include <string.h>

/* suggest_among over a list, "" for no suggestion (so CHECK_EQ_STR can compare). */
static const char *near(const char *word, const char *const *cands)
{
    const char *s = suggest_among(word, cands);
    return s ? s : "";
}

static void test_rule(void)
{
    static const char *const commands[] = {"check", "eval", "table", "equiv", "norm", "where", NULL};
    CHECK_EQ_STR(near("chek", commands), "check", "a deletion");
    CHECK_EQ_STR(near("ecal", commands), "eval", "a substitution");
    CHECK_EQ_STR(near("tabel", commands), "table", "a swap of neighbours is one edit");
    CHECK_EQ_STR(near("eqiuv", commands), "equiv", "a swap in a longer word");
    CHECK_EQ_STR(near("wherex", commands), "where", "an insertion");
    CHECK_EQ_STR(near("check", commands), "", "the word itself is never suggested");
    CHECK_EQ_STR(near("frobnicate", commands), "", "nothing close");
    CHECK_EQ_STR(near("nrm", commands), "norm", "one edit in three letters");
    CHECK_EQ_STR(near("nm", commands), "", "one edit in two letters is too many");
    CHECK_EQ_STR(near("chxyk", commands), "", "two edits in five letters are too many");
    CHECK_EQ_STR(near("chekc", commands), "check", "two edits in five letters that are one swap");
    static const char *const names[] = {"RowMajor", "ColMajor", "A", NULL};
    CHECK_EQ_STR(near("rowmajor", names), "RowMajor", "a change of case is no edit");
    CHECK_EQ_STR(near("a", names), "A", "even in one letter");
    CHECK_EQ_STR(near("RowMajr", names), "RowMajor", "the closest of two close ones");
    CHECK_EQ_STR(near("olMajor", names), "ColMajor", "a deletion at the start");
    CHECK_EQ_STR(near("RwMjr", names), "", "three edits are too many");
    static const char *const tie[] = {"abcd", "abce", NULL};
    CHECK_EQ_STR(near("abcx", tie), "abcd", "a tie goes to the first");
    char longword[80];
    memset(longword, 'x', sizeof longword - 1);
    longword[sizeof longword - 1] = 0;
    const char *const longs[] = {longword + 1, NULL};
    CHECK_EQ_STR(near(longword, longs), "", "words longer than 64 bytes are not compared");
    static const char *const empty[] = {NULL};
    CHECK_EQ_STR(near("x", empty), "", "no candidates");
    Suggest s;
    suggest_init(&s, "--colr=never", 6); /* a prefix of the word */
    suggest_offer(&s, "--color");
    CHECK(s.best && strcmp(s.best, "--color") == 0, "a word given by length (an option's name before '=')");
}

static void test_names(void)
{
    MemGuard g;
    if (MEM_GUARD(g)) {
        FAIL("out of memory");
        return;
    }
    Prog *p = prog_new();
    const char *src = "axes![Rows = 8, Cols = 4];\nconst Block = 2;\ntype RowMajor = m![Rows, Cols];\n"
                      "tensor Tensor: HostTensor<f32, m![Rows, Cols]>;\n";
    CHECK_EQ_INT(prog_parse(p, "s.map", src, strlen(src)), 0, "the program compiles");
    const char *s = prog_suggest(p, "Rws", 3, NAME_BIT(NAME_AXIS));
    CHECK(s && strcmp(s, "Rows") == 0, "an axis");
    CHECK(prog_suggest(p, "Rws", 3, NAME_BIT(NAME_TYPE)) == NULL, "not among the types");
    s = prog_suggest(p, "RowMajr", 7, NAME_BIT(NAME_TYPE) | NAME_BIT(NAME_CONST));
    CHECK(s && strcmp(s, "RowMajor") == 0, "a type among types and constants");
    s = prog_suggest(p, "Tensr", 5, NAME_BIT(NAME_TENSOR));
    CHECK(s && strcmp(s, "Tensor") == 0, "a tensor");
    CHECK_EQ_STR(prog_did_you_mean(p, "Blokc", 5, NAME_BIT(NAME_CONST)), "; did you mean 'Block'?", "the suffix");
    CHECK_EQ_STR(prog_did_you_mean(p, "Zzzzz", 5, NAME_BIT(NAME_CONST)), "", "no suffix");
    prog_free(p);
    mem_guard_release(&g);
}

int main(int argc, char **argv)
{
    HarnessArgs args = {0};
    harness_args(argc, argv, "", &args);
    test_rule();
    test_names();
    return harness_report();
}
