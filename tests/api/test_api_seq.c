/* test_api_seq.c — <mapc/seq.h> through the shared library: the book's sequencer configs, tails, a DMA command and the
 * six worked cycle counts, the movement error codes with their messages, and the refusals of bad arguments. */
#include "harness.h"

#include <seq.h>

#include <string.h>

static const char src[] = "axes![N = 4, C = 3, H = 8, W = 8, A = 15, X = 8, Y = 8, Z = 256];\n"
                          "type Buf = m![N, C, H, W];\n"
                          "tensor S: HbmTensor<i8, m![1], m![X, Y, Z]>;\n"
                          "tensor D: HbmTensor<i8, m![1], m![Y, X, Z]>;\n"
                          "tensor F: HbmTensor<f32, m![1], m![Y, X, Z]>;\n";

static void test_sequence(mapc_program *p)
{
    mapc_seq_config c;
    mapc_diag d;
    CHECK_EQ_INT(mapc_sequence(p, "Buf", "m![W, H, C, N]", "m![1]", MAPC_SEQ_READ, 8, &c, &d), 0, "NCHW as WHCN: %s",
                 d.message);
    static const mapc_seq_entry want[] = {{8, 1}, {8, 8}, {3, 64}, {4, 192}};
    CHECK(c.count == 4 && c.time_count == 4 && c.packet == 1 && memcmp(c.e, want, sizeof want) == 0,
          "[8:1, 8:8, 3:64, 4:192]:1");
    CHECK(c.access == 1 && c.run == 4 && c.read_size == 1 && c.bank_run == 2, "access 1, run 4, read 1, bank run 2");
    CHECK_EQ_INT(mapc_sequence(p, "Buf", "m![N, C, H]", "m![W]", MAPC_SEQ_READ, 8, &c, &d), 0, "the doctest");
    CHECK(c.count == 2 && c.e[0].n == 96 && c.e[0].stride == 8 && c.run == 768 && c.access == 8 && c.raw_count == 4 &&
              c.raw[0].n == 4 && c.raw[0].stride == 192,
          "merged [96:8, 8:1]:8 from raw [4:192, ...], run 768, access 8");
    CHECK_EQ_INT(mapc_sequence(p, "m![A % 5, A / 5]", "m![1]", "m![A % 3, A / 3]", MAPC_SEQ_READ, 8, &c, &d),
                 MAPC_E_INCOMPATIBLE, "incompatible decompositions");
    CHECK(d.code == MAPC_E_INCOMPATIBLE && strstr(d.message, "cannot be cut at A's boundary 3"), "its message: %s",
          d.message);
    CHECK_EQ_INT(mapc_sequence(p, "Buf", "m![W, H, C]", "m![1]", MAPC_SEQ_READ, 8, &c, &d), MAPC_E_UNCONSUMED,
                 "N never read");
    CHECK_EQ_INT(mapc_sequence(p, "Buf", "m![N, C, H]", "m![W]", MAPC_SEQ_READ, 4, &c, &d), 0, "i4");
    CHECK(c.access == 8 && c.read_size == 8 && c.fetch_cycles == 96, "i4: read 8 elements (4 bytes), 96 fetch cycles");
    CHECK_EQ_INT(mapc_sequence(p, "Nope", "m![1]", "m![1]", MAPC_SEQ_READ, 8, &c, &d), MAPC_ERR_NOT_FOUND, "no such type");
    CHECK_EQ_INT(mapc_sequence(p, "m![Q]", "m![1]", "m![1]", MAPC_SEQ_READ, 8, &c, &d), MAPC_ERR_INPUT, "a bad mapping");
    CHECK_EQ_INT(mapc_sequence(p, "Buf", "m![1]", "m![1]", (mapc_seq_mode)7, 8, &c, &d), MAPC_ERR_ARGUMENT, "a bad mode");
    CHECK_EQ_INT(mapc_sequence(p, "Buf", "m![1]", "m![1]", MAPC_SEQ_READ, 12, &c, &d), MAPC_ERR_ARGUMENT, "12 bits");
    CHECK_EQ_INT(mapc_sequence(p, "Buf", "m![1]", NULL, MAPC_SEQ_READ, 8, &c, NULL), MAPC_ERR_ARGUMENT, "NULL packet");
}

