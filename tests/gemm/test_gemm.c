/* test_gemm.c — the strided-view GEMM against a double-precision reference: every type, layout, ISA path,
 * 1 and 2 threads, edge shapes, the validation messages word for word, and run-to-run bit identity. */
#include "harness.h"
#include "gemm/gemm_impl.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static Rng rng; /* seeded from SEED */

/* ---- validation messages ---- */

static void expect_msg(const GemmView *a, const GemmView *b, const GemmView *c, const char *want)
{
    char err[512] = "";
    int r = gemm_check(a, b, c, err, sizeof err);
    if (want)
        CHECK(r == -1 && strcmp(err, want) == 0, "want \"%s\", got %d \"%s\"", want, r, err);
    else
        CHECK(r == 0, "want success, got \"%s\"", err);
}

static void test_messages(Gemm *g)
{
    static float buf[1024];
    static int8_t ib[256];
    static int32_t ic[256];
    GemmView a = gemm_row_major(buf, 3, 3, GEMM_F32), b = gemm_row_major(buf + 100, 4, 5, GEMM_F32);
    GemmView c = gemm_row_major(buf + 200, 3, 5, GEMM_F32);
    expect_msg(&a, &b, &c, "A.cols (3) != B.rows (4)");
    a = gemm_row_major(buf, 5, 4, GEMM_F32);
    c = gemm_row_major(buf + 200, 6, 5, GEMM_F32);
    expect_msg(&a, &b, &c, "A.rows (5) != C.rows (6)");
    a = gemm_row_major(buf, 6, 4, GEMM_F32);
    c = gemm_row_major(buf + 200, 6, 6, GEMM_F32);
    expect_msg(&a, &b, &c, "B.cols (5) != C.cols (6)");
    c = gemm_row_major(buf + 200, 6, 5, GEMM_F32);
    expect_msg(&a, &b, &c, NULL);
    GemmView a34 = gemm_view(buf, 8, 3, 4, 4, 1, GEMM_F32), b45 = gemm_row_major(buf + 100, 4, 5, GEMM_F32);
    GemmView c35 = gemm_row_major(buf + 200, 3, 5, GEMM_F32);
    expect_msg(&a34, &b45, &c35, "A view of 3x4 (strides 4,1) needs 12 elements but slice has 8");
    a34.len = 12;
    expect_msg(&a34, &b45, &c35, NULL);
    a34.rs = -4;
    expect_msg(&a34, &b45, &c35, "A view of 3x4 (strides -4,1) has negative strides or is too large to address");
    a34.rs = 4;
    b45.cs = INT64_MAX / 2;
    b45.len = UINT64_MAX;
    expect_msg(&a34, &b45, &c35,
               "B view of 4x5 (strides 5,4611686018427387903) has negative strides or is too large to address");
    b45 = gemm_row_major(buf + 100, 4, 5, GEMM_F32);
    b45.len = 19;
    expect_msg(&a34, &b45, &c35, "B view of 4x5 (strides 5,1) needs 20 elements but slice has 19");
    b45.len = 20;
    c35.len = 3;
    expect_msg(&a34, &b45, &c35, "C view of 3x5 (strides 5,1) needs 15 elements but slice has 3");
    c35 = gemm_view(NULL, 15, 3, 5, 5, 1, GEMM_F32);
    expect_msg(&a34, &b45, &c35, "C view of 3x5 (strides 5,1) needs 15 elements but data is null");
    /* C aliasing itself: zero strides, colliding strides; exact (2,3 on 3x2 is injective) */
    c35 = gemm_view(buf + 200, 15, 3, 5, 0, 1, GEMM_F32);
    expect_msg(&a34, &b45, &c35, "C view aliases itself (3x5, strides 0,1); C must address each (i,j) uniquely");
    c35 = gemm_view(buf + 200, 100, 3, 5, 2, 1, GEMM_F32);
    expect_msg(&a34, &b45, &c35, "C view aliases itself (3x5, strides 2,1); C must address each (i,j) uniquely");
    c35 = gemm_view(buf + 200, 100, 3, 5, 1, 3, GEMM_F32);
    expect_msg(&a34, &b45, &c35, NULL); /* i + 3j on 3x5 is injective */
    c35 = gemm_view(buf + 200, 100, 3, 5, 5, 0, GEMM_F32);
    expect_msg(&a34, &b45, &c35, "C view aliases itself (3x5, strides 5,0); C must address each (i,j) uniquely");
    GemmView a32 = gemm_row_major(buf, 3, 2, GEMM_F32), b22 = gemm_row_major(buf + 100, 2, 2, GEMM_F32);
    GemmView c32 = gemm_view(buf + 200, 100, 3, 2, 2, 3, GEMM_F32); /* {0,2,4,3,5,7}: injective */
    expect_msg(&a32, &b22, &c32, NULL);
    c32 = gemm_view(buf + 200, 100, 3, 2, 3, 2, GEMM_F32); /* {0,3,6,2,5,8}: injective */
    expect_msg(&a32, &b22, &c32, NULL);
    c32 = gemm_view(buf + 200, 100, 3, 2, 2, 4, GEMM_F32); /* (2,0) and (0,1) collide */
    expect_msg(&a32, &b22, &c32, "C view aliases itself (3x2, strides 2,4); C must address each (i,j) uniquely");
    c32 = gemm_view(buf + 200, 100, 3, 1, 0, 0, GEMM_F32); /* one column, rows collide */
    a32 = gemm_row_major(buf, 3, 2, GEMM_F32);
    GemmView b21 = gemm_row_major(buf + 100, 2, 1, GEMM_F32);
    expect_msg(&a32, &b21, &c32, "C view aliases itself (3x1, strides 0,0); C must address each (i,j) uniquely");
    GemmView c11 = gemm_view(buf + 200, 1, 1, 1, 0, 0, GEMM_F32), a11 = gemm_view(buf, 1, 1, 1, 0, 0, GEMM_F32);
    GemmView b11 = gemm_view(buf + 1, 1, 1, 1, 0, 0, GEMM_F32);
    expect_msg(&a11, &b11, &c11, NULL);
    /* broadcast A and B are fine */
    GemmView abc = gemm_view(buf, 4, 3, 4, 0, 1, GEMM_F32), bbc = gemm_view(buf + 100, 5, 4, 5, 0, 1, GEMM_F32);
    c35 = gemm_row_major(buf + 200, 3, 5, GEMM_F32);
    expect_msg(&abc, &bbc, &c35, NULL);
    /* C overlapping A or B, by bytes */
    a34 = gemm_row_major(buf, 3, 4, GEMM_F32);
    c35 = gemm_row_major(buf + 11, 3, 5, GEMM_F32);
    expect_msg(&a34, &b45, &c35, "C aliases A or B");
    c35 = gemm_row_major(buf + 12, 3, 5, GEMM_F32);
    expect_msg(&a34, &b45, &c35, NULL);
    c35 = gemm_row_major(buf + 100 + 19, 3, 5, GEMM_F32);
    expect_msg(&a34, &b45, &c35, "C aliases A or B");
    /* mixed element sizes: i8 inputs right before an i32 output */
    GemmView ai = gemm_row_major(ib, 2, 3, GEMM_I8), bi = gemm_row_major(ib + 6, 3, 2, GEMM_I8);
    GemmView ci = gemm_row_major((char *)ib + 12, 2, 2, GEMM_I32);
    expect_msg(&ai, &bi, &ci, NULL);
    ci = gemm_row_major((char *)ib + 11, 2, 2, GEMM_I32);
    expect_msg(&ai, &bi, &ci, "C aliases A or B");
    ci = gemm_row_major(ic, 2, 2, GEMM_I32);
    GemmView cf = gemm_row_major(ic, 2, 2, GEMM_F32);
    expect_msg(&ai, &bi, &cf,
               "unsupported element types i8 x i8 -> f32; supported: f32 x f32 -> f32, bf16 x bf16 -> f32, "
               "f16 x f16 -> f32, i8 x i8 -> i32");
    GemmView bbf = gemm_row_major(ib + 6, 3, 2, GEMM_BF16);
    expect_msg(&ai, &bbf, &ci,
               "unsupported element types i8 x bf16 -> i32; supported: f32 x f32 -> f32, bf16 x bf16 -> f32, "
               "f16 x f16 -> f32, i8 x i8 -> i32");
    /* zero extents: any slice, even empty, is in bounds */
    GemmView a0 = gemm_view(NULL, 0, 0, 7, 7, 1, GEMM_F32), b0 = gemm_view(buf, 1000, 7, 3, 3, 1, GEMM_F32);
    GemmView c0 = gemm_view(NULL, 0, 0, 3, 0, 0, GEMM_F32);
    expect_msg(&a0, &b0, &c0, NULL);
    /* missing views are errors, not crashes */
    expect_msg(NULL, &b0, &c0, "A view is missing (a null pointer)");
    expect_msg(&a0, NULL, &c0, "B view is missing (a null pointer)");
    expect_msg(&a0, &b0, NULL, "C view is missing (a null pointer)");
    /* the entry points */
    char err[256] = "";
    CHECK(gemm_f32(g, 1, &a34, &b45, 0, NULL, err, sizeof err) == -1 &&
              strcmp(err, "C view is missing (a null pointer)") == 0,
          "got \"%s\"", err);
    CHECK(gemm_f32(g, 1, &ai, &bi, 0, &ci, err, sizeof err) == -1 &&
              strcmp(err, "gemm_f32 cannot run i8 x i8 -> i32; use gemm_i8") == 0,
          "got \"%s\"", err);
    a34 = gemm_row_major(buf, 3, 4, GEMM_F32);
    b45 = gemm_row_major(buf + 100, 4, 5, GEMM_F32);
    c35 = gemm_row_major(buf + 200, 3, 5, GEMM_F32);
    CHECK(gemm_i8(g, 1, &a34, &b45, 0, &c35, err, sizeof err) == -1 &&
              strcmp(err, "gemm_i8 cannot run f32 x f32 -> f32; use gemm_f32") == 0,
          "got \"%s\"", err);
    /* a failed prelude leaves C untouched */
    for (int i = 0; i < 15; i++)
        buf[200 + i] = 7.0f;
    a34.len = 11;
    CHECK(gemm_f32(g, 1, &a34, &b45, 0, &c35, err, sizeof err) == -1 && buf[200] == 7.0f && buf[214] == 7.0f,
          "C modified after a failed check: %s", err);
}

