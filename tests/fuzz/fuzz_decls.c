/* fuzz_decls.c — libFuzzer target: kernel, tensor and copy declarations, built by a structured generator the
 * fuzz bytes drive, through the semantic checks.
 *
 * Each input byte picks one choice of the generator: the axes (names M, N, K, X with sizes from a table, and
 * Y, Z of small sizes for copies), the target ISA, tensors (memory kind, element type, mappings made of digits
 * of the axes with strides, moduli and paddings), copies between mappings of Y and Z (at most 2^14 positions:
 * copies the checks cannot prove are checked position by position), and kernels over three tensors with tile,
 * pack, order, split and grid clauses, mostly near well-formed values. The program text goes through prog_parse for
 * the chosen target. Then every accepted declaration is checked against its contract: a kernel's operands,
 * tiles, micro-tile, K group, order and grid are consistent and within the DM budget; a tensor passes
 * tensor_check again; every diagnostic formats to its own length. A crash, a sanitizer report, a leak or a
 * broken contract is a finding. Bytes left over after the generator's choices are appended to the text, so
 * mutations also reach the parser's error recovery. FUZZ_PRINT=1 writes each generated text to stderr (to read a
 * finding as a .map file). */
#include "algebra/algebra.h"
#include "core/ast.h"
#include "front/front.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INPUT 1024
#define TEXT_CAP 16384

/* The fuzz bytes as a stream of choices (0 once exhausted). */
typedef struct Choices {
    const uint8_t *data;
    size_t size, at;
} Choices;

static unsigned pick(Choices *c, unsigned n)
{
    unsigned b = c->at < c->size ? c->data[c->at++] : 0;
    return n ? b % n : 0;
}

/* The generated text (truncated at TEXT_CAP, which the bounded choices never reach). */
typedef struct GenText {
    char buf[TEXT_CAP];
    size_t len;
} GenText;

