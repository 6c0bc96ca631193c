#!/usr/bin/env python3
"""test_mapc.py — the Python binding (python/mapc) against the mapc command and the C library: seeded
generated programs evaluated by the binding, by `mapc eval` and by the JIT's cell and offset functions;
equivalence with its counterexample checked position by position and against `mapc equiv`; normal forms;
`where` against `mapc where`; a declared kernel run on numpy arrays against numpy's matmul and on
bytearrays against a plain-Python product; errors as exceptions carrying the diagnostics.

Usage: test_mapc.py MAPC MAPGEN_PRINT [SEED [COUNT]]   (MAPC_LIBRARY and PYTHONPATH set by meson)
With MAPC_TEST_HIDE_NUMPY=1 numpy is made unimportable first: the binding and the buffer tests run
without it. Ends with "N passed, N failed"; exit 1 if any check failed."""

import array
import os
import pathlib
import random
import struct
import subprocess
import sys

if os.environ.get("MAPC_TEST_HIDE_NUMPY"):
    sys.modules["numpy"] = None  # "import numpy" now raises ImportError
try:
    import numpy
except ImportError:
    numpy = None

import mapc

passed = failed = 0


def check(ok, what, detail=""):
    """Counts one check; prints it when it fails."""
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s%s" % (what, ("\n  " + str(detail).replace("\n", "\n  ")) if detail else ""))
    return ok


def raises(exc, fn, *args, **kw):
    """The exception fn raised if it is an exc, else None."""
    try:
        fn(*args, **kw)
    except exc as e:
        return e
    except Exception as e:  # the wrong kind: reported by the caller's check through the text
        return None if not isinstance(e, exc) else e
    return None


# The environment of the C programs run beside the binding: without a sanitizer runtime preloaded for this
# interpreter (a sanitizer build's programs carry their own).
TOOL_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def run_mapc(*args, stdin=None):
    p = subprocess.run([MAPC] + list(args), input=stdin, capture_output=True, text=True, env=TOOL_ENV)
    return p.returncode, p.stdout, p.stderr


# ---- generated programs: the interpreter, the command and the JIT agree ----

def test_generated(seed, count):
    out = subprocess.run([MAPGEN, str(seed), str(count)], capture_output=True, text=True, check=True,
                         env=TOOL_ENV).stdout
    cases = [line.split("\t") for line in out.splitlines()]
    check(len(cases) == count, "mapgen-print gave %d programs" % len(cases))
    rng = random.Random(seed)
    for i, (src, expr) in enumerate(cases):
        what = "generated program %d (seed %d)" % (i, seed)
        try:
            check_generated(src, expr, what, rng)
        except Exception as e:  # a binding error on a well-formed program: one failure, then the next
            check(False, what + ": no exception", "%s: %s\n%s" % (type(e).__name__, e, src))


def check_generated(src, expr, what, rng):
    """One generated program: eval against mapc eval and the JIT, then test_equiv_generated."""
    with mapc.compile(src, name="gen") as prog:
        size = prog.size("E")
        positions = list(range(size + 1))  # the one past the end too: oob
        cells = [prog.eval("E", p) for p in positions]
        st, stdout, stderr = run_mapc("eval", "-e", src, "E", *map(str, positions))
        want = ["%d: %s" % (p, c) for p, c in zip(positions, cells)]
        check(st == 0 and stdout.splitlines() == want, what + ": eval agrees with mapc eval",
              "%s\nmapc: %s%s\nbinding: %s" % (src, stdout[:400], stderr, want[:8]))
        jit = prog.jit()
        cell, offset = jit.cell("E"), jit.offset("E")
        bad = [p for p, c in zip(positions[:-1], cells) if cell(p) != c]
        check(not bad, what + ": the JIT's E_cell agrees with eval", "positions %s" % bad[:8])
        live = [(p, c) for p, c in zip(positions, cells) if c.live]
        bad = [p for p, c in live if offset(c.coords) is None or offset(c.coords) > p
               or cells[offset(c.coords)] != c]
        check(not bad, what + ": E_offset gives the first position of each live cell", "positions %s" % bad[:8])
        jit.close()
        test_equiv_generated(prog, src, expr, cells, what, rng)


