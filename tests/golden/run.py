#!/usr/bin/env python3
"""run.py — the golden-file runner: runs mapc on each .map case and compares with hand-written expectations.

Usage: run.py [--valgrind] [--verbose] [--jobs N] MAPC PATH...

PATH is a .map case or a directory (searched recursively). A case is a .map file whose
comments carry directives, one per line:

  // RUN: CMD ARGS...      runs `mapc CMD FILE ARGS...` (FILE: the case's file name; the
                           working directory is the case's directory); ARGS are split like a shell
  // RUN-RAW: ARGS...      runs `mapc ARGS...` as written; the word %s stands for FILE
  // EXIT: N               expected exit status of the RUN line above it (before any RUN line:
                           the default of every RUN line); otherwise 0
  // STDIN: FILE           the standard input of the RUN line above it is FILE, relative to the
                           case's directory (%s: the case itself); otherwise it is empty
  // ENV: NAME=VALUE       the RUN line above it runs with that environment variable set
  // CONTAINS: TEXT        stdout contains TEXT (then NAME.out is optional)
  // ERR-CONTAINS: TEXT    stderr contains TEXT (then NAME.err is optional)

The stdouts of all RUN lines, concatenated, must equal NAME.out next to the case, and the
stderrs NAME.err; a missing file means "empty" unless a CONTAINS/ERR-CONTAINS directive covers
that stream. A signal, or a sanitizer report on stderr, always fails the case.

--valgrind runs every mapc under `valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect`
with its own exit code and log file, and fails the case on any valgrind error or leak.

--jobs N runs N cases at once (the runs of one case stay in order); the report is in case order.

Prints one line per failing case (with a diff), then the last line "N passed, N failed";
exits 1 if any case failed.
"""

import concurrent.futures
import difflib
import os
import re
import shlex
import subprocess
import sys
import tempfile

DIRECTIVE = re.compile(r"^\s*//\s*(RUN|RUN-RAW|EXIT|STDIN|ENV|CONTAINS|ERR-CONTAINS):\s?(.*?)\s*$")
VALGRIND_STATUS = 97
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", "UndefinedBehaviorSanitizer")


def parse_case(path):
    """The runs (argv, expected status, stdin file or None, extra environment), stdout and stderr substrings of
    one case."""
    runs, contains, err_contains = [], [], []
    default_exit = 0
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", errors="replace")
    for line in text.splitlines():
        m = DIRECTIVE.match(line)
        if not m:
            continue
        kind, arg = m.group(1), m.group(2)
        if kind == "RUN":
            words = shlex.split(arg)
            if not words:
                raise ValueError("empty RUN directive")
            runs.append([[words[0], os.path.basename(path)] + words[1:], None, None, {}])
        elif kind == "RUN-RAW":
            words = [os.path.basename(path) if w == "%s" else w for w in shlex.split(arg)]
            runs.append([words, None, None, {}])
        elif kind == "EXIT":
            if runs:
                runs[-1][1] = int(arg)
            else:
                default_exit = int(arg)
        elif kind == "STDIN":
            if not runs:
                raise ValueError("STDIN before any RUN directive")
            runs[-1][2] = os.path.basename(path) if arg == "%s" else arg
        elif kind == "ENV":
            if not runs or "=" not in arg:
                raise ValueError("ENV needs NAME=VALUE after a RUN directive")
            name, value = arg.split("=", 1)
            runs[-1][3][name] = value
        elif kind == "CONTAINS":
            contains.append(arg)
        else:
            err_contains.append(arg)
    for r in runs:
        if r[1] is None:
            r[1] = default_exit
    return runs, contains, err_contains


def read_expected(path):
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return f.read().decode("utf-8", errors="replace")


def diff(want, got, label):
    lines = difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                 "expected " + label, "actual " + label)
    return "".join(lines)


