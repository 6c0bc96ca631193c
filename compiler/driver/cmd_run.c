/* cmd_run.c — "mapc run": JIT-compile a declared GEMM kernel, run it on seeded operands, verify, time (a copy:
 * cmd_run_copy.c). */
#include "cmd_options.h"
#include "cmd_run_copy.h"
#include "driver.h"
#include "gemm/rt_gemm.h"
#include "progress.h"
#include "run_verify.h"
#include "transport.h"
#ifdef MAPC_HAVE_MPI
#include "mpi/transport_mpi.h"
#endif

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Products up to this many multiply-adds are checked element by element; larger ones on a sample. */
#define FULL_CHECK_LIMIT (1ull << 31)
#define CHECK_SAMPLES 8192



static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static const KernelDecl *find_kernel(const Prog *p, const char *name)
{
    for (int i = 0; i < p->nkernels; i++)
        if (strcmp(p->kernels[i]->name, name) == 0)
            return p->kernels[i];
    return NULL;
}

/* An empty program whose kernels are checked for the ISA of o (NULL if out of memory: load_into says so). */
static Prog *target_prog(const RunOptions *o)
{
    return drv_new_prog(o->isa);
}

/* Loads FILE for o's ISA (with the --m/--n/--k overrides applied to the kernel's axes) and finds the
 * kernel; NULL after printing why. */
static Prog *load_kernel(const char *file, const char *name, const RunOptions *o, const KernelDecl **k)
{
    Prog *p = drv_load_into(target_prog(o), file, false);
    if (!p)
        return NULL;
    *k = find_kernel(p, name);
    if (!*k) {
        drv_no_such(p, file, "kernel", name, NAME_KERNEL);
        prog_free(p);
        return NULL;
    }
    if (!o->size[0] && !o->size[1] && !o->size[2])
        return p;
    Prog *q = target_prog(o);
    for (int r = 0; r < 3 && q; r++)
        if (o->size[r])
            prog_override_axis(q, p->axes[(*k)->axis[r]].name, o->size[r]);
    prog_free(p);
    if (!(q = drv_load_into(q, file, false)))
        return NULL;
    *k = find_kernel(q, name);
    return q;
}

/* The dense host array of operand tensor t over the axes (x, y): row-major over the tensor's axes
 * in declaration order, so transposed when y was declared first. */
static bool host_for(const RtTensor *t, const Prog *p, int x, HostMat *m, int y)
{
    int *axes = calloc((size_t)p->naxes + 1, sizeof *axes);
    if (!axes)
        return false;
    /* a layout may leave out an axis of size 1 (then the array is the same either way) */
    bool transposed = rt_tensor_axes(t, axes) > 0 && axes[0] != x;
    free(axes);
    m->elem = rt_tensor_elem(t);
    m->rows = p->axes[x].size;
    m->cols = p->axes[y].size;
    m->ri = transposed ? 1 : m->cols;
    m->ci = transposed ? m->rows : 1;
    return drv_host_alloc(m);
}

/* n bytes as "48 KiB" or "2 MiB" (whole units when they divide, else KiB). */
static void fmt_bytes(uint64_t n, char *out, size_t cap)
{
    if (n % (1u << 20) == 0)
        snprintf(out, cap, "%llu MiB", (unsigned long long)(n >> 20));
    else
        snprintf(out, cap, "%llu KiB", (unsigned long long)(n >> 10));
}

/* Where k's tiles come from: the cache model (no tile clause), or a remark when a declared tile is more than
 * twice or less than half the model's. */
static void print_tile_source(const Prog *p, const KernelDecl *k, const char *const ax[3])
{
    char l1[32], l2[32], caches[160];
    fmt_bytes(p->caches.l1d, l1, sizeof l1);
    fmt_bytes(p->caches.l2, l2, sizeof l2);
    snprintf(caches, sizeof caches, "L1d %s and L2 %s per core, from %s", l1, l2, p->caches.source);
    if (k->tile_from_model) {
        printf("  tiles from the cache model (%s)\n", caches);
        return;
    }
    char far[160] = "";
    size_t n = 0;
    for (int r = 0; r < 3; r++) {
        uint64_t t = k->tile[r], m = k->model_tile[r];
        if ((t > 2 * m || 2 * t < m) && n < sizeof far)
            n += (size_t)snprintf(far + n, sizeof far - n, "%s%s %.2gx", n ? ", " : "", ax[r], (double)t / (double)m);
    }
    if (n)
        printf("  remark: the tiles are far from the cache model's %s %llu, %s %llu, %s %llu (%s): %s; a kernel "
               "without a tile clause takes the model's\n",
               ax[0], (unsigned long long)k->model_tile[0], ax[1], (unsigned long long)k->model_tile[1], ax[2],
               (unsigned long long)k->model_tile[2], caches, far);
}