/* ---- options and tilings out of their ranges ---- */

/* Runs one 4x4 f32 product with tiling tl on g and expects the error want, C untouched. */
static void expect_tiling(Gemm *g, const GemmTiling *tl, const char *want)
{
    static float a[16], b[16], c[16];
    for (int i = 0; i < 16; i++)
        c[i] = 5.0f;
    GemmView va = gemm_row_major(a, 4, 4, GEMM_F32), vb = gemm_row_major(b, 4, 4, GEMM_F32);
    GemmView vc = gemm_row_major(c, 4, 4, GEMM_F32);
    char err[256] = "";
    int r = gemm_f32_tiled(g, tl, 1, &va, &vb, 0, &vc, err, sizeof err);
    CHECK(r == -1 && strcmp(err, want) == 0 && c[0] == 5.0f && c[15] == 5.0f, "want \"%s\", got %d \"%s\"", want, r,
          err);
}

static void expect_options(const GemmOptions *o, const char *want)
{
    char err[256] = "";
    Gemm *g = gemm_new(o, err, sizeof err);
    CHECK(!g && strcmp(err, want) == 0, "want \"%s\", got %s \"%s\"", want, g ? "an engine" : "NULL", err);
    gemm_free(g);
}

static void test_ranges(Gemm *g)
{
    const TargetInfo *ti = target_info(gemm_isa(g));
    GemmTiling ok = {.mr = ti->default_mr, .nr = ti->default_nr, .kgroup = 1, .mc = 96, .nc = 384, .kc = 256,
                     .order = {GEMM_N, GEMM_K, GEMM_M}, .split = 0};
    GemmTiling t = ok;
    t.order[0] = t.order[1] = t.order[2] = GEMM_M;
    expect_tiling(g, &t, "the block-loop order 0, 0, 0 is not a permutation of M (0), N (1) and K (2)");
    t = ok;
    t.order[2] = (GemmRole)7;
    expect_tiling(g, &t, "the block-loop order 1, 2, 7 is not a permutation of M (0), N (1) and K (2)");
    t = ok;
    t.split = 5;
    expect_tiling(g, &t, "split 5 is neither 0 (threads own rows of C) nor 1 (columns of C)");
    t.split = -1;
    expect_tiling(g, &t, "split -1 is neither 0 (threads own rows of C) nor 1 (columns of C)");
    char err[256] = "";
    int r = gemm_prepare(g, (GemmType)9, err, sizeof err);
    CHECK(r == -1 && strcmp(err, "gemm_prepare takes an input type (f32, bf16, f16 or i8), not ? (9)") == 0,
          "gemm_prepare 9: %d \"%s\"", r, err);
    r = gemm_prepare(g, GEMM_I32, err, sizeof err);
    CHECK(r == -1 && strcmp(err, "gemm_prepare takes an input type (f32, bf16, f16 or i8), not i32 (4)") == 0,
          "gemm_prepare i32: %d \"%s\"", r, err);
    r = gemm_prepare(g, (GemmType)-2, err, sizeof err);
    CHECK(r == -1 && strcmp(err, "gemm_prepare takes an input type (f32, bf16, f16 or i8), not ? (-2)") == 0,
          "gemm_prepare -2: %d \"%s\"", r, err);
    CHECK(gemm_prepare(g, GEMM_F32, err, sizeof err) == 0, "gemm_prepare f32: %s", err);
    expect_options(&(GemmOptions){.threads = -3}, "threads -3 is out of range (0 to 1024; 0 means 1)");
    expect_options(&(GemmOptions){.threads = 1025}, "threads 1025 is out of range (0 to 1024; 0 means 1)");
    expect_options(&(GemmOptions){.isa = (TargetIsa)7},
                   "unknown ISA 7 (0 the host's best, 1 avx512, 2 avx2, 3 portable)");
    expect_options(&(GemmOptions){.isa = (TargetIsa)-1},
                   "unknown ISA -1 (0 the host's best, 1 avx512, 2 avx2, 3 portable)");
    expect_options(&(GemmOptions){.bf16_dot = 5}, "bf16_dot 5 is not -1 (widen), 0 (auto) or 1 (vdpbf16ps)");
    /* a declared K group whose dot product the host lacks runs in groups of 1 (widened); others stay */
    GemmFeatures none = {0}, all = {.dot_bf16 = true, .has_bf16 = true, .vnni = true};
    CHECK(gemm_host_kgroup(TARGET_ISA_AVX512, &none, GEMM_BF16, 2) == 1, "bf16 K groups of 2 without vdpbf16ps");
    CHECK(gemm_host_kgroup(TARGET_ISA_AVX512, &all, GEMM_BF16, 2) == 2, "bf16 K groups of 2 with vdpbf16ps");
    CHECK(gemm_host_kgroup(TARGET_ISA_AVX512, &none, GEMM_I8, 4) == 1, "i8 K groups of 4 without VNNI");
    CHECK(gemm_host_kgroup(TARGET_ISA_AVX512, &all, GEMM_I8, 4) == 4, "i8 K groups of 4 with VNNI");
    CHECK(gemm_host_kgroup(TARGET_ISA_AVX512, &none, GEMM_I8, 1) == 1, "i8 K groups of 1");
    CHECK(gemm_host_kgroup(TARGET_ISA_AVX2, &none, GEMM_F32, 1) == 1, "f32 on avx2");
    CHECK(gemm_host_kgroup(TARGET_ISA_AVX2, &none, GEMM_BF16, 2) == 2, "a group avx2 lacks: the plan says why");
    CHECK(gemm_runnable_kgroup(g, GEMM_F32, 1) == 1, "the engine's f32 group");
    const char *name = target_isa_name((TargetIsa)9);
    CHECK(strcmp(name, "?") == 0, "target_isa_name(9) is \"%s\"", name);
}

