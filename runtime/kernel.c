/* kernel.c — JIT-compiled relayout kernels for moves, made on first use and cached by the printed
 * form of (element type, units or not, destination mapping, source mapping), so equal tiles share one. */
#include "codegen/codegen.h"
#include "rt_impl.h"

#include <stdint.h>

#include <stdlib.h>
#include <string.h>

struct RtKernel {
    char *key;
    JitModule *jit;     /* owned */
    RtMoveFn fn;        /* NULL: this pair cannot be compiled (remembered, so it is not retried) */
    RtPartFn part;      /* the entry for parts (moves without units) */
    struct RtKernel *next;
};

/* "elem|u|dst|src" ('u' for a move of one unit, '-' for the whole destination), malloc'ed. */
static char *kernel_key(const Prog *p, const Map *dst, const Map *src, bool units, ElemType elem)
{
    size_t nd = map_format(p, dst, NULL, 0), ns = map_format(p, src, NULL, 0);
    const char *en = elem_type_name(elem);
    size_t ne = strlen(en);
    char *k = malloc(ne + nd + ns + 5);
    if (!k)
        return NULL;
    memcpy(k, en, ne);
    k[ne] = '|';
    k[ne + 1] = units ? 'u' : '-';
    k[ne + 2] = '|';
    map_format(p, dst, k + ne + 3, nd + 1);
    k[ne + 3 + nd] = '|';
    map_format(p, src, k + ne + nd + 4, ns + 1);
    return k;
}

/* Compiles the copy kernel dst <- src into its own JIT; NULL with rt_error set (out of memory), else an
 * entry whose fn is NULL when the kernel cannot be compiled (rt_error says why). */
static RtKernel *compile(RtContext *rt, const Map *dst, const Map *src, const Map *units, ElemType elem, char *key)
{
    RtKernel *k = calloc(1, sizeof *k);
    if (!k) {
        free(key);
        rt_fail_memory(rt, "out of memory");
        return NULL;
    }
    k->key = key;
    Arena scratch = {0};
    Diags d;
    diags_init(&d, &scratch);
    Copy c = {.name = "mapc_move", .src = src, .dst = dst, .elem = elem, .units = units, .move = true};
    k->jit = jit_copy_kernel(rt->prog, &c, 2, &d);
    if (k->jit) {
        k->fn = (RtMoveFn)(uintptr_t)jit_module_lookup(k->jit, "mapc_move");
        k->part = units ? NULL : (RtPartFn)(uintptr_t)jit_module_lookup(k->jit, "mapc_move_part");
    }
    if (!k->jit) {
        rt_fail(rt, "cannot compile the move: %s", d.head ? d.head->msg : "?");
    } else if (!k->fn || (!units && !k->part)) {
        k->fn = NULL;
        rt_fail(rt, "the compiled move has no entry point");
    } else {
        rt->stats.kernels_compiled++;
    }
    arena_free(&scratch);
    return k;
}

RtMoveFn rt_kernel(RtContext *rt, const Map *dst, const Map *src, const Map *units, ElemType elem, RtPartFn *part)
{
    char *key = kernel_key(rt->prog, dst, src, units != NULL, elem);
    if (!key) {
        rt_fail_memory(rt, "out of memory");
        return NULL;
    }
    for (RtKernel *k = rt->kernels; k; k = k->next)
        if (strcmp(k->key, key) == 0) {
            free(key);
            if (!k->fn)
                rt_fail(rt, "this move could not be compiled earlier");
            if (part)
                *part = k->part;
            return k->fn;
        }
    RtKernel *k = compile(rt, dst, src, units, elem, key);
    if (!k)
        return NULL;
    k->next = rt->kernels;
    rt->kernels = k;
    if (part)
        *part = k->part;
    return k->fn;
}

void rt_kernels_free(RtKernel *k)
{
    while (k) {
        RtKernel *next = k->next;
        jit_module_free(k->jit);
        free(k->key);
        free(k);
        k = next;
    }
}
