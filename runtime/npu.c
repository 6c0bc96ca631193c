/* npu.c — what a DMA between two views is on the NPU: the command mapc dma derives for their distributions (docs/movement.md). */
#include "movement/movement.h"
#include "rt_impl.h"

#include <string.h>

int rt_dma_npu(RtContext *rt, const RtView *dst, const RtView *src, bool fit, MvDma *out, MvDiag *d)
{
    if (!dst || !src || !dst->tensor || !src->tensor)
        return rt_fail(rt, "rt_dma_npu: a NULL view");
    const RtView *v[2] = {src, dst};
    TensorDecl t[2];
    static const char *const names[2] = {"source", "destination"};
    for (int k = 0; k < 2; k++) {
        memset(&t[k], 0, sizeof t[k]);
        t[k].name = names[k];
        t[k].mem = v[k]->tensor->mem;
        t[k].elem = v[k]->tensor->elem;
        for (int i = 0; i < mem_kind_maps(t[k].mem); i++)
            t[k].maps[i] = v[k]->dims[i];
    }
    if (mv_dma(rt_prog(rt), &t[0], &t[1], NULL, NULL, NULL, fit, out, d) != MV_OK)
        return rt_fail(rt, "no NPU DMA command: %s: %s", mv_code_name(d->code), d->msg);
    return 0;
}