def test_equiv_generated(prog, src, expr, cells, what, rng):
    """E against its normal form (equivalent) and against another expression (the verdict, or the
    counterexample, checked on every position), some of them against mapc equiv."""
    n = prog.norm("E")
    check(prog.equiv("E", n) == (True, None), what + ": E is equivalent to its normal form " + n)
    check(prog.norm(n) == n, what + ": the normal form is idempotent", n)
    eq, cex = prog.equiv("E", expr)
    s1, s2 = prog.size("E"), prog.size(expr)
    if s1 != s2:
        ok = not eq and cex.sizes == (s1, s2) and cex.position is None
    else:
        other = [prog.eval(expr, p) for p in range(s1)]
        diff = [p for p in range(s1) if cells[p] != other[p]]
        if eq:
            ok = cex is None and not diff
        else:
            ok = (diff != [] and cex.position == diff[0] and cex.cell1 == cells[diff[0]]
                  and cex.cell2 == other[diff[0]])
    check(ok, what + ": equiv E %s" % expr, "verdict %s %s" % (eq, cex))
    if rng.random() < 0.2:
        st, stdout, _ = run_mapc("equiv", "-", "E", expr, stdin=src)
        want = "equivalent\n" if eq else "not equivalent: " + str(cex) + "\n"
        check(st == (0 if eq else 1) and stdout == want, what + ": equiv agrees with mapc equiv",
              "mapc: %r, binding: %r" % (stdout, want))


# ---- equivalence, norm, where on written programs ----

TENSORS = """axes![A = 8, B = 12, N = 4];
type R = m![A, B];
type S = m![A / 2, A % 2, B];
type T = m![B, A];
tensor H: HostTensor<f32, m![A, B]>;
tensor D[A, B]: DmTensor<f32, m![1], m![2], m![A / 4, B / 4], m![A % 4, B % 4]>;
"""


def test_queries(tmp):
    prog = mapc.compile(TENSORS, name="q.map")
    check(list(prog.types) == ["R", "S", "T"], "types", list(prog.types))
    check(prog.axes == [("A", 8), ("B", 12), ("N", 4)], "axes", prog.axes)
    check(prog.equiv("R", "S") == (True, None), "R and S are equivalent")
    eq, cex = prog.equiv("R", "T")
    check(not eq and cex.position == 1 and str(cex) == "position 1: {B:1} vs {A:1}", "R vs T", cex)
    eq, cex = prog.equiv("R", "m![A]")
    check(not eq and cex.sizes == (96, 8) and str(cex) == "sizes 96 vs 8", "R vs m![A]: sizes", cex)
    check(prog.norm("S") == "m![A, B]", "norm S", prog.norm("S"))
    path = os.path.join(tmp, "q.map")
    with open(path, "w") as f:
        f.write(TENSORS)
    for tensor, index in (("H", {"A": 3, "B": 5}), ("D", {"A": 5, "B": 9}), ("D", {"A": 7, "B": 11})):
        places = prog.where(tensor, index)
        literal = "i![" + ", ".join("%s: %d" % kv for kv in index.items()) + "]"
        st, stdout, _ = run_mapc("where", path, tensor, literal)
        if tensor == "H":
            want = ["element %d" % p.element for p in places]
        else:
            want = ["chip %d, cluster %d, slice %d, element %d" % p for p in places]
        check(st == 0 and stdout.splitlines() == want and places, "where %s %s agrees with mapc where" % (
            tensor, literal), "mapc: %r, binding: %r" % (stdout, want))
    check(prog.where("D", "i![A: 5, B: 9]") == [mapc.Place(0, 0, 5, 5), mapc.Place(0, 1, 5, 5)],
          "where D: both clusters, slice 5, element 5")
    e = raises(mapc.CompileError, prog.where, "H", "i![A: 8]")
    check(e is not None and str(e).startswith("where H i![A: 8]: the index has errors\n<index>:1:5: error: index value "
                                              "8 is out of range"), "where: an index out of range", e)
    e = raises(mapc.ArgumentError, prog.where, "H", {"A": 1, "N": 2})
    check(e is not None and "N is not an axis of tensor H" in str(e), "where: a coordinate on a foreign axis", e)
    e = raises(mapc.CompileError, prog.where, "H", {"Q": 1})
    check(e is not None and "undeclared axis 'Q'" in str(e), "where: an unknown axis", e)
    prog.close()


