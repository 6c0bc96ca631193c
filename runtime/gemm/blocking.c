/* blocking.c — the engine's plans: the micro-kernel, packing conversions and cache blocks for an input type on an
 * ISA, from the ISA's target table (core/target.h) or from a caller's tiling. */
#include "gemm_impl.h"

#include <stdio.h>

/* The target table's row of an input type (gemm_check admits only these four for A and B). */
static TargetInput input_of(GemmType t)
{
    switch (t) {
    case GEMM_BF16: return TARGET_IN_BF16;
    case GEMM_F16: return TARGET_IN_F16;
    case GEMM_I8: return TARGET_IN_I8;
    case GEMM_F32:
    case GEMM_I32: break;
    }
    return TARGET_IN_F32;
}

GemmPlan gemm_plan(TargetIsa isa, const GemmFeatures *f, GemmType t, const TargetCaches *c)
{
    const TargetInfo *ti = target_info(isa);
    const TargetGroups *gs = &ti->inputs[input_of(t)];
    const TargetGroup *grp = &gs->group[0]; /* a multiply-add every host of the ISA has */
    for (int i = 1; i < gs->count; i++) {
        TargetOp op = gs->group[i].op;
        if ((op == TARGET_OP_DPBF16 && f->dot_bf16) || (op == TARGET_OP_VNNI && f->vnni))
            grp = &gs->group[i];
    }
    GemmPlan p = {0};
    cg_gemm_spec_for(ti, grp->op, input_of(t), ti->default_mr, ti->default_nr, ti->order, &p.spec, &p.conv_a,
                     &p.conv_b);
    /* grouped elements are packed as they are, single ones widened to the 4-byte accumulator type */
    uint64_t e = grp->g > 1 ? (uint64_t)gemm_type_size(t) : 4;
    TargetBlocks b = target_cache_blocks(c, p.spec.mr, p.spec.nv * p.spec.vl, grp->g, e, NULL);
    p.kc = (int)b.kc;
    p.mc = (int)b.mc;
    p.nc = (int)b.nc;
    return p;
}

int gemm_host_kgroup(TargetIsa isa, const GemmFeatures *f, GemmType t, int kgroup)
{
    const TargetInfo *ti = target_info(isa);
    const TargetGroup *grp = target_group(ti, input_of(t), kgroup);
    bool has = !grp || (grp->op == TARGET_OP_DPBF16 ? f->has_bf16 : grp->op == TARGET_OP_VNNI ? f->vnni : true);
    return has ? kgroup : ti->inputs[input_of(t)].group[0].g;
}

bool gemm_plan_tiled(TargetIsa isa, const GemmFeatures *f, GemmType t, const GemmTiling *tl, GemmPlan *p, char *err,
                     size_t cap)
{
    const TargetInfo *ti = target_info(isa);
    *p = (GemmPlan){0};
    const TargetGroup *grp = target_group(ti, input_of(t), tl->kgroup);
    if (!grp) {
        snprintf(err, cap, "%s panels cannot group K by %d", gemm_type_name(t), tl->kgroup);
        return false;
    }
    bool has = grp->op == TARGET_OP_DPBF16 ? f->has_bf16 : grp->op == TARGET_OP_VNNI ? f->vnni : true;
    if (!has) {
        snprintf(err, cap, "%s panels with K groups of %d need %s, which the host CPU lacks (%s)", gemm_type_name(t),
                 grp->g, target_op_insn(grp->op), target_op_feature(grp->op));
        return false;
    }
    if (!target_tile_ok(ti, tl->mr, tl->nr)) {
        snprintf(err, cap, "a %dx%d micro-tile does not fit the %s kernels (%d-lane vectors, %d registers)", tl->mr,
                 tl->nr, ti->name, ti->lanes, ti->vec_regs);
        return false;
    }
    if (tl->mc < 1 || tl->nc < 1 || tl->kc < 1 || tl->mc > INT32_MAX || tl->nc > INT32_MAX || tl->kc > INT32_MAX) {
        snprintf(err, cap, "tile sizes %lld x %lld x %lld are out of range", (long long)tl->mc, (long long)tl->nc,
                 (long long)tl->kc);
        return false;
    }
    if (!cg_gemm_order_valid(tl->order)) {
        snprintf(err, cap, "the block-loop order %d, %d, %d is not a permutation of M (%d), N (%d) and K (%d)",
                 (int)tl->order[0], (int)tl->order[1], (int)tl->order[2], GEMM_M, GEMM_N, GEMM_K);
        return false;
    }
    if (tl->split != 0 && tl->split != 1) {
        snprintf(err, cap, "split %d is neither 0 (threads own rows of C) nor 1 (columns of C)", tl->split);
        return false;
    }
    cg_gemm_spec_for(ti, grp->op, input_of(t), tl->mr, tl->nr, tl->order, &p->spec, &p->conv_a, &p->conv_b);
    p->mc = (int)tl->mc;
    p->nc = (int)tl->nc;
    p->kc = (int)tl->kc;
    return true;
}
