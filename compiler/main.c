/* main.c — the mapc command-line driver (CLI.md): reads files, runs the library, prints results and diagnostics. */
#include "driver.h"

#include <llvm/Config/llvm-config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAPC_VERSION "0.1.0"

static const char usage_text[] =
    "usage: mapc COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  check FILE...                 parse and check; report diagnostics and failed assertions\n"
    "  eval  FILE NAME POS...        print \"POS: CELL\" for each buffer position\n"
    "  eval  -e SOURCE NAME POS...   the same, with the program given as text\n"
    "  table FILE NAME               print the mapping as a grid of cells\n"
    "  equiv FILE NAME1 NAME2        decide whether two mappings are equivalent\n"
    "\n"
    "NAME is a type defined in the program, or an inline m![...].\n"
    "options: --help, --version; 'mapc COMMAND --help' describes one command.\n"
    "exit status: 0 success (and \"equivalent\"), 1 an error in the input, a failed assertion\n"
    "or \"not equivalent\", 2 wrong command-line usage.\n";

static const struct {
    const char *name, *help;
} command_help[] = {
    {"check", "usage: mapc check FILE...\n"
              "Parses and checks every FILE: static rules, declarations, and the assert statements.\n"
              "Prints diagnostics to stderr as FILE:LINE:COL: error: MESSAGE; exit 1 if there are any.\n"},
    {"eval", "usage: mapc eval FILE NAME POS...\n"
             "       mapc eval -e SOURCE NAME POS...\n"
             "Prints \"POS: CELL\" for each decimal buffer position POS, with CELL as {A:1, B:7}, {},\n"
             "pad(top), pad(zero), pad(bottom), oob or overflow. NAME is a type or an inline m![...].\n"},
    {"table", "usage: mapc table FILE NAME [--max-cells N]\n"
              "Prints the mapping as a grid: for a pair L, R the rows are the values of the major part L\n"
              "and the columns those of the minor part R; other mappings are printed 16 positions a row.\n"
              "Refuses mappings of more than N cells (default 65536).\n"},
    {"equiv", "usage: mapc equiv FILE NAME1 NAME2\n"
              "Prints \"equivalent\", \"not equivalent: position P: CELL1 vs CELL2\" (smallest P) or\n"
              "\"not equivalent: sizes S1 vs S2\"; exit 0 only when equivalent.\n"},
};

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(int, char **);
    } commands[] = {{"check", cmd_check}, {"eval", cmd_eval}, {"table", cmd_table}, {"equiv", cmd_equiv}};
    if (argc < 2)
        return usage_error("no command given%s", "");
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(usage_text, stdout);
        return EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("mapc %s (LLVM %s)\n", MAPC_VERSION, LLVM_VERSION_STRING);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        if (strcmp(argv[1], commands[i].name) != 0)
            continue;
        for (int a = 2; a < argc; a++)
            if (strcmp(argv[a], "--help") == 0) {
                fputs(command_help[i].help, stdout);
                return EXIT_OK;
            }
        return commands[i].run(argc - 2, argv + 2);
    }
    return usage_error("unknown command '%s'", argv[1]);
}
