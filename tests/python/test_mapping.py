#!/usr/bin/env python3
"""test_mapping.py — Mapping objects (python/mapc/mapping.py) against the interpreter and the mapc command: on
seeded generated programs, str() is a text that compiles back to an equivalent mapping, == agrees with mapc equiv
(and with a position-by-position comparison), hash() agrees with ==, eval() of all positions (vectorized, numpy)
agrees with eval of each; a written program's types, inline mappings, errors, and the SVG a notebook shows.

Usage: test_mapping.py MAPC MAPGEN_PRINT [SEED [COUNT]]   (MAPC_LIBRARY and PYTHONPATH set by meson)
Ends with "N passed, N failed"; exit 1 if any check failed."""

import os
import random
import subprocess
import sys

import mapc

try:
    import numpy
except ImportError:
    numpy = None

passed = failed = 0
TOOL_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def check(ok, what, detail=None):
    """Counts one check; prints it when it fails."""
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s%s" % (what, ("\n  " + str(detail).replace("\n", "\n  ")) if detail is not None else ""))
    return ok


def raised(exc, fn):
    """The exception of type exc that fn() raised, else None."""
    try:
        fn()
    except exc as e:
        return e
    return None


def test_generated(seed, count):
    out = subprocess.run([MAPGEN, str(seed), str(count)], capture_output=True, text=True, check=True,
                         env=TOOL_ENV).stdout
    rng = random.Random(seed)
    for i, line in enumerate(out.splitlines()):
        src, expr = line.split("\t")
        what = "generated program %d (seed %d)" % (i, seed)
        with mapc.compile(src, name="gen") as prog:
            e, x = prog.types["E"], prog.mapping(expr)
            # the text compiles back to an equivalent mapping, in the same program and in mapc
            again = prog.mapping(str(e))
            check(again == e and str(again) == str(e), what + ": str(E) is a mapping equivalent to E", str(e))
            st = subprocess.run([MAPC, "equiv", "-", "E", str(e)], input=src, capture_output=True, text=True,
                                env=TOOL_ENV)
            check(st.returncode == 0, what + ": mapc equiv E str(E)", st.stdout + st.stderr)
            # == against mapc equiv, and against every position
            eq = e == x
            if rng.random() < 0.3:
                st = subprocess.run([MAPC, "equiv", "-", "E", expr], input=src, capture_output=True, text=True,
                                    env=TOOL_ENV)
                check(st.returncode == (0 if eq else 1), what + ": == agrees with mapc equiv", st.stdout)
            if len(e) == len(x):
                same = all(e[p] == x[p] for p in range(len(e)))
                check(eq == same, what + ": == agrees with the cells of every position", "%s vs %s" % (e, x))
            else:
                check(not eq, what + ": mappings of different sizes are not ==")
            check((e != x) == (not eq), what + ": != is the negation of ==")
            if eq:
                check(hash(e) == hash(x), what + ": equal mappings hash alike")
            check(e.norm() == e and str(e.norm()) == prog.norm("E"), what + ": norm() is the normal form")
            if numpy is not None:
                cells = e.eval()
                scalar = [e[p] for p in range(len(e))]
                ok = cells.kinds.shape == (len(e),) and cells.coords.shape == (len(e), len(prog.axes)) and all(
                    mapc.KINDS[cells.kinds[p]] == scalar[p].kind and tuple(cells.coords[p]) == scalar[p].coords
                    for p in range(len(e)))
                check(ok, what + ": eval() of every position agrees with eval of each", str(e))


TEXT = """axes![M = 16, N = 16, K = 3];
type Blocked = m![M / 4, N / 4, M % 4, N % 4];
type RowMajor = m![M, N];
type Same = m![M / 4, M % 4, N];
tensor D[M, N]: DmTensor<f32, m![1], m![1], m![M / 8, N / 8], m![M % 8, N % 8]>;
"""


