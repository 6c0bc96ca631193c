/* fuzz_algebra.c — libFuzzer target: the layout algebra's call syntax (algebra/alg_call.c) and the operations it runs.
 *
 * The first line of the bytes is a call (what `mapc algebra FILE 'CALL'` is given), the rest the program it runs
 * against; a program with errors is skipped. The call is parsed and evaluated with a small enumeration limit. A
 * refused call must leave one diagnostic; a mapping result must print as text that parses back, against the same
 * program, into a mapping of its size; a query's answer must be a non-empty line. A crash, a sanitizer report, a
 * leak or a broken property is a finding. */
#include "algebra/alg_call.h"
#include "front/front.h"

#include <stdlib.h>
#include <string.h>

#define MAX_INPUT 4096
#define ENUM_LIMIT (UINT64_C(1) << 12)

/* Runs the call (len bytes, no NUL or newline in it) against p. */
static void run_call(Prog *p, const char *text, size_t len)
{
    char *call = malloc(len + 1);
    if (!call)
        abort();
    memcpy(call, text, len);
    call[len] = 0;
    AlgCtx g;
    alg_open(&g, p);
    g.enum_limit = ENUM_LIMIT;
    int before = p->diags.count;
    AlgCallValue v;
    if (!alg_call(&g, prog_parse_map, call, &v)) {
        if (p->diags.count <= before)
            __builtin_trap(); /* a refusal says why */
    } else if (v.map) {
        size_t n = map_format(p, v.map, NULL, 0);
        char *s = malloc(n + 1);
        if (!s)
            abort();
        map_format(p, v.map, s, n + 1);
        const Map *back = prog_parse_map(p, "<result>", s);
        if (!back || back->size != v.map->size)
            __builtin_trap(); /* a result prints as a mapping of its size */
        free(s);
    } else if (!v.line[0]) {
        __builtin_trap(); /* a query answers */
    }
    alg_close(&g);
    free(call);
}

static void work(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    size_t line = 0;
    while (line < size && text[line] != '\n' && text[line] != 0)
        line++;
    if (line == size || text[line] == 0)
        return; /* no program after the call */
    Prog *p = prog_new();
    if (!p)
        abort();
    prog_parse(p, "<fuzz>", text + line + 1, size - line - 1);
    if (p->diags.count == 0)
        run_call(p, text, line);
    prog_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_INPUT)
        return 0;
    MemGuard g;
    if (MEM_GUARD(g))
        return 0; /* out of memory: not a finding */
    work(data, size);
    mem_guard_release(&g);
    return 0;
}
