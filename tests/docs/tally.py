"""tally.py — the checks of one documentation test program and its last line "N passed, N failed"."""

import sys

results = []   # (held, what was checked)


def check(ok, what):
    """Records one check; what says what should hold."""
    results.append((bool(ok), what))


def finish():
    """Prints each failed check and the summary line, then exits 1 if any failed."""
    for held, what in results:
        if not held:
            print("FAIL " + what)
    failed = sum(1 for held, _ in results if not held)
    print("%d passed, %d failed" % (len(results) - failed, failed))
    sys.exit(1 if failed else 0)
