/* small.c — the engine's path for f32 products of one k block: a micro-tile that divides M and N, A read unpacked
 * and B read unpacked (small B) or packed once per task, no edge tiles and no loop nest. */
#include "gemm_impl.h"
#include "pool.h"

#include <stdlib.h>

/* B is read unpacked when it is at most this many bytes: its panels then stay in L1 whatever its row
 * stride (a larger B at a power-of-two stride would fight over a few L1 and L2 sets). */
enum { DIRECT_B_MAX_BYTES = 32 * 1024 };
/* Fewer accumulators than this cannot hide the multiply-add latency on two ports. */
enum { MIN_ACCUMULATORS = 8 };
/* Products of at least this many flops take only the ISA's default micro-tile: over many tiles its larger
 * accumulator count wins more than a divisor of M saves on the edge (measured 4096 x 4096 x 64 f32 on a Zen 5:
 * 8 x 32 tiles 4% slower than the packed 12 x 32 path). */
#define DEFAULT_TILE_FLOPS 8e6
/* Packed B panels start on a cache line. */
enum { SMALL_ALIGN = 64 };

typedef void (*MacroDirect)(int64_t mc, int64_t nc, int64_t kc, const void *a, const void *bp, void *c, int64_t rs,
                            int64_t cs, float alpha, float beta, const int32_t *colsum, int64_t a_rs);
typedef void (*MacroSmall)(int64_t mc, int64_t nc, int64_t kc, const void *a, const void *b, void *c, int64_t rs,
                           int64_t cs, float alpha, float beta, const int32_t *colsum, int64_t a_rs, int64_t b_rs);

struct GemmSmall {
    GemmKernels k[TARGET_MAX_VEC_REGS + 1][TARGET_MAX_NV + 1]; /* per mr and nv, looked up on first use */
    void **bbuf;            /* per task: B packed for the whole row of panels */
    size_t *bbufsize;
    int tasks;
    int64_t l2;             /* bytes of one core's L2 (the host's caches, target_host_caches) */
};

GemmSmall *gemm_small_new(int tasks)
{
    GemmSmall *s = calloc(1, sizeof *s);
    if (!s || !(s->bbuf = calloc((size_t)tasks, sizeof *s->bbuf)) ||
        !(s->bbufsize = calloc((size_t)tasks, sizeof *s->bbufsize))) {
        gemm_small_free(s);
        return NULL;
    }
    s->tasks = tasks;
    s->l2 = (int64_t)gemm_cpu()->caches.l2;
    return s;
}

void gemm_small_free(GemmSmall *s)
{
    if (!s)
        return;
    if (s->bbuf)
        for (int i = 0; i < s->tasks; i++)
            free(s->bbuf[i]);
    free(s->bbuf);
    free(s->bbufsize);
    free(s);
}

/* The micro-tile of an m x n x k product: when it is large (DEFAULT_TILE_FLOPS) the ISA's default if that
 * divides m and n; else nr a multiple of the vector width that divides n, mr the largest row count the
 * registers allow that divides m, the pair with the most accumulators (the wider nr on ties). False when
 * none fits (the default does not divide, or no pair has MIN_ACCUMULATORS). */
static bool pick_tile(const TargetInfo *ti, int64_t m, int64_t n, int64_t k, int *mr, int *nr)
{
    if (2.0 * (double)m * (double)n * (double)k >= DEFAULT_TILE_FLOPS) {
        *mr = ti->default_mr;
        *nr = ti->default_nr;
        return m % *mr == 0 && n % *nr == 0;
    }
    int best = 0;
    for (int nv = 1; nv <= ti->max_nv; nv++) {
        int w = nv * ti->lanes;
        if (n % w)
            continue;
        int top = target_max_mr(ti, w);
        if (top > ti->default_mr)
            top = ti->default_mr;   /* taller tiles measured no faster, and each is one more JIT module */
        for (int r = top; r >= 1; r--)
            if (m % r == 0) {
                if (r * nv >= best) {
                    best = r * nv;
                    *mr = r;
                    *nr = w;
                }
                break;
            }
    }
    return best >= MIN_ACCUMULATORS;
}

