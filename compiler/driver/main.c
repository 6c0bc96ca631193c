/* main.c — the mapc command-line driver (docs/cli.md): reads files, runs the library, prints results and diagnostics. */
#include "codegen/codegen.h"
#include "draw/draw.h"
#include "driver.h"
#include "mapc_version.h"
#include "gemm/gemm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: mapc COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  check FILE... [--isa ISA]     parse and check; report diagnostics and failed assertions\n"
    "  eval  FILE NAME POS...        print \"POS: CELL\" for each buffer position\n"
    "  eval  -e SOURCE NAME POS...   the same, with the program given as text\n"
    "  table FILE NAME               print the mapping as a grid of cells (a tensor: its units as rows)\n"
    "  draw  FILE NAME -o OUT        a picture of a mapping or tensor: OUT.svg, OUT.png or OUT.html\n"
    "  diff  FILE NAME1 NAME2 -o OUT a picture of where two mappings differ\n"
    "  equiv FILE NAME1 NAME2        decide whether two mappings are equivalent\n"
    "  norm  FILE NAME               print the normal form of a mapping as m![...]\n"
    "  lower FILE NAME               print a layout descriptor (or any mapping) as m![...]\n"
    "  describe FILE NAME            print a mapping as a tiled![...] or strided![...] descriptor\n"
    "  export FILE NAME --to FORMAT  print a mapping as a CuTe, Triton, MLIR affine or strided, or TVM layout\n"
    "  emit  FILE -o OUT [options]   compile types, copies and kernels to an object, assembly or IR\n"
    "  run   FILE KERNEL [options]   JIT-compile a GEMM kernel or a copy, run it on seeded data, verify, time\n"
    "  where FILE TENSOR INDEX       every unit and element position holding INDEX (an i![...] literal)\n"
    "  sequence FILE BUF --time T --packet P   the NPU sequencer config of BUF walked as [T, P]\n"
    "  dma   FILE SRC DST            the NPU DMA command moving tensor SRC to DST: configs, tails, cycles\n"
    "  tails FILE SRC DST            the DMA tails of two mappings: \"tails: SRC_PACKET DST_PACKET COMMON\"\n"
    "  dma-cost PLAN                 the cycles of an explicit DMA command plan\n"
    "  algebra FILE CALL             a layout-algebra call (compose, complement, inverse, ...): its m![...] or value\n"
    "\n"
    "NAME is a type defined in the program, or an inline m![...].\n"
    "FILE '-' is standard input (named <stdin> in diagnostics).\n"
    "options: --help, --version; 'mapc help COMMAND' (or 'mapc COMMAND --help') describes one command.\n"
    "  --color=auto|always|never   colour the diagnostics (before or after COMMAND; auto: when stderr is a\n"
    "                              terminal, TERM is not dumb and NO_COLOR is unset or empty; --color before\n"
    "                              COMMAND: always). Pictures are coloured with draw's --color-by.\n"
    "exit status: 0 success (and \"equivalent\"), 1 an error in the input, a failed assertion\n"
    "or \"not equivalent\", 2 wrong command-line usage.\n"
    "environment: MAPC_ISA=avx512|avx2|portable checks and runs kernels for that ISA (default: the host's best).\n"
    "  MAPC_CACHES=L1D,L2 (as 48K,2M) gives kernels without a tile clause the tiles of those caches per core\n"
    "  (default: the host's, read at run time).\n"
    "  MAPC_PERF=1 names the JIT-compiled code in profiles of 'perf record -k 1' (merge with 'perf inject --jit').\n"
    "  MAPC_CHECK_BUDGET=SECONDS bounds the CPU time of all the assertions of a program (default 60); those\n"
    "  after it is used up are not checked (an error at the first).\n";