/* ---- bf16 / f16 conversions ---- */

static void test_conversions(void)
{
    int bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        uint16_t x = (uint16_t)h;
        bool nan16 = (x & 0x7c00) == 0x7c00 && (x & 0x3ff), nanb = (x & 0x7f80) == 0x7f80 && (x & 0x7f);
        if (!nan16 && gemm_f32_to_f16(gemm_f16_to_f32(x)) != x)
            bad++;
        if (!nanb && gemm_f32_to_bf16(gemm_bf16_to_f32(x)) != x)
            bad++;
    }
    CHECK_EQ_INT(bad, 0, "16-bit patterns that do not round-trip");
    /* rounding to nearest even, subnormals, overflow */
    CHECK_EQ_U64(gemm_f32_to_f16(ldexpf(1.0f, -24)), 0x0001, "2^-24 is the smallest f16 subnormal");
    CHECK_EQ_U64(gemm_f32_to_f16(ldexpf(1.0f, -25)), 0x0000, "2^-25 ties to even");
    CHECK_EQ_U64(gemm_f32_to_f16(ldexpf(3.0f, -26)), 0x0001, "1.5 * 2^-25 rounds up");
    CHECK_EQ_U64(gemm_f32_to_f16(ldexpf(3.0f, -25)), 0x0002, "1.5 * 2^-24 ties to even (2)");
    CHECK(gemm_f32_to_f16(65504.0f) == 0x7bff && gemm_f32_to_f16(65520.0f) == 0x7c00, "f16 max / overflow");
    CHECK_EQ_U64(gemm_f32_to_f16(1.0f + ldexpf(1.0f, -11)), 0x3c00, "1 + 2^-11 ties to even");
    CHECK_EQ_U64(gemm_f32_to_bf16(1.0f + ldexpf(1.0f, -8)), 0x3f80, "bf16 1 + 2^-8 ties to even");
    CHECK_EQ_U64(gemm_f32_to_bf16(1.0f + ldexpf(3.0f, -9)), 0x3f81, "bf16 1 + 3*2^-9 rounds up");
    CHECK(gemm_f16_to_f32(0x0001) == ldexpf(1.0f, -24) && gemm_f16_to_f32(0x8400) == -ldexpf(1.0f, -14),
          "f16 subnormal / negative normal");
}

