/* sema_kernel.c — the static rules of GEMM kernel declarations (docs/language.md §6, KernelDecl in ast.h): operands and
 * roles, tile sizes and tile axes, panel layouts, the register and DM budgets, loop order and split. */
#include "front_impl.h"
#include "algebra/algebra.h"

#include <assert.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

/* The packed operands. Pack clauses and their diagnostics name them by role (pack A, pack B), whatever
 * their tensors are called; the header's diagnostics use the tensor names. */
enum { OP_A, OP_B };
static const char *const roles[2] = {"A", "B"};

typedef enum { CL_TILE, CL_PACK, CL_ORDER, CL_SPLIT, CL_GRID, CL_COUNT } Clause;
static const char *const clause_words[CL_COUNT] = {"tile", "pack", "order", "split", "grid"};

struct KernelScope {
    KernelDecl *k;
    const TargetInfo *t;    /* the program's target ISA: its micro-tiles, K groups and default panels */
    int errors;             /* p->diags.count at the header: the kernel is kept only if none are added */
    int syntax_errors;      /* ps->syntax_errors at the header */
    bool dead;              /* the header had a syntax error: the body is parsed, nothing is checked */
    bool axes_ok;           /* M, N and K are declared, consistent and distinct axes (k->axis) */
    bool operands_ok;       /* A, B and C are HBM tensors of a supported type holding their matrices */
    bool tiled;             /* the tile axes exist: M, N and K denote them in the rest of the body */
    const char *op[3];      /* the operands' tensor names as written in the header: C, A, B */
    const char *ax[3];      /* the axes' names as written (GemmRole) */
    Loc seen[CL_COUNT];     /* where each clause word was last met (line 0: not yet) */
    Loc pack_at[2];         /* where pack A and pack B were given (their m! token; line 0: not given) */
    const Map *pack[2];     /* the pack layouts given for A and B, checked to use only their tile axes */
    int word;               /* the clause whose items are being parsed (CL_COUNT: none known) */
    const Map *grid[3];     /* the grid clause's chip, cluster and slice mappings (NULL: not given) */
    Loc grid_at[3];
};


static const char *tok_str(Parser *ps, Token t) { return arena_strndup(&ps->prog->arena, t.s, t.len); }

static bool tok_is(Token t, const char *s) { return strlen(s) == t.len && memcmp(s, t.s, t.len) == 0; }

/* The role of the kernel axis that t names, or -1. */
static int role_of(const KernelScope *ks, Token t)
{
    for (int r = GEMM_M; r <= GEMM_K; r++)
        if (tok_is(t, ks->ax[r]))
            return r;
    return -1;
}

/* ---- the header ---- */

/* The HBM tensor an operand names; NULL after a diagnostic. */
static const TensorDecl *operand_tensor(Parser *ps, Token t)
{
    const Name *n = sema_lookup(ps, t);
    if (!n) {
        diag_error(D(ps), t.loc, "undefined tensor '%.*s'%s", (int)t.len, t.s,
                   prog_did_you_mean(ps->prog, t.s, t.len, NAME_BIT(NAME_TENSOR)));
        return NULL;
    }
    if (n->kind != NAME_TENSOR) {
        diag_error(D(ps), t.loc, "'%s' is %s, not a tensor", n->name, name_kind_phrase(n->kind));
        return NULL;
    }
    if (!n->tensor)
        return NULL; /* its declaration was rejected, and said why */
    if (n->tensor->mem != MEM_HBM) {
        diag_error(D(ps), t.loc, "kernel operand %s is a %s; operands live in HBM (HbmTensor)", n->name,
                   mem_kind_tensor(n->tensor->mem));
        return NULL;
    }
    return n->tensor;
}

/* The axis an operand's index names; -1 after a diagnostic. */
static int operand_axis(Parser *ps, Token t)
{
    const Name *n = sema_lookup(ps, t);
    if (!n) {
        diag_error(D(ps), t.loc, "undeclared axis '%.*s'%s", (int)t.len, t.s,
                   prog_did_you_mean(ps->prog, t.s, t.len, NAME_BIT(NAME_AXIS)));
        return -1;
    }
    if (n->kind != NAME_AXIS) {
        diag_error(D(ps), t.loc, "'%s' is %s, not an axis", n->name, name_kind_phrase(n->kind));
        return -1;
    }
    return n->axis;
}

/* Whether the element types are one of docs/language.md §6's: f32 x f32 -> f32, bf16 x bf16 -> f32, f16 x f16 -> f32,
 * i8 x i8 -> i32. */