static void print_plan(const Prog *p, const KernelDecl *k, const RtGemm *g, int threads)
{
    static const char *const opnames[3] = {"A", "B", "C"};
    const TensorDecl *ops[3] = {k->a, k->b, k->c};
    const char *ax[3] = {p->axes[k->axis[0]].name, p->axes[k->axis[1]].name, p->axes[k->axis[2]].name};
    printf("kernel %s: %s[%s, %s] = %s[%s, %s] * %s[%s, %s], %s x %s -> %s, %s=%llu %s=%llu %s=%llu\n", k->name,
           k->c->name, ax[0], ax[1], k->a->name, ax[0], ax[2], k->b->name, ax[2], ax[1], elem_type_name(k->a->elem),
           elem_type_name(k->b->elem), elem_type_name(k->c->elem), ax[0],
           (unsigned long long)p->axes[k->axis[0]].size, ax[1], (unsigned long long)p->axes[k->axis[1]].size, ax[2],
           (unsigned long long)p->axes[k->axis[2]].size);
    for (int i = 0; i < 3; i++) {
        const RtGemmAccess *a = rt_gemm_access(g, i);
        char *chip = drv_fmt_map(p, ops[i]->maps[0]), *elem = drv_fmt_map(p, ops[i]->maps[1]);
        printf("  %s  %s in HBM <%s, %s>: ", opnames[i], ops[i]->name, chip, elem);
        if (a->strided)
            printf("strided (%lld, %lld), read in place", (long long)a->rs, (long long)a->cs);
        else
            printf("staged through row-major HBM by a JIT relayout kernel");
        free(chip);
        free(elem);
        printf("\n");
    }
    /* the work: the grid's units, and the DM tiles they hold (the operand's tiles over the grid, replicated
     * along the grid's digits of the axis it lacks) */
    char *grid[3];
    for (int d = 0; d < 3; d++)
        grid[d] = drv_fmt_map(p, k->grid[d]);
    uint64_t positions = 0;
    size_t units = rt_gemm_units(g, &positions);
    printf("  work: %llu units (chip %s, cluster %s, slice %s) of %llu x %llu blocks of C; %zu compute, over %d "
           "thread%s\n",
           (unsigned long long)positions, grid[0], grid[1], grid[2], (unsigned long long)k->block[0],
           (unsigned long long)k->block[1], units, threads, threads == 1 ? "" : "s");
    for (int i = 0; i < 2; i++) {
        char *dm = drv_fmt_map(p, i == 0 ? k->pack_a : k->pack_b);
        printf("  %s tiles in DM: DmTensor<%s, %s, %s, %s, %s>\n", opnames[i], elem_type_name(ops[i]->elem), grid[0],
               grid[1], grid[2], dm);
        free(dm);
    }
    for (int d = 0; d < 3; d++)
        free(grid[d]);
    printf("  tiles %s %llu, %s %llu, %s %llu (%llu bytes of DM per slice); order %s, %s, %s; %s micro-tile %dx%d, "
           "K groups of %d\n",
           ax[0], (unsigned long long)k->tile[0], ax[1], (unsigned long long)k->tile[1], ax[2],
           (unsigned long long)k->tile[2], (unsigned long long)k->dm_bytes, ax[k->order[0]], ax[k->order[1]],
           ax[k->order[2]], rt_gemm_isa_name(g), k->mr, k->nr, rt_gemm_kgroup(g));
    print_tile_source(p, k, ax);
    if (rt_gemm_kgroup(g) != k->kgroup)
        printf("  K groups of %d need an instruction the host CPU lacks: the panels are packed in K groups of %d\n",
               k->kgroup, rt_gemm_kgroup(g));
    if (k->pack_isa != k->isa)
        printf("  DM panels %dx%d, K groups of %d (%s's micro-kernel reads them): repacked into %s panels of %dx%d\n",
               k->pack_mr, k->pack_nr, k->pack_kgroup, target_isa_name(k->pack_isa), target_isa_name(k->isa), k->mr,
               k->nr);
}