/* ---- the JIT packing routines against the reference packer ---- */

static void test_packing(void)
{
    static const int ws[] = {4, 6, 12, 16, 32};
    enum { NW = sizeof ws / sizeof *ws, NCONV = CG_PACK_I8_I32 + 1 };
    int bad = 0, runs = 0;
    for (int c = 0; c < NCONV; c++)
        for (int wi = 0; wi < NW; wi++)
            for (int g = 1; g <= 4; g *= 2) {
                char *msg = NULL;
                JitModule *jm = cg_gemm_jit_pack((CgPackConv)c, ws[wi], g, &msg);
                GemmPackFn fn = jm ? (GemmPackFn)jit_module_lookup(jm, "gemm_pack") : NULL;
                CHECK(fn != NULL, "cg_gemm_jit_pack(%d, %d, %d): %s", c, ws[wi], g, msg ? msg : "no symbol");
                free(msg);
                if (!fn) {
                    jit_module_free(jm);
                    continue;
                }
                int w = ws[wi];
                size_t ss = c == CG_PACK_F32 ? 4 : c >= CG_PACK_I8_U8 ? 1 : 2;
                size_t ds = c <= CG_PACK_F16_F32 || c == CG_PACK_I8_I32 ? 4 : c == CG_PACK_BF16 ? 2 : 1;
                for (int t = 0; t < 6; t++) {
                    int64_t R = 1 + (int64_t)rng_below(&rng, 3 * (uint64_t)w), K = 1 + (int64_t)rng_below(&rng, 40);
                    int64_t sr = rng_below(&rng, 2) ? 1 : (int64_t)(K + rng_below(&rng, 3)),
                            sk = sr == 1 ? (int64_t)(R + rng_below(&rng, 3)) : 1;
                    if (rng_below(&rng, 3) == 0) { /* general strides, broadcast included */
                        sr = (int64_t)rng_below(&rng, 5);
                        sk = (int64_t)(R * 5 + rng_below(&rng, 3));
                    }
                    size_t n = (size_t)((R - 1) * sr + (K - 1) * sk + 1);
                    unsigned char *src = malloc(n * ss);
                    for (size_t i = 0; i < n; i++) {
                        if (ss == 4) {
                            float x = (float)rng_signed_unit(&rng) * 100;
                            memcpy(src + 4 * i, &x, 4);
                        } else if (ss == 2) {
                            uint16_t h = (uint16_t)rng_next(&rng);
                            if (c == CG_PACK_F16_F32 && ((h >> 10) & 0x1f) == 0x1f)
                                h &= 0xbfff; /* no NaN or infinity: fpext quiets signaling NaNs */
                            memcpy(src + 2 * i, &h, 2);
                        } else {
                            src[i] = (unsigned char)rng_next(&rng);
                        }
                    }
                    int64_t kcp = (K + g - 1) / g * g, np = (R + w - 1) / w;
                    size_t out = (size_t)(np * w * kcp) * ds;
                    unsigned char *want = malloc(out), *got = malloc(out);
                    memset(want, 0xa5, out);
                    memset(got, 0x5a, out);
                    gemm_pack((CgPackConv)c, want, src, sr, sk, R, K, w, g, NULL);
                    fn(got, src, sr, sk, R, K);
                    runs++;
                    if (memcmp(want, got, out) != 0) {
                        if (bad++ < 5)
                            fprintf(stderr, "pack conv %d w %d g %d R %lld K %lld sr %lld sk %lld differs\n", c, w, g,
                                    (long long)R, (long long)K, (long long)sr, (long long)sk);
                    }
                    free(src);
                    free(want);
                    free(got);
                }
                jit_module_free(jm);
            }
    CHECK_EQ_INT(bad, 0, "JIT packings (of %d) that differ from the reference", runs);
}

