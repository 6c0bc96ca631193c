#!/usr/bin/env python3
"""check_budget.py — the program-wide budget of `mapc check`: a file of many slow assertions (each well within its
own budget) stops once their CPU time reaches MAPC_CHECK_BUDGET, reporting the assertion it stopped at, and so
runs for about the budget, not the sum of the assertions' times; a file within its budget is checked whole.

Usage: check_budget.py MAPC [COUNT]   (COUNT slow assertions, default 20). Ends with "N passed, N failed"."""

import os
import re
import resource
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "draw"))
import tally  # noqa: E402  (the case counter of the picture tests)

# one assertion that takes a fraction of a second of CPU (the symbolic decision of composite bases), and holds
X = "[A # 1025, C # 984]"
SLOW = "assert m![[%s / 41, A] / 100, [%s / 41, A] %% 100, %s %% 41] != m![%s / 41, A, %s %% 41];" % ((X,) * 5)
HEAD = "axes![A = 600, B = 800, C = 500];\n"


def check(ok, what, detail=""):
    """tally's check, the detail shown under a failure."""
    return tally.check(ok, what + ("\n  " + str(detail).replace("\n", "\n  ") if detail else ""))


def run(mapc, path, budget=None, timeout=120):
    """(exit status, stderr, CPU seconds) of mapc check PATH with MAPC_CHECK_BUDGET=budget."""
    env = dict(os.environ)
    env.pop("MAPC_CHECK_BUDGET", None)
    if budget is not None:
        env["MAPC_CHECK_BUDGET"] = str(budget)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        p = subprocess.run([mapc, "check", path], capture_output=True, text=True, env=env, timeout=timeout)
        rc, err = p.returncode, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, err = "timeout", (e.stderr or b"").decode()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return rc, err, cpu


def main(argv):
    mapc = os.path.abspath(argv[1])
    count = int(argv[2]) if len(argv) > 2 else 20
    with tempfile.TemporaryDirectory() as tmp:
        one = os.path.join(tmp, "one.map")
        with open(one, "w") as f:
            f.write(HEAD + SLOW + "\nassert m![A][5] == i![A: 5];\n")
        rc, err, t1 = run(mapc, one)
        check(rc == 0 and not err, "a program within its budget is checked whole (exit %s)" % rc, err)
        # a budget of a few assertions; the one in progress when it runs out finishes (its own budget bounds it)
        budget = round(max(0.5, 2.5 * t1), 2)
        margin = 2.0 * t1 + 1.5
        many = os.path.join(tmp, "many.map")
        with open(many, "w") as f:
            f.write(HEAD + "".join(SLOW + "\n" for _ in range(count)) + "assert m![A][5] == i![A: 5];\n")
        rc, err, cpu = run(mapc, many, budget, timeout=max(60, 6 * (budget + margin)))
        check(rc == 1, "the program that runs out of its budget fails (exit %s)" % rc, err)
        check(cpu <= budget + margin, "%d slow assertions of %.2f s each took %.2f s of CPU, at most the budget %g s "
              "plus %.2f s" % (count, t1, cpu, budget, margin), err[:400])
        found = re.findall(r"^many\.map:(\d+):1: error: cannot decide the assertion: the program's assertions exceed "
                           r"their budget of ([0-9.]+) s of CPU time \(([0-9.]+) s spent\); it and the assertions "
                           r"after it are not checked$", err.replace(many, "many.map"), re.M)
        check(len(found) == 1 and float(found[0][1]) == budget and float(found[0][2]) >= budget,
              "one diagnostic at the assertion it stopped at, naming the budget and the time spent", err[:600])
        if found:
            line = int(found[0][0])
            check(3 <= line <= count + 1, "it stopped after some assertions were decided (line %d)" % line)
        check(err.count("error:") == 1, "the assertions after it are not checked (no other diagnostic)", err[:600])
        rc, err, _ = run(mapc, one, "soon")
        check(rc == 2 and "MAPC_CHECK_BUDGET takes a number of seconds above 0 (as 60 or 0.5), not 'soon'" in err,
              "a malformed MAPC_CHECK_BUDGET is a usage error", err)
    return tally.report()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
