/* kinds.c — element types (spellings and sizes, from the ELEM_TYPES table) and memory kinds (names). */
#include "ast.h"

#include <string.h>

static const struct {
    const char *name;
    size_t size;
} elem_types[ELEM_COUNT] = {
#define X(k, s, b) [k] = {s, b},
    ELEM_TYPES(X)
#undef X
};

const char *elem_type_name(ElemType t) { return (unsigned)t < ELEM_COUNT ? elem_types[t].name : "?"; }

size_t elem_type_size(ElemType t) { return (unsigned)t < ELEM_COUNT ? elem_types[t].size : 0; }

bool elem_type_parse(const char *name, size_t len, ElemType *out)
{
    for (int t = 0; t < ELEM_COUNT; t++)
        if (strlen(elem_types[t].name) == len && memcmp(elem_types[t].name, name, len) == 0) {
            *out = (ElemType)t;
            return true;
        }
    return false;
}

const char *mem_kind_tensor(MemKind mem)
{
    static const char *const names[] = {"HostTensor", "HbmTensor", "DmTensor"};
    return (unsigned)mem <= MEM_DM ? names[mem] : "?";
}

int mem_kind_maps(MemKind mem) { return mem == MEM_HOST ? 1 : mem == MEM_HBM ? 2 : 4; }

const char *mem_kind_dim(MemKind mem, int i)
{
    static const char *const dims[3][4] = {{"Element"}, {"Chip", "Element"}, {"Chip", "Cluster", "Slice", "Element"}};
    return (unsigned)mem <= MEM_DM && i >= 0 && i < mem_kind_maps(mem) ? dims[mem][i] : "?";
}