/* ---- numeric cases ---- */

typedef struct Opnd {
    void *base;      /* allocation */
    GemmView v;
} Opnd;

/* A random layout for an r x c operand: 0 row-major, 1 column-major, 2 sub-matrix of a larger parent
 * (row- or column-major), 3 broadcast (a zero stride; inputs only), 4 strided (cs or rs of 2+). */
static Opnd make_as(uint64_t r, uint64_t c, GemmType t, int kind);

static Opnd make(uint64_t r, uint64_t c, GemmType t, bool input, int *kind_out)
{
    int kind = (int)rng_below(&rng, input ? 5 : 5);
    if (!input && kind == 3)
        kind = 2;
    *kind_out = kind;
    return make_as(r, c, t, kind);
}

/* An r x c operand in layout `kind` (as make's), its positions filled at random. */
static Opnd make_as(uint64_t r, uint64_t c, GemmType t, int kind)
{
    size_t es = gemm_type_size(t);
    int64_t rs, cs, off = 0;
    uint64_t len;
    switch (kind) {
    case 0: rs = (int64_t)c; cs = 1; break;
    case 1: rs = 1; cs = (int64_t)r; break;
    case 2: {
        uint64_t pr = r + rng_below(&rng, 4), pc = c + rng_below(&rng, 4);
        if (rng_below(&rng, 2)) {
            rs = (int64_t)pc; cs = 1;
            off = (int64_t)((pr - r) * pc + (pc - c));
        } else {
            rs = 1; cs = (int64_t)pr;
            off = (int64_t)((pc - c) * pr + (pr - r));
        }
        break;
    }
    case 3:
        if (rng_below(&rng, 2)) { rs = 0; cs = 1; } else { rs = (int64_t)c; cs = 0; }
        break;
    default:
        if (rng_below(&rng, 2)) { rs = (int64_t)c * 2 + 1; cs = 2; } else { rs = 3; cs = (int64_t)r * 3 + 1; }
        break;
    }
    uint64_t ext = r && c ? (r - 1) * (uint64_t)rs + (c - 1) * (uint64_t)cs + 1 : 0;
    len = ext + (uint64_t)off;
    Opnd o;
    o.base = malloc(len * es + 64);
    /* fill the whole allocation: stray reads of padding see garbage-free but random data */
    for (uint64_t i = 0; i < len; i++) {
        char *p = (char *)o.base + i * es;
        switch (t) {
        case GEMM_F32: { float x = (float)rng_signed_unit(&rng); memcpy(p, &x, 4); break; }
        case GEMM_BF16: { uint16_t h = gemm_f32_to_bf16((float)rng_signed_unit(&rng)); memcpy(p, &h, 2); break; }
        case GEMM_F16: { uint16_t h = gemm_f32_to_f16((float)rng_signed_unit(&rng)); memcpy(p, &h, 2); break; }
        case GEMM_I8: { int8_t x = (int8_t)(int)(rng_below(&rng, 256) - 128); memcpy(p, &x, 1); break; }
        case GEMM_I32: { int32_t x = (int32_t)rng_below(&rng, 2001) - 1000; memcpy(p, &x, 4); break; }
        }
    }
    o.v = gemm_view((char *)o.base + (size_t)off * es, ext, r, c, rs, cs, t);
    return o;
}

static double elem(const GemmView *v, uint64_t i, uint64_t j)
{
    size_t off = (size_t)(i * (uint64_t)v->rs + j * (uint64_t)v->cs);
    switch (v->type) {
    case GEMM_F32: return ((const float *)v->data)[off];
    case GEMM_BF16: return gemm_bf16_to_f32(((const uint16_t *)v->data)[off]);
    case GEMM_F16: return gemm_f16_to_f32(((const uint16_t *)v->data)[off]);
    case GEMM_I8: return ((const int8_t *)v->data)[off];
    case GEMM_I32: return ((const int32_t *)v->data)[off];
    }
    return 0;
}

static const uint64_t dims[] = {0,  1,  2,  3,  5,  7,  11,  12,  13,  16,  17, 31,
                                32, 33, 47, 61, 64, 97, 127, 191, 193, 257, 300};

static uint64_t pick_dim(uint64_t cap)
{
    for (;;) {
        uint64_t d = dims[rng_below(&rng, sizeof dims / sizeof *dims)];
        if (d <= cap)
            return d;
    }
}

static void check_case(Gemm *g, Gemm *g2, GemmType t, int threads, Opnd A, Opnd B, Opnd C, int ka, int kb, int kcv);

/* One random case: checks against the reference and that a second run is bit-identical. */
static void one_case(Gemm *g, Gemm *g2, GemmType t, int threads)
{
    uint64_t m = pick_dim(300), n = pick_dim(300), k = pick_dim(rng_below(&rng, 8) == 0 ? 600 : 300);
    if (rng_below(&rng, 6) == 0)
        k = 1024 + rng_below(&rng, 200); /* more than one k block for every type */
    if (m * n * k > 6000000)
        m = 1 + m / 8;
    GemmType ct = t == GEMM_I8 ? GEMM_I32 : GEMM_F32;
    int ka, kb, kcv;
    Opnd A = make(m, k, t, true, &ka), B = make(k, n, t, true, &kb), C = make(m, n, ct, false, &kcv);
    check_case(g, g2, t, threads, A, B, C, ka, kb, kcv);
}

