#!/usr/bin/env python3
"""line_buffered.py — mapc's standard output is line-buffered on a pipe: the first line of a run that keeps
working (`mapc run` printing its plan, then timing a thousand repetitions of a 1024³ product) arrives while the process still runs,
not when it exits. (The goldens compare whole outputs.)

Usage: line_buffered.py MAPC. Ends with "N passed, N failed"."""

import os
import subprocess
import sys
import tempfile

PROGRAM = """axes![M = 1024, N = 1024, K = 1024];
tensor A: HbmTensor<f32, m![1], m![M, K]>;
tensor B: HbmTensor<f32, m![1], m![K, N]>;
tensor C: HbmTensor<f32, m![1], m![M, N]>;
kernel mm: C[M, N] = A[M, K] * B[K, N] { tile M = 64, N = 64, K = 64; }
"""


def main():
    mapc = sys.argv[1]
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mm.map")
        open(path, "w").write(PROGRAM)
        # enough repetitions that the run lasts well past its first line
        p = subprocess.Popen([mapc, "run", path, "mm", "--reps", "1000"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, env=dict(os.environ, MAPC_CACHE_DIR=""))
        first = p.stdout.readline().decode()
        running = p.poll() is None
        p.kill()
        p.wait()
        if first.startswith("kernel mm:") and running:
            passed += 1
        else:
            failed += 1
            print("FAIL mapc run's first line %r arrived %s" % (first, "while it ran" if running else "only at exit"))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
