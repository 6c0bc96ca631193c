/* api_gemm.c — the public strided-view GEMM (mapc_gemm_*) over the runtime's engine. */
#include "api_impl.h"
#include "gemm/gemm.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mapc_gemm {
    Gemm *engine;       /* owned */
    char error[512];
};

void api_set_error(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
}

/* The ISA an options string names (NULL or "": the host's best); false for another string. */
static bool parse_isa(const char *s, TargetIsa *isa)
{
    if (!s || !*s) {
        *isa = TARGET_ISA_HOST;
        return true;
    }
    return target_isa_parse(s, isa);
}

mapc_status mapc_gemm_create(const mapc_gemm_options *opts, mapc_gemm **out)
{
    if (!out)
        return MAPC_ERR_ARGUMENT;
    if (api_cache_default() != MAPC_OK)
        return MAPC_ERR_NOMEM;
    *out = NULL;
    mapc_gemm_options o = opts ? *opts : (mapc_gemm_options){0};
    TargetIsa isa;
    if (o.threads < 0 || o.threads > 1024 || !parse_isa(o.isa, &isa) || !target_host_supports(isa))
        return MAPC_ERR_ARGUMENT;
    mapc_gemm *g = calloc(1, sizeof *g);
    if (!g)
        return MAPC_ERR_NOMEM;
    char err[256];
    g->engine = gemm_new(&(GemmOptions){.threads = o.threads ? o.threads : 1, .isa = isa}, err, sizeof err);
    if (!g->engine) {
        free(g);
        return strstr(err, "memory") ? MAPC_ERR_NOMEM : MAPC_ERR_ARGUMENT;
    }
    *out = g;
    return MAPC_OK;
}

void mapc_gemm_free(mapc_gemm *g)
{
    if (!g)
        return;
    gemm_free(g->engine);
    free(g);
}

/* The engine's view of a public one (the type numbering is the same by construction). */
static GemmView engine_view(const mapc_matrix *m)
{
    return gemm_view(m->data, m->len, m->rows, m->cols, m->rs, m->cs, (GemmType)m->type);
}

_Static_assert((int)MAPC_F32 == (int)GEMM_F32 && (int)MAPC_BF16 == (int)GEMM_BF16 && (int)MAPC_F16 == (int)GEMM_F16 &&
                   (int)MAPC_I8 == (int)GEMM_I8 && (int)MAPC_I32 == (int)GEMM_I32,
               "mapc_type follows GemmType");

/* One product: validates the public views (their type numbers too), then runs the engine. */
static mapc_status product(mapc_gemm *g, bool is_int, float af, float bf, int32_t ai, int32_t bi, const mapc_matrix *a,
                           const mapc_matrix *b, const mapc_matrix *c)
{
    if (!g)
        return MAPC_ERR_ARGUMENT;
    g->error[0] = 0;
    const mapc_matrix *m[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        if (!m[i]) {
            api_set_error(g->error, sizeof g->error, "%c view is missing (a null pointer)", "ABC"[i]);
            return MAPC_ERR_ARGUMENT;
        }
        if ((unsigned)m[i]->type > (unsigned)MAPC_I32) {
            api_set_error(g->error, sizeof g->error, "%c view has an unknown element type (%d)", "ABC"[i],
                          (int)m[i]->type);
            return MAPC_ERR_ARGUMENT;
        }
    }
    GemmView va = engine_view(a), vb = engine_view(b), vc = engine_view(c);
    if (gemm_check(&va, &vb, &vc, g->error, sizeof g->error))
        return MAPC_ERR_ARGUMENT;
    if (is_int != (a->type == MAPC_I8)) {
        api_set_error(g->error, sizeof g->error, "%s cannot run %s x %s -> %s; use %s",
                      is_int ? "mapc_gemm_i8" : "mapc_gemm_f32", gemm_type_name(va.type), gemm_type_name(vb.type),
                      gemm_type_name(vc.type), is_int ? "mapc_gemm_f32" : "mapc_gemm_i8");
        return MAPC_ERR_ARGUMENT;
    }
    int r = is_int ? gemm_i8(g->engine, ai, &va, &vb, bi, &vc, g->error, sizeof g->error)
                   : gemm_f32(g->engine, af, &va, &vb, bf, &vc, g->error, sizeof g->error);
    if (r == 0)
        return MAPC_OK;
    return strstr(g->error, "out of memory") ? MAPC_ERR_NOMEM : MAPC_ERR_BACKEND;
}

mapc_status mapc_gemm_f32(mapc_gemm *g, float alpha, const mapc_matrix *a, const mapc_matrix *b, float beta,
                          const mapc_matrix *c)
{
    GUARDED(product(g, false, alpha, beta, 0, 0, a, b, c));
}

mapc_status mapc_gemm_i8(mapc_gemm *g, int32_t alpha, const mapc_matrix *a, const mapc_matrix *b, int32_t beta,
                         const mapc_matrix *c)
{
    GUARDED(product(g, true, 0.0f, 0.0f, alpha, beta, a, b, c));
}

const char *mapc_gemm_error(const mapc_gemm *g) { return g ? g->error : "no engine (a null pointer)"; }

mapc_matrix mapc_row_major(void *data, uint64_t rows, uint64_t cols, mapc_type type)
{
    return (mapc_matrix){data, rows * cols, rows, cols, (int64_t)cols, 1, type};
}

mapc_matrix mapc_col_major(void *data, uint64_t rows, uint64_t cols, mapc_type type)
{
    return (mapc_matrix){data, rows * cols, rows, cols, 1, (int64_t)rows, type};
}

void mapc_release_caches(void) { gemm_release_kernels(); }
