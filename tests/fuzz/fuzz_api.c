/* fuzz_api.c — libFuzzer target: sequences of public C API calls (mapc.h) in orders the fuzz bytes choose.
 *
 * Each byte is an operation on a few slots of programs, JITs, GEMM engines, runtimes and kernels: compile
 * (one of the texts below, or bytes of the input), free, query (diagnostics, axes, types, sizes), evaluate,
 * decide equivalence, fail on purpose (NULL arguments, unknown names, malformed inline mappings, bad
 * options), create a JIT and call its functions, run the strided-view GEMM on bad and good views, create
 * a runtime with tensors, views and DMA, create and run a declared kernel. Findings: a crash, a sanitizer
 * report or leak, a status outside mapc_status, a failing call whose documented status differs, a JIT
 * cell function that disagrees with mapc_eval, a GEMM result that is wrong, an error string that is not
 * "" after a success, and a program that compiled without errors refusing the JIT after a failed
 * inline mapping. */
#include <mapc.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INPUT 512
#define SLOTS 2
/* Expensive operations (JIT and kernel compilations) allowed per input. */
#define MAX_COMPILES 2

static const char *const texts[] = {
    "axes![A = 8, B = 12];\ntype R = m![A, B];\ntype P = m![A # 10, B #{0} 16];\n"
    "type S = m![B / 4, A, B % 4];\ncopy rs: R -> S as f32;\n",
    "axes![A = 6, B = 4];\ntype T = m![[A, B] / 4, [A, B] % 4];\ntype U = m![A #{!} 8, B = 2];\n",
    "axes![A = 3];\ntype E = m![A, Q];\n", /* an error */
    "axes![S = 4, A = 8];\ntensor H: HbmTensor<f32, m![1], m![S, A]>;\n"
    "tensor D: DmTensor<f32, m![1], m![1], m![S], m![A]>;\ntype V = m![S, A];\n",
    "axes![M = 32, N = 32, K = 32];\ntensor A: HbmTensor<f32, m![1], m![M, K]>;\n"
    "tensor B: HbmTensor<f32, m![1], m![K, N]>;\ntensor C: HbmTensor<f32, m![1], m![M, N]>;\n"
    "kernel k: C[M, N] = A[M, K] * B[K, N] { tile M = 16, N = 16, K = 32; pack A = m![M / 4, K, M % 4]; "
    "pack B = m![N / 16, K, N % 16]; }\n",
    "",
};
#define NTEXTS (sizeof texts / sizeof *texts)
static const char *const names[] = {"R", "P", "S", "T", "U", "E", "V", "Q", "m![A]", "m![A, B / 2]", "m![", "m![A % 5]",
                                    "", "rs", "k", "H", "D"};
#define NNAMES (sizeof names / sizeof *names)

typedef struct State {
    const uint8_t *data;
    size_t size, at;
    mapc_program *prog[SLOTS];
    bool clean[SLOTS];      /* compiled with MAPC_OK */
    mapc_jit *jit[SLOTS];
    mapc_program *jit_prog[SLOTS]; /* the program each JIT was made from (it may have been freed since) */
    mapc_gemm *gemm;
    mapc_runtime *rt;       /* over prog[0]; freed before it */
    mapc_kernel *kernel;    /* over prog[0]; freed before it */
    int compiles;
} State;

static unsigned next(State *s) { return s->at < s->size ? s->data[s->at++] : 0; }

/* A status must be one of mapc_status's and have a description. */
static mapc_status valid(mapc_status st)
{
    if ((int)st < MAPC_OK || (int)st > MAPC_ERR_BACKEND || !mapc_status_string(st))
        __builtin_trap();
    return st;
}

/* A broken expectation: names its line and condition on stderr, then traps. */
static void fail_at(int line, const char *what)
{
    fprintf(stderr, "fuzz_api.c:%d: expected %s\n", line, what);
    __builtin_trap();
}
#define expect(cond) ((cond) ? (void)0 : fail_at(__LINE__, #cond))

/* Frees what depends on program slot i, then the program. */
static void drop_program(State *s, int i)
{
    if (i == 0) {
        mapc_kernel_free(s->kernel);
        s->kernel = NULL;
        mapc_runtime_free(s->rt);
        s->rt = NULL;
    }
    mapc_program_free(s->prog[i]);
    s->prog[i] = NULL;
    s->clean[i] = false;
}

