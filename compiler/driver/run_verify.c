/* run_verify.c — seeded operands for `mapc run` and the double-precision check of its results. */
#include "run_verify.h"
#include "gemm/gemm.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix64(uint64_t z);

/* splitmix64: the next value of the stream at *s. */
static uint64_t next_random(uint64_t *s)
{
    return mix64(*s += 0x9e3779b97f4a7c15ULL);
}

bool drv_host_alloc(HostMat *m)
{
    size_t n = (size_t)(m->rows * m->cols);
    m->data = calloc(n ? n : 1, elem_type_size(m->elem));
    return m->data != NULL;
}

/* splitmix64's output for the state value z (the generator's state after a step). */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

typedef struct FillPart {
    HostMat *m;
    uint64_t seed, lo, hi;  /* elements [lo, hi) of the stream that starts after seed */
    bool nan_fill;
} FillPart;

/* Fills elements [lo, hi): element i takes the (i + 1)-th output of splitmix64 from seed. */
static void *fill_part(void *arg)
{
    FillPart *f = arg;
    HostMat *m = f->m;
    for (uint64_t i = f->lo; i < f->hi; i++) {
        uint64_t r = mix64(f->seed + (i + 1) * 0x9e3779b97f4a7c15ULL);
        float x = (float)((double)(r >> 11) * 0x1p-52 - 1.0); /* [-1, 1) */
        switch (m->elem) {
        case ELEM_F32: ((float *)m->data)[i] = f->nan_fill ? NAN : x; break;
        case ELEM_BF16: ((uint16_t *)m->data)[i] = gemm_f32_to_bf16(x); break;
        case ELEM_F16: ((uint16_t *)m->data)[i] = gemm_f32_to_f16(x); break;
        case ELEM_I8: ((int8_t *)m->data)[i] = (int8_t)(uint8_t)(r >> 56); break;
        case ELEM_I32: ((int32_t *)m->data)[i] = (int32_t)(r % 2001) - 1000; break;
        case ELEM_F64: ((double *)m->data)[i] = x; break;
        case ELEM_COUNT: break;
        }
    }
    return NULL;
}

void drv_host_fill(HostMat *m, uint64_t *seed, bool nan_fill, int threads)
{
    uint64_t n = m->rows * m->cols;
    enum { MAX_FILL_THREADS = 16 };
    FillPart part[MAX_FILL_THREADS];
    pthread_t tid[MAX_FILL_THREADS];
    bool running[MAX_FILL_THREADS] = {0};
    int nt = threads < 1 ? 1 : threads > MAX_FILL_THREADS ? MAX_FILL_THREADS : threads;
    if (n < ((uint64_t)1 << 16))
        nt = 1;
    for (int t = 0; t < nt; t++) {
        part[t] = (FillPart){m, *seed, n * (uint64_t)t / (uint64_t)nt, n * (uint64_t)(t + 1) / (uint64_t)nt, nan_fill};
        running[t] = t > 0 && pthread_create(&tid[t], NULL, fill_part, &part[t]) == 0;
    }
    for (int t = 0; t < nt; t++)
        if (!running[t])
            fill_part(&part[t]);
    for (int t = 0; t < nt; t++)
        if (running[t])
            pthread_join(tid[t], NULL);
    *seed += n * 0x9e3779b97f4a7c15ULL; /* as if the n values had been drawn one by one */
}

double drv_host_get(const HostMat *m, uint64_t i, uint64_t j)
{
    size_t o = (size_t)(i * m->ri + j * m->ci);
    switch (m->elem) {
    case ELEM_F32: return ((const float *)m->data)[o];
    case ELEM_BF16: return gemm_bf16_to_f32(((const uint16_t *)m->data)[o]);
    case ELEM_F16: return gemm_f16_to_f32(((const uint16_t *)m->data)[o]);
    case ELEM_I8: return ((const int8_t *)m->data)[o];
    case ELEM_I32: return ((const int32_t *)m->data)[o];
    case ELEM_F64: return ((const double *)m->data)[o];
    case ELEM_COUNT: break;
    }
    return 0;
}