static void test_dma(mapc_program *p)
{
    mapc_dma_plan x;
    mapc_diag d;
    CHECK_EQ_INT(mapc_dma_derive(p, "S", "D", "m![X, Y]", "m![Z]", NULL, &x, &d), 0, "example 1: %s", d.message);
    CHECK(x.cycles == 628 && x.engines == 1 && x.min_align == 1 && x.tails[0] == 256 && x.tails[2] == 256,
          "628 cycles, tails 256");
    CHECK(x.read.count == 3 && x.read.e[0].stride == 2048 && x.write.e[0].stride == 256 && x.read.packet == 256,
          "read [8:2048, ...], write [8:256, ...]");
    CHECK_EQ_INT(mapc_dma_derive(p, "S", "F", NULL, NULL, NULL, &x, &d), MAPC_E_DMA_TYPE, "i8 into f32");
    CHECK_EQ_INT(mapc_dma_derive(p, "S", "Q", NULL, NULL, NULL, &x, &d), MAPC_ERR_NOT_FOUND, "no such tensor");
    CHECK_EQ_INT(mapc_dma_derive(p, "S", "D", "m![X]", NULL, NULL, &x, &d), MAPC_ERR_ARGUMENT, "time without packet");
    uint64_t t[3];
    CHECK(mapc_dma_tails(p, "m![X, Y]", "m![X, Y # 16]", t, &d) == 0 && t[0] == 8 && t[1] == 16 && t[2] == 8,
          "tails (8, 16, 8)");
}

static void test_cost(void)
{
    static const struct {
        const char *plan;
        uint64_t cycles;
    } book[] = {{"64:256:hbm>hbm", 628}, {"65536:256:hbm>dm", 66036}, {"65536:256:dm>dm", 131572},
                {"65536:256:hbm/32c>dm*8", 655860}, {"512:256:hbm/16>dm*8", 1857},
                {"128:256:dm/1>hbm*3, 64:256:dm/1>hbm + 32:256:dm/1>hbm", 1192}};
    mapc_diag d;
    for (size_t i = 0; i < sizeof book / sizeof *book; i++) {
        uint64_t c = 0;
        CHECK(mapc_dma_cost_plan(book[i].plan, &c, &d) == 0 && c == book[i].cycles, "%s: %llu cycles, want %llu",
              book[i].plan, (unsigned long long)c, (unsigned long long)book[i].cycles);
    }
    uint64_t c;
    CHECK_EQ_INT(mapc_dma_cost_plan("64:256:hbm>", &c, &d), MAPC_E_PLAN, "a plan that does not parse");
    mapc_dma_cmd six[5] = {
        {128, 256, MAPC_TIER_DM, MAPC_TIER_HBM, 32, 32, 0, 0, 1, 1}, {128, 256, MAPC_TIER_DM, MAPC_TIER_HBM, 32, 32, 0, 0, 1, 1},
        {128, 256, MAPC_TIER_DM, MAPC_TIER_HBM, 32, 32, 0, 0, 1, 1}, {64, 256, MAPC_TIER_DM, MAPC_TIER_HBM, 32, 32, 0, 0, 1, 1},
        {32, 256, MAPC_TIER_DM, MAPC_TIER_HBM, 32, 32, 0, 0, 1, 1}};
    uint32_t per[4] = {1, 1, 1, 2};
    CHECK_EQ_U64(mapc_dma_cost(six, per, 4), 1192, "example 6 as commands");
    six[0].src_dmns = 3;
    CHECK_EQ_U64(mapc_dma_cost(six, per, 4), 0, "3 DMNs are refused");
}

/* The runtime's DMA between two views reports its NPU command (mapc_dma_npu) and moves the data (mapc_dma). */
static void test_runtime(mapc_program *p)
{
    mapc_runtime *rt = NULL;
    mapc_tensor *s = NULL, *d = NULL;
    mapc_view *sv = NULL, *dv = NULL;
    if (!CHECK(mapc_runtime_create(p, 1, &rt) == MAPC_OK && mapc_tensor_create(rt, "S", &s) == MAPC_OK &&
                   mapc_tensor_create(rt, "D", &d) == MAPC_OK && mapc_tensor_view(rt, s, 0, &sv) == MAPC_OK &&
                   mapc_tensor_view(rt, d, 1, &dv) == MAPC_OK,
               "a runtime with S and D"))
        return;
    mapc_dma_plan x;
    mapc_diag err;
    CHECK_EQ_INT(mapc_dma_npu(rt, dv, sv, 0, &x, &err), 0, "the NPU command of S -> D: %s", err.message);
    CHECK(x.cycles == 628 && x.read.e[0].stride == 256 && x.write.e[0].stride == 2048, "example 1 over D's stream: %llu cycles",
          (unsigned long long)x.cycles);
    CHECK_EQ_INT(mapc_dma(rt, dv, sv), MAPC_OK, "and the runtime moves it");
    CHECK_EQ_INT(mapc_dma_npu(rt, dv, NULL, 0, &x, &err), MAPC_ERR_ARGUMENT, "a NULL view");
    mapc_runtime_free(rt);
}

int main(void)
{
    mapc_program *p = NULL;
    if (!CHECK(mapc_compile_string("<test>", src, sizeof src - 1, &p) == MAPC_OK, "the program compiles"))
        return harness_report();
    test_sequence(p);
    test_dma(p);
    test_cost();
    test_runtime(p);
    mapc_program_free(p);
    return harness_report();
}