/* The engine's path for small f32 products (A and B row-major with unit column strides, one k block, M and N
 * divided by a micro-tile): M and N multiples of 8 and 16 up to 2 vectors and 16 rows beyond, K from 1 to the
 * f32 k block and just past it, B small enough to be read unpacked and not, row-major or sub-matrix (a longer
 * row stride) layouts, on 1 and 2 threads (the last sizes are above one task's flops, 288 x 256 taking the
 * default micro-tile of a large product); the same shapes in bf16
 * (odd and even K: A read unpacked as K pairs only when K is even). */
static void small_cases(Gemm *g, Gemm *g2, int threads)
{
    static const uint64_t mn[][2] = {{8, 16},  {16, 16}, {24, 32}, {64, 64},  {96, 48},
                                     {60, 32}, {128, 128}, {48, 80}, {256, 256}, {320, 192}, {288, 256}};
    static const uint64_t ks[] = {1, 2, 7, 64, 129, 256, 257};
    for (size_t i = 0; i < sizeof mn / sizeof *mn; i++)
        for (size_t q = 0; q < sizeof ks / sizeof *ks; q++) {
            uint64_t m = mn[i][0], n = mn[i][1], k = ks[q];
            if (m * n * k > 24000000)
                continue;
            for (int bf = 0; bf < 2; bf++) {
                GemmType t = bf ? GEMM_BF16 : GEMM_F32;
                int ka = (int)rng_below(&rng, 2) * 2, kb = (int)rng_below(&rng, 2) * 2;
                int kc = (int)rng_below(&rng, 2) * 2;
                Opnd A = make_as(m, k, t, ka), B = make_as(k, n, t, kb), C = make_as(m, n, GEMM_F32, kc);
                check_case(g, g2, t, threads, A, B, C, ka, kb, kc);
            }
        }
}

/* Runs C = alpha*A*B + beta*C (alpha, beta at random) on g and checks it against the reference and a second run
 * (on g or g2) for bit identity; frees the operands. */
static void check_case(Gemm *g, Gemm *g2, GemmType t, int threads, Opnd A, Opnd B, Opnd C, int ka, int kb, int kcv)
{
    uint64_t m = A.v.rows, n = B.v.cols, k = A.v.cols;
    GemmType ct = C.v.type;
    int bsel = (int)rng_below(&rng, 4);
    float af = rng_below(&rng, 8) == 0 ? 0.0f : (float)rng_signed_unit(&rng) * 2,
          bf = bsel == 0 ? 0.0f : bsel == 1 ? 1.0f : (float)rng_signed_unit(&rng);
    int32_t ai = rng_below(&rng, 8) == 0 ? 0 : (int32_t)rng_below(&rng, 7) - 3,
            bi = bsel == 0 ? 0 : (int32_t)rng_below(&rng, 5) - 2;
    size_t cbytes = C.v.len * 4;
    void *c0 = malloc(cbytes + 1);
    if (bf == 0.0f && ct == GEMM_F32) /* beta = 0 overwrites NaN */
        for (uint64_t i = 0; i < C.v.len; i++)
            if (rng_below(&rng, 3) == 0)
                ((float *)C.v.data)[i] = NAN;
    memcpy(c0, C.v.data, cbytes);
    char err[256] = "";
    int r = t == GEMM_I8 ? gemm_i8(g, ai, &A.v, &B.v, bi, &C.v, err, sizeof err)
                         : gemm_f32(g, af, &A.v, &B.v, bf, &C.v, err, sizeof err);
    char what[160];
    snprintf(what, sizeof what, "%s %s%s %dT m=%llu n=%llu k=%llu layouts %d,%d,%d alpha %g/%d beta %g/%d",
             gemm_type_name(t), target_isa_name(gemm_isa(g)), gemm_bf16_dot(g) ? "+bf16dot" : "", threads,
             (unsigned long long)m, (unsigned long long)n, (unsigned long long)k, ka, kb, kcv, af, ai, bf, bi);
    CHECK(r == 0, "%s: %s", what, err);
    /* the reference; bound |err| <= (k + 4) * 2^-23 * (|alpha| sum |a||b| + |beta c|) for float results */
    GemmView c0v = C.v;
    c0v.data = c0;
    int bad = 0;
    double worst = 0;
    for (uint64_t i = 0; i < m && r == 0; i++)
        for (uint64_t j = 0; j < n; j++) {
            double s = 0, mag = 0;
            int64_t si = 0;
            for (uint64_t q = 0; q < k; q++) {
                double x = elem(&A.v, i, q), y = elem(&B.v, q, j);
                s += x * y;
                mag += fabs(x * y);
                si += (int64_t)x * (int64_t)y;
            }
            double got = elem(&C.v, i, j), old = elem(&c0v, i, j);
            if (t == GEMM_I8) {
                int64_t want = (int64_t)ai * si + (bi ? (int64_t)bi * (int64_t)old : 0);
                if ((int32_t)(uint32_t)(uint64_t)want != (int32_t)got)
                    bad++;
            } else {
                double want = (double)af * s + (bf != 0.0f ? (double)bf * old : 0.0);
                double scale = fabs(af) * mag + (bf != 0.0f ? fabs(bf * old) : 0.0);
                double bound = (double)(k + 4) * ldexp(1.0, -23) * scale + 1e-30;
                double e = fabs(got - want);
                if (!(e <= bound))
                    bad++;
                if (e / bound > worst)
                    worst = e / bound;
            }
        }
    CHECK(bad == 0, "%s: %d wrong elements (worst error/bound %.3g)", what, bad, worst);
    /* bit identity: run again from the same C with the same thread count (another engine too) */
    void *c1 = malloc(cbytes + 1);
    memcpy(c1, C.v.data, cbytes);
    memcpy(C.v.data, c0, cbytes);
    Gemm *again = rng_below(&rng, 2) ? g : g2;
    r = t == GEMM_I8 ? gemm_i8(again, ai, &A.v, &B.v, bi, &C.v, err, sizeof err)
                     : gemm_f32(again, af, &A.v, &B.v, bf, &C.v, err, sizeof err);
    CHECK(r == 0 && memcmp(c1, C.v.data, cbytes) == 0, "%s: second run differs", what);
    free(c0);
    free(c1);
    free(A.base);
    free(B.base);
    free(C.base);
}