static bool types_supported(ElemType a, ElemType b, ElemType c)
{
    static const ElemType ok[][2] = {
        {ELEM_F32, ELEM_F32}, {ELEM_BF16, ELEM_F32}, {ELEM_F16, ELEM_F32}, {ELEM_I8, ELEM_I32}};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        if (a == b && a == ok[i][0] && c == ok[i][1])
            return true;
    return false;
}

/* Appends "axis X", "axes X and Y", "axes X, Y and Z" or "no axis" for the axes marked in used. */
static void axis_list(const Prog *p, const bool *used, Text *t)
{
    int n = 0, i = 0;
    for (int a = 0; a < p->naxes; a++)
        n += used[a];
    text_printf(t, "%s", n == 0 ? "no axis" : n == 1 ? "axis " : "axes ");
    for (int a = 0; a < p->naxes; a++)
        if (used[a]) {
            i++;
            text_printf(t, "%s%s", i == 1 ? "" : i == n ? " and " : ", ", p->axes[a].name);
        }
}

/* An operand tensor t holds the matrix T[X, Y]: its mappings together mention X and Y (unless of size 1)
 * and no other axis (that it holds every index of them, the tensor rules decided at its declaration).
 * false after a diagnostic at loc. */
static bool operand_holds(Parser *ps, const TensorDecl *t, Loc loc, int x, int y)
{
    Prog *p = ps->prog;
    bool *used = arena_alloc(&p->arena, (size_t)p->naxes + 1);
    map_mark_axes(t->maps[0], used);
    map_mark_axes(t->maps[1], used);
    bool exact = true; /* an axis of size 1 need not appear: its one coordinate is 0 */
    for (int a = 0; a < p->naxes; a++)
        exact &= a == x || a == y ? used[a] || p->axes[a].size == 1 : !used[a];
    const char *xn = p->axes[x].name, *yn = p->axes[y].name;
    if (!exact) {
        char list[256];
        Text l = {list, sizeof list, 0};
        axis_list(p, used, &l);
        diag_error(D(ps), loc, "tensor %s's layouts use %s; %s[%s, %s] needs exactly %s and %s", t->name, list,
                   t->name, xn, yn, xn, yn);
        return false;
    }
    /* every index of its axes is held: the tensor rules decided that (exactly) at its declaration */
    return true;
}

/* Resolves the axes of C[M, N] = A[M, K] * B[K, N]: C's define M and N, A's second defines K, and the
 * other three indices must repeat them; M, N and K must differ. Sets k->axis; false after diagnostics. */
static bool kernel_axes(Parser *ps, KernelScope *ks, const KOperand *ops)
{
    static const char *const nth[2] = {"first", "second"};
    /* where each role is defined, and where it is repeated: {operand, index} (ops: C, A, B) */
    static const int def[3][2] = {{0, 0}, {0, 1}, {1, 1}}, use[3][2] = {{1, 0}, {2, 1}, {2, 0}};
    KernelDecl *k = ks->k;
    bool ok = true;
    for (int r = GEMM_M; r <= GEMM_K; r++) {
        ks->ax[r] = tok_str(ps, ops[def[r][0]].axis[def[r][1]]);
        k->axis[r] = operand_axis(ps, ops[def[r][0]].axis[def[r][1]]);
        ok &= k->axis[r] >= 0;
    }
    for (int r = GEMM_M; r <= GEMM_K; r++) {
        Token t = ops[use[r][0]].axis[use[r][1]];
        if (!tok_is(t, ks->ax[r])) {
            diag_error(D(ps), t.loc, "%s's %s axis must be %s's %s axis %s, not %.*s", ks->op[use[r][0]],
                       nth[use[r][1]], ks->op[def[r][0]], nth[def[r][1]], ks->ax[r], (int)t.len, t.s);
            ok = false;
        }
    }
    if (!ok)
        return false;
    /* a repeated axis shows as one operand naming it twice: C if M = N, A if M = K, B if N = K */
    static const int pairs[3][3] = {{GEMM_M, GEMM_N, 0}, {GEMM_M, GEMM_K, 1}, {GEMM_K, GEMM_N, 2}};
    for (int i = 0; i < 3; i++)
        if (k->axis[pairs[i][0]] == k->axis[pairs[i][1]]) {
            const KOperand *o = &ops[pairs[i][2]];
            diag_error(D(ps), o->axis[1].loc, "%s[%s, %s] names axis %s twice; the kernel's axes must be distinct",
                       ks->op[pairs[i][2]], ks->ax[pairs[i][0]], ks->ax[pairs[i][1]], ks->ax[pairs[i][0]]);
            ok = false;
        }
    return ok;
}

