/* kernel_tile.c — the tiles the cache model gives a kernel: its cache blocks, shrunk to fit one slice's DM. */
#include "algebra/algebra.h"
#include "front_impl.h"

static uint64_t round_down(uint64_t n, uint64_t m, uint64_t least)
{
    n = n / m * m;
    return n < least ? least : n;
}

/* The tile of an axis of size n for a block of at most blk (a multiple of w): as many tiles as blk needs, of
 * equal size rounded up to w, so that the last is not a sliver; n itself when one tile holds it. */
static uint64_t balance(uint64_t blk, uint64_t n, uint64_t w)
{
    if (blk >= n)
        return n;
    uint64_t tiles = (n + blk - 1) / blk, even = ((n + tiles - 1) / tiles + w - 1) / w * w;
    return even < blk ? even : blk;
}

void sema_model_tile(Prog *p, const KernelDecl *k, int mr, int nr, int g, const uint64_t block[3], uint64_t out[3])
{
    uint64_t shape[3];
    for (int r = GEMM_M; r <= GEMM_K; r++) {
        uint64_t n = p->axes[k->axis[r]].size;
        shape[r] = block[r] >= 1 && block[r] < n ? block[r] : n;
    }
    /* grouped elements are packed as they are, single ones widened to the accumulator type */
    uint64_t e = elem_type_size(g > 1 ? k->a->elem : k->c->elem);
    TargetBlocks b = target_cache_blocks(prog_caches(p), mr, nr, g, e, shape);
    uint64_t dm = tensor_default_limits().dm_slice_bytes, umr = (uint64_t)mr, unr = (uint64_t)nr, ug = (uint64_t)g;
    /* B's tile may take 3/4 of the slice, A's the rest; then K shrinks. The blocks are multiples of the panels
     * (or one axis), so their bytes are mc * kc * e and nc * kc * e; each step shrinks one block. */
    for (;;) {
        uint64_t row = b.kc * e, a = b.mc * row, bb = b.nc * row;
        if (a + bb <= dm)
            break;
        uint64_t bmax = dm / 4 * 3 / row / unr * unr;
        if (b.nc > unr && b.nc > bmax) {
            b.nc = bmax < unr ? unr : bmax;
            continue;
        }
        uint64_t amax = bb >= dm ? 0 : (dm - bb) / row / umr * umr;
        if (b.mc > umr && b.mc > amax) {
            b.mc = amax < umr ? umr : amax;
            continue;
        }
        if (b.kc <= ug)
            break; /* one panel of each is too large: kernel_panels reports the bytes */
        b.kc = round_down(b.kc / 2, ug, ug);
    }
    out[GEMM_M] = balance(b.mc, shape[GEMM_M], umr);
    out[GEMM_N] = balance(b.nc, shape[GEMM_N], unr);
    out[GEMM_K] = balance(b.kc, shape[GEMM_K], ug);
}