# ---- a declared kernel on numpy arrays and on buffers ----

KERNEL = """axes![M = 16, N = 32, K = 24];
type Rows = m![M, K];
tensor A: HbmTensor<f32, m![1], m![M, K]>;
tensor B: HbmTensor<f32, m![1], m![N, K]>;
tensor C: HbmTensor<f32, m![1], m![M, N]>;
kernel gemm: C[M, N] = A[M, K] * B[K, N] { tile M = 8, N = 16, K = 8; }
"""
M, N, K = 16, 32, 24


def test_kernel():
    prog = mapc.compile(KERNEL, name="gemm.map")
    check(prog.axes == [("M", M), ("N", N), ("K", K)], "a kernel's tile axes are not the program's axes", prog.axes)
    with prog.jit() as jit:
        check(jit.offset("Rows")([3, 0, 5]) == 3 * K + 5 and str(jit.cell("Rows")(3 * K + 5)) == "{M:3, K:5}",
              "the JIT's functions take the program's axes")
    k = prog.kernel("gemm")
    check(k.operand_bytes == (M * K * 4, N * K * 4, M * N * 4), "operand bytes", k.operand_bytes)
    rng = random.Random(7)
    a = [[rng.uniform(-1, 1) for _ in range(K)] for _ in range(M)]
    b = [[rng.uniform(-1, 1) for _ in range(N)] for _ in range(K)]  # B[k][n]; stored as m![N, K]: n-major
    c0 = [[rng.uniform(-1, 1) for _ in range(N)] for _ in range(M)]
    want = [[2.0 * sum(a[i][x] * b[x][j] for x in range(K)) + 0.5 * c0[i][j] for j in range(N)] for i in range(M)]
    tol = (K + 2) * 2.0 ** -24 * 4 * K

    # buffers: bytes for A, a memoryview of an array for B, a bytearray for C
    abuf = struct.pack("%df" % (M * K), *[a[i][x] for i in range(M) for x in range(K)])
    bbuf = memoryview(array.array("f", [b[x][j] for j in range(N) for x in range(K)]))
    cbuf = bytearray(struct.pack("%df" % (M * N), *[c0[i][j] for i in range(M) for j in range(N)]))
    k.run(abuf, bbuf, cbuf, alpha=2.0, beta=0.5)
    got = struct.unpack("%df" % (M * N), cbuf)
    err = max(abs(got[i * N + j] - want[i][j]) for i in range(M) for j in range(N))
    check(err <= tol, "kernel on bytes/memoryview/bytearray against a plain-Python product", "max error %g" % err)

    if numpy is not None:
        na = numpy.array(a, dtype=numpy.float32)
        nb = numpy.array(b, dtype=numpy.float32)
        nc = numpy.array(c0, dtype=numpy.float32)
        bt = numpy.ascontiguousarray(nb.T)  # B's layout m![N, K]
        out = k.run(na, bt, nc.copy(), alpha=2.0, beta=0.5)
        ref = 2.0 * (na.astype(numpy.float64) @ nb.astype(numpy.float64)) + 0.5 * nc
        check(numpy.abs(out - ref).max() <= tol, "kernel on numpy arrays against numpy's matmul",
              "max error %g" % numpy.abs(out - ref).max())
        out = k.run(na, bt, numpy.full((M, N), numpy.nan, dtype=numpy.float32))
        check(numpy.abs(out - na @ nb).max() <= tol, "beta 0 overwrites C (NaN included)")
        e = raises(mapc.ArgumentError, k.run, na, nb, nc)  # B not transposed: right size, so it runs...
        check(e is None, "a same-sized wrong-layout B still runs (the layout is the caller's)")
        e = raises(mapc.ArgumentError, k.run, na[:, :8], bt, nc)
        check(e is not None and "C-contiguous" in str(e), "a strided view is refused", e)
        ro = nc.copy()
        ro.flags.writeable = False
        e = raises(mapc.ArgumentError, k.run, na, bt, ro)
        check(e is not None and "writable" in str(e), "a read-only C is refused", e)
    else:
        check(True, "numpy is not importable: the binding works without it")

    e = raises(mapc.ArgumentError, k.run, abuf, bbuf, bytearray(8))
    check(e is not None and "holds 8 bytes; the operand's tensor has %d" % (M * N * 4) in str(e), "wrong C size", e)
    e = raises(mapc.ArgumentError, k.run, abuf, bbuf, bytes(cbuf))
    check(e is not None and "writable" in str(e), "bytes as C are refused", e)
    e = raises(mapc.ArgumentError, k.run, abuf, bbuf, cbuf, alpha=float("nan"))
    check(e is not None and "alpha (nan) must be finite" in str(e), "alpha NaN is refused with the kernel's message", e)
    e = raises(TypeError, k.run, 3, bbuf, cbuf)
    check(e is not None, "an int is not a buffer")
    e = raises(mapc.NotFoundError, prog.kernel, "gem")
    check(e is not None and str(e) == "kernel gem: no kernel 'gem' is declared", "an unknown kernel is NotFoundError", e)
    prog.close()  # closes the kernel first
    e = raises(ValueError, k.run, abuf, bbuf, cbuf)
    check(e is not None and "closed" in str(e), "a kernel of a closed program refuses to run", e)