void sema_kernel_begin(Parser *ps, Token name, const KOperand *ops)
{
    Prog *p = ps->prog;
    KernelScope *ks = arena_alloc(&p->arena, sizeof *ks);
    ps->kernel = ks;
    ks->word = CL_COUNT;
    ks->errors = p->diags.count;
    ks->syntax_errors = ps->syntax_errors;
    ks->dead = !ops;
    ks->t = target_info(p->target);
    if (!ops)
        return;
    KernelDecl *k = ks->k = arena_alloc(&p->arena, sizeof *k);
    const Name *n = sema_define(ps, name, NAME_KERNEL);
    k->name = n ? n->name : tok_str(ps, name);
    k->loc = name.loc;
    const TensorDecl *t[3]; /* C, A, B */
    bool ok = true;
    for (int i = 0; i < 3; i++) {
        ks->op[i] = tok_str(ps, ops[i].tensor);
        t[i] = operand_tensor(ps, ops[i].tensor);
        ok &= t[i] != NULL;
    }
    ks->axes_ok = kernel_axes(ps, ks, ops);
    if (ok && !types_supported(t[1]->elem, t[2]->elem, t[0]->elem)) {
        diag_error(D(ps), ops[1].tensor.loc,
                   "unsupported element types %s x %s -> %s; supported: f32 x f32 -> f32, bf16 x bf16 -> f32, "
                   "f16 x f16 -> f32, i8 x i8 -> i32",
                   elem_type_name(t[1]->elem), elem_type_name(t[2]->elem), elem_type_name(t[0]->elem));
        ok = false;
    }
    /* the matrices: C[M, N], A[M, K], B[K, N] */
    static const int dims[3][2] = {{GEMM_M, GEMM_N}, {GEMM_M, GEMM_K}, {GEMM_K, GEMM_N}};
    for (int i = 0; i < 3 && ks->axes_ok; i++)
        if (t[i] && !operand_holds(ps, t[i], ops[i].tensor.loc, k->axis[dims[i][0]], k->axis[dims[i][1]]))
            ok = false;
    ks->operands_ok = ok && ks->axes_ok;
    k->c = t[0];
    k->a = t[1];
    k->b = t[2];
}

/* ---- the clauses ---- */

KItem *sema_kernel_item(Parser *ps, KItemKind kind, Token name, Token value, const Map *map)
{
    KItem *it = arena_alloc(&ps->prog->arena, sizeof *it);
    *it = (KItem){.kind = kind, .name = name, .value = value, .map = map};
    return it;
}

/* Whether the body so far had a syntax error (a clause it lacks may be the broken one). */
static bool body_broken(const Parser *ps, const KernelScope *ks) { return ps->syntax_errors != ks->syntax_errors; }

static void not_an_axis(Parser *ps, const KernelScope *ks, const char *word, Token t)
{
    diag_error(D(ps), t.loc, "%s names %.*s, which is not an axis of kernel %s", word, (int)t.len, t.s, ks->k->name);
}

/* tile M = 96, N = 384, K = 256: each axis once, sizes >= 1; creates the tile axes. */
static void clause_tile(Parser *ps, KernelScope *ks, Token word, const KItem *items)
{
    if (!ks->axes_ok)
        return;
    Prog *p = ps->prog;
    KernelDecl *k = ks->k;
    uint64_t size[3] = {0};
    Loc at[3] = {0};
    bool ok = true;
    for (const KItem *it = items; it; it = it->next) {
        int r = role_of(ks, it->name);
        if (it->kind != KITEM_NUM) {
            diag_error(D(ps), it->name.loc, "tile gives each axis a size, as in tile %s = 96, %s = 384, %s = 256",
                       ks->ax[GEMM_M], ks->ax[GEMM_N], ks->ax[GEMM_K]);
            ok = false;
        } else if (r < 0) {
            not_an_axis(ps, ks, "tile", it->name);
            ok = false;
        } else if (at[r].line) {
            diag_error(D(ps), it->name.loc, "tile gives %s twice", ks->ax[r]);
            ok = false;
        } else if (it->value.num == 0) {
            diag_error(D(ps), it->value.loc, "tile size of %s is 0; tile sizes are at least 1", ks->ax[r]);
            at[r] = it->name.loc;
            ok = false;
        } else {
            size[r] = it->value.num;
            at[r] = it->name.loc;
        }
    }
    int missing[3], n = 0;
    for (int r = GEMM_M; r <= GEMM_K; r++)
        if (!at[r].line)
            missing[n++] = r;
    if (n && ok) {
        char list[192];
        Text l = {list, sizeof list, 0};
        for (int i = 0; i < n; i++)
            text_printf(&l, "%s%s", i == 0 ? "" : i == n - 1 ? " and " : ", ", ks->ax[missing[i]]);
        diag_error(D(ps), word.loc, "tile needs %s, %s and %s; %s %s missing", ks->ax[GEMM_M], ks->ax[GEMM_N],
                   ks->ax[GEMM_K], list, n == 1 ? "is" : "are");
    }
    if (!ok || n)
        return;
    for (int r = GEMM_M; r <= GEMM_K; r++) {
        k->tile[r] = size[r];
        k->tile_axis[r] = sema_add_axis(p, p->axes[k->axis[r]].name, size[r], at[r]);
        p->axes[k->tile_axis[r]].local = true;
    }
    ks->tiled = true;
}