/* ---- two callers at once: engines of their own, one shared kernel cache ---- */

typedef struct Racer {
    TargetIsa isa;
    GemmType t;
    const void *a, *b;
    float *c;
    int status;
    char err[256];
} Racer;

enum { RM = 67, RN = 45, RK = 300 };

static void *race(void *arg)
{
    Racer *r = arg;
    Gemm *g = gemm_new(&(GemmOptions){.threads = 1, .isa = r->isa}, r->err, sizeof r->err);
    if (!g) {
        r->status = -1;
        return NULL;
    }
    GemmView a = gemm_row_major((void *)r->a, RM, RK, r->t), b = gemm_col_major((void *)r->b, RK, RN, r->t);
    GemmView c = gemm_row_major(r->c, RM, RN, GEMM_F32);
    r->status = 0;
    for (int i = 0; i < 3 && r->status == 0; i++)
        r->status = gemm_f32(g, 1.0f, &a, &b, 0.0f, &c, r->err, sizeof r->err);
    gemm_free(g);
    return NULL;
}

/* Two threads compile (the first call of a signature) and run the same GEMM at once; the results
 * must agree bit for bit. Runs before anything else compiled these signatures. */
/* A declared kernel's single f32 unit takes the small-product path (A and B unpacked) when its K is one k block,
 * else the packed path with the cache model's M and N blocks where they exceed the tiling's; either way its C
 * must be bit-identical to gemm_f32_tiled's, which computes with the tiling's own blocks. Shapes are often
 * multiples of micro-tile sizes, so that the small path qualifies; leading dimensions are padded. */
static void unit_small_cases(Gemm *g, int isa_index, int threads)
{
    const TargetInfo *ti = target_info(isa_index == 2 ? TARGET_ISA_AVX2 : isa_index == 3 ? TARGET_ISA_PORTABLE
                                                                                         : TARGET_ISA_AVX512);
    static const int64_t dims[] = {1, 4, 8, 12, 16, 24, 32, 48, 64, 96, 7, 33};
    static const float ab[][2] = {{1, 0}, {-0.5f, 2}, {2, 1}, {0.25f, -1}};
    static const int64_t big[] = {200, 300, 520};
    for (int c = 0; c < 60; c++) {
        int64_t m = c % 6 == 5 ? big[rng_below(&rng, 3)] : dims[rng_below(&rng, 12)];
        int64_t n = c % 6 == 4 ? big[rng_below(&rng, 3)] : dims[rng_below(&rng, 12)];
        int64_t k = 1 + (int64_t)rng_below(&rng, 300);
        int64_t lda = k + (int64_t)rng_below(&rng, 3), ldb = n + (int64_t)rng_below(&rng, 3), ldc = n + 1;
        bool one_block = rng_below(&rng, 2);
        GemmTiling tl = {.mr = ti->default_mr, .nr = ti->default_nr, .kgroup = 1,
                         .mc = ti->default_mr * (1 + (int64_t)rng_below(&rng, 4)),
                         .nc = ti->default_nr * (1 + (int64_t)rng_below(&rng, 3)),
                         .kc = one_block ? k + (int64_t)rng_below(&rng, 64) : 1 + (int64_t)rng_below(&rng, (uint64_t)k),
                         .order = {GEMM_N, GEMM_K, GEMM_M}, .split = 0};
        if (rng_below(&rng, 3) == 0)
            memcpy(tl.order, (GemmRole[3]){GEMM_M, GEMM_K, GEMM_N}, sizeof tl.order);
        float *a = malloc((size_t)(m * lda) * 4), *b = malloc((size_t)(k * ldb) * 4);
        float *c1 = malloc((size_t)(m * ldc) * 4), *c2 = malloc((size_t)(m * ldc) * 4);
        for (int64_t i = 0; i < m * lda; i++)
            a[i] = (float)rng_below(&rng, 2001) / 1000.0f - 1.0f;
        for (int64_t i = 0; i < k * ldb; i++)
            b[i] = (float)rng_below(&rng, 2001) / 1000.0f - 1.0f;
        for (int64_t i = 0; i < m * ldc; i++)
            c1[i] = c2[i] = (float)rng_below(&rng, 2001) / 1000.0f - 1.0f;
        const float *s = ab[rng_below(&rng, 4)];
        GemmUnit u = {gemm_view(a, (size_t)(m * lda), (uint64_t)m, (uint64_t)k, lda, 1, GEMM_F32),
                      gemm_view(b, (size_t)(k * ldb), (uint64_t)k, (uint64_t)n, ldb, 1, GEMM_F32),
                      gemm_view(c1, (size_t)(m * ldc), (uint64_t)m, (uint64_t)n, ldc, 1, GEMM_F32)};
        GemmView v2 = gemm_view(c2, (size_t)(m * ldc), (uint64_t)m, (uint64_t)n, ldc, 1, GEMM_F32);
        char err[256] = "";
        int r1 = gemm_f32_units(g, &tl, s[0], s[1], &u, 1, err, sizeof err);
        int r2 = r1 ? -1 : gemm_f32_tiled(g, &tl, s[0], &u.a, &u.b, s[1], &v2, err, sizeof err);
        CHECK(r1 == 0 && r2 == 0, "%s, %d threads, %lldx%lldx%lld: %s", ti->name, threads, (long long)m, (long long)n,
              (long long)k, err);
        if (r1 == 0 && r2 == 0)
            CHECK(memcmp(c1, c2, (size_t)(m * ldc) * 4) == 0,
                  "%s, %d threads, %lldx%lldx%lld (kc %lld), alpha %g beta %g: one unit differs from the tiled product",
                  ti->name, threads, (long long)m, (long long)n, (long long)k, (long long)tl.kc, s[0], s[1]);
        free(a);
        free(b);
        free(c1);
        free(c2);
    }
}