/* Whether the host can hold what a run of k allocates, before anything is: the three operand tensors in
 * their layouts, the dense host arrays of A, B and C (twice: the input and the result) and the double
 * copies of A and B the reference reads. false after printing why. */
static bool fits_host(Prog *p, const KernelDecl *k)
{
    const TensorDecl *decl[3] = {k->a, k->b, k->c};
    uint64_t m = p->axes[k->axis[GEMM_M]].size, n = p->axes[k->axis[GEMM_N]].size, kk = p->axes[k->axis[GEMM_K]].size;
    uint64_t dense[3] = {u64_sat_mul(m, kk), u64_sat_mul(kk, n), u64_sat_mul(m, n)}, need = 0;
    for (int i = 0; i < 3; i++) {
        MapWhy why;
        const Map *flat = tensor_layout(&p->arena, decl[i]->mem, decl[i]->maps, why);
        uint64_t es = elem_type_size(decl[i]->elem), copies = i == 2 ? 2 : 1;
        need = u64_sat_add(need, u64_sat_mul(flat ? flat->size : UINT64_MAX, es));
        need = u64_sat_add(need, u64_sat_mul(u64_sat_mul(dense[i], es), copies));
        if (i < 2)
            need = u64_sat_add(need, u64_sat_mul(dense[i], sizeof(double)));
    }
    char why[160];
    if (mem_fits(need, why, sizeof why))
        return true;
    fprintf(stderr, "mapc: kernel %s with %s=%llu %s=%llu %s=%llu cannot run here: its operand tensors, host arrays "
            "and reference need at least %s\n", k->name, p->axes[k->axis[GEMM_M]].name, (unsigned long long)m,
            p->axes[k->axis[GEMM_N]].name, (unsigned long long)n, p->axes[k->axis[GEMM_K]].name, (unsigned long long)kk,
            why);
    return false;
}

/* Reports a failure; under MPI with more than one process it ends the whole job (MPI_Abort), so no
 * process waits for a message the failed one will never send. */
static void run_failed(const RunOptions *o, const char *why)
{
    if (o->transport && o->transport->size > 1) {
        fprintf(stderr, "mapc: rank %d of %d: %s; ending the job\n", o->transport->rank, o->transport->size, why);
        fflush(stderr);
        rt_transport_abort(o->transport, DRV_EXIT_INPUT);
    }
    fprintf(stderr, "mapc: %s\n", why);
}

