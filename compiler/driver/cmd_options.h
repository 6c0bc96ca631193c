/* cmd_options.h — the option parsers of "mapc run" and "mapc emit", apart from running the commands (the
 * option fuzzer calls them in-process). */
#ifndef MAPC_CMD_OPTIONS_H
#define MAPC_CMD_OPTIONS_H

#include "codegen/codegen.h"
#include "core/target.h"

#include <stdbool.h>
#include <stdint.h>

/* What "mapc run FILE KERNEL [options]" asks for. */
typedef struct RunOptions {
    const char *file, *kernel; /* the two positional arguments */
    uint64_t size[3];       /* --m, --n, --k (0: as declared) */
    int threads;
    int reps;
    uint64_t seed;
    double alpha, beta;
    bool check_all;
    TargetIsa isa;          /* --isa: the program's target and so the engine's ISA (TARGET_ISA_HOST: the host's best) */
    double start;           /* when the command began (drv_now) */
    int mpi;                /* --mpi: -1 auto (when started by mpirun), 0 off, 1 on */
    struct RtTransport *transport; /* the job's processes, one chip each; NULL: one process (set when running) */
    bool plan_only;         /* --plan: a copy's relayout plan, nothing run */
} RunOptions;

/* Parses run's arguments (after the command name) into *o, defaults first (one thread, 5 repetitions,
 * seed 1, alpha 1, beta 0, the ISA of drv_isa, MPI auto, no transport, start now). DRV_EXIT_OK with both
 * positional arguments set, threads and reps in 1..1024, sizes >= 1, alpha and beta finite within f32 and
 * mpi -1, 0 or 1; or DRV_EXIT_USAGE after printing why (drv_usage_error). Reads no file, starts nothing. */
int run_parse_options(int argc, char **argv, RunOptions *o);

/* What "mapc emit FILE -o OUT [options]" asks for. */
typedef struct EmitOptions {
    const char *file, *out, *header; /* header NULL: none */
    CgOptions cg;           /* prefix "" unless --prefix, opt_level 2 unless -ON, cpu NULL unless --cpu */
    CgEmitKind kind;
    TargetIsa isa;          /* --isa: the ISA kernels are compiled for (drv_isa unless given) */
} EmitOptions;

/* Parses emit's arguments (after the command name) into *o. DRV_EXIT_OK with file and out set, a prefix
 * that is a C identifier prefix, a CPU LLVM knows, and no output naming the input or both outputs one
 * file; or DRV_EXIT_USAGE after printing why. Reads no program (only stats the named paths). */
int emit_parse_options(int argc, char **argv, EmitOptions *o);

#endif