def run_case(mapc, path, valgrind, verbose):
    """Returns a list of problems (empty: passed)."""
    try:
        runs, contains, err_contains = parse_case(path)
    except (ValueError, OSError) as e:
        return ["bad case: %s" % e]
    if not runs:
        return ["no RUN directive"]
    cwd = os.path.dirname(os.path.abspath(path))
    problems, out, err = [], "", ""
    for argv, want_status, stdin_file, extra_env in runs:
        cmd = [mapc] + argv
        env = dict(os.environ, **extra_env)
        log = None
        if valgrind:
            fd, log = tempfile.mkstemp(prefix="mapc-vg-", suffix=".log")
            os.close(fd)
            cmd = ["valgrind", "--leak-check=full", "--errors-for-leak-kinds=definite,indirect",
                   "--error-exitcode=%d" % VALGRIND_STATUS, "--log-file=" + log, "-q"] + cmd
        try:
            if stdin_file is None:
                p = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, timeout=120, env=env)
            else:
                with open(os.path.join(cwd, stdin_file), "rb") as f:
                    p = subprocess.run(cmd, cwd=cwd, stdin=f, capture_output=True, timeout=120, env=env)
        except subprocess.TimeoutExpired:
            problems.append("timeout: %s" % shlex.join(argv))
            continue
        except OSError as e:
            problems.append("cannot run %s: %s" % (shlex.join(cmd), e))
            continue
        o = p.stdout.decode("utf-8", errors="replace")
        e = p.stderr.decode("utf-8", errors="replace")
        out += o
        err += e
        shown = "mapc " + shlex.join(argv)
        if verbose:
            print("$ %s  -> %d" % (shown, p.returncode))
        if p.returncode < 0:
            problems.append("%s: killed by signal %d" % (shown, -p.returncode))
        elif valgrind and p.returncode == VALGRIND_STATUS:
            problems.append("%s: valgrind reported errors" % shown)
        elif p.returncode != want_status:
            problems.append("%s: exit status %d, expected %d" % (shown, p.returncode, want_status))
        if any(mark in e for mark in SANITIZER_MARKS):
            problems.append("%s: sanitizer report:\n%s" % (shown, e))
        if log:
            with open(log) as f:
                report = f.read()
            os.unlink(log)
            if report.strip():
                problems.append("%s: valgrind:\n%s" % (shown, report))
    base = os.path.splitext(path)[0]
    for stream, got, subs, suffix in (("stdout", out, contains, ".out"), ("stderr", err, err_contains, ".err")):
        want = read_expected(base + suffix)
        if want is None and not subs:
            want = ""
        if want is not None and want != got:
            problems.append("%s differs from %s:\n%s" % (stream, os.path.basename(base + suffix),
                                                         diff(want, got, stream)))
        for s in subs:
            if s not in got:
                problems.append("%s does not contain %r; it is:\n%s" % (stream, s, got))
    return problems


def collect(paths):
    cases = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, files in os.walk(p):
                cases += [os.path.join(root, f) for f in files if f.endswith(".map")]
        else:
            cases.append(p)
    return sorted(cases)


def main(argv):
    args = argv[1:]
    valgrind = "--valgrind" in args
    verbose = "--verbose" in args
    args = [a for a in args if a not in ("--valgrind", "--verbose")]
    jobs = 1
    if "--jobs" in args:
        i = args.index("--jobs")
        if i + 1 >= len(args) or not args[i + 1].isdigit() or int(args[i + 1]) < 1:
            print("run.py: --jobs takes a number of cases at once, 1 or more", file=sys.stderr)
            print("0 passed, 1 failed")
            return 2
        jobs = int(args[i + 1])
        del args[i:i + 2]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        print("0 passed, 1 failed")
        return 2
    mapc = os.path.abspath(args[0])
    cases = collect(args[1:])
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = pool.map(lambda case: run_case(mapc, case, valgrind, verbose), cases)
        for case, problems in zip(cases, results):
            if problems:
                failed += 1
                print("FAIL %s" % case)
                for p in problems:
                    print("  " + p.replace("\n", "\n  ").rstrip())
            else:
                passed += 1
                if verbose:
                    print("ok   %s" % case)
            sys.stdout.flush()
    if not cases:
        print("no cases found")
        failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