static void test_concurrent(void)
{
    static uint16_t a[RM * RK], b[RK * RN];
    static float c[2][RM * RN];
    for (int i = 0; i < RM * RK; i++)
        a[i] = gemm_f32_to_f16((float)rng_signed_unit(&rng));
    for (int i = 0; i < RK * RN; i++)
        b[i] = gemm_f32_to_f16((float)rng_signed_unit(&rng));
    TargetIsa isas[2] = {TARGET_ISA_PORTABLE, TARGET_ISA_AVX2};
    for (int ii = 0; ii < 2; ii++) {
        Racer r[2];
        pthread_t th[2];
        for (int t = 0; t < 2; t++) {
            r[t] = (Racer){.isa = isas[ii], .t = GEMM_F16, .a = a, .b = b, .c = c[t]};
            if (pthread_create(&th[t], NULL, race, &r[t]) != 0)
                r[t].status = -2;
        }
        for (int t = 0; t < 2; t++)
            if (r[t].status != -2)
                pthread_join(th[t], NULL);
        if (r[0].status == -1 && strstr(r[0].err, "cannot run")) /* the ISA is not on this host */
            continue;
        CHECK(r[0].status == 0 && r[1].status == 0, "concurrent %s: %s / %s", target_isa_name(isas[ii]), r[0].err,
              r[1].err);
        CHECK(memcmp(c[0], c[1], sizeof c[0]) == 0, "concurrent %s: the two results differ", target_isa_name(isas[ii]));
    }
}

int main(int argc, char **argv)
{
    HarnessArgs args = {.seed = 0x6d617063u, .count = 12};
    harness_args(argc, argv, "[SEED [COUNT]]", &args); /* COUNT: generated cases per type and ISA */
    rng = rng_seeded(args.seed);
    int cases = (int)args.count;
    /* MAPC_ISA=avx512|avx2|portable (test code only) runs the engine and the kernel families of that ISA
     * alone, as on a host that has nothing better; unset, every family the host has. */
    TargetIsa only = TARGET_ISA_HOST;
    const char *env = getenv("MAPC_ISA");
    if (env && *env && !target_isa_parse(env, &only)) {
        fprintf(stderr, "test_gemm: MAPC_ISA takes avx512, avx2 or portable, not '%s'\n", env);
        return 2;
    }
    if (only != TARGET_ISA_HOST)
        printf("MAPC_ISA=%s: only the %s kernels\n", env, env);
    char err[256];
    Gemm *g1 = gemm_new(&(GemmOptions){.threads = 1, .isa = only}, err, sizeof err);
    CHECK(g1 != NULL, "gemm_new: %s", err);
    if (!g1) {
        return harness_report();
    }
    test_concurrent();
    test_messages(g1);
    test_ranges(g1);
    test_conversions();
    test_packing();
    /* every kernel family; on AVX-512 both bf16 kernels (the dot product and the widening one) */
    TargetIsa isas[4] = {TARGET_ISA_AVX512, TARGET_ISA_AVX512, TARGET_ISA_AVX2, TARGET_ISA_PORTABLE};
    int dots[4] = {1, -1, 0, 0};
    GemmType types[4] = {GEMM_F32, GEMM_BF16, GEMM_F16, GEMM_I8};
    for (int ii = 0; ii < 4; ii++)
        for (int threads = 1; threads <= 2 && (only == TARGET_ISA_HOST || only == isas[ii]); threads++) {
            GemmOptions o = {.threads = threads, .isa = isas[ii], .bf16_dot = dots[ii]};
            Gemm *g = gemm_new(&o, err, sizeof err);
            Gemm *h = gemm_new(&o, err, sizeof err);
            if (!g || !h) {
                printf("skip %s: %s\n", target_isa_name(isas[ii]), err);
                gemm_free(g);
                gemm_free(h);
                continue;
            }
            for (int ti = 0; ti < 4; ti++)
                for (int c = 0; c < (ii == 0 ? cases * 2 : cases); c++)
                    one_case(g, h, types[ti], threads);
            if (dots[ii] >= 0) {
                small_cases(g, h, threads);
                unit_small_cases(g, ii, threads);
            }
            gemm_free(g);
            gemm_free(h);
        }
    gemm_free(g1);
    return harness_report();
}