def test_written():
    prog = mapc.compile(TEXT, name="written.map")
    types = prog.types
    check(list(types) == ["Blocked", "RowMajor", "Same"], "types lists the names in order", list(types))
    b, r = types["Blocked"], types["RowMajor"]
    check(str(b) == "m![M / 4, N / 4, M % 4, N % 4]" and repr(r) == "m![M, N]", "types print as m![...]",
          "%s %r" % (b, r))
    check(isinstance(b, mapc.Mapping) and b.name == "Blocked" and len(b) == 256, "a type's Mapping: name and size")
    check(r == types["Same"] and r == "Same" and r == "m![M, N]" and not (r == b) and r != b,
          "== by the decision, against Mappings, names and texts")
    check(hash(r) == hash(types["Same"]), "equivalent types hash alike")
    check({r, types["Same"], b} == {r, b}, "a set keeps one of each equivalence class")
    ok, cex = b.equiv(r)
    check(not ok and cex.position == 4 and str(cex.cell1) == "{M:1}" and str(cex.cell2) == "{N:4}", "equiv gives the counterexample", cex)
    inline = prog.mapping("m![M/4,N/4,M%4,N%4]")
    check(str(inline) == str(b) and inline.name is None and inline == b, "an inline mapping prints normalised", inline)
    check(prog.mapping(b) is b, "mapping(Mapping) is the Mapping")
    check(str(b[5]) == "{M:1, N:1}" and b.cell(5) == b[5], "m[pos] is the Cell of a position", b[5])
    e = raised(mapc.NotFoundError, lambda: prog.mapping("Blocke"))
    check(e is not None and "did you mean 'Blocked'" in str(e), "an unknown name is named with the closest", e)
    e = raised(mapc.CompileError, lambda: prog.mapping("m![M / 5]"))
    check(e is not None and e.diagnostics, "a text with errors raises CompileError with diagnostics", e)
    e = raised(TypeError, lambda: prog.mapping(3))
    check(e is not None, "mapping(3) is a TypeError", e)
    other = mapc.compile(TEXT, name="other.map")
    e = raised(ValueError, lambda: b == other.types["Blocked"])
    check(e is not None and "different programs" in str(e), "mappings of two programs are not compared", e)
    check(b.__eq__(3) is NotImplemented and not (b == 3), "a Mapping is not == a number")
    if numpy is not None:
        pos = numpy.array([[0, 1], [4, 300]])
        cells = b.eval(pos)
        check(cells.kinds.shape == (2, 2) and cells.coords.shape == (2, 2, 3) and cells["M"][1, 0] == 1 and
              mapc.KINDS[cells.kinds[1, 1]] == "oob" and list(cells.live.ravel()) == [True, True, True, False],
              "eval keeps the positions' shape; oob past the end", cells.kinds)
        cells = b.eval()
        rows = numpy.arange(16).repeat(16).reshape(16, 16)
        index = numpy.zeros((16, 16), dtype=numpy.int64)
        index[cells["M"], cells["N"]] = numpy.arange(256)
        check(bool((index // 16 // 4 == rows // 4).all()) and index[4, 4] == 80,
              "eval of every position inverts into the tensor's grid", index[:5, :5])
        for bad, exc in (([-1], ValueError), ([1 << 64], ValueError), ([1.5], TypeError), ([True], TypeError)):
            e = raised(exc, lambda: b.eval(bad))
            check(e is not None, "eval(%r) raises %s" % (bad, exc.__name__), e)
        big = b.eval([(1 << 64) - 1])
        check(mapc.KINDS[big.kinds[0]] == "oob", "eval at 2^64 - 1 is oob")
    if mapc.has_draw:
        svg = b._repr_svg_()
        check(svg.startswith("<?xml") and "<svg" in svg and "Blocked" in svg, "_repr_svg_ is the SVG picture")
        huge = mapc.compile("axes![X = 4096]; type E = m![X, X];").types["E"]
        check(huge._repr_svg_() is None, "_repr_svg_ of a mapping too large to draw is None (the text is shown)")
    other.close()
    prog.close()


def test_guide():
    """The Mapping example of docs/python.md runs as pasted and prints what its comments say."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(mapc.__file__))))
    text = open(os.path.join(root, "docs", "python.md"), encoding="utf-8").read()
    section = text[text.index("\n## Mapping objects\n"):]
    code = section[section.index("```python\n") + 10:section.index("\n```\n")]
    if numpy is None:
        return
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    said = [line.split("# ", 1)[1].strip() for line in code.splitlines() if line.startswith("print(") and "# " in line]
    check(p.returncode == 0 and p.stdout.splitlines() == said, "docs/python.md's Mapping example prints what it says",
          p.stdout + p.stderr)


def main(argv):
    global MAPC, MAPGEN
    MAPC, MAPGEN = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    seed = int(argv[3]) if len(argv) > 3 else 1
    count = int(os.environ.get("MAPC_TEST_COUNT", argv[4] if len(argv) > 4 else 40))
    test_written()
    test_guide()
    test_generated(seed, count)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
