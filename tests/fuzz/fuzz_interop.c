/* fuzz_interop.c — libFuzzer target: arbitrary bytes as the body of each literal of another system's layout.
 *
 * The first byte picks the format (cute, cute_tiler, triton, affine, index_map) and whether an axis list is
 * given; the rest is the body, read by compiler/interop against fixed axes. A mapping it yields is evaluated
 * at a few positions and written back in every format; each text written must read back (the writer has
 * verified it equivalent). Every diagnostic is formatted. A crash, a sanitizer report, a leak, or a written
 * text that does not read back is a finding. */
#include "core/ast.h"
#include "eval/eval.h"
#include "front/front.h"
#include "interop/interop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inputs above this are skipped: longer ones add time, not coverage. */
#define MAX_INPUT 1024

static const char fixed_decl[] = "axes![A = 4, B = 8, C = 6, D = 2, O = 64];\n";

static const IopFormat literal[5] = {IOP_CUTE, IOP_CUTE_TILER, IOP_TRITON, IOP_AFFINE, IOP_INDEX_MAP};

/* Formats every diagnostic of p (the text is discarded; it must be well-formed). */
static void format_diags(const Prog *p)
{
    for (const Diag *d = p->diags.head; d; d = d->next) {
        size_t n = diag_format(d, NULL, 0);
        char *buf = malloc(n + 1);
        if (!buf)
            abort();
        if (diag_format(d, buf, n + 1) != n)
            __builtin_trap();
        free(buf);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > MAX_INPUT)
        return 0;
    Prog *p = prog_new();
    if (!p)
        return 0;
    prog_parse(p, "<decl>", fixed_decl, sizeof fixed_decl - 1);
    IopFormat f = literal[data[0] % 5];
    /* the axis list: none (the program's in order), or the first 1..4 axes, or the offset axis O */
    int axes[4] = {0, 1, 2, 3}, o = 4;
    int choice = data[0] / 5 % 6;
    IopAxes ax = {choice == 5 ? &o : axes, choice == 0 ? -1 : choice == 5 ? 1 : choice, {NULL, 1, 1}};
    Source src = {.name = "<body>", .text = (const char *)data + 1, .len = size - 1};
    char *copy = malloc(size); /* a NUL-terminated copy, as sources are */
    if (!copy)
        abort();
    memcpy(copy, data + 1, size - 1);
    copy[size - 1] = '\0';
    src.text = copy;
    const Map *m = iop_import(p, f, (IopText){copy, size - 1, {&src, 1, 1}}, &ax, &p->diags);
    if (m) {
        Evaluator *ev = eval_new(p);
        eval_set_budget(ev, 256);
        Cell c = {.coord = calloc((size_t)p->naxes + 1, sizeof(uint64_t))};
        for (uint64_t q = 0; q < 4 && q < m->size; q++)
            (void)eval_cell(ev, m, m->size - 1 - q, &c);
        free(c.coord);
        eval_free(ev);
        if (m->size <= 4096)
            for (int g = 0; g < IOP_FORMATS; g++) {
                const char *why = NULL, *text = iop_export(p, m, (IopFormat)g, NULL, &why);
                if (!text && !why)
                    __builtin_trap(); /* a refusal says why */
                if (!text || g == IOP_STRIDED)
                    continue;
                Source back = {.name = "<export>", .text = text, .len = strlen(text)};
                Diags d;
                diags_init(&d, &p->arena);
                int used[8], n = 0;
                bool *mark = calloc((size_t)p->naxes + 1, sizeof *mark);
                map_mark_axes(m, mark);
                for (int a = 0; a < p->naxes && n < 8; a++)
                    if (mark[a])
                        used[n++] = a;
                free(mark);
                IopAxes bax = {used, n, {&back, 1, 1}};
                if (!iop_import(p, (IopFormat)g, (IopText){text, back.len, {&back, 1, 1}}, &bax, &d))
                    __builtin_trap(); /* a written text that does not read back */
            }
    }
    format_diags(p);
    prog_free(p);
    free(copy);
    return 0;
}