/* pack A = m![...], pack B = m![...]: after the tile clause, once per operand, over the operand's two tile
 * axes only. */
static void clause_pack(Parser *ps, KernelScope *ks, Token word, const KItem *items)
{
    Prog *p = ps->prog;
    if (!ks->seen[CL_TILE].line) {
        if (!body_broken(ps, ks))
            diag_error(D(ps), word.loc, "pack needs the tile sizes; write the tile clause first (a kernel without "
                                        "one takes the cache model's tiles and the default panels)");
        return;
    }
    if (items->next || items->kind != KITEM_MAP) {
        diag_error(D(ps), word.loc, "pack takes one operand and its layout, as in pack A = m![...]");
        return;
    }
    int op = tok_is(items->name, roles[OP_A]) ? OP_A : tok_is(items->name, roles[OP_B]) ? OP_B : -1;
    if (op < 0) {
        diag_error(D(ps), items->name.loc, "pack takes A or B (the role of the packed operand), not %.*s",
                   (int)items->name.len, items->name.s);
        return;
    }
    if (ks->pack_at[op].line) {
        diag_error(D(ps), word.loc, "duplicate pack %s clause (the first is at line %u)", roles[op],
                   ks->pack_at[op].line);
        return;
    }
    ks->pack_at[op] = items->value.loc;
    if (!items->map || !ks->tiled)
        return;
    const KernelDecl *k = ks->k;
    int rows = k->tile_axis[op == OP_A ? GEMM_M : GEMM_N], depth = k->tile_axis[GEMM_K];
    bool *used = arena_alloc(&p->arena, (size_t)p->naxes + 1);
    map_mark_axes(items->map, used);
    for (int a = 0; a < p->naxes; a++)
        if (used[a] && a != rows && a != depth) {
            diag_error(D(ps), items->value.loc,
                       "pack %s uses axis %s of size %llu; %s's tile has only the tile axes %s (size %llu) and %s "
                       "(size %llu)",
                       roles[op], p->axes[a].name, U(p->axes[a].size), roles[op], p->axes[rows].name,
                       U(p->axes[rows].size), p->axes[depth].name, U(p->axes[depth].size));
            return;
        }
    ks->pack[op] = items->map;
}

/* order N, K, M: the block loops, outermost first, each axis once. */
static void clause_order(Parser *ps, KernelScope *ks, Token word, const KItem *items)
{
    if (!ks->axes_ok)
        return;
    int n = 0, mask = 0;
    for (const KItem *it = items; it; it = it->next) {
        int r = role_of(ks, it->name);
        if (it->kind != KITEM_NAME) {
            diag_error(D(ps), it->name.loc, "order lists axes, as in order %s, %s, %s", ks->ax[GEMM_N], ks->ax[GEMM_K],
                       ks->ax[GEMM_M]);
            return;
        }
        if (r < 0) {
            not_an_axis(ps, ks, "order", it->name);
            return;
        }
        if (n < 3)
            ks->k->order[n] = (GemmRole)r;
        n++;
        mask |= 1 << r;
    }
    if (n != 3 || mask != 7)
        diag_error(D(ps), word.loc, "order names each of %s, %s and %s once", ks->ax[GEMM_M], ks->ax[GEMM_N],
                   ks->ax[GEMM_K]);
}