static void put(GenText *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(GenText *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->len, sizeof t->buf - t->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len = t->len + (size_t)n < sizeof t->buf ? t->len + (size_t)n : sizeof t->buf - 1;
}

static const char *const axis_names[4] = {"M", "N", "K", "X"};
static const unsigned sizes[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256, 384, 512, 1024, 2048, 4096};
static const unsigned small[] = {1, 2, 3, 4, 6, 8, 12, 16, 32, 64};
static const char *const elems[] = {"f32", "bf16", "f16", "i8", "i32", "f64", "u8"};
static const char *const pads[] = {"#", "#{*}", "#{0}", "#{!}"};

#define COUNT(a) (sizeof(a) / sizeof *(a))

/* The axes of copies, of small sizes: copies that the checks cannot prove are checked position by position. */
static const char *const copy_axes[2] = {"Y", "Z"};

/* One digit of one of the axes names[0..naxes) (or a broadcast): A, A / n, A % n, A / n % m, A # n, [A, B]. */
static void digit_of(Choices *c, GenText *t, const char *const *names, int naxes)
{
    const char *a = names[pick(c, (unsigned)naxes)];
    switch (pick(c, 9)) {
    case 0: put(t, "%u", small[pick(c, COUNT(small))]); break;
    case 1: put(t, "%s / %u", a, small[pick(c, COUNT(small))]); break;
    case 2: put(t, "%s %% %u", a, small[pick(c, COUNT(small))]); break;
    case 3: put(t, "%s / %u %% %u", a, small[pick(c, COUNT(small))], small[pick(c, COUNT(small))]); break;
    case 4: {
        unsigned n = sizes[pick(c, COUNT(sizes))];
        put(t, "%s %s %u", a, pads[pick(c, COUNT(pads))], names == copy_axes && n > 128 ? 128 : n);
        break;
    }
    case 5: put(t, "[%s, %s] / %u", a, names[pick(c, (unsigned)naxes)], small[pick(c, COUNT(small))]); break;
    default: put(t, "%s", a); break;
    }
}

/* A mapping m![d1, ..., dk] of 1 to most digits of names[0..naxes). */
static void mapping_of(Choices *c, GenText *t, const char *const *names, int naxes, unsigned most)
{
    put(t, "m![");
    int n = 1 + (int)pick(c, most);
    for (int i = 0; i < n; i++) {
        if (i)
            put(t, ", ");
        digit_of(c, t, names, naxes);
    }
    put(t, "]");
}

/* A mapping of 1 to 4 digits of the first naxes axes. */
static void mapping(Choices *c, GenText *t, int naxes) { mapping_of(c, t, axis_names, naxes, 4); }

/* A panel layout over the tile axes R and K: m![R / w, K / g, R % w, K % g] (or a variation). */
static void panel(Choices *c, GenText *t, const char *r)
{
    static const unsigned widths[] = {1, 2, 4, 6, 8, 12, 14, 16, 24, 32, 48, 64};
    static const unsigned groups[] = {1, 2, 4, 3};
    unsigned w = widths[pick(c, COUNT(widths))], g = groups[pick(c, COUNT(groups))];
    switch (pick(c, 4)) {
    case 0: put(t, "m![%s / %u, K, %s %% %u]", r, w, r, w); break;
    case 1: put(t, "m![K, %s]", r); break;
    case 2: put(t, "m![%s / %u, K / %u, %s %% %u, K %% %u, 1]", r, w, g, r, w, g); break;
    default: put(t, "m![%s / %u, K / %u, %s %% %u, K %% %u]", r, w, g, r, w, g); break;
    }
}

/* A tensor declaration named name, usually an HBM tensor of the role's matrix (rows x cols). */
static void tensor(Choices *c, GenText *t, const char *name, const char *rows, const char *cols, int naxes)
{
    const char *elem = elems[pick(c, COUNT(elems))];
    unsigned kind = pick(c, 8);
    switch (kind) {
    case 0:
        put(t, "tensor %s: HostTensor<%s, ", name, elem);
        mapping(c, t, naxes);
        break;
    case 1:
    case 2: /* the last two mappings of a DM tensor, or both of an HBM one */
        put(t, "tensor %s: %s<%s, ", name, kind == 1 ? "DmTensor" : "HbmTensor", elem);
        put(t, "%s", kind == 1 ? "m![1], m![1], " : "");
        mapping(c, t, naxes);
        put(t, ", ");
        mapping(c, t, naxes);
        break;
    case 3: put(t, "tensor %s: HbmTensor<%s, m![1], m![%s, %s]", name, elem, cols, rows); break;
    case 4: put(t, "tensor %s: HbmTensor<%s, m![%s / 2], m![%s %% 2, %s]", name, elem, rows, rows, cols); break;
    case 5: put(t, "tensor %s[%s, %s]: HbmTensor<%s, m![1], m![%s, %s # %u]", name, rows, cols, elem, rows, cols,
                sizes[pick(c, COUNT(sizes))]); break;
    default: put(t, "tensor %s: HbmTensor<%s, m![1], m![%s, %s]", name, elem, rows, cols); break;
    }
    put(t, ">;\n");
}

/* A kernel over tensors A, B, C (or others, sometimes) with its clauses. */
static void kernel(Choices *c, GenText *t, int k, int naxes)
{
    static const char *const ops[] = {"A", "B", "C", "D"};
    put(t, "kernel k%d: %s[M, N] = %s[M, K] * %s[K, N] {\n", k, ops[pick(c, 4) == 0 ? 3 : 2],
        ops[pick(c, 8) == 0 ? 1 : 0], ops[pick(c, 8) == 0 ? 0 : 1]);
    static const unsigned tiles[] = {1, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 0, 4096};
    int nclauses = 1 + (int)pick(c, 5);
    for (int i = 0; i < nclauses; i++) {
        switch (i == 0 ? 0 : pick(c, 7)) {
        case 0:
            put(t, "    tile M = %u, N = %u, K = %u;\n", tiles[pick(c, COUNT(tiles))], tiles[pick(c, COUNT(tiles))],
                tiles[pick(c, COUNT(tiles))]);
            break;
        case 1: put(t, "    pack A = "); panel(c, t, "M"); put(t, ";\n"); break;
        case 2: put(t, "    pack B = "); panel(c, t, "N"); put(t, ";\n"); break;
        case 3: {
            static const char *const orders[] = {"N, K, M", "M, N, K", "K, M, N", "N, M, K", "M, K", "N, N, K"};
            put(t, "    order %s;\n", orders[pick(c, COUNT(orders))]);
            break;
        }
        case 4: put(t, "    split %s;\n", axis_names[pick(c, 4)]); break;
        case 5:
            put(t, "    grid slice = m![M / %u %% %u];\n", small[pick(c, COUNT(small))], small[pick(c, COUNT(small))]);
            break;
        default:
            put(t, "    grid chip = m![N / %u], slice = ", sizes[pick(c, COUNT(sizes))]);
            mapping(c, t, naxes);
            put(t, ";\n");
            break;
        }
    }
    put(t, "}\n");
}

/* The generated program for the choices in c. */
static void program(Choices *c, GenText *t)
{
    int naxes = 3 + (int)pick(c, 2);
    put(t, "axes![");
    for (int i = 0; i < naxes; i++)
        put(t, "%s%s = %u", i ? ", " : "", axis_names[i], sizes[pick(c, COUNT(sizes))]);
    put(t, ", Y = %u, Z = %u];\n", small[pick(c, COUNT(small))], small[pick(c, COUNT(small))]);
    tensor(c, t, "A", "M", "K", naxes);
    tensor(c, t, "B", "K", "N", naxes);
    tensor(c, t, "C", "M", "N", naxes);
    if (pick(c, 2))
        tensor(c, t, "D", "M", "N", naxes);
    int ncopies = (int)pick(c, 3);
    for (int i = 0; i < ncopies; i++) {
        put(t, "copy c%d: ", i); /* over Y and Z, two digits at most */
        mapping_of(c, t, copy_axes, 2, 2);
        put(t, " -> ");
        mapping_of(c, t, copy_axes, 2, 2);
        put(t, " as %s;\n", elems[pick(c, COUNT(elems))]);
    }
    int nkernels = 1 + (int)pick(c, 2);
    for (int i = 0; i < nkernels; i++)
        kernel(c, t, i, naxes);
}

/* A kernel the checks accepted keeps KernelDecl's contract (ast.h). */
static void check_kernel(const Prog *p, const KernelDecl *k)
{
    if (!k->a || !k->b || !k->c || !k->pack_a || !k->pack_b || k->isa == TARGET_ISA_HOST)
        __builtin_trap();
    if (k->a->mem != MEM_HBM || k->b->mem != MEM_HBM || k->c->mem != MEM_HBM)
        __builtin_trap();
    bool seen[3] = {false, false, false};
    for (int r = 0; r < 3; r++) {
        if (k->axis[r] < 0 || k->axis[r] >= p->naxes || k->tile[r] < 1 || k->order[r] > GEMM_K ||
            seen[k->order[r]])
            __builtin_trap();
        seen[k->order[r]] = true;
        if (!k->grid[r])
            __builtin_trap();
    }
    if (k->axis[0] == k->axis[1] || k->axis[1] == k->axis[2] || k->axis[0] == k->axis[2])
        __builtin_trap();
    if (k->mr < 1 || k->nr < 1 || (k->kgroup != 1 && k->kgroup != 2 && k->kgroup != 4))
        __builtin_trap();
    if (k->dm_bytes == 0 || k->dm_bytes > tensor_default_limits().dm_slice_bytes)
        __builtin_trap();
    if (k->block[0] < 1 || k->block[1] < 1)
        __builtin_trap();
}

/* Every diagnostic formats to the length it reports. */
static void check_diags(const Prog *p)
{
    for (const Diag *d = p->diags.head; d; d = d->next) {
        size_t n = diag_format(d, NULL, 0);
        char *buf = malloc(n + 1);
        if (!buf)
            abort();
        if (diag_format(d, buf, n + 1) != n || strlen(buf) != n)
            __builtin_trap();
        free(buf);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_INPUT)
        return 0;
    Choices c = {data, size, 0};
    static GenText t;
    t.len = 0;
    t.buf[0] = 0;
    static const TargetIsa isas[3] = {TARGET_ISA_AVX512, TARGET_ISA_AVX2, TARGET_ISA_PORTABLE};
    TargetIsa isa = isas[pick(&c, 3)];
    program(&c, &t);
    /* the rest of the bytes, as they are, after the generated declarations */
    size_t rest = c.at < size ? size - c.at : 0;
    if (rest > sizeof t.buf - 1 - t.len)
        rest = sizeof t.buf - 1 - t.len;
    memcpy(t.buf + t.len, data + c.at, rest);
    t.len += rest;
    t.buf[t.len] = 0;
    if (getenv("FUZZ_PRINT"))
        fprintf(stderr, "%s\n", t.buf);

    Prog *p = prog_new();
    if (!p)
        abort();
    prog_set_target(p, isa);
    prog_parse(p, "<decls>", t.buf, t.len);
    for (int i = 0; i < p->nkernels; i++)
        check_kernel(p, p->kernels[i]);
    TensorLimits lim = tensor_default_limits();
    for (int i = 0; i < p->ntensors; i++) {
        const TensorDecl *td = p->tensors[i];
        char why[512];
        if (!tensor_check(p, td->mem, td->elem, td->maps, td->axes, &lim, why, sizeof why)) {
            fprintf(stderr, "accepted tensor %s fails its check again: %s\n", td->name, why);
            __builtin_trap();
        }
    }
    for (int i = 0; i < p->ncopies; i++)
        if (!p->copies[i]->src || !p->copies[i]->dst || p->copies[i]->src->size == 0)
            __builtin_trap();
    check_diags(p);
    prog_free(p);
    return 0;
}
