/* tensor_rules.c — the static rules of tensors in memories (SPEC §5): disjoint axes and capacities,
 * shared by `tensor` declarations and the runtime. */
#include "algebra.h"

#include <stdio.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

TensorLimits tensor_default_limits(void)
{
    return (TensorLimits){
        .hbm_chip_bytes = UINT64_C(48) << 30,
        .dm_slice_bytes = 512 * 1024,
        .dm_max_clusters = 2,
        .dm_slices = {64, 128, 256, 0},
    };
}

bool tensor_check(const Prog *p, MemKind mem, ElemType elem, const Map *const *maps, const TensorLimits *lim,
                  char *why, size_t size)
{
    int n = mem_kind_maps(mem);
    bool seen[256] = {0}, mine[256];
    bool track = p->naxes <= 256;
    for (int i = 0; i < n && track; i++) {
        memset(mine, 0, sizeof mine);
        map_mark_axes(maps[i], mine);
        for (int a = 0; a < p->naxes; a++) {
            if (mine[a] && seen[a]) {
                snprintf(why, size, "the %s mapping uses axis %s, which another mapping of the tensor already uses",
                         mem_kind_dim(mem, i), p->axes[a].name);
                return false;
            }
            seen[a] |= mine[a];
        }
    }
    const Map *element = maps[n - 1];
    uint64_t bytes = u64_sat_mul(element->size, elem_type_size(elem));
    if (mem == MEM_HBM && bytes > lim->hbm_chip_bytes) {
        snprintf(why, size, "HBM tensor needs %llu bytes per chip (%llu %s elements), more than the %llu bytes of a chip",
                 U(bytes), U(element->size), elem_type_name(elem), U(lim->hbm_chip_bytes));
        return false;
    }
    if (mem != MEM_DM)
        return true;
    if (maps[1]->size > lim->dm_max_clusters) {
        snprintf(why, size, "DM tensor spans %llu clusters, more than the %llu of a chip", U(maps[1]->size),
                 U(lim->dm_max_clusters));
        return false;
    }
    bool slices_ok = false;
    char allowed[96] = "";
    size_t len = 0;
    for (int i = 0; i < 4 && lim->dm_slices[i]; i++) {
        slices_ok |= maps[2]->size == lim->dm_slices[i];
        len += (size_t)snprintf(allowed + len, len < sizeof allowed ? sizeof allowed - len : 0, "%s%llu", i ? ", " : "",
                                U(lim->dm_slices[i]));
    }
    if (!slices_ok) {
        snprintf(why, size, "DM tensor spans %llu slices; a DM tensor spans one of %s", U(maps[2]->size), allowed);
        return false;
    }
    if (bytes > lim->dm_slice_bytes) {
        snprintf(why, size, "DM tensor needs %llu bytes per slice (%llu %s elements), more than the %llu bytes of a slice",
                 U(bytes), U(element->size), elem_type_name(elem), U(lim->dm_slice_bytes));
        return false;
    }
    return true;
}
