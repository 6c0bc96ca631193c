/* gemm_check.c — the GEMM validation prelude over strided views: types, shapes, bounds, aliasing. */
#include "gemm.h"

#include "core/base.h"

#include <stdarg.h>
#include <stdio.h>

GemmView gemm_view(void *data, uint64_t len, uint64_t rows, uint64_t cols, int64_t rs, int64_t cs, GemmType t)
{
    return (GemmView){.data = data, .len = len, .rows = rows, .cols = cols, .rs = rs, .cs = cs, .type = t};
}

GemmView gemm_sub_view(const GemmView *v, uint64_t r0, uint64_t c0, uint64_t rows, uint64_t cols)
{
    uint64_t off = r0 * (uint64_t)v->rs + c0 * (uint64_t)v->cs;
    return gemm_view((char *)v->data + off * gemm_type_size(v->type), v->len > off ? v->len - off : 0, rows, cols,
                     v->rs, v->cs, v->type);
}

GemmView gemm_row_major(void *data, uint64_t rows, uint64_t cols, GemmType t)
{
    return gemm_view(data, rows * cols, rows, cols, (int64_t)cols, 1, t);
}

GemmView gemm_col_major(void *data, uint64_t rows, uint64_t cols, GemmType t)
{
    return gemm_view(data, rows * cols, rows, cols, 1, (int64_t)rows, t);
}

size_t gemm_type_size(GemmType t)
{
    switch (t) {
    case GEMM_F32: case GEMM_I32: return 4;
    case GEMM_BF16: case GEMM_F16: return 2;
    case GEMM_I8: return 1;
    }
    return 0;
}

const char *gemm_type_name(GemmType t)
{
    switch (t) {
    case GEMM_F32: return "f32";
    case GEMM_BF16: return "bf16";
    case GEMM_F16: return "f16";
    case GEMM_I8: return "i8";
    case GEMM_I32: return "i32";
    }
    return "?";
}

static int fail(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t cap, const char *fmt, ...)
{
    if (err && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, cap, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* The extent of a view in elements: 1 + the highest offset it addresses (0 for a zero extent).
 * False when a stride is negative or the extent in bytes does not fit in int64. */
static bool view_extent(const GemmView *v, uint64_t *elems)
{
    *elems = 0;
    if (v->rs < 0 || v->cs < 0)
        return false;
    if (v->rows == 0 || v->cols == 0)
        return true;
    uint64_t hi_r, hi_c, hi;
    if (__builtin_mul_overflow(v->rows - 1, (uint64_t)v->rs, &hi_r) ||
        __builtin_mul_overflow(v->cols - 1, (uint64_t)v->cs, &hi_c) || __builtin_add_overflow(hi_r, hi_c, &hi) ||
        hi == UINT64_MAX)
        return false;
    uint64_t bytes;
    if (__builtin_mul_overflow(hi + 1, (uint64_t)gemm_type_size(v->type), &bytes) || bytes > (uint64_t)INT64_MAX)
        return false;
    *elems = hi + 1;
    return true;
}

/* Whether (i, j) -> i*rs + j*cs is injective on [0, rows) x [0, cols) (strides non-negative).
 * Exact: two cells collide iff some (di, dj) != 0 with |di| < rows, |dj| < cols has
 * di*rs == dj*cs. With a zero stride on an extent > 1 that is (1, 0) or (0, 1); with both strides
 * positive the smallest solution with di, dj > 0 is (cs/g, rs/g), g = gcd(rs, cs). */
static bool view_injective(const GemmView *v)
{
    if (v->rows == 0 || v->cols == 0 || (v->rows == 1 && v->cols == 1))
        return true;
    if (v->rows <= 1)
        return v->cs != 0;
    if (v->cols <= 1)
        return v->rs != 0;
    if (v->rs == 0 || v->cs == 0)
        return false;
    uint64_t rs = (uint64_t)v->rs, cs = (uint64_t)v->cs, g = u64_gcd(rs, cs);
    return !(cs / g < v->rows && rs / g < v->cols);
}

static bool supported(GemmType a, GemmType b, GemmType c)
{
    if (a != b)
        return false;
    return ((a == GEMM_F32 || a == GEMM_BF16 || a == GEMM_F16) && c == GEMM_F32) || (a == GEMM_I8 && c == GEMM_I32);
}

/* Whether the byte ranges [p, p+n) and [q, q+m) intersect (empty ranges intersect nothing). */
static bool bytes_overlap(const void *p, uint64_t n, const void *q, uint64_t m)
{
    if (n == 0 || m == 0)
        return false;
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
    return a < b + m && b < a + n;
}

int gemm_check(const GemmView *a, const GemmView *b, const GemmView *c, char *err, size_t cap)
{
    if (!a || !b || !c)
        return fail(err, cap, "%s view is missing (a null pointer)", !a ? "A" : !b ? "B" : "C");
    if (!supported(a->type, b->type, c->type))
        return fail(err, cap,
                    "unsupported element types %s x %s -> %s; supported: f32 x f32 -> f32, bf16 x bf16 -> f32, "
                    "f16 x f16 -> f32, i8 x i8 -> i32",
                    gemm_type_name(a->type), gemm_type_name(b->type), gemm_type_name(c->type));
    if (a->cols != b->rows)
        return fail(err, cap, "A.cols (%llu) != B.rows (%llu)", (unsigned long long)a->cols,
                    (unsigned long long)b->rows);
    if (a->rows != c->rows)
        return fail(err, cap, "A.rows (%llu) != C.rows (%llu)", (unsigned long long)a->rows,
                    (unsigned long long)c->rows);
    if (b->cols != c->cols)
        return fail(err, cap, "B.cols (%llu) != C.cols (%llu)", (unsigned long long)b->cols,
                    (unsigned long long)c->cols);
    const GemmView *views[3] = {a, b, c};
    uint64_t ext[3];
    for (int i = 0; i < 3; i++) {
        const GemmView *v = views[i];
        const char *name = i == 0 ? "A" : i == 1 ? "B" : "C";
        if (!view_extent(v, &ext[i]))
            return fail(err, cap,
                        "%s view of %llux%llu (strides %lld,%lld) has negative strides or is too large to address",
                        name, (unsigned long long)v->rows, (unsigned long long)v->cols, (long long)v->rs,
                        (long long)v->cs);
        if (ext[i] > v->len)
            return fail(err, cap, "%s view of %llux%llu (strides %lld,%lld) needs %llu elements but slice has %llu",
                        name, (unsigned long long)v->rows, (unsigned long long)v->cols, (long long)v->rs,
                        (long long)v->cs, (unsigned long long)ext[i], (unsigned long long)v->len);
        if (ext[i] > 0 && !v->data)
            return fail(err, cap, "%s view of %llux%llu (strides %lld,%lld) needs %llu elements but data is null", name,
                        (unsigned long long)v->rows, (unsigned long long)v->cols, (long long)v->rs, (long long)v->cs,
                        (unsigned long long)ext[i]);
    }
    if (!view_injective(c))
        return fail(err, cap,
                    "C view aliases itself (%llux%llu, strides %lld,%lld); C must address each (i,j) uniquely",
                    (unsigned long long)c->rows, (unsigned long long)c->cols, (long long)c->rs, (long long)c->cs);
    uint64_t cb = ext[2] * gemm_type_size(c->type);
    if (bytes_overlap(c->data, cb, a->data, ext[0] * gemm_type_size(a->type)) ||
        bytes_overlap(c->data, cb, b->data, ext[1] * gemm_type_size(b->type)))
        return fail(err, cap, "C aliases A or B");
    return 0;
}
