"""tally.py — the case counter the picture tests share: check() counts one case, report() prints the closing line."""
counts = {"passed": 0, "failed": 0}


def check(ok, msg):
    """Counts one case, printing msg when it failed; returns ok."""
    counts["passed" if ok else "failed"] += 1
    if not ok:
        print("FAIL " + msg)
    return ok


def add(passed, failed=0):
    """Counts cases decided elsewhere (another program's closing line)."""
    counts["passed"] += passed
    counts["failed"] += failed


def report():
    """Prints "N passed, N failed"; the exit status (1 when anything failed)."""
    print("%d passed, %d failed" % (counts["passed"], counts["failed"]))
    return 1 if counts["failed"] else 0