static const struct {
    const char *name, *help;
} command_help[] = {
    {"check", "usage: mapc check FILE... [--isa avx512|avx2|portable]\n"
              "Parses and checks every FILE: static rules, declarations, and the assert statements.\n"
              "Prints diagnostics to stderr as FILE:LINE:COL: error: MESSAGE; exit 1 if there are any.\n"
              "Kernel declarations are checked for the ISA that will run them: the host's best, or --isa.\n"},
    {"eval", "usage: mapc eval FILE NAME POS...\n"
             "       mapc eval -e SOURCE NAME POS...\n"
             "Prints \"POS: CELL\" for each buffer position POS (decimal or 0x hex), with CELL as {A:1, B:7}, {},\n"
             "pad(top), pad(zero), pad(bottom), oob or overflow. NAME is a type or an inline m![...].\n"},
    {"table", "usage: mapc table FILE NAME [--rows N | --cols N] [--all] [--color=auto|always|never] [--max-cells N]\n"
              "Prints the mapping as a grid split like its picture: the minor factors of its pairs as columns (at most\n"
              "16, a wider minor factor cut at a divisor) and the major ones as rows; --rows or --cols choose the split.\n"
              "Cells are short: the coordinates of the axes the mapping uses (1,7 for {A:1, B:7}), # for pad(top),\n"
              "#{0} pad(zero), #{!} pad(bottom), oob, overflow. More than 32 rows or 16 columns are cut in the middle\n"
              "with a count of what is hidden; --all prints every cell (at most 65536 unless --max-cells N, which also\n"
              "refuses larger mappings). Colours on a terminal unless --color=never. When NAME is a tensor, prints\n"
              "its units as rows (at most 32, or --rows N, unless --all): each unit's live elements and the range of\n"
              "each axis it holds.\n"},
    {"draw", "usage: mapc draw FILE NAME -o OUT.svg|OUT.png|OUT.html [--view index|buffer] [--axes ROWS,COLS]\n"
             "                 [--color-by KEY] [--rows N] [--max-cells N]\n"
             "Draws the mapping, type or tensor NAME. --view index (the default for a layout over two axes or more)\n"
             "draws the tensor's coordinates: a grid of ROWS x COLS (default: the first two axes the layout uses;\n"
             "one axis is wrapped in rows of 16), a panel per value of the other axes, each index labelled with the\n"
             "smallest position holding it (a tensor's: unit:element; + when more hold it), and the tiles of the\n"
             "layout's digits outlined (the 4 x 4 blocks of m![M / 4, N / 4, M % 4, N % 4], a tensor's units).\n"
             "--view buffer (the default otherwise) draws one cell per buffer position with its cell (as mapc eval\n"
             "prints it), split like mapc table (at most 16 columns, or N rows with --rows); a tensor one panel per\n"
             "unit. --color-by KEY: an axis, a digit of one or of the position (M / 8, N % 4, position / 16 % 8:\n"
             "numbers decimal or 0x hex), tile, unit (tensors) or padding; up to 24 values get distinct colour-blind-\n"
             "safe colours, more a cyclic map; padding kinds and oob have shades of their own. The format follows\n"
             "OUT's extension; SVG cells carry a <title> and the HTML page shows the cell under the pointer. Over\n"
             "4096 cells the picture is compact: one path per colour, tiles outlined, sampled labels. Pictures of\n"
             "more than 262144 cells (or --max-cells N) are refused.\n"
             "       mapc draw FILE BUF --time T --packet P -o OUT [--mode read|write|carve] [--type ELEM]\n"
             "Draws the walk of the sequencer of mapc sequence: BUF's cells coloured by the order the stream first\n"
             "visits them (dark first, light last), cells read again (broadcasts) marked, cells never visited grey.\n"},
    {"diff", "usage: mapc diff FILE NAME1 NAME2 -o OUT.svg|OUT.png|OUT.html [--view index|buffer] [--axes ROWS,COLS]\n"
             "                 [--rows N] [--max-cells N]\n"
             "Draws where two mappings differ. --view index (the default over two axes or more, unless only padding\n"
             "or sizes differ): each index with the positions holding it in NAME1 and NAME2. --view buffer: positions\n"
             "0 .. max(|NAME1|, |NAME2|) split like NAME1, each with both cells. Differing cells are marked, and the\n"
             "smallest counterexample of the equivalence decision distinctly. Prints \"equivalent\" (exit 0) or\n"
             "mapc equiv's \"not equivalent: ...\" line and how many positions (indices) differ (exit 1).\n"},
    {"equiv", "usage: mapc equiv FILE NAME1 NAME2\n"
              "Prints \"equivalent\", \"not equivalent: position P: CELL1 vs CELL2\" (smallest P) or\n"
              "\"not equivalent: sizes S1 vs S2\"; exit 0 only when equivalent.\n"},
    {"norm", "usage: mapc norm FILE NAME\n"
             "Prints the normal form of the mapping NAME (a type or an inline m![...]) as a valid\n"
             "m![...] line: equivalent to NAME, idempotent, and parsed back to the same normal form.\n"},
    {"lower", "usage: mapc lower FILE NAME\n"
              "Prints the mapping NAME as a valid m![...] line. NAME is a type, an inline m![...], or a\n"
              "layout descriptor: tiled![shape: [M, N], tile: [2, 4], outer: row_major, inner: col_major]\n"
              "(outer: row_major | col_major | strided[tile strides] | tag 0x01..0x03; inner: the same with\n"
              "element strides, or tiled![tile: [...], outer: ..., inner: ...] / tag 0x04, at most 8 levels)\n"
              "or strided![shape: [M, N], strides: [RS, CS]] (element (i, j) at i*RS + j*CS).\n"},
    {"emit", "usage: mapc emit FILE -o OUT [--header H] [--emit=obj|asm|llvm] [-O0..-O3] [--cpu CPU] [--prefix P]\n"
             "                 [--isa avx512|avx2|portable]\n"
             "Compiles every type E of FILE to E_cell, E_offset and E_each, every copy statement to its\n"
             "relayout kernel and every kernel statement to a function running it ahead of time (an object\n"
             "with kernels links with libmapc), and writes an ELF object (default), assembly or LLVM IR to OUT.\n"
             "  --header H   also write a C header declaring every symbol, the sizes and the cell kinds\n"
             "  --isa I      the ISA kernels are checked and compiled for (default: this host's best; the\n"
             "               functions then run on hosts that have it, whatever --cpu says)\n"
             "  -O0..-O3     optimization level (default -O2)\n"
             "  --cpu CPU    target CPU (default " CG_DEFAULT_CPU ", a portable x86-64 level; 'native': this\n"
             "               machine's CPU and features; or an LLVM CPU name such as znver4)\n"
             "  --prefix P   prepend P to every emitted symbol\n"},
    {"run", "usage: mapc run FILE KERNEL [--m M] [--n N] [--k K] [--threads T] [--reps R] [--seed S]\n"
            "                [--alpha A] [--beta B] [--check all|auto] [--isa avx512|avx2|portable]\n"
            "                [--mpi on|off|auto] [--plan]\n"
            "JIT-compiles the GEMM kernel KERNEL of FILE (C <- alpha*A*B + beta*C over its HBM tensors), fills\n"
            "A, B and C with seeded random values (C with NaN when beta is 0), runs it once and compares C\n"
            "with a double-precision reference (relative to the sum of the magnitudes of each element's\n"
            "terms, bound (K + 2) * 2^-24; i8 kernels exactly), then times R more runs (default 5) and prints\n"
            "the median time and GFLOP/s. --m/--n/--k replace the declared sizes of the kernel's axes.\n"
            "Products over 2^31 multiply-adds are checked on 8192 seeded elements unless --check all.\n"
            "--isa checks and runs the kernel for that ISA (the host must have it; default: the host's best).\n"
            "Under mpirun with P processes (P the chips of the kernel's operands) each process computes one chip;\n"
            "moves between chips are MPI messages. --mpi auto (default) joins the job when mpirun started\n"
            "the process, on insists (error without MPI), off stays in one process (chips as threads).\n"
            "Exit 1 if the check fails. Defaults: 1 thread, seed 1, alpha 1, beta 0.\n"
            "When KERNEL names a copy, prints its relayout plan (vectors, tiles, blocks, loop order, stores),\n"
            "then (unless --plan) runs it on T threads, each running part k of T, checks every destination\n"
            "position against the interpreter (8192 seeded ones above 2^22) and times R runs beside memcpy.\n"},
    {"where", "usage: mapc where FILE TENSOR INDEX\n"
              "Prints every unit and element position of the tensor TENSOR that holds INDEX, an i![...] literal\n"
              "(omitted axes are 0), one line each in layout order: \"chip C, cluster L, slice S, element P\"\n"
              "(DmTensor), \"chip C, element P\" (HbmTensor) or \"element P\" (HostTensor); replicas are all\n"
              "listed. Prints \"nowhere\" and exits 1 when no unit holds it. Decided symbolically, for any size.\n"},
    {"export", "usage: mapc export FILE NAME --to cute|cute-tiler|triton|affine|strided|index-map\n"
               "                   [--lanes N] [--warps N] [--blocks N]\n"
               "Prints the mapping NAME in another system's syntax, one line, verified by reading it back:\n"
               "  cute        a CuTe layout (4,(2,3)):(2,(1,8)) whose inverse is NAME (positions are offsets)\n"
               "  cute-tiler  a CuTe layout whose offsets are NAME's cells (positions are coordinates)\n"
               "  triton      a Triton #ttg.linear<{register = ..., lane = ..., warp = ..., block = ...}>; the\n"
               "              top bits of the position are --blocks, --warps and --lanes (powers of two)\n"
               "  affine      an MLIR affine_map<(M, N) -> (...)> memref layout over NAME's axes\n"
               "  strided     an MLIR strided<[...]> memref layout\n"
               "  index-map   a TVM IndexMap lambda M, N: [...]\n"
               "Dimensions are NAME's axes in declaration order. When NAME has no such form, prints\n"
               "\"no FORMAT-NOUN: REASON\" and exits 1. The literals cute![...], cute_tiler![...],\n"
               "triton![...], affine![...], index_map![...] and strided![...] read them back.\n"},
    {"sequence", "usage: mapc sequence FILE BUF --time T --packet P [--mode read|write|carve] [--type ELEM]\n"
                 "                     [--cycles on|off]\n"
                 "Derives the NPU sequencer that walks the buffer BUF as the stream m![{T}, {P}] (BUF, T and P are\n"
                 "types or inline m![...]; ELEM i4, i8 (default), f8, bf16, f16, f32, i32 or f64) and prints\n"
                 "  config: [n:stride, ...]:P     merged per descriptor (time, packet), as the limits check it\n"
                 "  raw: [n:stride, ...]:P        one entry per stream digit, in stream order\n"
                 "  entries: N (time T, packet K)\n"
                 "  access: A (run R, read S, reads K)   elements per access, contiguous run, read size, reads\n"
                 "  bank run: B                   consecutive accesses sharing a DM bank (at most 63 with DMA)\n"
                 "and with --cycles on \"fetch cycles: N\" (|T| times the reads per packet). An error prints\n"
                 "\"error: CODE: MESSAGE\" (CODE unsupported, incompatible, input-bottom-padding, unmatched-segment,\n"
                 "unconsumed, iteration-limit, too-many-entries, innermost-entry or packet-size) and exits 1.\n"},
    {"dma", "usage: mapc dma FILE SRC DST [--time T --packet P] [--engines M] [--stream default|fit]\n"
            "Derives the NPU DMA command moving the tensor SRC (HBM or DM) into the tensor DST over the stream\n"
            "m![{M}, {T}, {P}] (default: DST's layout without its unit padding, its innermost digit the packet; M: the\n"
            "engines, an outer digit whose positions are per-engine bases, default one engine; --stream fit: the\n"
            "default stream with its packet narrowed to DST's innermost digits that are one run in both tensors and\n"
            "fit 4096 bytes) and prints\n"
            "  read: [n:stride, ...]:P       the read sequencer (strides in SRC's layout positions)\n"
            "  write: [n:stride, ...]:P      the write sequencer, with the same loop counts\n"
            "  engines: E\n"
            "  tails: SRC_PACKET DST_PACKET COMMON   of the two element mappings\n"
            "  align: A ok                   the alignment in bytes (8 with DM on either side, else 1)\n"
            "  cycles: N                     the book's cost model: 500 per command, HBM and DM sides\n"
            "An error prints \"error: CODE: MESSAGE\" (the sequence codes, or dma-type, dma-packet-contiguity,\n"
            "dma-packet-size, dma-align) and exits 1.\n"},
    {"tails", "usage: mapc tails FILE SRC DST\n"
              "Prints \"tails: SRC_PACKET DST_PACKET COMMON\" for two mappings: COMMON the longest prefix of positions\n"
              "holding equal cells, none pad(bottom) or pad(zero); each packet COMMON grown through its own pad(top).\n"},
    {"dma-cost", "usage: mapc dma-cost PLAN\n"
                 "Prints \"cycles: N\" for an explicit plan of DMA commands. PLAN: engines separated by ',', each\n"
                 "commands joined by '+' and perhaps '*N' (N such engines); a command PACKETS:BYTES:SIDE>SIDE with\n"
                 "SIDE hbm[/16|/32][c] (channels in use, default 32; c: row conflicts) or dm[/1|/2] (DMNs, default 2),\n"
                 "as '65536:256:hbm/32c>dm*8'. A command costs 500 cycles plus its sides, added within a tier and\n"
                 "overlapped across; an engine the sum of its commands; the plan its slowest engine.\n"},
    {"algebra", "usage: mapc algebra FILE CALL\n"
                "       mapc algebra --check FILE CALL PROPOSED\n"
                "Evaluates one call of the layout algebra and prints its result: a mapping as its normal form m![...],\n"
                "or a query's value line. CALL is one of compose(E, X := F, ...), complement(T, X), cover(T, X [, KIND]),\n"
                "divide(A, X: T, ...) (and zipped_divide, tiled_divide, flat_divide), product(A, X, B, Y),\n"
                "blocked_product(G, T, X = Xo * Xi, ...), raked_product(...), inverse(E, P, [A, ...] [, KIND]),\n"
                "left_inverse(...), conversion(Src, Dst, Q), nullspace(E, P),\n"
                "coalesce(E), injective(E) (\"injective\" or \"not injective: positions P1 and P2: CELL\") and\n"
                "vector(Src [, Dst]) (an integer); mapping arguments are types, inline m![...] or calls, KIND is #, #{0}\n"
                "or #{!}. Every result is checked before it is printed. An error prints\n"
                "\"<command-line>:1:COL: error: algebra: CODE: MESSAGE\" (CODE undeclared-axis, size-mismatch, overflow,\n"
                "foreign-axis, no-complement, not-injective, not-held, unexpressible or too-large) and exits 1.\n"
                "--check prints \"holds\" when PROPOSED is the call's result, else the first position where it is not\n"
                "(exit 1).\n"},
    {"describe", "usage: mapc describe FILE NAME\n"
                 "Prints the mapping NAME as a layout descriptor, strided![...] (with a '// row-major' or\n"
                 "'// column-major' comment when it is one) or tiled![...], verified equivalent to NAME;\n"
                 "otherwise prints \"not a tiled or strided layout: REASON\" and exits 1.\n"},
};