# ---- errors ----

def test_errors(tmp):
    e = raises(mapc.CompileError, mapc.compile, "axes![A = 8];\ntype E = m![A, Q];\n", name="bad.map")
    check(e is not None and e.diagnostics and e.diagnostics[0].startswith("bad.map:2:16: error: undeclared axis 'Q'")
          and "^" in str(e), "CompileError carries the positioned diagnostic", e)
    e = raises(OSError, mapc.compile_file, os.path.join(tmp, "no-such.map"))
    check(e is not None, "a missing file is OSError", e)
    path = os.path.join(tmp, "ok.map")
    with open(path, "w") as f:
        f.write("axes![A = 8, B = 4];\ntype RowMajor = m![A, B];\n")
    prog = mapc.compile_file(path)
    check(str(prog.eval("RowMajor", 5)) == "{A:1, B:1}", "compile_file and eval")
    with mapc.compile(pathlib.Path(path)) as again:
        check(list(again.types) == ["RowMajor"], "compile of a pathlib.Path reads the file")
    e = raises(mapc.NotFoundError, prog.eval, "RowMajr", 0)
    check(e is not None and isinstance(e, LookupError) and str(e) == "eval RowMajr at 0: no type 'RowMajr'; did you "
          "mean 'RowMajor'?", "an unknown type is NotFoundError (a LookupError) with the closest type", e)
    e = raises(mapc.CompileError, prog.eval, "m![A, C]", 0)
    check(e is not None and str(e).startswith("eval m![A, C] at 0: the inline mapping has errors\n<inline>:1:7: "
                                              "error: undeclared axis 'C'"), "an inline mapping's error carries its diagnostic", e)
    check(str(prog.eval("m![A # 10]", 9)) == "pad(top)" and prog.eval("RowMajor", 32).kind == "oob",
          "padding and out-of-bounds cells")
    e = raises(mapc.NotFoundError, prog.where, "T", "i![A: 1]")
    check(e is not None and str(e) == "where T i![A: 1]: no tensor 'T' is declared", "where on an unknown tensor", e)
    jit = prog.jit()
    e = raises(mapc.NotFoundError, jit.cell, "Nope")
    check(e is not None, "an unknown JIT function is NotFoundError", e)
    off = jit.offset("RowMajor")
    check(off({"A": 2, "B": 3}) == 11 and off([2, 3]) == 11, "offset by dict and by list")
    e = raises(ValueError, off, [1])
    check(e is not None and "takes 2 coordinates" in str(e), "offset with too few coordinates", e)
    e = raises(KeyError, off, {"Q": 1})
    check(e is not None, "offset with an unknown axis", e)
    jit.close()
    e = raises(ValueError, jit.offset, "RowMajor")
    check(e is not None, "a closed JIT refuses lookups", e)
    with prog.jit(opt_level=0) as j0, prog.jit(opt_level=3) as j3:
        c0, c3 = j0.cell("RowMajor"), j3.cell("RowMajor")
        check(all(c0(p) == c3(p) == prog.eval("RowMajor", p) for p in range(33)), "-O0 and -O3 agree with eval")
    e = raises(mapc.BackendError, prog.jit, cpu="nonesuch")
    check(e is not None and "nonesuch" in str(e), "an unknown CPU is a BackendError naming it", e)
    e = raises(ValueError, prog.jit, opt_level=4)
    check(e is not None, "opt_level 4 is refused", e)
    if mapc.has_draw:
        svg = prog.draw("RowMajor", "svg")
        check(svg.lstrip().startswith(b"<") and b"svg" in svg[:200], "draw svg", svg[:80])
        png = prog.draw("RowMajor", "png")
        check(png.startswith(b"\x89PNG"), "draw png", png[:8])
        e = raises(ValueError, prog.draw, "RowMajor", "gif")
        check(e is not None, "draw: an unknown format", e)
    else:
        e = raises(NotImplementedError, prog.draw, "RowMajor")
        check(e is not None, "draw without mapc_draw in the library says so", e)
    prog.close()