/* split M: the axis of C whose tiles are spread over slices. */
static void clause_split(Parser *ps, KernelScope *ks, Token word, const KItem *items)
{
    if (!ks->axes_ok)
        return;
    int r = role_of(ks, items->name);
    if (items->next || items->kind != KITEM_NAME)
        diag_error(D(ps), word.loc, "split takes one axis, %s or %s (C's tiles are spread over slices)",
                   ks->ax[GEMM_M], ks->ax[GEMM_N]);
    else if (r < 0)
        not_an_axis(ps, ks, "split", items->name);
    else if (r == GEMM_K)
        diag_error(D(ps), items->name.loc, "split takes %s or %s (C's tiles are spread over slices), not %s",
                   ks->ax[GEMM_M], ks->ax[GEMM_N], ks->ax[GEMM_K]);
    else
        ks->k->split = (GemmRole)r;
}

/* The clause a word names, or CL_COUNT. */
static int clause_of(Token word)
{
    int cl = 0;
    while (cl < CL_COUNT && !tok_is(word, clause_words[cl]))
        cl++;
    return cl;
}

void sema_kernel_word(Parser *ps, Token word)
{
    if (ps->kernel)
        ps->kernel->word = clause_of(word);
}

void sema_kernel_clause(Parser *ps, Token word, KItem *items)
{
    KernelScope *ks = ps->kernel;
    assert(ks);
    ks->word = CL_COUNT;
    if (ks->dead)
        return;
    KItem *in_order = NULL; /* items come newest first */
    while (items) {
        KItem *next = items->next;
        items->next = in_order;
        in_order = items;
        items = next;
    }
    int cl = clause_of(word);
    if (cl == CL_COUNT) {
        diag_error(D(ps), word.loc, "unknown kernel clause '%.*s'; expected tile, pack, order, split or grid",
                   (int)word.len, word.s);
        return;
    }
    if (cl != CL_PACK && ks->seen[cl].line) {
        diag_error(D(ps), word.loc, "duplicate %s clause (the first is at line %u)", clause_words[cl],
                   ks->seen[cl].line);
        return;
    }
    ks->seen[cl] = word.loc;
    switch ((Clause)cl) {
    case CL_TILE: clause_tile(ps, ks, word, in_order); break;
    case CL_PACK: clause_pack(ps, ks, word, in_order); break;
    case CL_ORDER: clause_order(ps, ks, word, in_order); break;
    case CL_SPLIT: clause_split(ps, ks, word, in_order); break;
    case CL_GRID:
        if (ks->axes_ok)
            sema_grid_clause(ps, ks->k, word, in_order, ks->grid, ks->grid_at);
        break;
    case CL_COUNT: break;
    }
}

bool sema_kernel_axis(const Parser *ps, Token name, int *axis)
{
    const KernelScope *ks = ps->kernel;
    if (!ks)
        return false;
    if (ks->dead) {
        *axis = -1;
        return true;
    }
    int r = role_of(ks, name);
    if (r < 0)
        return false;
    if (ks->word == CL_GRID) /* a grid spreads C's blocks: the kernel's own axes */
        *axis = ks->axes_ok ? ks->k->axis[r] : -1;
    else
        *axis = ks->tiled ? ks->k->tile_axis[r] : -1;
    return true;
}

/* ---- the whole kernel ---- */

/* The target table's row of a kernel input type (one of types_supported's). */
static TargetInput input_of(ElemType t)
{
    switch (t) {
    case ELEM_BF16: return TARGET_IN_BF16;
    case ELEM_F16: return TARGET_IN_F16;
    case ELEM_I8: return TARGET_IN_I8;
    default: return TARGET_IN_F32;
    }
}

/* The K groups the target's micro-kernels take for an input type. */
static const TargetGroups *groups_of(const KernelScope *ks, ElemType t) { return &ks->t->inputs[input_of(t)]; }

/* The groups as a phrase for diagnostics: "1 (widened to f32) or 2 (vdpbf16ps dot products)". */
static void groups_phrase(const TargetGroups *gs, Text *out)
{
    for (int i = 0; i < gs->count; i++) {
        const TargetGroup *g = &gs->group[i];
        text_printf(out, "%s%d", i == 0 ? "" : i == gs->count - 1 ? " or " : ", ", g->g);
        if (g->phrase)
            text_printf(out, " (%s)", g->phrase);
    }
}

/* The default K group of an input type (VNNI's 4 for i8 on AVX-512, else 1). */
static int default_group(const KernelScope *ks, ElemType t)
{
    const TargetGroups *gs = groups_of(ks, t);
    return gs->group[gs->preferred].g;
}