/* Runs a command under the library's out-of-memory guard (core/base.h): an exhausted heap anywhere below
 * is reported as an input-independent error, exit 1, instead of a crash. */
static int run_guarded(int (*run)(int, char **), int argc, char **argv)
{
    MemGuard g;
    if (MEM_GUARD(g)) {
        fputs("mapc: out of memory\n", stderr);
        return DRV_EXIT_INPUT;
    }
    int status = run(argc, argv);
    drv_cache_warning(); /* a refused JIT cache is said once, after the command */
    gemm_release_kernels(); /* the JIT-compiled kernels go before exit, so leak checkers see none */
    draw_release();         /* and cairo's and fontconfig's caches */
    mem_guard_release(&g);
    return status;
}

/* Whether s is a value of the colour option. */
static bool color_when(const char *s)
{
    return s && (strcmp(s, "auto") == 0 || strcmp(s, "always") == 0 || strcmp(s, "never") == 0);
}

/* Takes the colour options of the diagnostics out of argv, keeping the other words in order: --color=WHEN or
 * --color WHEN (WHEN auto, always or never) anywhere; --color alone before the command means always, and another
 * WHEN= there is a usage error (after the command a --color of another kind is the command's to refuse: draw's
 * picture is coloured with --color-by). The new argc, or -1 after a usage error. */
