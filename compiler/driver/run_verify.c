/* run_verify.c — seeded operands for `mapc run` and the double-precision check of its results. */
#include "run_verify.h"
#include "gemm/gemm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

bool drv_host_alloc(HostMat *m)
{
    size_t n = (size_t)(m->rows * m->cols);
    m->data = calloc(n ? n : 1, elem_type_size(m->elem));
    return m->data != NULL;
}

void drv_host_fill(HostMat *m, uint64_t *seed, bool nan_fill)
{
    uint64_t n = m->rows * m->cols;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = next_random(seed);
        float f = (float)((double)(r >> 11) * 0x1p-52 - 1.0); /* [-1, 1) */
        switch (m->elem) {
        case ELEM_F32: ((float *)m->data)[i] = nan_fill ? NAN : f; break;
        case ELEM_BF16: ((uint16_t *)m->data)[i] = gemm_f32_to_bf16(f); break;
        case ELEM_F16: ((uint16_t *)m->data)[i] = gemm_f32_to_f16(f); break;
        case ELEM_I8: ((int8_t *)m->data)[i] = (int8_t)(uint8_t)(r >> 56); break;
        case ELEM_I32: ((int32_t *)m->data)[i] = (int32_t)(r % 2001) - 1000; break;
        case ELEM_F64: ((double *)m->data)[i] = f; break;
        case ELEM_COUNT: break;
        }
    }
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

/* Compares element (i, j), updating r. */
static void check_one(const HostMat *a, const HostMat *b, const HostMat *c0, const HostMat *c, double alpha,
                      double beta, uint64_t i, uint64_t j, CheckResult *r)
{
    uint64_t k = a->cols;
    double got = drv_host_get(c, i, j), want, err;
    if (c->elem == ELEM_I32) {
        int64_t acc = 0;
        for (uint64_t p = 0; p < k; p++)
            acc += (int64_t)drv_host_get(a, i, p) * (int64_t)drv_host_get(b, p, j);
        uint64_t w = (uint64_t)(int64_t)alpha * (uint64_t)acc + (uint64_t)(int64_t)beta * (uint64_t)(int64_t)drv_host_get(c0, i, j);
        want = (double)(int32_t)(uint32_t)w;
        err = got == want ? 0.0 : INFINITY;
    } else {
        double acc = 0, mag = 0;
        for (uint64_t p = 0; p < k; p++) {
            double t = drv_host_get(a, i, p) * drv_host_get(b, p, j);
            acc += t;
            mag += fabs(t);
        }
        double cterm = beta == 0.0 ? 0.0 : beta * drv_host_get(c0, i, j);
        want = alpha * acc + cterm;
        double s = fabs(alpha) * mag + fabs(cterm);
        err = fabs(got - want) / (s > 0 ? s : 1.0);
        if (isnan(got))
            err = INFINITY;
    }
    r->checked++;
    if (err > r->max_err || (r->checked == 1 && err >= r->max_err)) {
        r->max_err = err;
        r->worst_i = i;
        r->worst_j = j;
        r->worst_got = got;
        r->worst_want = want;
    }
}

CheckResult drv_check_gemm(const HostMat *a, const HostMat *b, const HostMat *c0, const HostMat *c, double alpha,
                       double beta, bool all, uint64_t full_limit, uint64_t samples, uint64_t seed)
{
    CheckResult r = {0};
    uint64_t m = c->rows, n = c->cols, k = a->cols;
    r.bound = c->elem == ELEM_I32 ? 0.0 : (double)(k + 2) * 0x1p-24;
    double work = (double)m * (double)n * (double)(k ? k : 1);
    if (all || work <= (double)full_limit || samples >= m * n) {
        for (uint64_t i = 0; i < m; i++)
            for (uint64_t j = 0; j < n; j++)
                check_one(a, b, c0, c, alpha, beta, i, j, &r);
    } else {
        r.sampled = true;
        for (uint64_t s = 0; s < samples; s++) {
            uint64_t x = next_random(&seed);
            check_one(a, b, c0, c, alpha, beta, x % m, (x >> 32) % n, &r);
        }
    }
    r.ok = r.max_err <= r.bound;
    return r;
}
