#!/usr/bin/env python3
"""color_tty.py — mapc's --color=auto on a terminal: diagnostics written to a pseudo-terminal are coloured
(the severity word and the caret) unless NO_COLOR is set and not empty or TERM is dumb; --color=never wins
on a terminal too. (The goldens run mapc on pipes, where auto means no colour.)

Usage: color_tty.py MAPC. Ends with "N passed, N failed"."""

import os
import subprocess
import sys

RED, GREEN = "\033[1;31m", "\033[1;32m"


def stderr_on_tty(mapc, args, env):
    """mapc's stderr when it is a pseudo-terminal (stdout a pipe), decoded."""
    master, slave = os.openpty()
    try:
        p = subprocess.run([mapc] + args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave,
                           env=env, timeout=60)
        os.close(slave)
        slave = -1
        chunks = []
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: the other side is closed and drained
                break
            if not data:
                break
            chunks.append(data)
        return p.returncode, b"".join(chunks).decode("utf-8", "replace")
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)


def main(argv):
    mapc = argv[1]
    args = ["eval", "-e", "axes![A = 8];", "m![A, Q]", "0"]
    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
    cases = [
        ("auto on a terminal", [], {"TERM": "xterm"}, True),
        ("NO_COLOR=1", [], {"TERM": "xterm", "NO_COLOR": "1"}, False),
        ("NO_COLOR empty", [], {"TERM": "xterm", "NO_COLOR": ""}, True),
        ("TERM=dumb", [], {"TERM": "dumb"}, False),
        ("--color=never", ["--color=never"], {"TERM": "xterm"}, False),
        ("--color=always over NO_COLOR", ["--color=always"], {"TERM": "xterm", "NO_COLOR": "1"}, True),
    ]
    passed = failed = 0
    for name, extra, env, coloured in cases:
        status, err = stderr_on_tty(mapc, extra + args, dict(base, **env))
        has = (RED + "error:") in err and (GREEN + "^") in err
        plain = "\033[" not in err and "error: undeclared axis 'Q'" in err
        if status == 1 and (has if coloured else plain):
            passed += 1
        else:
            failed += 1
            print("FAIL %s: exit %d, stderr %r" % (name, status, err))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
