#!/usr/bin/env python3
"""run_docs.py — the documentation test: every code block of docs/*.md and README.md is checked, as Rust's doc tests do.

Usage: run_docs.py [--cc CC] [--sanitize FLAGS] SOURCE_ROOT BUILD_ROOT [FILE.md...]

Blocks by their fence language:
  ```map      written to a file and checked with `mapc check`: exit 0 expected, or 1 when an HTML comment
              `<!-- expect: error -->` stands right before the block (then `// ERROR: TEXT` lines in
              the block are texts the diagnostics must contain). `<!-- file: NAME.map -->` before the
              block also keeps it as NAME.map for the sh blocks that follow in the same document.
  ```sh       when every command line starts with `mapc ` or `build/mapc `, each line is run by the shell
              (stderr joined to stdout) in a folder holding the document's files, `samples/`, `tests/` and
              `docs/` of the source tree, and `build/mapc`; `mapc` is on PATH. A ```text block right after it is
              the expected output, where a line `...` stands for any number of lines. The exit status
              must be 0, or the N of `<!-- exit: N -->` before the block. Other sh blocks (installing,
              building) are not run; they are counted as shown.
  ```c        a whole program (with main): compiled with `cc -std=c11 -Wall -Wextra -Werror` against
              <mapc/mapc.h> (compiler/api), linked with the built libmapc and with the object of every
              header it includes that the document's sh blocks emitted (NAME.h: NAME.o), then run in the
              document's folder with the arguments of `<!-- run: ARGS -->` before the block (stderr
              joined to stdout, exit 0 or the N of `<!-- exit: N -->`); a ```text block right after it
              is the expected output, as for sh blocks. --sanitize FLAGS (the sanitizer build) compiles
              and links it with -fsanitize=FLAGS, so the library's own checks run under it too.
  any block   preceded by `<!-- from: PATH -->` must be an excerpt of PATH: its non-empty lines appear in
              PATH, in order (so a snippet of a sample stays the sample).
Blocks in other languages, and text blocks that follow no sh block, are prose.

Prints one line per failing block, then "N passed, N failed"; exits 1 if any block failed.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(\S*)\s*$")
NOTE = re.compile(r"^<!--\s*(expect|file|exit|from|run):\s*(.*?)\s*-->\s*$")
CC = os.environ.get("CC", "cc")
SANITIZE = None


def blocks(path):
    """The fenced blocks of a Markdown file: (line, language, text lines, notes given just before)."""
    out, notes, lines = [], {}, open(path, encoding="utf-8").read().splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i].strip())
        n = NOTE.match(lines[i].strip())
        if n:
            notes[n.group(1)] = n.group(2)
        elif m:
            indent = len(lines[i]) - len(lines[i].lstrip())
            start, body = i + 1, []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
                i += 1
            out.append((start, m.group(1), body, notes))
            notes = {}
        elif lines[i].strip():
            notes = {}
        i += 1
    return out


def matches(expected, actual):
    """Whether the actual lines match the expected ones, where an expected line "..." matches any lines."""
    if not expected:
        return not actual
    if expected[0].strip() == "...":
        return any(matches(expected[1:], actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and expected[0].rstrip() == actual[0].rstrip() and matches(expected[1:], actual[1:])


def is_excerpt(body, path):
    """Whether the non-empty lines of body appear in the file path in order (compared without outer spaces)."""
    want = [l.strip() for l in body if l.strip()]
    have = [l.strip() for l in open(path, encoding="utf-8").read().splitlines()]
    k = 0
    for line in have:
        if k < len(want) and line == want[k]:
            k += 1
    return k == len(want), (want[k] if k < len(want) else None)


class Doc:
    """One document's working folder: its named files, links to the sources and the mapc binary."""

    def __init__(self, src, build, tmp):
        self.dir = tempfile.mkdtemp(dir=tmp)
        for sub in ("samples", "tests", "docs"):
            os.symlink(os.path.join(src, sub), os.path.join(self.dir, sub))
        os.makedirs(os.path.join(self.dir, "build"))
        os.makedirs(os.path.join(self.dir, "include"))   # <mapc/mapc.h> as installed
        os.symlink(os.path.join(src, "compiler", "api"), os.path.join(self.dir, "include", "mapc"))
        os.symlink(os.path.join(build, "mapc"), os.path.join(self.dir, "build", "mapc"))
        self.env = dict(os.environ, PATH=os.path.join(self.dir, "build") + os.pathsep + os.environ["PATH"])
        self.count = 0

    def write(self, name, body):
        path = os.path.join(self.dir, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(body) + "\n")
        return path

    def run(self, cmd):
        p = subprocess.run(cmd, shell=True, cwd=self.dir, env=self.env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=60)
        return p.returncode, p.stdout.decode("utf-8", errors="replace")