static void compile(State *s, int i, const char *text, size_t len)
{
    drop_program(s, i);
    mapc_program *p = (mapc_program *)1;
    mapc_status st = valid(mapc_compile_string("<api>", text, len, &p));
    expect(st == MAPC_OK || st == MAPC_ERR_INPUT ? p != NULL : p == NULL);
    expect(st != MAPC_ERR_INPUT || mapc_diag_count(p) > 0);
    s->prog[i] = p;
    s->clean[i] = st == MAPC_OK;
}

/* Queries of a program (NULL included): counts, every diagnostic and one past the end, axes, types. */
static void query(State *s, int i)
{
    mapc_program *p = s->prog[i];
    size_t nd = mapc_diag_count(p);
    for (size_t d = 0; d < nd && d < 4; d++)
        expect(mapc_diag_text(p, d) != NULL);
    expect(mapc_diag_text(p, nd) == NULL);
    int na = mapc_axis_count(p), nt = mapc_type_count(p);
    expect(p ? na >= 0 && nt >= 0 : na == -1);
    const char *name;
    uint64_t size;
    for (int a = -1; a <= na; a++)
        expect(valid(mapc_axis(p, a, &name, &size)) == MAPC_OK ? a >= 0 && a < na && name && size > 0
                                                                 : a < 0 || a >= na || !p);
    for (int t = -1; t <= nt; t++)
        if (valid(mapc_type_name(p, t, &name)) == MAPC_OK)
            expect(t >= 0 && t < nt && name && valid(mapc_type_size(p, name, &size)) != MAPC_ERR_NOT_FOUND);
    expect(valid(mapc_type_size(p, names[next(s) % NNAMES], NULL)) == MAPC_ERR_ARGUMENT);
}

static void eval(State *s, int i)
{
    mapc_program *p = s->prog[i];
    const char *name = names[next(s) % NNAMES];
    uint64_t size = 0;
    int64_t coords[64];
    int kind = -1;
    mapc_status st = valid(mapc_type_size(p, name, &size));
    uint64_t pos = st == MAPC_OK && size ? (next(s) * 7919u) % (size + 1) : next(s);
    st = valid(mapc_eval(p, name, pos, &kind, coords));
    if (st == MAPC_OK)
        expect(kind >= MAPC_CELL_LIVE && kind <= MAPC_CELL_OVERFLOW && (pos < size || kind == MAPC_CELL_OOB));
    expect(valid(mapc_eval(p, name, pos, NULL, coords)) == MAPC_ERR_ARGUMENT);
}

static void equiv(State *s, int i)
{
    int e = -1;
    uint64_t pos = 0;
    mapc_status st = valid(mapc_equiv(s->prog[i], names[next(s) % NNAMES], names[next(s) % NNAMES], &e, &pos));
    expect(st != MAPC_OK || e == 0 || e == 1);
}

/* Creates a JIT of slot i (options from the input) and checks its cell functions against mapc_eval. */
static void jit(State *s, int i)
{
    static const char *const cpus[] = {NULL, "x86-64", "x86-64-v2", "no-such-cpu", "native", ""};
    static const char *const prefixes[] = {NULL, "", "p_", "9bad"};
    mapc_jit_options o = {.opt_level = (int)(next(s) % 5) - 1, .cpu = cpus[next(s) % 6],
                          .prefix = prefixes[next(s) % 4]};
    mapc_jit *j = (mapc_jit *)1;
    mapc_program *p = s->prog[i];
    if (s->compiles++ >= MAX_COMPILES)
        return;
    mapc_status st = valid(mapc_jit_create(p, next(s) % 4 ? &o : NULL, &j));
    expect(st == MAPC_OK ? j != NULL : j == NULL);
    if (s->clean[i] && (o.opt_level >= 0 && o.opt_level <= 3))
        expect(st != MAPC_ERR_INPUT); /* a clean program stays clean whatever failed on it since */
    if (st != MAPC_OK)
        return;
    mapc_jit_free(s->jit[i]);
    s->jit[i] = j;
    s->jit_prog[i] = p;
    int nt = mapc_type_count(p);
    for (int t = 0; t < nt && t < 4; t++) {
        const char *name;
        uint64_t size;
        mapc_cell_fn cell;
        mapc_offset_fn off;
        if (mapc_type_name(p, t, &name) != MAPC_OK || mapc_type_size(p, name, &size) != MAPC_OK)
            continue;
        expect(valid(mapc_jit_cell(j, name, &cell)) == MAPC_OK && valid(mapc_jit_offset(j, name, &off)) == MAPC_OK);
        for (uint64_t pos = 0; pos <= size && pos < 64; pos++) {
            int64_t c1[64] = {0}, c2[64] = {0};
            int k1 = -1;
            if (mapc_eval(p, name, pos, &k1, c1) != MAPC_OK)
                continue;
            int k2 = cell(pos, c2);
            expect(k1 == k2 && memcmp(c1, c2, sizeof c1) == 0);
            if (k1 == MAPC_CELL_LIVE)
                expect(off(c2) >= 0 && off(c2) <= (int64_t)pos);
        }
    }
    void *fn;
    expect(valid(mapc_jit_lookup(j, "no_such_symbol", &fn)) == MAPC_ERR_NOT_FOUND);
    expect(valid(mapc_jit_lookup(j, NULL, &fn)) == MAPC_ERR_ARGUMENT);
}