def test_readme():
    """The Python guide's example (docs/python.md) runs as pasted and prints what its comments say (it needs
    numpy)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(mapc.__file__))))
    with open(os.path.join(root, "docs", "python.md")) as f:
        text = f.read()
    section = text[text.index("\n## The binding\n"):]
    code = section[section.index("```python\n") + 10:section.index("\n```\n")]
    if numpy is None:
        check("import numpy" in code, "the README's example is the numpy one (not run without numpy)")
        return
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    said = [line.split("# ", 1)[1] for line in code.splitlines() if "print(" in line and "# " in line]
    got = p.stdout.splitlines()
    ok = p.returncode == 0 and len(got) == len(said) and all(
        g == s for g, s in zip(got, said) if not s.startswith("two replicas"))  # that one describes
    check(ok, "the README's Python example runs and prints what it says", p.stdout + p.stderr)


def test_version():
    """The package's version (python/pyproject.toml) is the library's."""
    pyproject = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(mapc.__file__))), "pyproject.toml")
    with open(pyproject) as f:
        line = next(l for l in f if l.startswith("version"))
    check(line.split("=")[1].strip().strip('"') == mapc.__version__, "pyproject.toml's version is libmapc's",
          "%s vs %s" % (line.strip(), mapc.__version__))


def test_library_search():
    """Without MAPC_LIBRARY, the package finds a build tree's library from the source tree (build/ first, so
    another build directory's tests accept any of the tree's)."""
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(mapc.__file__)))
    env = dict(os.environ)
    env.pop("MAPC_LIBRARY", None)
    env["PYTHONPATH"] = pkg
    p = subprocess.run([sys.executable, "-c", "import mapc; print(mapc.find_library())"], env=env,
                       capture_output=True, text=True)
    lib = os.environ.get("MAPC_LIBRARY", "")
    root = os.path.dirname(pkg)
    if os.path.realpath(lib).startswith(os.path.realpath(root) + os.sep):
        found = p.stdout.strip()
        check(p.returncode == 0 and os.path.realpath(found).startswith(os.path.realpath(root) + os.sep) and
              found.endswith(os.path.join("compiler", "api", "libmapc.so")), "the build tree's library is found",
              p.stdout + p.stderr)
    else:
        check(p.returncode == 0, "a library is found without MAPC_LIBRARY", p.stderr)


def main(argv):
    global MAPC, MAPGEN
    MAPC, MAPGEN = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    seed = int(argv[3]) if len(argv) > 3 else 1
    count = int(argv[4]) if len(argv) > 4 else 200
    tmp = os.environ.get("TMPDIR", "/tmp")
    tmp = os.path.join(tmp, "mapc-py-test-%d" % os.getpid())
    os.makedirs(tmp, exist_ok=True)
    try:
        test_errors(tmp)
        test_queries(tmp)
        test_kernel()
        test_library_search()
        test_version()
        test_readme()
        test_generated(seed, count)
    finally:
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
