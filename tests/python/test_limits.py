#!/usr/bin/env python3
"""test_limits.py — what crosses the Python binding into libmapc: integers out of their C ranges refused (never
wrapped) with the mapc command's message for the same input; a seeded fuzz of every entry point's arguments
(ints near every power of two, negatives, bools, floats, NaN, None, strings, numpy scalars, objects with
__index__), each call either giving the value a plain-Python model of the mapping predicts or raising the
exception the model predicts, never crashing; and close() of a kernel, program or JIT while other threads are
inside its calls (the GIL is released there) waiting for them instead of freeing under them.

Usage: test_limits.py MAPC [SEED [COUNT]]   (MAPC_LIBRARY and PYTHONPATH set by meson; COUNT fuzz calls per
entry point, default 300, also $MAPC_TEST_COUNT). Ends with "N passed, N failed"; exit 1 if any check failed."""

import math
import os
import random
import struct
import subprocess
import sys
import threading

import mapc
import test_mapc  # its check() and counters (this file's directory is on sys.path)
from test_mapc import check, numpy


def outcome(fn, *args, **kw):
    """("ok", result) or (the exception's class, the exception)."""
    try:
        return "ok", fn(*args, **kw)
    except Exception as e:  # every exception is a value here: the model says which one is right
        return type(e), e


A, B = 8, 16
PROGRAM = """axes![A = 8, B = 16];
type E = m![A, B];
type T = m![B, A];
tensor H: HbmTensor<f32, m![1], m![A, B]>;
"""
KM, KN, KK = 8, 8, 8
KERNEL = """axes![M = 8, N = 8, K = 8];
tensor A: HbmTensor<f32, m![1], m![M, K]>;
tensor B: HbmTensor<f32, m![1], m![N, K]>;
tensor C: HbmTensor<f32, m![1], m![M, N]>;
kernel k: C[M, N] = A[M, K] * B[K, N] { tile M = 8, N = 8, K = 8; }
"""
BM = 256  # the kernel other threads close under: long enough (a few ms) that close() lands inside a run
BIG = """axes![M = 256, N = 256, K = 256];
tensor A: HbmTensor<f32, m![1], m![M, K]>;
tensor B: HbmTensor<f32, m![1], m![N, K]>;
tensor C: HbmTensor<f32, m![1], m![M, N]>;
kernel k: C[M, N] = A[M, K] * B[K, N] { tile M = 64, N = 64, K = 64; }
"""