/* Calls into a JIT of slot i after its program may have been freed (the JIT does not borrow it). */
static void jit_use(State *s, int i)
{
    mapc_jit *j = s->jit[i];
    mapc_cell_fn cell;
    mapc_copy_fn copy;
    mapc_each_fn each;
    const char *name = names[next(s) % NNAMES];
    if (valid(mapc_jit_cell(j, name, &cell)) == MAPC_OK) {
        int64_t c[64];
        int k = cell(next(s), c);
        expect(k >= MAPC_CELL_LIVE && k <= MAPC_CELL_OVERFLOW);
    }
    valid(mapc_jit_each(j, name, &each));
    if (valid(mapc_jit_copy(j, name, &copy)) == MAPC_OK && strcmp(name, "rs") == 0) {
        float a[96], b[160];
        for (int x = 0; x < 96; x++)
            a[x] = (float)x;
        copy(b, a);
        expect(b[0] == 0.0f && b[1] == 1.0f && b[4] == 12.0f); /* S = m![B / 4, A, B % 4]: S 4 holds A 1, B 0 = R 12 */
    }
}

/* The strided-view GEMM: a good 2x3 by 3x2 product, and views that must fail with their message. */
static void gemm(State *s)
{
    static const char *const isas[] = {NULL, "", "avx2", "portable", "bogus"};
    if (!s->gemm) {
        mapc_gemm_options o = {.threads = (int)(next(s) % 4) - 1, .isa = isas[next(s) % 5]};
        mapc_gemm *g = (mapc_gemm *)1;
        mapc_status st = valid(mapc_gemm_create(&o, &g));
        expect(st == MAPC_OK ? g != NULL : g == NULL);
        s->gemm = g;
        return;
    }
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1}, c[4] = {9, 9, 9, 9};
    mapc_matrix ma = mapc_row_major(a, 2, 3, MAPC_F32), mb = mapc_row_major(b, 3, 2, MAPC_F32),
                mc = mapc_row_major(c, 2, 2, MAPC_F32);
    switch (next(s) % 5) {
    case 0: ma.len = next(s) % 6; break;           /* too short */
    case 1: mb.rows = 2; break;                    /* shapes disagree */
    case 2: mc.rs = 0; break;                      /* C aliases itself */
    case 3: mc.data = a; mc.len = 6; break;        /* C aliases A */
    default: break;
    }
    mapc_status st = valid(mapc_gemm_f32(s->gemm, 1.0f, &ma, &mb, 0.0f, &mc));
    expect(st == MAPC_OK ? mapc_gemm_error(s->gemm)[0] == 0 : st == MAPC_ERR_ARGUMENT && mapc_gemm_error(s->gemm)[0]);
    if (st == MAPC_OK && mc.data == c)
        expect(c[0] == 4 && c[1] == 5 && c[2] == 10 && c[3] == 11);
}