static int run_kernel(Prog *p, const KernelDecl *k, const RunOptions *o)
{
    if (!fits_host(p, k))
        return DRV_EXIT_INPUT;
    RtConfig cfg = rt_default_config();
    cfg.threads = o->threads;
    cfg.transport = o->transport;
    bool root = !o->transport || o->transport->rank == 0; /* process 0 fills, prints and checks */
    RtContext *rt = rt_new(p, &cfg);
    if (!rt) {
        fprintf(stderr, "mapc: cannot start the runtime (%d threads)\n", o->threads);
        return DRV_EXIT_INPUT;
    }
    int status = DRV_EXIT_INPUT;
    const TensorDecl *decl[3] = {k->a, k->b, k->c};
    static const int roles[3][2] = {{GEMM_M, GEMM_K}, {GEMM_K, GEMM_N}, {GEMM_M, GEMM_N}};
    RtTensor *t[3] = {0};
    HostMat h[3] = {0}, c0 = {0};
    RtGemm *g = NULL;
    double *times = calloc((size_t)o->reps, sizeof *times);
    bool ok = times != NULL;
    for (int i = 0; i < 3 && ok; i++) {
        ok = (t[i] = rt_tensor_declared(rt, decl[i]->name)) &&
             host_for(t[i], p, k->axis[roles[i][0]], &h[i], k->axis[roles[i][1]]);
    }
    if (ok) {
        c0 = h[2];
        ok = drv_host_alloc(&c0);
    }
    if (!ok) {
        run_failed(o, rt_error(rt)[0] ? rt_error(rt) : "out of memory");
        goto done;
    }
    uint64_t seed = o->seed;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int helpers = cpus > 0 ? (int)cpus : 1; /* untimed steps (filling, checking) use every core */
    if (root) { /* the other processes receive their chips' parts from process 0 */
        for (int i = 0; i < 2; i++)
            drv_host_fill(&h[i], &seed, false, helpers);
        drv_host_fill(&c0, &seed, o->beta == 0.0, helpers);
    }
    double t_compile = 0, t_stage = 0, t_kernel = 0, t_check = 0;
    DrvProgress pr;
    {
        RtView v[3];
        for (int i = 0; i < 3; i++)
            v[i] = rt_view(t[i], true);
        drv_progress_begin(&pr, "moving the operands to their tensors");
        bool moved = !rt_from_host(rt, &v[0], h[0].data) && !rt_from_host(rt, &v[1], h[1].data) &&
                     !rt_from_host(rt, &v[2], c0.data);
        t_stage += drv_progress_end(&pr);
        char what[160];
        snprintf(what, sizeof what, "compiling kernel %s", k->name);
        if (moved) {
            drv_progress_begin(&pr, what);
            g = rt_gemm_new(rt, k, t[0], t[1], t[2]);
            t_compile = drv_progress_end(&pr);
        }
        if (!g) {
            run_failed(o, rt_error(rt));
            goto done;
        }
        if (root)
            print_plan(p, k, g, rt_threads(rt));
        if (root) {
            bool staged[3];
            for (int i = 0; i < 3; i++)
                staged[i] = !rt_gemm_access(g, i)->strided;
            drv_npu_staging(p, k, staged);
        }
        if (root && o->transport)
            printf("  processes: %d MPI ranks, one chip each (rank r computes chip r; moves between chips by "
                   "MPI messages)\n",
                   o->transport->size);
        /* the checked run, then the timed ones (C restored before each, outside the timing) */
        snprintf(what, sizeof what, "running kernel %s %d times", k->name, o->reps + 1);
        drv_progress_begin(&pr, what);
        double t0 = drv_now();
        bool ran = !rt_gemm_run(g, o->alpha, o->beta);
        t_kernel += drv_now() - t0;
        double t1 = drv_now();
        ran = ran && !rt_to_host(rt, &v[2], h[2].data);
        t_stage += drv_now() - t1;
        double stage = 0;
        for (int r = 0; r < o->reps && ran; r++) {
            t1 = drv_now();
            ran = !rt_from_host(rt, &v[2], c0.data);
            t_stage += drv_now() - t1;
            t0 = drv_now();
            ran = ran && !rt_gemm_run(g, o->alpha, o->beta);
            times[r] = drv_now() - t0;
            t_kernel += times[r];
            stage += rt_gemm_stage_seconds(g);
        }
        drv_progress_end(&pr);
        if (!ran) {
            run_failed(o, rt_error(rt));
            goto done;
        }
        RtStats st = rt_stats(rt);
        bool staged = false;
        for (int i = 0; i < 3; i++)
            staged |= !rt_gemm_access(g, i)->strided;
        if (staged && root)
            printf("  staging: %.3f ms per run on average (%llu moves by JIT kernels, %llu by plans)\n",
                   stage / o->reps * 1e3, (unsigned long long)st.jit_moves, (unsigned long long)st.plan_moves);
    }
    if (!root) { /* process 0 checks the gathered result and tells every process its verdict */
        unsigned char verdict = 0;
        char err[256];
        RtMsg m = {0, &verdict, 1};
        status = rt_transport_exchange(o->transport, NULL, 0, &m, 1, err, sizeof err) == 0 && verdict
                     ? DRV_EXIT_OK
                     : DRV_EXIT_INPUT;
        goto done;
    }
    qsort(times, (size_t)o->reps, sizeof *times, cmp_double);
    double med = times[o->reps / 2];
    double flops = 2.0 * (double)h[2].rows * (double)h[2].cols * (double)h[0].cols;
    printf("  time: median %.3f ms of %d runs (min %.3f ms), %.1f GFLOP/s\n", med * 1e3, o->reps, times[0] * 1e3,
           med > 0 ? flops / med * 1e-9 : 0.0);
    CheckPolicy pol = {.all = o->check_all, .full_limit = FULL_CHECK_LIMIT, .samples = CHECK_SAMPLES,
                       .seed = o->seed ^ 0x5eed, .threads = helpers};
    drv_progress_begin(&pr, "checking the result against the double reference");
    CheckResult cr = drv_check_gemm(&h[0], &h[1], &c0, &h[2], o->alpha, o->beta, &pol);
    t_check = drv_progress_end(&pr);
    if (cr.bound == 0.0)
        printf("  check: %s%llu elements against an exact int64 reference (wrapped to i32): %s\n",
               cr.sampled ? "a sample of " : "all ", (unsigned long long)cr.checked, cr.ok ? "ok" : "FAILED");
    else
        printf("  check: %s%llu elements against a double reference: max |error| / sum|terms| = %.3g, bound "
               "(K + 2) * 2^-24 = %.3g: %s\n",
               cr.sampled ? "a sample of " : "all ", (unsigned long long)cr.checked, cr.max_err, cr.bound,
               cr.ok ? "ok" : "FAILED");
    if (!cr.ok)
        printf("  worst element (%llu, %llu): got %.9g, want %.9g\n", (unsigned long long)cr.worst_i,
               (unsigned long long)cr.worst_j, cr.worst_got, cr.worst_want);
    double total = drv_now() - o->start;
    JitCacheStats cs = jit_cache_stats();
    printf("  wall: compile %.0f ms (%lu compiled, %lu from the cache), host transfers %.0f ms, kernel %.0f ms (%d "
           "runs), check %.0f ms, other %.0f ms; total %.2f s\n",
           t_compile * 1e3, cs.compiled, cs.hits, t_stage * 1e3, t_kernel * 1e3, o->reps + 1, t_check * 1e3,
           (total - t_compile - t_stage - t_kernel - t_check) * 1e3, total);
    status = cr.ok ? DRV_EXIT_OK : DRV_EXIT_INPUT;
    if (o->transport) {
        unsigned char verdict = cr.ok;
        char err[256];
        int n = o->transport->size - 1;
        RtMsg *m = calloc((size_t)n + 1, sizeof *m);
        for (int q = 0; m && q < n; q++)
            m[q] = (RtMsg){q + 1, &verdict, 1};
        if (!m || rt_transport_exchange(o->transport, m, n, NULL, 0, err, sizeof err) != 0) {
            fprintf(stderr, "mapc: %s\n", m ? err : "out of memory");
            status = DRV_EXIT_INPUT;
        }
        free(m);
    }
done:
    rt_gemm_free(g);
    for (int i = 0; i < 3; i++) {
        rt_tensor_free(t[i]);
        free(h[i].data);
    }
    free(c0.data);
    free(times);
    rt_free(rt);
    return status;
}

