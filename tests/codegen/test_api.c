/* test_api.c — the public C API (mapc.h) through the shared library: compile, diagnostics, interpret,
 * equivalence, JIT lookups agreeing with the interpreter, and misuse (NULLs, unknown names) as errors. */
#include "harness.h"

#include <mapc.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char src[] = "axes![A = 8, B = 12];\n"
                          "type R = m![A, B];\n"
                          "type P = m![A # 10, B #{0} 16];\n"
                          "type S = m![B / 4, A, B % 4];\n"
                          "copy rs: R -> S as f32;\n";

int main(int argc, char **argv)
{
    HarnessArgs args = {0};
    harness_args(argc, argv, "", &args);
    mapc_program *p = NULL;
    CHECK(mapc_compile_string("api", src, strlen(src), &p) == MAPC_OK && p, "compile");
    CHECK_EQ_U64(mapc_diag_count(p), 0, "no diagnostics");
    CHECK_EQ_INT(mapc_axis_count(p), 2, "axis count");
    const char *an = NULL;
    uint64_t as = 0;
    CHECK(mapc_axis(p, 1, &an, &as) == MAPC_OK && strcmp(an, "B") == 0 && as == 12, "axis B");
    CHECK_EQ_INT(mapc_type_count(p), 3, "type count");
    uint64_t size = 0;
    CHECK(mapc_type_size(p, "P", &size) == MAPC_OK && size == 160, "size of P: %llu", (unsigned long long)size);

    /* the JIT agrees with the interpreter at every position of every type */
    mapc_jit *j = NULL;
    CHECK(mapc_jit_create(p, NULL, &j) == MAPC_OK && j, "jit");
    const char *types[] = {"R", "P", "S"};
    for (int t = 0; t < 3; t++) {
        mapc_cell_fn cell = NULL;
        mapc_offset_fn off = NULL;
        CHECK(mapc_jit_cell(j, types[t], &cell) == MAPC_OK && cell, "cell %s", types[t]);
        CHECK(mapc_jit_offset(j, types[t], &off) == MAPC_OK && off, "offset %s", types[t]);
        if (!cell || !off)
            continue;
        mapc_type_size(p, types[t], &size);
        int bad = 0;
        for (uint64_t pos = 0; pos <= size; pos++) {
            int k1 = -1, k2 = -2;
            int64_t c1[2], c2[2];
            mapc_eval(p, types[t], pos, &k1, c1);
            k2 = cell(pos, c2);
            if (k1 != k2 || (k1 == 0 && (c1[0] != c2[0] || c1[1] != c2[1] || off(c2) > (int64_t)pos)))
                bad++;
        }
        CHECK_EQ_INT(bad, 0, "%s: positions where the JIT and the interpreter differ", types[t]);
    }
    mapc_copy_fn rs = NULL;
    CHECK(mapc_jit_copy(j, "rs", &rs) == MAPC_OK && rs, "copy lookup");
    if (rs) {
        float a[96], b[96];
        for (int i = 0; i < 96; i++)
            a[i] = (float)i;
        rs(b, a);
        /* S position of {A:a, B:b} is (b/4)*32 + a*4 + b%4 */
        int bad = 0;
        for (int x = 0; x < 8; x++)
            for (int y = 0; y < 12; y++)
                bad += b[(y / 4) * 32 + x * 4 + y % 4] != a[x * 12 + y];
        CHECK_EQ_INT(bad, 0, "copy rs: elements wrong");
        /* its parts, through the generic lookup: three of them together give the same destination */
        void *sym = NULL;
        CHECK(mapc_jit_lookup(j, "rs_part", &sym) == MAPC_OK && sym, "rs_part lookup");
        if (sym) {
            void (*part)(void *, const void *, uint64_t, uint64_t) = (void (*)(void *, const void *, uint64_t, uint64_t))sym;
            float c[96];
            memset(c, 0xff, sizeof c);
            for (uint64_t k = 0; k < 4; k++) /* part 3 of 3 writes nothing */
                part(c, a, k, 3);
            CHECK(memcmp(b, c, sizeof c) == 0, "copy rs in 3 parts: elements differ from the whole copy");
        }
    }

    /* equivalence */
    int eq = -1;
    uint64_t where = 0;
    CHECK(mapc_equiv(p, "R", "m![A, B / 4, B % 4]", &eq, &where) == MAPC_OK && eq == 1, "equivalent");
    CHECK(mapc_equiv(p, "R", "S", &eq, &where) == MAPC_OK && eq == 0 && where == 4, "not equivalent at %llu",
          (unsigned long long)where);

    /* misuse: unknown names and NULLs are errors, never crashes */
    void *fn = (void *)1;
    CHECK(mapc_jit_lookup(j, "nope_cell", &fn) == MAPC_ERR_NOT_FOUND && fn == NULL, "unknown symbol");
    mapc_cell_fn cf = NULL;
    CHECK(mapc_jit_cell(j, "Nope", &cf) == MAPC_ERR_NOT_FOUND, "unknown type");
    CHECK(mapc_jit_cell(NULL, "R", &cf) == MAPC_ERR_ARGUMENT, "NULL jit");
    CHECK(mapc_jit_cell(j, NULL, &cf) == MAPC_ERR_ARGUMENT, "NULL name");
    CHECK(mapc_jit_cell(j, "R", NULL) == MAPC_ERR_ARGUMENT, "NULL out");
    CHECK(mapc_jit_lookup(j, "R_cell", NULL) == MAPC_ERR_ARGUMENT, "NULL fn");
    int k;
    int64_t co[2];
    CHECK(mapc_eval(p, "Nope", 0, &k, co) == MAPC_ERR_NOT_FOUND, "eval unknown");
    CHECK(mapc_eval(NULL, "R", 0, &k, co) == MAPC_ERR_ARGUMENT, "eval NULL program");
    CHECK(mapc_eval(p, "R", 0, NULL, co) == MAPC_ERR_ARGUMENT, "eval NULL kind");
    CHECK(mapc_eval(p, "m![A, C]", 0, &k, co) == MAPC_ERR_INPUT && mapc_diag_count(p) == 1, "inline error");
    CHECK(mapc_diag_text(p, 0) && strstr(mapc_diag_text(p, 0), "undeclared axis 'C'"), "diag text");
    CHECK(mapc_diag_text(p, 5) == NULL, "diag out of range");
    CHECK(mapc_equiv(p, "R", NULL, &eq, NULL) == MAPC_ERR_ARGUMENT, "equiv NULL");
    CHECK(mapc_type_size(p, "R", NULL) == MAPC_ERR_ARGUMENT, "size NULL");
    CHECK(mapc_axis(p, 7, &an, &as) == MAPC_ERR_ARGUMENT, "axis out of range");
    CHECK(mapc_axis_count(NULL) == -1 && mapc_type_count(NULL) == -1 && mapc_diag_count(NULL) == 0, "NULL counts");
    mapc_jit *j2 = (mapc_jit *)1;
    CHECK(mapc_jit_create(NULL, NULL, &j2) == MAPC_ERR_ARGUMENT && j2 == NULL, "jit NULL program");
    mapc_jit_options bad_opt = {.opt_level = 9};
    CHECK(mapc_jit_create(p, &bad_opt, &j2) == MAPC_ERR_ARGUMENT, "bad opt level");
    /* the traps: a failed inline query (above) does not block the JIT; zero-initialized options are the
     * defaults; an unknown CPU is an error status with a diagnostic and nothing on stderr; clearing leaves
     * the compilation's diagnostics (none here) */
    CHECK(mapc_diag_count(p) > 0, "the failed query left its diagnostic");
    CHECK(mapc_jit_create(p, &(mapc_jit_options){.cpu = NULL}, &j2) == MAPC_OK && j2, "JIT after a failed query");
    mapc_jit_free(j2);
    CHECK(mapc_jit_create(p, &(mapc_jit_options){.opt_level = -1}, &j2) == MAPC_OK && j2, "opt_level -1");
    mapc_jit_free(j2);
    mapc_diag_clear(p);
    CHECK_EQ_U64(mapc_diag_count(p), 0, "cleared");
    fflush(stderr);
    int saved = dup(2), sink = open("/tmp", O_TMPFILE | O_RDWR, 0600);
    if (sink >= 0)
        dup2(sink, 2);
    mapc_status cs = mapc_jit_create(p, &(mapc_jit_options){.cpu = "notacpu"}, &j2);
    fflush(stderr);
    off_t spoken = sink >= 0 ? lseek(sink, 0, SEEK_END) : 0;
    dup2(saved, 2);
    close(saved);
    if (sink >= 0)
        close(sink);
    CHECK(cs == MAPC_ERR_BACKEND && j2 == NULL, "unknown CPU: %s", mapc_status_string(cs));
    CHECK(mapc_diag_count(p) == 1 && strstr(mapc_diag_text(p, 0), "notacpu"), "the CPU named: %s",
          mapc_diag_count(p) ? mapc_diag_text(p, 0) : "(none)");
    CHECK_EQ_U64((uint64_t)spoken, 0, "bytes written to stderr by an unknown CPU");
    mapc_diag_clear(p);
    CHECK(mapc_eval(p, "m![A]", 0, &k, co) == MAPC_OK && mapc_diag_count(p) == 0, "inline query after clearing");
    mapc_jit_free(j);
    mapc_jit_free(NULL);
    mapc_program_free(p);
    mapc_program_free(NULL);

    /* a program with errors: MAPC_ERR_INPUT, diagnostics readable, no JIT */
    mapc_program *q = NULL;
    const char *badsrc = "axes![A = 4];\ntype E = m![A / 3];\ncopy c: E -> m![A] as f99;\n";
    CHECK(mapc_compile_string("bad.map", badsrc, strlen(badsrc), &q) == MAPC_ERR_INPUT && q, "bad program");
    CHECK_EQ_U64(mapc_diag_count(q), 2, "two diagnostics");
    CHECK(mapc_diag_text(q, 0) && strncmp(mapc_diag_text(q, 0), "bad.map:2:", 10) == 0, "positioned: %s",
          mapc_diag_text(q, 0));
    CHECK(mapc_jit_create(q, NULL, &j2) == MAPC_ERR_INPUT && j2 == NULL, "no jit for a bad program");
    mapc_diag_clear(q);
    CHECK_EQ_U64(mapc_diag_count(q), 2, "the compilation's diagnostics stay after clearing");
    mapc_program_free(q);
    CHECK(mapc_compile_file("/nonexistent/x.map", &q) == MAPC_ERR_IO && q == NULL, "missing file");
    CHECK(mapc_compile_string("x", NULL, 0, &q) == MAPC_ERR_ARGUMENT, "NULL text");
    CHECK(mapc_compile_string("x", "", 0, NULL) == MAPC_ERR_ARGUMENT, "NULL out");
    CHECK_EQ_STR(mapc_status_string(MAPC_ERR_NOT_FOUND), "no such name", "status string");

    return harness_report();
}
