#!/usr/bin/env python3
"""emit_names.py — `mapc emit` refuses every emitted name a program linking the object with libmapc already has,
read here from the built files themselves, independently of the table mapc was built with.

Usage: emit_names.py MAPC LIBMAPC.so [SEED [COUNT]]

Checked, each as copies of one program (one emit each), every copy refused with a positioned error naming its
C symbol: every function the built libmapc imports (nm -D --undefined-only: pthread_create, strdup, write,
close, mkdir, aligned_alloc, sysconf, the LLVM, isl, cairo and MPI functions), the functions issue 20 named
(unlink among them), COUNT functions of the C library's libc.so.6 and libm.so.6 (seeded), every function libmapc
exports when --prefix makes a copy's name into it (--prefix mapc_), a kernel `run` under --prefix mapc_aot_
(libmapc's runner, which the entry point calls), names C and POSIX reserve, and a type whose functions would
be reserved. As controls, COUNT seeded names outside every list emit, and the object defines exactly them,
each under its own name (no LLVM renaming such as run.1). Ends with "N passed, N failed".
"""

import os
import random
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from checks import check, report  # noqa: E402

KEYWORDS = {"const", "type", "assert", "pad", "oob", "overflow", "copy", "tensor", "kernel", "as"}
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
ISSUE = ["pthread_create", "strdup", "write", "close", "unlink", "mkdir", "aligned_alloc", "sysconf"]



def dynamic(path, which):
    out = subprocess.run(["nm", "-D", "--%s-only" % which, path], capture_output=True, text=True, check=True).stdout
    names = set()
    for line in out.splitlines():
        if line.split():
            n = line.split()[-1].split("@", 1)[0]
            if IDENT.match(n):
                names.add(n)
    return names


def libc_files():
    files = []
    for f in ("libc.so.6", "libm.so.6"):
        p = subprocess.run(["cc", "-print-file-name=" + f], capture_output=True, text=True).stdout.strip()
        if p and p != f and os.path.exists(p):
            files.append(p)
    return files


def emit(mapc, work, names, prefix, kind="copy"):
    """Emits a program declaring each name as a copy (or, kind "type", a type); (status, stderr, {name: line})."""
    lines = ["axes![Q = 4];"]
    at = {}
    for n in names:
        at[n] = len(lines) + 1
        lines.append("copy %s: m![Q] -> m![Q] as f32;" % n if kind == "copy" else "type %s = m![Q];" % n)
    path = os.path.join(work, "names.map")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    args = [mapc, "emit", path, "-o", os.path.join(work, "names.o")] + (["--prefix", prefix] if prefix else [])
    p = subprocess.run(args, capture_output=True, text=True, env=dict(os.environ, MAPC_ISA="avx2"))
    return p.returncode, p.stderr, at


