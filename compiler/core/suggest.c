/* suggest.c — "did you mean" suggestions: the candidate closest to a mistyped word by edit distance. */
#include "ast.h"

#include <ctype.h>
#include <string.h>

/* Words longer than this are compared by no one: a suggestion for them would be noise anyway. */
#define SUGGEST_MAX_LEN 64

/* The optimal-string-alignment distance between a[0..la) and b[0..lb): insertions, deletions,
 * substitutions and swaps of neighbours cost 1, a substitution that only changes case costs 0 (so
 * "rowmajor" finds "RowMajor"). Both lengths are at most SUGGEST_MAX_LEN. */
static unsigned edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
    unsigned rows[3][SUGGEST_MAX_LEN + 1];
    unsigned *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned sub = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            unsigned d = prev[j - 1] + sub;
            if (prev[j] + 1 < d)
                d = prev[j] + 1;
            if (cur[j - 1] + 1 < d)
                d = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < d)
                d = prev2[j - 2] + 1;
            cur[j] = d;
        }
        unsigned *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

void suggest_init(Suggest *s, const char *word, size_t len)
{
    *s = (Suggest){.word = word, .len = len, .best = NULL, .dist = ~0u};
}

void suggest_offer(Suggest *s, const char *cand)
{
    size_t lc = strlen(cand);
    if (s->len > SUGGEST_MAX_LEN || lc > SUGGEST_MAX_LEN || (lc == s->len && memcmp(cand, s->word, lc) == 0))
        return;
    unsigned d = edit_distance(s->word, s->len, cand, lc);
    /* close: at most 2 edits, and at most a third of the word (one edit in "chek", none in "ab") */
    if (d <= 2 && 3 * d <= s->len && d < s->dist) {
        s->best = cand;
        s->dist = d;
    }
}

const char *suggest_among(const char *word, const char *const *cands)
{
    Suggest s;
    suggest_init(&s, word, strlen(word));
    for (; *cands; cands++)
        suggest_offer(&s, *cands);
    return s.best;
}

const char *prog_suggest(const Prog *p, const char *word, size_t len, unsigned kinds)
{
    Suggest s;
    suggest_init(&s, word, len);
    for (const Name *n = p->names; n; n = n->next)
        if (kinds & NAME_BIT(n->kind))
            suggest_offer(&s, n->name);
    return s.best;
}

const char *prog_did_you_mean(Prog *p, const char *word, size_t len, unsigned kinds)
{
    const char *best = prog_suggest(p, word, len, kinds);
    return best ? arena_printf(&p->arena, "; did you mean '%s'?", best) : "";
}