#ifdef MAPC_HAVE_MPI
/* The chips k's operands span: the most of any operand's Chip mapping. */
static uint64_t kernel_chips(const KernelDecl *k)
{
    const TensorDecl *ops[3] = {k->a, k->b, k->c};
    uint64_t n = 1;
    for (int i = 0; i < 3; i++)
        if (ops[i]->maps[0]->size > n)
            n = ops[i]->maps[0]->size;
    return n;
}

/* Whether every process of the job runs the same thing: the program's text, the kernel, its sizes, tiles and ISA
 * and every option, compared before any data moves (a difference would make the processes exchange different
 * messages: a hang or a crash inside MPI). DRV_EXIT_OK, or DRV_EXIT_INPUT after every process said which field
 * differs first ("--reps: 1 on rank 0, 2 on rank 1"). */
static int processes_agree(const RunOptions *o, const Prog *p, const KernelDecl *k)
{
    char text[16][RT_AGREE_TEXT];
    const Source *src = k->loc.src;
    snprintf(text[0], sizeof text[0], "%s (text digest %016llx)", o->file,
             (unsigned long long)rt_digest(src->text, src->len));
    static const char *const size_names[3] = {"--m", "--n", "--k"};
    for (int r = 0; r < 3; r++)
        snprintf(text[1 + r], sizeof text[1 + r], "%llu", (unsigned long long)p->axes[k->axis[r]].size);
    snprintf(text[4], sizeof text[4], "%d", o->threads);
    snprintf(text[5], sizeof text[5], "%d", o->reps);
    snprintf(text[6], sizeof text[6], "%llu", (unsigned long long)o->seed);
    snprintf(text[7], sizeof text[7], "%.17g", o->alpha);
    snprintf(text[8], sizeof text[8], "%.17g", o->beta);
    snprintf(text[9], sizeof text[9], "%llu x %llu x %llu", (unsigned long long)k->tile[0],
             (unsigned long long)k->tile[1], (unsigned long long)k->tile[2]);
    RtAgreeField f[] = {
        {"the program", text[0], src->text, src->len},
        {"the kernel", k->name, NULL, 0},
        {size_names[0], text[1], NULL, 0},
        {size_names[1], text[2], NULL, 0},
        {size_names[2], text[3], NULL, 0},
        {"--threads", text[4], NULL, 0},
        {"--reps", text[5], NULL, 0},
        {"--seed", text[6], NULL, 0},
        {"--alpha", text[7], NULL, 0},
        {"--beta", text[8], NULL, 0},
        {"--check", o->check_all ? "all" : "auto", NULL, 0},
        {"--isa", target_isa_name(k->isa), NULL, 0},
        {"the kernel's tiles (M x N x K)", text[9], NULL, 0},
    };
    char why[512];
    int r = rt_transport_agree(o->transport, f, (int)(sizeof f / sizeof *f), why, sizeof why);
    if (r == 0)
        return DRV_EXIT_OK;
    fprintf(stderr, "mapc: rank %d of %d: %s%s\n", o->transport->rank, o->transport->size,
            r > 0 ? "the processes of the job run different things: " : "", why);
    return DRV_EXIT_INPUT;
}
#endif