def all_refused(label, mapc, work, names, prefix="", kind="copy", reason=None):
    names = sorted(n for n in names if IDENT.match(n) and n not in KEYWORDS and n != "Q")
    status, err, at = emit(mapc, work, names, prefix, kind)
    check("%s: emit fails (exit 1)" % label, status == 1, "status %d\n%s" % (status, err[-2000:]))
    missing = []
    for n in names:
        want = "names.map:%d:6: error: %s %s would be emitted as the C function '%s%s%s'" % (
            at[n], kind, n, prefix, n, "_cell" if kind == "type" else "")
        line = next((l for l in err.splitlines() if l.startswith(os.path.join(work, want))), None)
        if line is None or (reason and reason not in line):
            missing.append(n)
    check("%s: all %d refused, each at its line%s" % (label, len(names), " (%s)" % reason if reason else ""),
          not missing, "not refused: %s\n%s" % (missing[:20], err[:1500]))


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        print("0 passed, 1 failed")
        return 2
    mapc, lib = argv[1], argv[2]
    seed = int(argv[3]) if len(argv) > 3 else 1
    count = int(argv[4]) if len(argv) > 4 else min(200, int(os.environ.get("MAPC_TEST_COUNT", "200")))
    rng = random.Random(seed)
    imports, exports = dynamic(lib, "undefined"), dynamic(lib, "defined")
    libc = set()
    for f in libc_files():
        libc |= dynamic(f, "defined")
    with tempfile.TemporaryDirectory(prefix="mapc-names-") as work:
        check("libmapc imports the functions issue 20 names (but unlink)", set(ISSUE) - {"unlink"} <= imports,
              str(sorted(set(ISSUE) - imports)))
        all_refused("libmapc's imports", mapc, work, imports)
        all_refused("issue 20's names", mapc, work, ISSUE)
        sample = sorted(n for n in libc if not n.startswith("_"))
        all_refused("the C library's functions (%d of %d)" % (min(count, len(sample)), len(sample)), mapc, work,
                    rng.sample(sample, min(count, len(sample))))
        mapc_exports = sorted(n for n in exports if n.startswith("mapc_"))
        check("libmapc exports mapc_ functions", len(mapc_exports) > 20, str(mapc_exports[:5]))
        all_refused("libmapc's exports under --prefix mapc_", mapc, work, [n[5:] for n in mapc_exports], "mapc_",
                    reason="a function of libmapc")
        all_refused("libmapc's namespace", mapc, work, ["anything", "run2"], "mapc_", reason="libmapc's own namespace")
        all_refused("reserved by C and POSIX", mapc, work, ["_private", "__x", "isdigitlike", "tolowest", "stride",
                    "memory", "wcsx", "atomic_add", "thrd_go", "pthread_pool", "posix_thing", "sem_wait2", "sched_x",
                    "my_t"], reason="reserved by")
        all_refused("a type's functions", mapc, work, ["E", "Rows"], "pthread_", kind="type", reason="pthread_")

        # row 4: the runner's own name as a kernel's entry point
        prog = os.path.join(work, "run.map")
        with open(prog, "w") as f:
            f.write("axes![M = 16, N = 16, K = 16];\ntensor A: HbmTensor<f32, m![1], m![M, K]>;\n"
                    "tensor B: HbmTensor<f32, m![1], m![K, N]>;\ntensor C: HbmTensor<f32, m![1], m![M, N]>;\n"
                    "kernel run: C[M, N] = A[M, K] * B[K, N] { tile M = 16, N = 16, K = 16; }\n")
        p = subprocess.run([mapc, "emit", prog, "-o", os.path.join(work, "run.o"), "--prefix", "mapc_aot_", "--isa",
                            "avx2"], capture_output=True, text=True)
        check("--prefix mapc_aot_ with a kernel run is refused at the kernel", p.returncode == 1 and
              prog + ":5:8: error: kernel run would be emitted as the C function 'mapc_aot_run', which is a function "
              "of libmapc" in p.stderr, p.stderr)
        check("and writes no object", not os.path.exists(os.path.join(work, "run.o")))
        p = subprocess.run([mapc, "emit", prog, "-o", os.path.join(work, "run.o"), "--prefix", "mm_", "--isa", "avx2"],
                           capture_output=True, text=True)
        syms = subprocess.run(["nm", os.path.join(work, "run.o")], capture_output=True, text=True).stdout
        check("--prefix mm_: the entry point is mm_run, calling mapc_aot_run", p.returncode == 0 and
              re.search(r" T mm_run$", syms, re.M) and re.search(r" U mapc_aot_run$", syms, re.M) and ".1" not in syms,
              p.stderr + syms)

        # two statements of one program emitting one function: the later is refused, in the object and the JIT
        prog = os.path.join(work, "clash.map")
        with open(prog, "w") as f:
            f.write("axes![A = 4, B = 8];\ntype T = m![A, B];\ncopy x: T -> m![B, A] as f32;\n"
                    "copy x_part: T -> m![B, A] as f32;\ncopy T_cell: T -> m![B, A] as f32;\n")
        want = [prog + ":4:6: error: copy x_part would be emitted as the C function 'x_part', which copy x at 3:6 "
                "emits too; rename one of them",
                prog + ":5:6: error: copy T_cell would be emitted as the C function 'T_cell', which type T at 2:6 "
                "emits too; rename one of them"]
        p = subprocess.run([mapc, "emit", prog, "-o", os.path.join(work, "clash.o")], capture_output=True, text=True)
        lines = [l for l in p.stderr.splitlines() if ": error: " in l]
        check("a copy's C_part or a type's C_cell taken by another statement: emit refuses both, in order",
              p.returncode == 1 and lines == want and not os.path.exists(os.path.join(work, "clash.o")), p.stderr)
        p = subprocess.run([mapc, "run", prog, "x"], capture_output=True, text=True)
        check("and so does the JIT (mapc run)", p.returncode == 1 and want[0].split("error: ")[1] in p.stderr,
              p.stderr)

        # controls: names in no list emit, each under its own name
        taken = imports | exports | libc
        good = set()
        while len(good) < min(count, 100):
            n = "q" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(rng.randint(1, 8)))
            if n not in taken:
                good.add(n)
        good = sorted(good)
        status, err, _ = emit(mapc, work, good, "ok_")
        check("%d names in no list emit" % len(good), status == 0, err[:2000])
        syms = subprocess.run(["nm", "--defined-only", os.path.join(work, "names.o")], capture_output=True,
                              text=True).stdout
        defined = {l.split()[-1] for l in syms.splitlines() if l.split() and l.split()[1] == "T"}
        want = {"ok_" + n + part for n in good for part in ("", "_part")}  # a copy and its parts
        check("the object defines exactly them and their _part functions, unrenamed", defined == want,
              "%s" % sorted(defined ^ want)[:20])
    return report()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