def cell_model(pos):
    """E's cell at pos: (kind, (a, b))."""
    return ("live", (pos // B, pos % B)) if pos < A * B else ("oob", (0, 0))


def offset_model(a, b):
    return a * B + b if 0 <= a < A and 0 <= b < B else None


# ---- the inputs and the CLI's messages ----

def cli_message(*args):
    """The first line of stderr of mapc ARGS without its "mapc: " prefix (the command must fail)."""
    p = subprocess.run([MAPC] + list(args), capture_output=True, text=True, env=test_mapc.TOOL_ENV)
    line = p.stderr.splitlines()[0] if p.stderr else ""
    return p.returncode, line[len("mapc: "):] if line.startswith("mapc: ") else line


def test_refused(tmp):
    prog = mapc.compile(PROGRAM, name="limits.map")
    path = os.path.join(tmp, "limits.map")
    with open(path, "w") as f:
        f.write(PROGRAM)
    for pos in (2**64, -1, 519 + 2**64, 2**64 + 5, -2**63, 2**200):
        kind, e = outcome(prog.eval, "E", pos)
        rc, want = cli_message("eval", path, "E", str(pos))
        check(kind is OverflowError and str(e) == want and rc == 2,
              "eval(E, %d) is refused with mapc eval's message" % pos, "%s %s vs %r (exit %d)" % (kind, e, want, rc))
    check(str(prog.eval("E", 2**64 - 1)) == "oob", "the largest position is a position (oob)")
    jit = prog.jit()
    off, cell = jit.offset("E"), jit.cell("E")
    for coords in ({"A": 2**64 + 5}, {"A": 1, "B": 2**64 + 7}, [1 + 2**64, 7], [1, -2**63 - 1], [2**63, 0]):
        kind, e = outcome(off, coords)
        check(kind is OverflowError and "does not fit in a signed 64-bit number" in str(e),
              "offset(%r) is refused, not wrapped" % (coords,), "%s %s" % (kind, e))
    check(off([1, 7]) == 1 * B + 7 and off([-1, 7]) is None and off([2**63 - 1, 0]) is None,
          "coordinates within 64 bits are the function's (out of the axis: None)")
    for pos in (519 + 2**64, -1):
        kind, e = outcome(cell, pos)
        check(kind is OverflowError and "not a 64-bit number (decimal or 0x hex)" in str(e), "cell(%d) is refused" % pos, e)
    kind, e = outcome(prog.where, "H", {"A": 2**64 + 1})
    check(kind is OverflowError and str(e) == "index A: number 18446744073709551617 does not fit in 64 bits "
          "(coordinates are 0 to 2^64 - 1)", "where with a coordinate past 64 bits", "%s %s" % (kind, e))
    kind, e = outcome(prog.where, "H", {"A": 1.9})
    check(kind is TypeError, "where with a float coordinate is a TypeError, not truncated", "%s %s" % (kind, e))
    kind, e = outcome(prog.where, "H", {"A: 1, B": 2})
    check(kind is ValueError, "an index key cannot smuggle text into the literal", "%s %s" % (kind, e))
    check(prog.where("H", {"A": 1, "B": 7}) == [mapc.Place(0, 0, 0, 1 * B + 7)], "where in range")
    kind, e = outcome(prog.eval, "E\0junk", 5)
    check(kind is ValueError and "NUL" in str(e), "a name with a NUL is refused, not cut", "%s %s" % (kind, e))
    kind, e = outcome(prog.draw, "E", rows=2**64 + 4)
    check(kind is OverflowError, "draw rows past 64 bits", "%s %s" % (kind, e))
    kind, e = outcome(prog.cell, -1, ())
    check(kind is ValueError, "cell kind -1 is no kind (not KINDS[-1])", "%s %s" % (kind, e))
    jit.close()

    kprog = mapc.compile(KERNEL, name="kernel.map")
    kpath = os.path.join(tmp, "kernel.map")
    with open(kpath, "w") as f:
        f.write(KERNEL)
    for t in (2**32 + 1, 2**31, -2**31 - 1, 0, 1025, -1):
        kind, e = outcome(kprog.kernel, "k", threads=t)
        rc, want = cli_message("run", kpath, "k", "--threads", str(t))
        want_kind = OverflowError if not -2**31 <= t < 2**31 else ValueError
        cli = "--threads takes 1 to 1024" if t >= 0 else "--threads needs a number (decimal or 0x hex)"  # no '-' in a number
        check(kind is want_kind and str(e) == "threads takes 1 to 1024, not %d" % t and want == cli and rc == 2,
              "threads=%d is refused as mapc run refuses it" % t,
              "%s %s; mapc: %r (exit %d)" % (kind, e, want, rc))
    for t in (True, 2.0, "2", None):
        kind, e = outcome(kprog.kernel, "k", threads=t)
        check(kind is TypeError, "threads=%r is a TypeError" % (t,), "%s %s" % (kind, e))
    k = kprog.kernel("k", threads=3)
    a, b, c = bytes(KM * KK * 4), bytes(KN * KK * 4), bytearray(KM * KN * 4)
    for alpha, want_kind in ((2**1024, OverflowError), ("1", TypeError), (True, TypeError), (1j, TypeError),
                             (2.0**200, mapc.ArgumentError)):
        kind, e = outcome(k.run, a, b, c, alpha=alpha)
        check(kind is want_kind, "alpha=%.40r is refused (%s)" % (alpha, want_kind.__name__), "%s %s" % (kind, e))
    kprog.close()


# ---- the fuzz ----

class Index:
    """An object with __index__ (as numpy's integers have)."""

    def __init__(self, n):
        self.n = n

    def __index__(self):
        return self.n

    def __repr__(self):
        return "Index(%d)" % self.n


class SubInt(int):
    pass


def random_int(rng):
    """An int near 0 or near a power of two that some C type ends at, of either sign."""
    if rng.random() < 0.4:
        return rng.randrange(-5, 2 * A * B)
    e = rng.choice([3, 4, 7, 8, 10, 31, 32, 53, 63, 64, 65, 100, 300])
    return rng.choice([1, -1]) * 2**e + rng.randrange(-3, 4)


def random_value(rng):
    """A random argument: mostly ints, else every other kind a caller might pass."""
    k = rng.randrange(16)
    if k < 7:
        return random_int(rng)
    if k == 7:
        return rng.choice([True, False])
    if k == 8:
        return rng.choice([0.0, 1.0, 2.5, -1.0, 519.0, float("nan"), float("inf"), -float("inf"), 1e300, 2.0**64])
    if k == 9:
        return rng.choice([None, "5", "abc", b"7", [1], (), {}, 1j, object()])
    if k == 10:
        return Index(random_int(rng))
    if k == 11:
        return SubInt(random_int(rng))
    if numpy is not None:
        n = random_int(rng)
        choices = [numpy.bool_(rng.random() < 0.5), numpy.float64(n), numpy.int8(n % 100)]
        if -2**63 <= n < 2**63:
            choices.append(numpy.int64(n))
        if 0 <= n < 2**64:
            choices.append(numpy.uint64(n))
        return rng.choice(choices)
    return random_int(rng)


def as_int(v):
    """The int an integer argument means, or None when v is no integer (bool included)."""
    if isinstance(v, bool) or (numpy is not None and isinstance(v, numpy.bool_)):
        return None
    try:
        return v.__index__()
    except (AttributeError, TypeError):
        return None


def int_expect(v, lo, hi, domain=None):
    """The outcome an integer parameter of C range [lo, hi] (and domain) must have: ("ok", n) or a class."""
    n = as_int(v)
    if n is None:
        return TypeError, None
    if not lo <= n <= hi:
        return OverflowError, None
    if domain and not domain[0] <= n <= domain[1]:
        return ValueError, None
    return "ok", n


def real_expect(v):
    """The outcome a real parameter (alpha, beta of an f32 kernel) must have: ("ok", float) or a class."""
    if isinstance(v, (bool, str, bytes, complex)) or (numpy is not None and isinstance(v, numpy.bool_)) or \
            not hasattr(v, "__float__"):
        return TypeError, None
    try:
        f = float(v)
    except OverflowError:
        return OverflowError, None
    if not math.isfinite(f) or abs(f) > 3.4028234663852886e38:
        return mapc.ArgumentError, None
    return "ok", f


def same(kind, value, want_kind, what, detail=""):
    ok = kind is want_kind or (want_kind != "ok" and isinstance(want_kind, type) and isinstance(kind, type) and
                               issubclass(kind, want_kind))
    return check(ok, what, "%s %s; expected %s %s" % (kind.__name__ if isinstance(kind, type) else kind,
                                                       value, getattr(want_kind, "__name__", want_kind), detail))


def fuzz(seed, count):
    rng = random.Random(seed)
    prog = mapc.compile(PROGRAM, name="limits.map")
    jit = prog.jit()
    off, cell = jit.offset("E"), jit.cell("E")
    U64, I64 = (0, 2**64 - 1), (-2**63, 2**63 - 1)
    for _ in range(count):
        v = random_value(rng)
        want, n = int_expect(v, *U64)
        kind, got = outcome(prog.eval, "E", v)
        if same(kind, got, want, "eval(E, %r)" % (v,)) and want == "ok":
            k, coords = cell_model(n)
            check(got.kind == k and got.coords == coords, "eval(E, %r) is the model's cell" % (v,), got)
        kind, got = outcome(cell, v)
        if same(kind, got, want, "E_cell(%r)" % (v,)) and want == "ok":
            k, coords = cell_model(n)
            check(got.kind == k and got.coords == coords, "E_cell(%r) is the model's cell" % (v,), got)
        w = random_value(rng)
        wants = [int_expect(x, *I64) for x in (v, w)]
        want = next((x for x, _ in wants if x != "ok"), "ok")
        for coords in ([v, w], {"A": v, "B": w}):
            kind, got = outcome(off, coords)
            if same(kind, got, want, "E_offset(%r)" % (coords,)) and want == "ok":
                check(got == offset_model(wants[0][1], wants[1][1]), "E_offset(%r) is the model's" % (coords,), got)
        wants = [int_expect(x, *U64) for x in (v, w)]
        want = next((x for x, _ in wants if x != "ok"), "ok")
        if want == "ok" and not (wants[0][1] < A and wants[1][1] < B):
            want = mapc.CompileError  # in 64 bits but past the axis: the library's diagnostic
        kind, got = outcome(prog.where, "H", {"A": v, "B": w})
        if same(kind, got, want, "where(H, A: %r, B: %r)" % (v, w)) and want == "ok":
            check(got == [mapc.Place(0, 0, 0, offset_model(wants[0][1], wants[1][1]))], "where is the model's", got)
        want, n = int_expect(v, *I64, domain=(0, 2**63 - 1))
        if want == "ok" and n > A * B:
            want = mapc.ArgumentError  # more rows than positions: the library's refusal
        kind, got = outcome(prog.draw, "T", rows=v)
        if same(kind, got, want, "draw(T, rows=%r)" % (v,)) and want == "ok":
            check(got.startswith(b"<?xml"), "draw(T, rows=%r) is an SVG" % (v,), got[:40])
        want, n = int_expect(v, -2**31, 2**31 - 1, domain=(0, 3))
        if want == "ok":
            kind, got = outcome(prog.jit, opt_level=v)
            if same(kind, got, want, "jit(opt_level=%r)" % (v,)):
                check(got.offset("E")([1, 2]) == B + 2, "a JIT at -O%d computes offsets" % n)
                got.close()
        else:
            kind, got = outcome(prog.jit, opt_level=v)
            same(kind, got, want, "jit(opt_level=%r)" % (v,))
    jit.close()

    kprog = mapc.compile(KERNEL, name="kernel.map")
    kern = kprog.kernel("k")
    ra = [rng.randrange(-4, 5) for _ in range(KM * KK)]
    rb = [rng.randrange(-4, 5) for _ in range(KN * KK)]
    rc0 = [rng.randrange(-4, 5) for _ in range(KM * KN)]
    abuf, bbuf = struct.pack("%df" % len(ra), *ra), struct.pack("%df" % len(rb), *rb)
    prod = [sum(ra[i * KK + x] * rb[j * KK + x] for x in range(KK)) for i in range(KM) for j in range(KN)]
    kernels = 0
    for _ in range(count):
        v = random_value(rng)
        want, n = int_expect(v, -2**31, 2**31 - 1, domain=(1, 1024))
        if want != "ok" or kernels < 4:  # a few kernels made (each compiles), every refusal checked
            kind, got = outcome(kprog.kernel, "k", threads=v)
            if same(kind, got, want, "kernel(threads=%r)" % (v,)) and want == "ok":
                kernels += 1
                c = bytearray(KM * KN * 4)
                got.run(abuf, bbuf, c)
                check(list(struct.unpack("%df" % (KM * KN), c)) == prod, "a kernel of %d threads computes" % n)
                got.close()
        alpha, beta = random_value(rng), rng.choice([0.0, 1.0, random_value(rng)])
        wants = [real_expect(s) for s in (alpha, beta)]
        # the binding converts both before the library checks either: its own refusals come first
        want = next((x for x, _ in wants if x not in ("ok", mapc.ArgumentError)),
                    next((x for x, _ in wants if x != "ok"), "ok"))
        scal = [f for _, f in wants]
        c = bytearray(struct.pack("%df" % len(rc0), *rc0))
        kind, got = outcome(kern.run, abuf, bbuf, c, alpha=alpha, beta=beta)
        if same(kind, got, want, "run(alpha=%.30r, beta=%.30r)" % (alpha, beta)) and want == "ok":
            out = struct.unpack("%df" % (KM * KN), c)
            f32 = lambda x: struct.unpack("f", struct.pack("f", x))[0]  # noqa: E731
            ref = [scal[0] * p + (scal[1] * c0 if scal[1] else 0.0) for p, c0 in zip(prod, rc0)]
            # relative to the terms' magnitudes: alpha*A*B and beta*C may cancel, and f32 rounds each term
            mag = [abs(scal[0] * p) + abs(scal[1] * c0 if scal[1] else 0.0) for p, c0 in zip(prod, rc0)]
            bad = [i for i in range(len(ref)) if not (math.isclose(out[i], f32(ref[i]), rel_tol=1e-5,
                                                                   abs_tol=max(1e-30, 1e-6 * mag[i]))
                                                      or (math.isinf(out[i]) and abs(ref[i]) > 3e38))]
            check(not bad, "run(alpha=%r, beta=%r) computes alpha*A*B + beta*C" % (alpha, beta),
                  "first wrong element %s" % (bad[:1],))
    kprog.close()


# ---- close while other threads are inside a call ----

def close_during_runs(make, closer, rounds):
    """rounds times: a kernel from make() run in a loop by two threads while the main thread closes it with
    closer(kernel, program) after a few ms. Every run either completes with the right C or raises ValueError
    naming the closed object, and the process survives. Returns (runs completed, closes that landed in a run)."""
    a = bytes(struct.pack("%df" % (BM * BM), *([1.0] * (BM * BM))))
    completed = overlapped = 0
    for r in range(rounds):
        prog, kern = make()
        results, busy = [], [0]
        lock = threading.Lock()

        def runner():
            c = bytearray(BM * BM * 4)
            while True:
                with lock:
                    busy[0] += 1
                kind, got = outcome(kern.run, a, a, c)
                with lock:
                    busy[0] -= 1
                    results.append((kind, got, c[:4] + c[-4:]))
                if kind != "ok":
                    return

        threads = [threading.Thread(target=runner) for _ in range(2)]
        for t in threads:
            t.start()
        threading.Event().wait(0.002 + 0.001 * (r % 5))
        with lock:
            overlapped += busy[0] > 0
        closer(kern, prog)
        for t in threads:
            t.join()
        want_c = struct.pack("f", float(BM)) * 2
        for kind, got, c in results:
            if kind == "ok":
                completed += 1
                if not check(c == want_c, "a run completed around close() computed C", c):
                    break
            elif not check(kind is ValueError and "closed" in str(got), "a run after close() raises ValueError",
                           "%s %s" % (kind, got)):
                break
        prog.close()
    return completed, overlapped


def test_close_during_run(rounds):
    def make():
        prog = mapc.compile(BIG, name="big.map")
        return prog, prog.kernel("k", threads=1)

    done, over = close_during_runs(make, lambda k, p: k.close(), rounds)
    check(over > 0 and done > 0, "Kernel.close() landed inside runs (%d of %d) and runs completed" % (over, rounds))
    done, over = close_during_runs(make, lambda k, p: p.close(), rounds)
    check(over > 0 and done > 0, "Program.close() landed inside runs (%d of %d) and runs completed" % (over, rounds))

    # a JIT closed while threads call its functions
    prog = mapc.compile(PROGRAM, name="limits.map")
    for r in range(rounds):
        jit = prog.jit()
        off, cell = jit.offset("E"), jit.cell("E")
        bad = []

        def caller():
            i = 0
            while True:
                i += 1
                try:
                    if off([i % A, i % B]) != (i % A) * B + i % B or cell(i % (A * B)).coords != cell_model(
                            i % (A * B))[1]:
                        bad.append(i)
                except ValueError as e:
                    if "closed" not in str(e):
                        bad.append(e)
                    return

        threads = [threading.Thread(target=caller) for _ in range(2)]
        for t in threads:
            t.start()
        threading.Event().wait(0.001)
        jit.close()
        for t in threads:
            t.join()
        if not check(not bad, "JIT functions called around close() are right or raise ValueError", bad[:3]):
            break
    check(True, "the process survived %d closes of JITs under calls" % rounds)
    prog.close()
    kind, e = outcome(prog.eval, "E", 1)
    check(kind is ValueError and "closed" in str(e), "a closed program refuses calls", "%s %s" % (kind, e))


def main(argv):
    global MAPC
    MAPC = os.path.abspath(argv[1])
    seed = int(argv[2]) if len(argv) > 2 else 1
    count = int(os.environ.get("MAPC_TEST_COUNT") or (argv[3] if len(argv) > 3 else 300))
    tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), "mapc-py-limits-%d" % os.getpid())
    os.makedirs(tmp, exist_ok=True)
    try:
        test_refused(tmp)
        fuzz(seed, count)
        test_close_during_run(10)
    finally:
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)
    print("%d passed, %d failed" % (test_mapc.passed, test_mapc.failed))
    return 1 if test_mapc.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
