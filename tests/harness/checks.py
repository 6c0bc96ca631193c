"""checks.py — the case counter of the Python test scripts outside a folder of their own (tests/cache,
tests/codegen): check() counts one case and prints a failure with its details, report() the closing line."""

counts = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    """Counts one case, named name; a failure prints "FAIL: name" and the detail lines, indented. Returns ok."""
    counts["passed" if ok else "failed"] += 1
    if not ok:
        print("FAIL: %s%s" % (name, ("\n  " + detail.replace("\n", "\n  ")) if detail else ""))
    return bool(ok)


def report():
    """Prints "N passed, N failed"; the exit status (1 when anything failed)."""
    print("%d passed, %d failed" % (counts["passed"], counts["failed"]))
    return 1 if counts["failed"] else 0