/* Reports that the pack layout of operand op is no panel layout, with the form it should have. */
static void not_a_panel(Parser *ps, const KernelScope *ks, int op)
{
    Prog *p = ps->prog;
    const Map *m = ks->pack[op];
    size_t n = map_format(p, m, NULL, 0);
    char *s = arena_alloc(&p->arena, n + 1);
    map_format(p, m, s, n + 1);
    const char *r = ks->ax[op == OP_A ? GEMM_M : GEMM_N], *kn = ks->ax[GEMM_K], *w = op == OP_A ? "mr" : "nr";
    diag_error(D(ps), ks->pack_at[op],
               "pack %s %s is not a panel layout the micro-kernel reads; expected m![%s / %s, %s / g, %s %% %s, "
               "%s %% g] (%s padded to a multiple of %s, %s to a multiple of g)",
               roles[op], s, r, w, kn, r, w, kn, r, w, kn);
}

/* The height of A panels in group g for pack A m (NULL: the default): the target's default mr (or less to
 * fit max), else the tallest up to max whose panel layout m is; 0 if none is. */
static int a_height(Prog *p, const TargetInfo *t, const Map *m, int r_axis, int k_axis, int g, int max)
{
    int pref = t->default_mr < max ? t->default_mr : max;
    if (!m || panel_is(p, m, r_axis, k_axis, pref, g))
        return pref;
    for (int c = max; c >= 1; c--)
        if (c != pref && panel_is(p, m, r_axis, k_axis, c, g))
            return c;
    return 0;
}

/* Chooses a panel geometry t's micro-kernel takes that the pack layouts pack[] are (the defaults where NULL):
 * a group g the input type takes (its default first; the others when a layout only has another), B panels of
 * nr columns (the default first, then the narrowest, which leaves A more registers) and A panels of mr rows
 * within the register budget. Several geometries may describe one layout (panels of one row take any group,
 * a K tile of one group any width that pads alike), hence the search; false if there is none. */
static bool choose_panels(Prog *p, const KernelScope *ks, const TargetInfo *t, const Map *const pack[2], int *mr,
                          int *nr, int *g)
{
    const KernelDecl *k = ks->k;
    const Map *pa = pack[OP_A], *pb = pack[OP_B];
    int tm = k->tile_axis[GEMM_M], tn = k->tile_axis[GEMM_N], tk = k->tile_axis[GEMM_K];
    int widths[TARGET_MAX_NV + 1], nw = 0; /* the default, then the others */
    widths[nw++] = t->default_nr;
    for (int v = 1; v <= t->max_nv; v++)
        if (v * t->lanes != t->default_nr)
            widths[nw++] = v * t->lanes;
    const TargetGroups *gs = &t->inputs[input_of(k->a->elem)];
    for (int i = -1; i < gs->count; i++) {
        if (i == gs->preferred)
            continue;
        int gi = gs->group[i < 0 ? gs->preferred : i].g;
        for (int j = 0; j < nw; j++) {
            if (pb ? !panel_is(p, pb, tn, tk, widths[j], gi) : j > 0)
                continue;
            int h = a_height(p, t, pa, tm, tk, gi, target_max_mr(t, widths[j]));
            if (h) {
                *mr = h;
                *nr = widths[j];
                *g = gi;
                return true;
            }
        }
    }
    return false;
}

/* The DM panel geometry of the pack layouts and the micro-tile the target computes with: the layouts' own
 * when the target's micro-kernel reads them; else, when they are panels another ISA's micro-kernel reads
 * (pack clauses written for AVX-512 on an AVX2 host), they stay the DM layout and the target computes with
 * its defaults, packing its own panels from the same tiles. false if no ISA reads them. */
static bool geometry(Prog *p, const KernelScope *ks, KernelDecl *k)
{
    static const TargetIsa all[] = {TARGET_ISA_AVX512, TARGET_ISA_AVX2, TARGET_ISA_PORTABLE};
    const TargetInfo *dm = NULL;
    if (choose_panels(p, ks, ks->t, ks->pack, &k->pack_mr, &k->pack_nr, &k->pack_kgroup))
        dm = ks->t;
    for (size_t i = 0; i < sizeof all / sizeof *all && !dm && (ks->pack[OP_A] || ks->pack[OP_B]); i++)
        if (all[i] != ks->t->isa &&
            choose_panels(p, ks, target_info(all[i]), ks->pack, &k->pack_mr, &k->pack_nr, &k->pack_kgroup))
            dm = target_info(all[i]);
    if (!dm)
        return false;
    k->pack_isa = dm->isa;
    if (dm == ks->t) {
        k->mr = k->pack_mr;
        k->nr = k->pack_nr;
        k->kgroup = k->pack_kgroup;
        return true;
    }
    static const Map *const defaults[2] = {NULL, NULL};
    bool ok = choose_panels(p, ks, ks->t, defaults, &k->mr, &k->nr, &k->kgroup);
    assert(ok); /* the default panels are the target's own */
    return ok;
}