/* Joins the MPI job when --mpi on, or --mpi auto and mpirun started this process: one process per chip of
 * the kernel's operands once every process found that all run the same (processes_agree), or a usage error (on
 * every process alike, so all of them end). */
static int start_processes(RunOptions *o, const Prog *p, const KernelDecl *k)
{
#ifdef MAPC_HAVE_MPI
    if (o->mpi == 0 || (o->mpi < 0 && !rt_mpi_launched()))
        return DRV_EXIT_OK;
    char err[256];
    if (!(o->transport = rt_transport_mpi_world(err, sizeof err))) {
        fprintf(stderr, "mapc: cannot join the MPI job: %s\n", err);
        return DRV_EXIT_INPUT;
    }
    int agreed = processes_agree(o, p, k);
    if (agreed != DRV_EXIT_OK)
        return agreed;
    uint64_t chips = kernel_chips(k);
    if ((uint64_t)o->transport->size != chips) {
        if (o->transport->rank == 0) {
            char what[256];
            snprintf(what, sizeof what,
                     "kernel %s runs on %llu chip%s, one MPI process each: start it with mpirun -np %llu, not -np %d",
                     k->name, (unsigned long long)chips, chips == 1 ? "" : "s", (unsigned long long)chips,
                     o->transport->size);
            drv_usage_error("%s", what);
        }
        return DRV_EXIT_USAGE;
    }
    if (o->transport->size == 1) { /* one process holds every chip: the single-process path */
        rt_transport_free(o->transport);
        o->transport = NULL;
    }
    return DRV_EXIT_OK;
#else
    (void)p;
    (void)k;
    if (o->mpi == 1)
        return drv_usage_error("--mpi on: this mapc was built without MPI (meson setup -Dmpi=enabled)%s", "");
    return DRV_EXIT_OK;
#endif
}

