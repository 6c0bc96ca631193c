#!/usr/bin/env python3
"""check_manual.py — the manual page and the bash completion against the driver's own help, so they cannot drift.

Usage: check_manual.py MAPC MAN_PAGE COMPLETION SOURCE_ROOT

Checks: groff renders the page with every warning on (-ww) and prints none; every command that
`mapc --help` lists, and every option that `mapc COMMAND --help` shows, is in the rendered page and
is offered by the completion for that command; every environment variable the driver reads is in
the page's ENVIRONMENT section; the completion offers the names a file declares. Prints one line per
failed check, then "N passed, N failed"; exits 1 if any failed.
"""

import glob
import os
import re
import shutil
import subprocess
import sys

from tally import check, finish

mapc, man_page, completion, src = sys.argv[1:5]


def help_text(*args):
    return subprocess.run([mapc, *args, "--help"], stdout=subprocess.PIPE, check=True).stdout.decode()


def options(text):
    """The options a help text names, with -O0..-O3 and --emit=obj|asm|llvm spelled out."""
    found = set()
    for m in re.finditer(r"(?<![\w-])(--?[A-Za-z][A-Za-z0-9-]*)(=([a-z|]+))?(\.\.-O(\d))?", text):
        name, values, upto = m.group(1), m.group(3), m.group(5)
        if upto:
            found |= {"-O%d" % k for k in range(int(name[-1]), int(upto) + 1)}
        elif values:
            found |= {name + "=" + v for v in values.split("|")}
        else:
            found.add(name)
    return found


def complete(*words):
    """What the completion offers for the command line `mapc WORDS...` (the last word being completed)."""
    script = 'source "$1"; shift; COMP_WORDS=(mapc "$@"); COMP_CWORD=$#; _mapc; printf "%s\\n" "${COMPREPLY[@]}"'
    p = subprocess.run(["bash", "-c", script, "complete", completion, *words], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, cwd=src)
    check(p.returncode == 0 and not p.stderr, "completion of %r runs cleanly: %s" % (words, p.stderr.decode()))
    return set(p.stdout.decode().split())


# the page renders without warnings, through groff and through man
r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-P", "-cbou", man_page], stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE)
check(r.returncode == 0 and not r.stderr, "groff -man -Tutf8 -ww renders %s without warnings: %s" % (man_page, r.stderr.decode()))
page = r.stdout.decode().replace("\u2212", "-").replace("\u2010", "-")
if shutil.which("man"):   # man-db, as a user reads the page
    m = subprocess.run(["man", "-l", man_page], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, MANWIDTH="80"))
    check(m.returncode == 0 and not m.stderr, "man -l renders without warnings: %s" % m.stderr.decode())
version = subprocess.run([mapc, "--version"], stdout=subprocess.PIPE, check=True).stdout.decode().split()[1]
check("mapc " + version in page, "the page names version %s" % version)

usage = help_text()
section = usage.split("commands:", 1)[1].split("\n\n", 1)[0]
commands = sorted({line.split()[0] for line in section.splitlines() if line.startswith("  ")})
check(len(commands) >= 10, "mapc --help lists the commands (%s)" % commands)
top = complete("")
for opt in ("--help", "--version"):
    check(opt in page, "the page documents %s" % opt)
    check(opt in top, "the completion offers %s" % opt)
for cmd in commands:
    check(re.search(r"\bmapc %s\b" % cmd, page), "the page's synopsis has mapc %s" % cmd)
    check(cmd in top, "the completion offers the command %s" % cmd)
    offered = complete(cmd, "-")
    for opt in sorted(options(help_text(cmd)) | {"--help"}):
        check(re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(opt), page), "the page documents %s %s" % (cmd, opt))
        check(opt in offered, "the completion offers %s for %s (it offers %s)" % (opt, cmd, sorted(offered)))

# every environment variable the driver reads (itself, or through the JIT cache it sets up) is in ENVIRONMENT
env_section = page.split("ENVIRONMENT", 1)[-1].split("EXIT STATUS", 1)[0]
read = set()
for path in glob.glob(os.path.join(src, "compiler", "driver", "*.c")) + [os.path.join(src, "compiler", "codegen",
                                                                                      "jit_cache.c")]:
    read |= set(re.findall(r'getenv\("([A-Z_]+)"\)', open(path, encoding="utf-8").read()))
read.discard("HOME")
check(read >= {"MAPC_ISA", "MAPC_CACHE_DIR"}, "the driver reads MAPC_ISA and MAPC_CACHE_DIR (%s)" % sorted(read))
for var in sorted(read):
    check(var in env_section, "the page's ENVIRONMENT documents %s" % var)
for status in ("0", "1", "2"):
    check(re.search(r"^\s+%s\s" % status, page.split("EXIT STATUS", 1)[-1], re.M), "the page documents exit status %s" % status)

# names a file declares, as the completion offers them
check(complete("run", "samples/gemm/gemm.map", "") == {"sgemm", "sgemm_model", "bf16gemm", "igemm"}, "run completes the kernels of gemm.map")
check(complete("where", "tests/golden/tensor/where-spec.map", "D") == {"Dm"}, "where completes the tensors of a file")
check({"RowMajor", "Shuffled"} <= complete("equiv", "samples/layouts.map", "Blocked", ""), "equiv completes a second type")
check("samples/layouts.map" in complete("eval", "samples/lay"), "eval completes a .map file")

finish()
