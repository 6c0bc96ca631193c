#!/usr/bin/env python3
"""test_interop.py — layouts of other systems through the Python binding: Program.export against `mapc export`
for every type of samples/interop.map and every format (the same text, or the same refusal), the texts read back
through inline literals (norm and equiv against the type), literals evaluated like any NAME, and the errors.

Usage: test_interop.py MAPC SAMPLE   (MAPC_LIBRARY and PYTHONPATH set by meson)
Ends with "N passed, N failed"; exit 1 if any check failed."""

import os
import re
import subprocess
import sys

import mapc

passed = failed = 0


def check(ok, what, detail=""):
    """Counts one check; prints it when it fails."""
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s%s" % (what, ("\n  " + str(detail)) if detail else ""))
    return ok


MAPC, SAMPLE = sys.argv[1], sys.argv[2]
TOOL_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
LITERAL = {"cute": "cute", "cute-tiler": "cute_tiler", "triton": "triton", "affine": "affine",
           "index-map": "index_map"}

prog = mapc.compile_file(SAMPLE)
for name in prog.types:
    for fmt in mapc.EXPORT_FORMATS:
        cli = subprocess.run([MAPC, "export", SAMPLE, name, "--to", fmt], capture_output=True, text=True,
                             env=TOOL_ENV)
        try:
            text, error = prog.export(name, to=fmt), None
        except mapc.CompileError as e:
            text, error = None, e
        if cli.returncode == 0:
            if not check(text == cli.stdout.strip(), "export %s --to %s as mapc export prints it" % (name, fmt),
                         "%r vs %r" % (text, cli.stdout)):
                continue
            if fmt in LITERAL:
                used = [a for a, _ in prog.axes if re.search(r"\b%s\b" % a, prog.norm(name))]
                lit = "%s![%s][%s]" % (LITERAL[fmt], text, ", ".join(used))
                eq, cex = prog.equiv(name, lit)
                check(eq, "%s read back as %s is equivalent" % (name, lit), cex)
        else:
            check(error is not None and cli.stdout.strip() in str(error),
                  "export %s --to %s refuses as mapc export does" % (name, fmt), "%s vs %r" % (error, cli.stdout))

# literals are NAMEs like any inline mapping
check(prog.norm("cute![((2, 2), 8) : ((1, 16), 2)]") == "m![M / 2, N, M % 2]", "norm of a cute literal")
check(prog.equiv("Tiled", "index_map![lambda i, j: (i // 2, j, i % 2)]")[0], "equiv with an index_map literal")
check(str(prog.eval("triton![register = [[1, 0], [2, 0], [0, 1], [0, 2], [0, 4]]]", 5)) == "{M:1, N:1}",
      "eval of a triton literal")
check(str(prog.eval("Padded", 10)) == "pad(top)", "an affine map's padding")

# errors


def raised(exc, fn, *args, **kw):
    """The exc fn raised, or None."""
    try:
        fn(*args, **kw)
    except exc as e:
        return e
    return None


for exc, args, kw, text, what in [
        (mapc.ArgumentError, ("Tiled",), {"to": "cutlass"}, "unknown format 'cutlass'", "an unknown format"),
        (mapc.CompileError, ("Tiled",), {"to": "strided"}, "no MLIR strided layout: axis M is split into 2 digits",
         "a refusal names its reason"),
        (mapc.CompileError, ("cute![(4, 8) : (1, 3)]",), {"to": "cute"},
         "coordinates (3, 0) and (0, 1) both have offset 3", "a literal's error, with its numbers"),
        (mapc.ArgumentError, ("Tiled",), {"to": "triton", "lanes": 3}, "power", "lanes not a power of two"),
        (mapc.NotFoundError, ("Nope",), {"to": "cute"}, "no type 'Nope'", "an unknown type")]:
    e = raised(exc, prog.export, *args, **kw)
    check(e is not None and text in str(e), "%s is a %s" % (what, exc.__name__), e)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
