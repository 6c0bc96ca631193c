#!/usr/bin/env python3
"""run_fuzz.py — runs one libFuzzer target for a bounded time; passes when it finds nothing.

Usage: run_fuzz.py FUZZER SEED_CORPUS_DIR [ARTIFACT_DIR] [--dict=FILE] [--share=F]
Time: F (default 1) times $FUZZ_SECONDS (default 60), at least one second. New corpus units go to a
temporary directory (the seed corpus in the source tree is never written); crash, leak, timeout and OOM
reproducers go to ARTIFACT_DIR (default: the current directory). The dictionary is FILE (default:
map.dict beside this script for the parser target, none otherwise). Ends with "N passed, N failed".
"""

import os
import re
import subprocess
import sys
import tempfile


def main(argv):
    options = {a.split("=", 1)[0]: a.split("=", 1)[1] for a in argv[1:] if a.startswith("--") and "=" in a}
    argv = [argv[0]] + [a for a in argv[1:] if not a.startswith("--")]
    if len(argv) < 3 or set(options) - {"--dict", "--share"}:
        print(__doc__, file=sys.stderr)
        print("0 passed, 1 failed")
        return 2
    fuzzer, seeds = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    artifacts = os.path.abspath(argv[3]) if len(argv) > 3 else os.getcwd()
    os.makedirs(artifacts, exist_ok=True)
    seconds = max(1, int(float(options.get("--share", "1")) * int(os.environ.get("FUZZ_SECONDS", "60"))))
    with tempfile.TemporaryDirectory(prefix="mapc-fuzz-") as work:
        cmd = [fuzzer, "-max_total_time=%d" % seconds, "-timeout=30", "-rss_limit_mb=2048",
               "-max_len=4096", "-print_final_stats=1", "-artifact_prefix=" + artifacts + "/",
               work, seeds]
        dictionary = options.get("--dict")
        if dictionary is None and os.path.basename(fuzzer) == "fuzz_parser":
            dictionary = os.path.join(os.path.dirname(os.path.abspath(__file__)), "map.dict")
        if dictionary:
            cmd.insert(1, "-dict=" + dictionary)
        print("$ " + " ".join(cmd), flush=True)
        try:
            p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=seconds + 600)
        except (OSError, subprocess.TimeoutExpired) as e:
            print("cannot run the fuzzer: %s" % e)
            print("0 passed, 1 failed")
            return 1
    out = p.stdout.decode("utf-8", errors="replace")
    # keep the log short: the start, the findings, the final stats
    lines = out.splitlines()
    interesting = [l for l in lines if re.search(r"ERROR|SUMMARY|runtime error|==\d+==|stat::|Done|artifact|"
                                                 r"Test unit written|INFO: Seed|deadly signal|timeout", l)]
    print("\n".join(interesting[-60:]))
    ok = p.returncode == 0 and "ERROR:" not in out and "runtime error:" not in out
    if not ok:
        print("fuzzer exit status %d; full log:" % p.returncode)
        print("\n".join(lines[-200:]))
    print("%d passed, %d failed" % (1 if ok else 0, 0 if ok else 1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