/* Says why choose_panels found no geometry, from the one each pack layout has (panel_recognize). */
static void explain_panels(Parser *ps, const KernelScope *ks)
{
    Prog *p = ps->prog;
    const TargetInfo *ti = ks->t;
    const KernelDecl *k = ks->k;
    ElemType t = k->a->elem;
    const Map *pa = ks->pack[OP_A], *pb = ks->pack[OP_B];
    int tm = k->tile_axis[GEMM_M], tn = k->tile_axis[GEMM_N], tk = k->tile_axis[GEMM_K];
    int nr = ti->default_nr, gb = default_group(ks, t);
    bool ok = true;
    if (pb && !panel_recognize(p, pb, tn, tk, &nr, &gb)) {
        not_a_panel(ps, ks, OP_B);
        ok = false;
    }
    int mr = ti->default_mr, ga = gb;
    if (pa && !panel_recognize(p, pa, tm, tk, &mr, &ga)) {
        not_a_panel(ps, ks, OP_A);
        ok = false;
    }
    if (!ok)
        return;
    if (!pa)
        ga = gb; /* a lone pack sets the group of the other */
    if (!pb)
        gb = ga;
    if (ga != gb) {
        diag_error(D(ps), ks->pack_at[OP_B],
                   "pack B groups K by %d but pack A by %d; the K groups of A and B must agree", gb, ga);
    } else if (!target_group(ti, input_of(t), ga)) {
        char groups[192];
        Text g = {groups, sizeof groups, 0};
        groups_phrase(groups_of(ks, t), &g);
        diag_error(D(ps), ks->pack_at[pa ? OP_A : OP_B], "pack %s groups K by %d; %s operands take K groups of %s",
                   roles[pa ? OP_A : OP_B], ga, elem_type_name(t), groups);
    }
    bool nr_ok = target_nr_ok(ti, nr);
    if (!nr_ok) {
        char widths[64];
        Text w = {widths, sizeof widths, 0};
        for (int v = 1; v <= ti->max_nv; v++)
            text_printf(&w, "%s%d", v == 1 ? "" : v == ti->max_nv ? " or " : ", ", v * ti->lanes);
        diag_error(D(ps), ks->pack_at[OP_B], "pack B has panels of %d columns (nr); the micro-kernel takes %s", nr,
                   widths);
    }
    if (mr > ti->max_mr)
        diag_error(D(ps), ks->pack_at[OP_A], "pack A has panels of %d rows (mr); the micro-kernel takes 1 to %d", mr,
                   ti->max_mr);
    else if (nr_ok && mr > target_max_mr(ti, nr))
        diag_error(D(ps), ks->pack_at[OP_A], "micro-tile %dx%d needs %d vector registers; %s has %d", mr, nr,
                   target_regs_needed(ti, mr, nr), ti->label, ti->vec_regs);
}

/* The panel geometry (chosen to fit the pack clauses), the micro-tile and the DM that one A tile and one B
 * tile take; fills k->pack_mr, pack_nr, pack_kgroup, pack_isa, mr, nr, kgroup, dm_bytes. false after
 * diagnostics. */