int run_parse_options(int argc, char **argv, RunOptions *out)
{
    RunOptions o = {.threads = 1, .reps = 5, .seed = 1, .alpha = 1.0, .beta = 0.0, .isa = drv_isa, .start = drv_now(),
                    .mpi = -1};
    *out = o;
    const char *pos[2] = {0};
    int npos = 0;
    static const char *const size_flags[3] = {"--m", "--n", "--k"};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        int which = -1;
        for (int r = 0; r < 3; r++)
            if (strcmp(a, size_flags[r]) == 0)
                which = r;
        uint64_t v;
        char *end;
        if (which >= 0 || strcmp(a, "--threads") == 0 || strcmp(a, "--reps") == 0 || strcmp(a, "--seed") == 0) {
            if (!has_value || !drv_parse_pos(argv[i + 1], &v))
                return drv_usage_error("%s needs a number (decimal or 0x hex)", a);
            i++;
            if (which >= 0) {
                if (v == 0)
                    return drv_usage_error("%s must be at least 1", a);
                o.size[which] = v;
            } else if (strcmp(a, "--seed") == 0) {
                o.seed = v;
            } else if (v < 1 || v > 1024) {
                return drv_usage_error("%s takes 1 to 1024", a);
            } else if (strcmp(a, "--threads") == 0) {
                o.threads = (int)v;
            } else {
                o.reps = (int)v;
            }
        } else if (strcmp(a, "--alpha") == 0 || strcmp(a, "--beta") == 0) {
            if (!has_value)
                return drv_usage_error("%s needs a number", a);
            double d = strtod(argv[++i], &end);
            if (*end || end == argv[i])
                return drv_usage_error("%s needs a number", a);
            if (!isfinite(d) || fabs(d) > FLT_MAX) { /* 1e400 parses as inf, 1e39 overflows f32 */
                char what[160];
                snprintf(what, sizeof what, "%s must be a finite number within the range of f32, not %s", a, argv[i]);
                return drv_usage_error("%s", what);
            }
            *(strcmp(a, "--alpha") == 0 ? &o.alpha : &o.beta) = d;
        } else if (strcmp(a, "--isa") == 0) {
            if (!has_value || !target_isa_parse(argv[i + 1], &o.isa))
                return drv_usage_error("--isa takes avx512, avx2 or portable%s", "");
            if (!target_host_supports(o.isa))
                return drv_usage_error("--isa %s: the host CPU cannot run these kernels", argv[i + 1]);
            i++;
        } else if (strcmp(a, "--mpi") == 0) {
            if (!has_value || (strcmp(argv[i + 1], "on") && strcmp(argv[i + 1], "off") && strcmp(argv[i + 1], "auto")))
                return drv_usage_error("--mpi takes on, off or auto%s", "");
            i++;
            o.mpi = strcmp(argv[i], "on") == 0 ? 1 : strcmp(argv[i], "off") == 0 ? 0 : -1;
        } else if (strcmp(a, "--plan") == 0) {
            o.plan_only = true;
        } else if (strcmp(a, "--check") == 0) {
            if (!has_value || (strcmp(argv[i + 1], "all") != 0 && strcmp(argv[i + 1], "auto") != 0))
                return drv_usage_error("--check takes all or auto%s", "");
            o.check_all = strcmp(argv[++i], "all") == 0;
        } else if (a[0] == '-' && a[1]) {
            static const char *const known[] = {"--m", "--n", "--k", "--threads", "--reps", "--seed", "--alpha",
                                                "--beta", "--check", "--isa", "--plan", "--help", "--color", NULL};
            return drv_unknown_option("run", a, known);
        } else if (npos < 2) {
            pos[npos++] = a;
        } else {
            return drv_usage_error("unexpected argument '%s'", a);
        }
    }
    if (npos != 2)
        return drv_usage_error("run needs FILE and KERNEL (or COPY)%s", "");
    o.file = pos[0];
    o.kernel = pos[1];
    *out = o;
    return DRV_EXIT_OK;
}

int cmd_run(int argc, char **argv)
{
    RunOptions o;
    int parsed = run_parse_options(argc, argv, &o);
    if (parsed != DRV_EXIT_OK)
        return parsed;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores > 0 && o.threads > cores) /* allowed (the threads share the cores), but rarely what was meant */
        fprintf(stderr, "mapc: note: --threads %d is more than the %ld cores of this machine: the threads will share "
                        "them, and the times measure that\n", o.threads, cores);
    /* a copy: its plan, run and check (cmd_run_copy.c) */
    Prog *cp = drv_load_into(target_prog(&o), o.file, false);
    if (!cp)
        return DRV_EXIT_INPUT;
    for (int i = 0; i < cp->ncopies; i++)
        if (strcmp(cp->copies[i]->name, o.kernel) == 0) {
            int status = run_copy(cp, cp->copies[i], &o);
            prog_free(cp);
            return status;
        }
    prog_free(cp);
    if (o.plan_only)
        return drv_usage_error("--plan applies to copies, and %s is not one", o.kernel);
    const KernelDecl *k;
    Prog *p = load_kernel(o.file, o.kernel, &o, &k);
    if (!p)
        return DRV_EXIT_INPUT;
    if (k->c->elem == ELEM_I32)
        for (int i = 0; i < 2; i++) {
            double v = i == 0 ? o.alpha : o.beta;
            if (v != floor(v) || v < INT32_MIN || v > INT32_MAX) {
                char what[160];
                snprintf(what, sizeof what, "%s %g: kernel %s computes in i32, so it takes a 32-bit integer",
                         i == 0 ? "--alpha" : "--beta", v, k->name);
                prog_free(p); /* k lives in p */
                return drv_usage_error("%s", what);
            }
        }
    int status = start_processes(&o, p, k);
    if (status == DRV_EXIT_OK)
        status = run_kernel(p, k, &o);
    prog_free(p);
    rt_transport_free(o.transport);
    return status;
}