/* A runtime over slot 0 with tensor H and D (text 3), a write, a DMA and a read back. */
static void runtime(State *s)
{
    mapc_program *p = s->prog[0];
    if (!s->rt) {
        mapc_runtime *rt = (mapc_runtime *)1;
        mapc_status st = valid(mapc_runtime_create(p, (int)(next(s) % 3), &rt));
        expect(st == MAPC_OK ? rt != NULL : rt == NULL);
        s->rt = rt;
        return;
    }
    mapc_tensor *h, *d;
    if (valid(mapc_tensor_create(s->rt, "H", &h)) != MAPC_OK || valid(mapc_tensor_create(s->rt, "D", &d)) != MAPC_OK)
        return;
    mapc_view *vh, *vd, *rd;
    expect(valid(mapc_tensor_view(s->rt, h, 1, &vh)) == MAPC_OK &&
           valid(mapc_tensor_view(s->rt, d, 1, &vd)) == MAPC_OK && valid(mapc_tensor_view(s->rt, d, 0, &rd)) == MAPC_OK);
    float in[32], out[32];
    for (int x = 0; x < 32; x++)
        in[x] = (float)(x * 3 + (int)next(s));
    expect(mapc_tensor_host_elems(h) == 32);
    expect(valid(mapc_view_write(s->rt, vh, in)) == MAPC_OK && valid(mapc_dma(s->rt, vd, vh)) == MAPC_OK &&
           valid(mapc_view_read(s->rt, rd, out)) == MAPC_OK && memcmp(in, out, sizeof in) == 0);
    mapc_view *tile;
    valid(mapc_view_tile(s->rt, vh, (int)(next(s) % 4) - 1, names[next(s) % NNAMES], next(s) % 9, next(s) % 9, &tile));
}

/* The declared kernel k of slot 0 (text 4): created once, run on ones, C = 32 everywhere. */
static void kernel(State *s)
{
    if (!s->kernel) {
        if (s->compiles++ >= MAX_COMPILES)
            return;
        mapc_kernel_options o = {.threads = (int)(next(s) % 3) - 1};
        mapc_kernel *k = (mapc_kernel *)1;
        mapc_status st = valid(mapc_kernel_create(s->prog[0], names[next(s) % NNAMES], &o, &k));
        expect(st == MAPC_OK ? k != NULL : k == NULL);
        s->kernel = k;
        return;
    }
    size_t na = mapc_kernel_operand_bytes(s->kernel, 0), nb = mapc_kernel_operand_bytes(s->kernel, 1),
           nc = mapc_kernel_operand_bytes(s->kernel, 2);
    expect(na == 32 * 32 * 4 && nb == na && nc == na && mapc_kernel_operand_bytes(s->kernel, 3) == 0);
    float *a = malloc(na), *b = malloc(nb), *c = malloc(nc);
    expect(a && b && c);
    for (size_t x = 0; x < 32 * 32; x++)
        a[x] = b[x] = 1.0f, c[x] = 5.0f;
    double beta = next(s) % 2;
    mapc_status st = valid(mapc_kernel_run(s->kernel, a, next(s) % 5 ? b : NULL, c, 1.0, beta));
    if (st == MAPC_OK)
        expect(mapc_kernel_error(s->kernel)[0] == 0 && c[0] == 32.0f + 5.0f * (float)beta &&
               c[1023] == c[0]);
    else
        expect(st == MAPC_ERR_ARGUMENT && mapc_kernel_error(s->kernel)[0]);
    free(a);
    free(b);
    free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_INPUT)
        return 0;
    State s = {.data = data, .size = size};
    expect(mapc_version() && strcmp(mapc_version(), MAPC_VERSION_STRING) == 0);
    while (s.at < s.size) {
        unsigned op = next(&s);
        int i = (int)(op >> 4) % SLOTS;
        switch (op % 13) {
        case 0:
        case 1: {
            unsigned t = next(&s) % NTEXTS;
            compile(&s, i, texts[t], strlen(texts[t]));
            break;
        }
        case 2: { /* the next bytes of the input as a program */
            size_t n = next(&s) % 64;
            if (n > s.size - s.at)
                n = s.size - s.at;
            compile(&s, i, (const char *)data + s.at, n);
            s.at += n;
            break;
        }
        case 3: drop_program(&s, i); break;
        case 4: query(&s, i); break;
        case 5: eval(&s, i); break;
        case 6: equiv(&s, i); break;
        case 7: jit(&s, i); break;
        case 8: jit_use(&s, i); break;
        case 9: mapc_jit_free(s.jit[i]); s.jit[i] = NULL; break;
        case 10: gemm(&s); break;
        case 11: runtime(&s); break;
        default: kernel(&s); break;
        }
    }
    for (int i = 0; i < SLOTS; i++) {
        mapc_jit_free(s.jit[i]);
        drop_program(&s, i);
    }
    mapc_gemm_free(s.gemm);
    return 0;
}