static bool kernel_panels(Parser *ps, KernelScope *ks)
{
    KernelDecl *k = ks->k;
    int before = ps->prog->diags.count;
    if (!geometry(ps->prog, ks, k)) {
        explain_panels(ps, ks);
        assert(ps->prog->diags.count > before); /* a geometry that breaks no rule would have been chosen */
        return false;
    }
    /* grouped elements are packed as they are, single ones widened to the accumulator type */
    uint64_t pe = elem_type_size(k->pack_kgroup > 1 ? k->a->elem : k->c->elem);
    const Map *pa = ks->pack[OP_A], *pb = ks->pack[OP_B];
    const uint64_t *tile = k->tile;
    uint64_t ea = pa ? pa->size : 0, eb = pb ? pb->size : 0, ba, bb;
    bool fits = (pa || panel_size(tile[GEMM_M], tile[GEMM_K], k->pack_mr, k->pack_kgroup, &ea)) &&
                (pb || panel_size(tile[GEMM_N], tile[GEMM_K], k->pack_nr, k->pack_kgroup, &eb)) &&
                u64_mul(ea, pe, &ba) && u64_mul(eb, pe, &bb) && !__builtin_add_overflow(ba, bb, &k->dm_bytes);
    uint64_t limit = tensor_default_limits().dm_slice_bytes;
    if (!fits) {
        diag_error(D(ps), ks->seen[CL_TILE].line ? ks->seen[CL_TILE] : k->loc,
                   "kernel %s: tiles %s %llu, %s %llu, %s %llu: the bytes of one A tile and one B tile overflow 64 "
                   "bits (a slice's DM holds %llu)",
                   k->name, ks->ax[GEMM_M], U(tile[GEMM_M]), ks->ax[GEMM_N], U(tile[GEMM_N]), ks->ax[GEMM_K],
                   U(tile[GEMM_K]), U(limit));
        return false;
    }
    if (k->dm_bytes > limit) {
        diag_error(D(ps), ks->seen[CL_TILE].line ? ks->seen[CL_TILE] : k->loc,
                   "kernel %s: one A tile and one B tile need %llu bytes of DM per slice (A %llu + B %llu), more than "
                   "the %llu of a slice",
                   k->name, U(k->dm_bytes), U(ba), U(bb), U(limit));
        return false;
    }
    return true;
}

/* No tile clause: the cache model's tiles for the ISA's default micro-tile and K group; creates the tile axes. */
static void model_tiles(Parser *ps, KernelScope *ks)
{
    Prog *p = ps->prog;
    KernelDecl *k = ks->k;
    const TargetInfo *ti = ks->t;
    uint64_t block[3];
    sema_grid_blocks(p, k, ks->grid, block);
    sema_model_tile(p, k, ti->default_mr, ti->default_nr, default_group(ks, k->a->elem), block, k->tile);
    for (int r = GEMM_M; r <= GEMM_K; r++) {
        k->model_tile[r] = k->tile[r];
        k->tile_axis[r] = sema_add_axis(p, p->axes[k->axis[r]].name, k->tile[r], k->loc);
        p->axes[k->tile_axis[r]].local = true;
    }
    k->tile_from_model = true;
    ks->tiled = true;
}

void sema_kernel_end(Parser *ps)
{
    Prog *p = ps->prog;
    KernelScope *ks = ps->kernel;
    ps->kernel = NULL;
    if (ks->dead)
        return;
    KernelDecl *k = ks->k;
    if (!ks->seen[CL_TILE].line && ks->axes_ok && ks->operands_ok && !ks->pack_at[OP_A].line &&
        !ks->pack_at[OP_B].line && !body_broken(ps, ks) && p->diags.count == ks->errors)
        model_tiles(ps, ks);
    /* a rejected pack clause (reported) leaves the panels unknown: nothing more to say about them */
    bool packs_ok = (!ks->pack_at[OP_A].line || ks->pack[OP_A]) && (!ks->pack_at[OP_B].line || ks->pack[OP_B]);
    if (!ks->tiled || !ks->operands_ok || !packs_ok || !kernel_panels(ps, ks) || p->diags.count != ks->errors)
        return;
    if (!k->tile_from_model) {
        uint64_t block[3];
        sema_grid_blocks(p, k, ks->grid, block);
        sema_model_tile(p, k, k->mr, k->nr, k->kgroup, block, k->model_tile);
    }
    const int *ta = k->tile_axis;
    k->pack_a = ks->pack[OP_A] ? ks->pack[OP_A]
                               : panel_map(p, ta[GEMM_M], ta[GEMM_K], k->pack_mr, k->pack_kgroup, k->loc);
    k->pack_b = ks->pack[OP_B] ? ks->pack[OP_B]
                               : panel_map(p, ta[GEMM_N], ta[GEMM_K], k->pack_nr, k->pack_kgroup, k->loc);
    assert(k->pack_a && k->pack_b); /* their sizes fit in DM */
    if (!ks->seen[CL_ORDER].line)
        memcpy(k->order, ks->t->order, sizeof k->order);
    k->isa = ks->t->isa;
    if (!ks->seen[CL_SPLIT].line)
        k->split = p->axes[k->axis[GEMM_M]].size >= p->axes[k->axis[GEMM_N]].size ? GEMM_M : GEMM_N;
    if (!sema_grid_finish(ps, k, ks->grid, ks->grid_at, ks->seen[CL_GRID].line, ks->seen[CL_SPLIT].line, k->loc))
        return;
    p->kernels = arena_grow(&p->arena, p->kernels, p->nkernels, &p->kernels_cap, sizeof *p->kernels);
    p->kernels[p->nkernels++] = k;
}