/* Folds element (i, j)'s comparison into r: got against want, err its error (see CheckResult). */
static void record(CheckResult *r, uint64_t i, uint64_t j, double got, double want, double err)
{
    r->checked++;
    if (err > r->max_err || (r->checked == 1 && err >= r->max_err)) {
        r->max_err = err;
        r->worst_i = i;
        r->worst_j = j;
        r->worst_got = got;
        r->worst_want = want;
    }
}

/* The reference value of element (i, j) from its exact or double sum acc, the sum of the magnitudes
 * of its products mag and C0's element c0, compared with got. */
static void judge(CheckResult *r, ElemType elem, double alpha, double beta, uint64_t i, uint64_t j, double got,
                  double acc, double mag, double c0)
{
    double want, err;
    if (elem == ELEM_I32) { /* acc is an exact integer: |a*b| <= 2^14, so sums stay below 2^53 */
        uint64_t w = (uint64_t)(int64_t)alpha * (uint64_t)(int64_t)acc + (uint64_t)(int64_t)beta * (uint64_t)(int64_t)c0;
        want = (double)(int32_t)(uint32_t)w;
        err = got == want ? 0.0 : INFINITY;
    } else {
        double cterm = beta == 0.0 ? 0.0 : beta * c0;
        want = alpha * acc + cterm;
        double s = fabs(alpha) * mag + fabs(cterm);
        err = isnan(got) || isinf(got) ? INFINITY : fabs(got - want) / (s > 0 ? s : 1.0);
    }
    record(r, i, j, got, want, err);
}

/* Compares element (i, j) by its own dot product (the sampled check). */
static void check_one(const HostMat *a, const HostMat *b, const HostMat *c0, const HostMat *c, double alpha,
                      double beta, uint64_t i, uint64_t j, CheckResult *r)
{
    double acc = 0, mag = 0;
    for (uint64_t p = 0; p < a->cols; p++) {
        double t = drv_host_get(a, i, p) * drv_host_get(b, p, j);
        acc += t;
        mag += fabs(t);
    }
    judge(r, c->elem, alpha, beta, i, j, drv_host_get(c, i, j), acc, mag, beta == 0.0 ? 0.0 : drv_host_get(c0, i, j));
}

/* The blocked reference: A (m x k) and B (k x np, np the columns rounded up to REF_COLS with zeros)
 * as dense doubles, each thread taking a range of row blocks. */
enum { REF_ROWS = 4, REF_COLS = 64 };
typedef struct RefPart {
    const HostMat *c0, *c;
    const double *a, *b;
    uint64_t m, n, k, np;
    double alpha, beta;
    uint64_t row0, row1;    /* rows [row0, row1) */
    CheckResult r;
} RefPart;

/* Computes rows [row0, row1) of the reference REF_ROWS x REF_COLS at a time, in p order (each element
 * summed in the same order as check_one), and judges every element. */
__attribute__((target_clones("avx512f", "avx2", "default"))) static void *ref_rows(void *arg)
{
    RefPart *t = arg;
    double acc[REF_ROWS][REF_COLS], mag[REF_ROWS][REF_COLS];
    for (uint64_t i0 = t->row0; i0 < t->row1; i0 += REF_ROWS) {
        uint64_t ni = t->row1 - i0 < REF_ROWS ? t->row1 - i0 : REF_ROWS;
        for (uint64_t j0 = 0; j0 < t->n; j0 += REF_COLS) {
            memset(acc, 0, sizeof acc);
            memset(mag, 0, sizeof mag);
            for (uint64_t p = 0; p < t->k; p++) {
                const double *bp = t->b + p * t->np + j0;
                for (uint64_t ii = 0; ii < ni; ii++) {
                    double av = t->a[(i0 + ii) * t->k + p];
                    for (int jj = 0; jj < REF_COLS; jj++) {
                        double x = av * bp[jj];
                        acc[ii][jj] += x;
                        mag[ii][jj] += fabs(x);
                    }
                }
            }
            for (uint64_t ii = 0; ii < ni; ii++)
                for (uint64_t jj = 0; jj < REF_COLS && j0 + jj < t->n; jj++) {
                    uint64_t i = i0 + ii, j = j0 + jj;
                    judge(&t->r, t->c->elem, t->alpha, t->beta, i, j, drv_host_get(t->c, i, j), acc[ii][jj],
                          mag[ii][jj], t->beta == 0.0 ? 0.0 : drv_host_get(t->c0, i, j));
                }
        }
    }
    return NULL;
}

