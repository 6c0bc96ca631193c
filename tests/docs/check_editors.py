#!/usr/bin/env python3
"""check_editors.py — the Vim and TextMate grammars of editors/ against the lexer and the .map files of the tree.

Usage: check_editors.py SOURCE_ROOT

Checks: package.json and the TextMate grammar parse as JSON and every regex of the grammar compiles;
every keyword of grammar/lexer.re, every element type and every memory name is highlighted by both
grammars as a keyword, type or constant (in Vim, when vim is installed, through the syntax file
itself); the TextMate grammar tokenizes every line of samples/**/*.map and tests/golden/**/*.map
leaving no non-blank character unmatched (except in the golden cases whose expected diagnostics are the
lexer's, which hold characters the language rejects). Prints one line per failed check, then "N passed, N failed".
"""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from tally import check, finish

src = sys.argv[1]


def language_words():
    """The lexer's keywords, the element types and the memory names, as the compiler spells them."""
    lexer = open(os.path.join(src, "grammar", "lexer.re"), encoding="utf-8").read()
    keywords = re.findall(r'^\s*"([a-z]+!?)"\s*\{\s*TOK\(TK_KW_', lexer, re.M)
    ast = open(os.path.join(src, "compiler", "core", "ast.h"), encoding="utf-8").read()
    elems = re.findall(r'X\(ELEM_\w+,\s*"(\w+)"', ast)
    kinds = open(os.path.join(src, "compiler", "core", "kinds.c"), encoding="utf-8").read()
    memories = re.findall(r'"(\w+Tensor)"', kinds)
    return keywords, elems, memories


class Grammar:
    """A TextMate grammar's top-level patterns, compiled, tokenizing line by line as an editor does."""

    def __init__(self, path):
        self.data = json.load(open(path, encoding="utf-8"))
        self.rules = []
        for p in self.data["patterns"]:
            self.rules += self.flatten(p)

    def flatten(self, p):
        if "include" in p:
            return [r for q in self.data["repository"][p["include"][1:]]["patterns"] for r in self.flatten(q)]
        if "match" in p:
            return [(p["name"], re.compile(p["match"]), None)]
        return [(p["name"], re.compile(p["begin"]), re.compile(p["end"]))]

    def tokenize(self, lines):
        """Yields (line number, column, text, scope) for every token; scope None for unmatched characters."""
        inside = None
        for n, line in enumerate(lines, 1):
            pos = 0
            while pos < len(line):
                if inside:
                    m = inside.search(line, pos)
                    end = m.end() if m else len(line)
                    yield n, pos, line[pos:end], "comment"
                    inside = None if m else inside
                    pos = end
                    continue
                best = None
                for name, rx, end_rx in self.rules:   # the earliest match wins, then the first rule
                    m = rx.search(line, pos)
                    if m and m.end() > m.start() and (best is None or m.start() < best[0].start()):
                        best = (m, name, end_rx)
                if best is None:
                    yield n, pos, line[pos:], None
                    break
                m, name, end_rx = best
                if m.start() > pos:
                    yield n, pos, line[pos:m.start()], None
                yield n, m.start(), m.group(0), name
                pos = m.end()
                inside = end_rx


keywords, elems, memories = language_words()
check(len(keywords) >= 15 and "m!" in keywords and "kernel" in keywords, "keywords read from the lexer: %s" % keywords)
check({"f32", "bf16", "i8"} <= set(elems) and len(memories) == 3, "element types %s and memories %s" % (elems, memories))
words = keywords + elems + memories

# the TextMate grammar and its package
vscode = os.path.join(src, "editors", "vscode")
for name in ("package.json", "language-configuration.json"):
    try:
        json.load(open(os.path.join(vscode, name), encoding="utf-8"))
        check(True, name)
    except ValueError as e:
        check(False, "%s parses as JSON: %s" % (name, e))
package = json.load(open(os.path.join(vscode, "package.json"), encoding="utf-8"))
grammar_path = os.path.join(vscode, package["contributes"]["grammars"][0]["path"])
check(".map" in package["contributes"]["languages"][0]["extensions"], "the package claims .map files")
try:
    tm = Grammar(grammar_path)
    check(True, "the TextMate grammar parses and its regexes compile")
except (ValueError, re.error, KeyError) as e:
    sys.exit("FAIL the TextMate grammar: %s\n0 passed, 1 failed" % e)
for word in words:
    toks = list(tm.tokenize([word]))
    scope = toks[0][3] if len(toks) == 1 and toks[0][2] == word else None
    check(scope and scope.split(".")[0] in ("keyword", "storage", "constant"),
          "TextMate highlights %r as a keyword, type or constant (got %s)" % (word, toks))

# every line of the tree's programs tokenizes
cases = sorted(glob.glob(os.path.join(src, "samples", "**", "*.map"), recursive=True) +
               glob.glob(os.path.join(src, "tests", "golden", "**", "*.map"), recursive=True))
# the lexer's own messages: a case whose expected diagnostics hold one is about characters the language rejects
lexer_text = open(os.path.join(src, "grammar", "lexer.re"), encoding="utf-8").read()
lexical = [m.split("%")[0].strip() for m in re.findall(r'diag_error\([^"]*"([^"]+)"', lexer_text)]
check(len(lexical) >= 4, "the lexer's messages: %s" % lexical)
lines_seen = 0
for path in cases:
    err = os.path.splitext(path)[0] + ".err"
    if os.path.exists(err) and any(k in open(err, encoding="utf-8", errors="replace").read() for k in lexical):
        continue
    text = open(path, encoding="utf-8", errors="replace").read().splitlines()
    lines_seen += len(text)
    bad = [(n, c, t) for n, c, t, scope in tm.tokenize(text) if scope is None and t.strip()]
    check(not bad, "TextMate tokenizes %s fully (unmatched: %s)" % (os.path.relpath(path, src), bad[:3]))
check(len(cases) >= 50 and lines_seen > 1000, "%d files, %d lines tokenized" % (len(cases), lines_seen))

# Vim: every word in the syntax file, and highlighted by it
vim_syntax = os.path.join(src, "editors", "vim", "syntax", "map.vim")
vim_text = open(vim_syntax, encoding="utf-8").read()
for word in words:
    check(re.search(r"(?<![\w!])%s(?![\w])" % re.escape(word.rstrip("!")), vim_text), "map.vim names %r" % word)
if shutil.which("vim"):
    with tempfile.TemporaryDirectory() as tmp:
        sample, out = os.path.join(tmp, "words.map"), os.path.join(tmp, "groups.txt")
        open(sample, "w").write("\n".join(w + ("[" if w.endswith("!") else "") for w in words) + "\n")
        script = ("let g=[] | for n in range(1, %d) | call add(g, synIDattr(synIDtrans(synID(n, 1, 1)), 'name')) | endfor"
                  " | call writefile(g, '%s')" % (len(words), out))   # Vim ranges include their end
        subprocess.run(["vim", "-u", "NONE", "-N", "-es", "--cmd", "set rtp^=" + os.path.join(src, "editors", "vim"),
                        "-c", "syntax on", "-c", "filetype on", "-c", "edit " + sample, "-c", script, "-c", "qa!"],
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
        groups = open(out).read().splitlines() if os.path.exists(out) else []
        check(len(groups) == len(words), "vim reports a group for each of %d words (%d)" % (len(words), len(groups)))
        for word, group in zip(words, groups):
            check(group in ("Statement", "Constant", "PreProc", "Type", "Keyword"), "Vim highlights %r (group %r)" % (word, group))

finish()