def check_map(doc, body, notes):
    name = notes.get("file") or "block%d.map" % doc.count
    doc.count += 1
    doc.write(name, body)
    status, out = doc.run("mapc check " + name)
    want = 1 if notes.get("expect") == "error" else 0
    if status != want:
        return "mapc check exits %d, expected %d:\n%s" % (status, want, out)
    for line in body:
        m = re.search(r"//\s*ERROR:\s*(.*)$", line)
        if m and m.group(1) not in out:
            return "the diagnostics lack %r:\n%s" % (m.group(1), out)
    return None


def runnable(body):
    cmds = [l for l in body if l.strip() and not l.lstrip().startswith("#")]
    return bool(cmds) and all(re.match(r"(build/)?mapc ", c) for c in cmds), cmds


def check_sh(doc, cmds, expected, notes):
    want = int(notes.get("exit", "0"))
    output = []
    for cmd in cmds:
        status, out = doc.run(cmd)
        output += out.splitlines()
        if status != want:
            return "`%s` exits %d, expected %d:\n%s" % (cmd, status, want, out)
    if expected is not None and not matches(expected, output):
        return "output differs:\n--- expected\n%s\n--- actual\n%s" % ("\n".join(expected), "\n".join(output))
    return None


def check_c(doc, src, build, body, expected, notes):
    """Compiles, links and runs one C program of a document; an error text or None."""
    text = "\n".join(body)
    if not re.search(r"\bint\s+main\s*\(", text):
        return "a C block must be a whole program (with main), so that it can be pasted and run"
    name = "block%d" % doc.count
    doc.count += 1
    path = doc.write(name + ".c", body)
    objects = [os.path.join(doc.dir, h + ".o") for h in re.findall(r'#include "(\w+)\.h"', text)]
    missing = [o for o in objects if not os.path.exists(o)]
    if missing:
        return "it includes a header whose object no sh block of the document emitted: %s" % missing
    lib = os.path.join(build, "compiler", "api")
    args = [CC, "-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Werror", "-I" + os.path.join(doc.dir, "include"),
            "-I" + lib, "-I" + doc.dir, path] + objects + ["-L" + lib, "-lmapc", "-Wl,-rpath," + lib, "-lm",
                                                         "-o", os.path.join(doc.dir, name)]
    if SANITIZE:
        args[1:1] = ["-fsanitize=" + SANITIZE, "-fno-omit-frame-pointer"]
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        return "cc fails:\n" + p.stdout.decode(errors="replace")
    status, out = doc.run("./%s %s" % (name, notes.get("run", "")))
    want = int(notes.get("exit", "0"))
    if status != want:
        return "the program exits %d, expected %d:\n%s" % (status, want, out)
    if expected is not None and not matches(expected, out.splitlines()):
        return "output differs:\n--- expected\n%s\n--- actual\n%s" % ("\n".join(expected), out)
    return None


def check_file(src, build, tmp, md):
    """Checks every block of one document; returns (passed, failures, shown)."""
    doc, rel = Doc(src, build, tmp), os.path.relpath(md, src)
    passed, failures, shown = 0, [], 0
    found = blocks(md)
    for k, (line, lang, body, notes) in enumerate(found):
        error = None
        if "from" in notes:
            ok, missing = is_excerpt(body, os.path.join(src, notes["from"]))
            if not ok:
                error = "not an excerpt of %s: %r is missing" % (notes["from"], missing)
        if error is None and lang == "map":
            error = check_map(doc, body, notes)
        elif error is None and lang == "sh":
            run, cmds = runnable(body)
            if not run:
                shown += 1
                continue
            nxt = found[k + 1] if k + 1 < len(found) else None
            expected = nxt[2] if nxt and nxt[1] == "text" and nxt[0] - line - len(body) <= 3 else None
            error = check_sh(doc, cmds, expected, notes)
        elif error is None and lang == "c":
            nxt = found[k + 1] if k + 1 < len(found) else None
            expected = nxt[2] if nxt and nxt[1] == "text" and nxt[0] - line - len(body) <= 3 else None
            error = check_c(doc, src, build, body, expected, notes)
        elif "from" not in notes:
            continue
        if error:
            failures.append("%s:%d: %s block: %s" % (rel, line, lang or "plain", error))
        else:
            passed += 1
    return passed, failures, shown


def main():
    global CC, SANITIZE
    argv = sys.argv[1:]
    while argv and argv[0] in ("--cc", "--sanitize"):
        if argv[0] == "--cc":
            CC = argv[1]
        elif argv[1] not in ("", "none"):
            SANITIZE = argv[1]
        argv = argv[2:]
    src, build = os.path.abspath(argv[0]), os.path.abspath(argv[1])
    files = argv[2:] or [os.path.join(src, "README.md")] + sorted(
        os.path.join(src, "docs", f) for f in os.listdir(os.path.join(src, "docs")) if f.endswith(".md"))
    tmp = tempfile.mkdtemp(prefix="mapc-docs-")
    passed = failed = shown = 0
    try:
        for md in files:
            p, fails, s = check_file(src, build, tmp, os.path.abspath(md))
            passed, failed, shown = passed + p, failed + len(fails), shown + s
            for f in fails:
                print("FAIL " + f)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("(%d sh blocks shown, not run)" % shown)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