/* Every element checked by the blocked reference on up to `threads` threads; false when the dense
 * copies do not fit in memory (the caller falls back to check_one). */
static bool check_all_blocked(const HostMat *a, const HostMat *b, const HostMat *c0, const HostMat *c, double alpha,
                              double beta, int threads, CheckResult *r)
{
    uint64_t m = c->rows, n = c->cols, k = a->cols, np = (n + REF_COLS - 1) / REF_COLS * REF_COLS;
    if (m * k > (1ull << 27) || k * np > (1ull << 27)) /* 1 GiB each at most */
        return false;
    double *ad = malloc((size_t)(m * k + 1) * sizeof *ad), *bd = calloc((size_t)(k * np + 1), sizeof *bd);
    RefPart *part = calloc((size_t)threads, sizeof *part);
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    bool *running = calloc((size_t)threads, sizeof *running);
    bool ok = ad && bd && part && tid && running;
    if (ok) {
        for (uint64_t i = 0; i < m; i++)
            for (uint64_t p = 0; p < k; p++)
                ad[i * k + p] = drv_host_get(a, i, p);
        for (uint64_t p = 0; p < k; p++)
            for (uint64_t j = 0; j < n; j++)
                bd[p * np + j] = drv_host_get(b, p, j);
        uint64_t blocks = (m + REF_ROWS - 1) / REF_ROWS;
        for (int t = 0; t < threads; t++) {
            part[t] = (RefPart){.c0 = c0, .c = c, .a = ad, .b = bd, .m = m, .n = n, .k = k, .np = np,
                                .alpha = alpha, .beta = beta};
            part[t].row0 = blocks * (uint64_t)t / (uint64_t)threads * REF_ROWS;
            part[t].row1 = blocks * (uint64_t)(t + 1) / (uint64_t)threads * REF_ROWS;
            if (part[t].row1 > m)
                part[t].row1 = m;
            running[t] = t > 0 && pthread_create(&tid[t], NULL, ref_rows, &part[t]) == 0;
        }
        for (int t = 0; t < threads; t++) /* the parts no thread took run here */
            if (!running[t])
                ref_rows(&part[t]);
        for (int t = 0; t < threads; t++)
            if (running[t])
                pthread_join(tid[t], NULL);
        /* merge in row order, so the worst element is the first of the largest error */
        for (int t = 0; t < threads; t++) {
            const CheckResult *q = &part[t].r;
            if (q->checked && (q->max_err > r->max_err || r->checked == 0)) {
                r->max_err = q->max_err;
                r->worst_i = q->worst_i;
                r->worst_j = q->worst_j;
                r->worst_got = q->worst_got;
                r->worst_want = q->worst_want;
            }
            r->checked += q->checked;
        }
    }
    free(ad);
    free(bd);
    free(part);
    free(tid);
    free(running);
    return ok;
}

CheckResult drv_check_gemm(const HostMat *a, const HostMat *b, const HostMat *c0, const HostMat *c, double alpha,
                           double beta, const CheckPolicy *policy)
{
    CheckResult r = {0};
    uint64_t m = c->rows, n = c->cols, k = a->cols;
    r.bound = c->elem == ELEM_I32 ? 0.0 : (double)(k + 2) * 0x1p-24;
    double work = (double)m * (double)n * (double)(k ? k : 1);
    uint64_t seed = policy->seed;
    if (policy->all || work <= (double)policy->full_limit || policy->samples >= m * n) {
        int threads = policy->threads < 1 ? 1 : policy->threads > 64 ? 64 : policy->threads;
        if (!check_all_blocked(a, b, c0, c, alpha, beta, threads, &r))
            for (uint64_t i = 0; i < m; i++)
                for (uint64_t j = 0; j < n; j++)
                    check_one(a, b, c0, c, alpha, beta, i, j, &r);
    } else {
        r.sampled = true;
        for (uint64_t s = 0; s < policy->samples; s++) {
            uint64_t x = next_random(&seed);
            check_one(a, b, c0, c, alpha, beta, x % m, (x >> 32) % n, &r);
        }
    }
    r.ok = r.max_err <= r.bound;
    return r;
}
