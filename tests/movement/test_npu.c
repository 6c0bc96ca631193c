/* test_npu.c — the runtime speaks the NPU's language: rt_dma_npu reports, for a move between two distributions,
 * the command mapc dma derives for the two tensors (the book's HBM to DM example: 66,036 cycles), and rt_dma then
 * moves the data as that command would (every destination element holds the source element of its index). */
#include "front/front.h"
#include "harness.h"
#include "movement/movement.h"
#include "rt.h"

#include <stdlib.h>
#include <string.h>

static const char src[] = "axes![A = 256, B = 256, C = 256, X = 8, Y = 8, Z = 256];\n"
                          "tensor H: HbmTensor<i8, m![1], m![B, A, C]>;\n"
                          "tensor S: DmTensor<i8, m![1], m![1], m![A / 4], m![A % 4, B, C]>;\n"
                          "tensor P: HbmTensor<i8, m![1], m![X, Y, Z]>;\n"
                          "tensor Q: HbmTensor<i8, m![1], m![Y, X, Z]>;\n";

int main(void)
{
    Prog *p = prog_new();
    if (!CHECK(prog_parse(p, "<npu>", src, sizeof src - 1) == 0, "the program compiles"))
        return harness_report();
    RtConfig cfg = rt_default_config();
    cfg.threads = 1;
    RtContext *rt = rt_new(p, &cfg);
    RtTensor *h = rt_tensor_declared(rt, "H"), *s = rt_tensor_declared(rt, "S");
    RtTensor *a = rt_tensor_declared(rt, "P"), *b = rt_tensor_declared(rt, "Q");
    if (!CHECK(rt && h && s && a && b, "the tensors are created: %s", rt ? rt_error(rt) : "no runtime"))
        return harness_report();
    RtView hv = rt_view(h, false), sv = rt_view(s, true), av = rt_view(a, false), bv = rt_view(b, true);
    MvDma x, want;
    MvDiag d;
    CHECK_EQ_INT(rt_dma_npu(rt, &bv, &av, false, &x, &d), 0, "HBM to HBM: %s", d.msg);
    CHECK_EQ_U64(x.cycles, 628, "the book's example 1 (the destination's own stream)");
    const Name *pn = prog_lookup(p, "P"), *qn = prog_lookup(p, "Q");
    CHECK_EQ_INT(mv_dma(p, pn->tensor, qn->tensor, NULL, NULL, NULL, false, &want, &d), MV_OK, "mapc dma of P and Q");
    CHECK(x.ncfg == want.ncfg && memcmp(x.cfg, want.cfg, sizeof(MvPair) * (size_t)x.ncfg) == 0 &&
              memcmp(x.tails, want.tails, sizeof x.tails) == 0,
          "the runtime reports what mapc dma prints for the two tensors");
    CHECK_EQ_INT(rt_dma_npu(rt, &sv, &hv, false, &x, &d), 0, "HBM to DM with the destination's own stream: %s", d.msg);
    CHECK(x.packet == 256 && x.cycles == 66036, "the packet is C and the move costs 66,036 cycles");
    CHECK_EQ_INT(rt_dma_npu(rt, &av, &sv, false, &x, &d), -1, "a DM tensor into an HBM tensor of other axes");
    CHECK(strstr(rt_error(rt), "no NPU DMA command") != NULL, "names why: %s", rt_error(rt));
    CHECK_EQ_INT(rt_dma_npu(rt, &sv, &hv, true, &x, &d), 0, "HBM to DM, fitted: %s", d.msg);
    CHECK(x.packet == 256 && x.cycles == 66036, "the fitted packet is C (256 bytes) and the move costs 66,036 cycles: "
          "packet %llu, %llu cycles", (unsigned long long)x.packet, (unsigned long long)x.cycles);
    /* the move itself: every element of S holds the element of H with its index */
    unsigned char *hd = rt_tensor_data(h);
    for (uint64_t i = 0; i < rt_tensor_elems(h); i++)
        hd[i] = (unsigned char)(i * 2654435761u >> 13);
    CHECK_EQ_INT(rt_dma(rt, &sv, &hv), 0, "rt_dma moves H into S: %s", rt_error(rt));
    const unsigned char *sd = rt_tensor_data(s);
    bool same = true;
    for (uint64_t a4 = 0; a4 < 256 && same; a4++)
        for (uint64_t bb = 0; bb < 256 && same; bb += 17)
            for (uint64_t c = 0; c < 256 && same; c += 5) {
                uint64_t hpos = (bb * 256 + a4) * 256 + c;                       /* m![B, A, C] */
                uint64_t spos = (a4 / 4) * 262144 + ((a4 % 4) * 256 + bb) * 256 + c; /* slice A / 4, m![A % 4, B, C] */
                same = hd[hpos] == sd[spos];
            }
    CHECK(same, "the DM tensor holds the HBM tensor's elements where the write sequencer puts them");
    rt_tensor_free(h);
    rt_tensor_free(s);
    rt_tensor_free(a);
    rt_tensor_free(b);
    rt_free(rt);
    prog_free(p);
    return harness_report();
}