static int take_color_options(int argc, char **argv)
{
    int kept = 1;
    bool after = false; /* past the command word */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *when = NULL;
        if (strcmp(a, "--color") == 0 && color_when(i + 1 < argc ? argv[i + 1] : NULL))
            when = argv[++i];
        else if (strcmp(a, "--color") == 0 && !after)
            when = "always";
        else if (strncmp(a, "--color=", 8) == 0 && (!after || color_when(a + 8)))
            when = a + 8;
        if (!when) {
            after = true;
            argv[kept++] = argv[i];
            continue;
        }
        if (!drv_set_color(when)) {
            drv_usage_error("--color takes auto, always or never, not '%s'", when);
            return -1;
        }
    }
    argv[kept] = NULL;
    return kept;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(int, char **);
    } commands[] = {{"check", cmd_check}, {"eval", cmd_eval}, {"table", cmd_table}, {"equiv", cmd_equiv}, {"norm", cmd_norm}, {"lower", cmd_lower}, {"describe", cmd_describe}, {"export", cmd_export}, {"emit", cmd_emit}, {"run", cmd_run}, {"where", cmd_where}, {"draw", cmd_draw}, {"diff", cmd_diff}, {"sequence", cmd_sequence}, {"dma", cmd_dma}, {"tails", cmd_tails}, {"dma-cost", cmd_dma_cost}, {"algebra", cmd_algebra}};
    setvbuf(stdout, NULL, _IOLBF, 0); /* each result line as it is printed, also into a pipe (progress, mapc run) */
    if ((argc = take_color_options(argc, argv)) < 0)
        return DRV_EXIT_USAGE;
    if (argc < 2)
        return drv_usage_error("no command given%s", "");
    /* MAPC_ISA=avx512|avx2|portable checks (and runs) kernels for that ISA instead of the host's best */
    const char *isa = getenv("MAPC_ISA");
    if (isa && *isa && !target_isa_parse(isa, &drv_isa))
        return drv_usage_error("MAPC_ISA takes avx512, avx2 or portable, not '%s'", isa);
    /* MAPC_PERF=1 names the JIT-compiled code in perf profiles (a jitdump for perf inject --jit) */
    const char *perf = getenv("MAPC_PERF");
    if (perf && *perf && strcmp(perf, "0") != 0) {
        if (strcmp(perf, "1") != 0)
            return drv_usage_error("MAPC_PERF takes 1 (name the JIT code in perf profiles) or 0, not '%s'", perf);
        jit_set_perf_events(true);
    }
    /* MAPC_CACHES=L1D,L2 models kernel tiles for those caches instead of the host's */
    const char *caches = getenv("MAPC_CACHES");
    if (caches && *caches && !target_caches_parse(caches, &drv_caches))
        return drv_usage_error("MAPC_CACHES takes the L1 data and L2 cache sizes of one core, as in 48K,2M (4K to 1G "
                               "and 64K to 1G), not '%s'", caches);
    /* MAPC_CHECK_BUDGET=SECONDS bounds the CPU time of all the assertions of a program */
    const char *budget = getenv("MAPC_CHECK_BUDGET");
    if (budget && *budget && !drv_parse_seconds(budget, &drv_check_budget))
        return drv_usage_error("MAPC_CHECK_BUDGET takes a number of seconds above 0 (as 60 or 0.5), not '%s'", budget);
    if (!drv_setup_cache()) {
        fputs("mapc: out of memory\n", stderr);
        return DRV_EXIT_INPUT;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(usage_text, stdout);
        return DRV_EXIT_OK;
    }
    if (strcmp(argv[1], "help") == 0) { /* mapc help [COMMAND]: as mapc [COMMAND] --help */
        if (argc == 2) {
            fputs(usage_text, stdout);
            return DRV_EXIT_OK;
        }
        for (size_t h = 0; h < sizeof command_help / sizeof *command_help; h++)
            if (strcmp(command_help[h].name, argv[2]) == 0) {
                fputs(command_help[h].help, stdout);
                return DRV_EXIT_OK;
            }
        const char *names[sizeof command_help / sizeof *command_help + 1] = {NULL};
        for (size_t h = 0; h < sizeof command_help / sizeof *command_help; h++)
            names[h] = command_help[h].name;
        const char *near = suggest_among(argv[2], names);
        fprintf(stderr, "mapc: no help for '%s': it is not a command", argv[2]);
        if (near)
            fprintf(stderr, "; did you mean '%s'?", near);
        fputs("\nTry 'mapc --help'.\n", stderr);
        return DRV_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("mapc %s (LLVM %s)\n", MAPC_VERSION_STRING, cg_llvm_version());
        return DRV_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        if (strcmp(argv[1], commands[i].name) != 0)
            continue;
        for (int a = 2; a < argc; a++)
            if (strcmp(argv[a], "--help") == 0) {
                /* by name: the two tables need not list the commands in the same order */
                for (size_t h = 0; h < sizeof command_help / sizeof *command_help; h++)
                    if (strcmp(command_help[h].name, commands[i].name) == 0)
                        fputs(command_help[h].help, stdout);
                return DRV_EXIT_OK;
            }
        return run_guarded(commands[i].run, argc - 2, argv + 2);
    }
    const char *names[sizeof commands / sizeof *commands + 4] = {NULL};
    size_t n = 0;
    if (drv_is_option(argv[1])) {
        names[n++] = "--help";
        names[n++] = "--version";
        names[n++] = "--color";
    } else {
        for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
            names[n++] = commands[i].name;
    }
    const char *near = suggest_among(argv[1], names);
    fprintf(stderr, "mapc: unknown %s '%s'", drv_is_option(argv[1]) ? "option" : "command", argv[1]);
    if (near)
        fprintf(stderr, "; did you mean '%s'?", near);
    fputs("\nTry 'mapc --help'.\n", stderr);
    return DRV_EXIT_USAGE;
}
