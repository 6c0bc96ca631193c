/* elem.c — the element types tensors hold. */
#include "rt.h"

#include <string.h>

static const struct {
    const char *name;
    size_t size;
} elems[RT_NELEMS] = {
    [RT_F32] = {"f32", 4}, [RT_BF16] = {"bf16", 2}, [RT_F16] = {"f16", 2}, [RT_I8] = {"i8", 1}, [RT_I32] = {"i32", 4},
};

size_t rt_elem_size(RtElem e) { return e < RT_NELEMS ? elems[e].size : 0; }

const char *rt_elem_name(RtElem e) { return e < RT_NELEMS ? elems[e].name : "?"; }

bool rt_elem_parse(const char *name, RtElem *out)
{
    for (int e = 0; e < RT_NELEMS; e++)
        if (strcmp(name, elems[e].name) == 0) {
            *out = (RtElem)e;
            return true;
        }
    return false;
}