typedef struct SmallJob {
    GemmSmall *s;
    const GemmKernels *k;
    const GemmView *a, *b, *c;
    float alpha, beta;
    int mr, nr;
    int64_t chunk;          /* rows of C per task (a multiple of mr) */
    int64_t mb;             /* rows per macro-kernel call: an A block of mb x K stays in L2 */
    bool direct_b;
} SmallJob;

/* Task t: rows [t*chunk, (t+1)*chunk) of C, in blocks of mb rows against the whole of B. */
static void small_task(void *arg, int t)
{
    SmallJob *j = arg;
    int64_t m = (int64_t)j->c->rows, n = (int64_t)j->c->cols, k = (int64_t)j->a->cols;
    int64_t m0 = t * j->chunk, m1 = m0 + j->chunk < m ? m0 + j->chunk : m;
    if (m0 >= m1)
        return;
    const float *a = j->a->data, *b = j->b->data;
    float *c = j->c->data;
    const void *bp = b;
    if (!j->direct_b) {
        j->k->pack_b(j->s->bbuf[t], b, j->b->cs, j->b->rs, n, k);
        bp = j->s->bbuf[t];
    }
    for (int64_t i = m0; i < m1; i += j->mb) {
        int64_t rows = i + j->mb < m1 ? j->mb : m1 - i;
        const float *ai = a + i * j->a->rs;
        float *ci = c + i * j->c->rs;
        if (j->direct_b)
            ((MacroSmall)j->k->macro_small)(rows, n, k, ai, bp, ci, j->c->rs, 1, j->alpha, j->beta, NULL,
                                            j->a->rs * 4, j->b->rs * 4);
        else
            ((MacroDirect)j->k->macro_direct)(rows, n, k, ai, bp, ci, j->c->rs, 1, j->alpha, j->beta, NULL,
                                              j->a->rs * 4);
    }
}

int gemm_small(GemmSmall *s, TargetIsa isa, RtPool *pool, int tasks, int kc, float alpha, float beta,
               const GemmView *a, const GemmView *b, const GemmView *c, char *err, size_t cap)
{
    const TargetInfo *ti = target_info(isa);
    int64_t m = (int64_t)c->rows, n = (int64_t)c->cols, k = (int64_t)a->cols;
    if (!s || a->type != GEMM_F32 || b->type != GEMM_F32 || c->type != GEMM_F32 || a->cs != 1 || b->cs != 1 ||
        c->cs != 1 || k > kc || m < 1 || n < 1 || k < 1 || tasks > s->tasks)
        return 0;
    int mr, nr;
    if (!pick_tile(ti, m, n, k, &mr, &nr))
        return 0;
    GemmKernels *kk = &s->k[mr][nr / ti->lanes];
    if (!kk->macro) {
        CgGemmSpec spec;
        CgPackConv ca, cb;
        cg_gemm_spec_for(ti, TARGET_OP_FMA, TARGET_IN_F32, mr, nr, ti->order, &spec, &ca, &cb);
        if (ca != CG_PACK_F32 || cb != CG_PACK_F32 || spec.kind != CG_GEMM_F32)
            return 0;
        if (gemm_kernels(&spec, ca, cb, true, kk, err, cap))
            return -1;
    }
    if (!kk->macro_small || !kk->macro_direct)
        return 0;
    SmallJob j = {.s = s, .k = kk, .a = a, .b = b, .c = c, .alpha = alpha, .beta = beta, .mr = mr, .nr = nr};
    j.direct_b = (int64_t)k * n * 4 <= DIRECT_B_MAX_BYTES;
    int64_t units = m / mr;
    if (tasks > units)
        tasks = (int)units;
    j.chunk = (units + tasks - 1) / tasks * mr;
    /* half of L2 for the A block, the rest for C's lines and B's panels */
    int64_t rows = s->l2 / 2 / (k * 4) / mr * mr;
    j.mb = rows < mr ? mr : rows;
    if (!j.direct_b) {
        size_t need = (size_t)(n * k * 4 + SMALL_ALIGN - 1) / SMALL_ALIGN * SMALL_ALIGN;
        if (gemm_grow_buffers(s->bbuf, s->bbufsize, tasks, need, SMALL_ALIGN, err, cap))
            return -1;
    }
    if (tasks == 1)
        small_task(&j, 0);
    else
        rt_pool_run(pool, tasks, small_task, &j);
    return 1;
}
