#!/usr/bin/env python3
"""check_layers.py — the architecture table of docs/architecture.md, enforced on the tree and on the built libraries.

Usage: check_layers.py SOURCE_ROOT BUILD_ROOT LIBRARY.a...

From the table between the `<!-- architecture` and `<!-- end architecture -->` markers (a row per folder
group: folders, stage, what it owns, boundary headers, may include) it checks, one case each:
  - every listed folder exists and holds sources, and every source of compiler/, runtime/ and grammar/
    belongs to a listed folder;
  - every #include "..." that crosses folders names a boundary header of a folder the includer may
    include; LLVM headers appear only where "LLVM" may be included, isl headers only where "isl" may;
  - at the link level (nm over the static libraries), a file refers only to symbols of its own folder
    or of folders it may include, and no two files call each other through a cycle, except the
    equivalence decision's documented recursion.
Prints one line per failure and ends with "N passed, N failed"."""
import os
import re
import subprocess
import sys

ALLOWED_CYCLES = [{"compiler/algebra/equiv.c", "compiler/algebra/eqv_build.c"}]
# Headers generated at build time, by the folder that owns them (None: anyone may include it).
GENERATED = {"parser.h": "compiler/front", "mapc_version.h": None}
SOURCE_EXT = (".c", ".h", ".re", ".y")

passed = failed = 0


def check(ok, msg):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL " + msg)


def read_table(root):
    """The rows of the architecture table: (folders, boundary headers, may-include names)."""
    text = open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8").read()
    m = re.search(r"<!-- architecture.*?-->\n(.*?)<!-- end architecture -->", text, re.S)
    if not m:
        sys.exit("check_layers: docs/architecture.md has no architecture table")
    rows = []
    for line in m.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or cells[0] in ("folder", "---") or cells[0].startswith("-"):
            continue
        folders = [f.rstrip("/") for f in re.findall(r"`([^`]+)`", cells[0])]
        headers = set(re.findall(r"`([^`]+)`", cells[3]))
        may = {w.strip() for w in cells[4].split(",") if w.strip()}
        rows.append((folders, headers, may))
    return rows


def main():
    root = os.path.abspath(sys.argv[1])
    build = os.path.abspath(sys.argv[2])
    libs = sys.argv[3:]
    rows = read_table(root)
    short = {}  # "core" -> row index; a folder's short name is its last path component
    folder_row = {}
    for i, (folders, _, _) in enumerate(rows):
        for f in folders:
            folder_row[f] = i
            short[os.path.basename(f)] = i
    # the deepest listed folder holding each source file
    def row_of(rel):
        best = None
        for f in folder_row:
            if rel.startswith(f + "/") and (best is None or len(f) > len(best)):
                best = f
        return best

    sources = []
    for top in ("compiler", "runtime", "grammar"):
        for dp, _, fn in os.walk(os.path.join(root, top)):
            for f in fn:
                if f.endswith(SOURCE_EXT):
                    sources.append(os.path.relpath(os.path.join(dp, f), root))
    for f in folder_row:
        check(any(row_of(s) == f for s in sources), "folder %s of the table holds no sources" % f)
    for s in sources:
        check(row_of(s) is not None, "%s is in no folder of the architecture table" % s)

    def may_include(row, target_row):
        if row == target_row:
            return True
        names = {short.get(w) for w in rows[row][2]}
        return target_row in names

    include_roots = [os.path.join(root, "compiler"), os.path.join(root, "runtime")]
    for s in sources:
        me = row_of(s)
        if me is None:
            continue
        text = open(os.path.join(root, s), encoding="utf-8", errors="replace").read()
        may = rows[folder_row[me]][2]
        for sysinc in re.findall(r'#include <([^>]+)>', text):
            if sysinc.startswith(("llvm-c/", "llvm/")):
                check("LLVM" in may, "%s includes <%s>, but only folders that may include LLVM do" % (s, sysinc))
            if sysinc.startswith("isl/"):
                check("isl" in may, "%s includes <%s>, but only folders that may include isl do" % (s, sysinc))
        for inc in re.findall(r'#include "([^"]+)"', text):
            if inc in GENERATED:
                owner = GENERATED[inc]
                check(owner is None or folder_row[me] == folder_row.get(owner),
                      "%s includes the generated %s of %s" % (s, inc, owner))
                continue
            cands = [os.path.join(root, os.path.dirname(s), inc)] + [os.path.join(r, inc) for r in include_roots]
            target = next((os.path.relpath(os.path.normpath(c), root) for c in cands if os.path.isfile(c)), None)
            if target is None:
                check(False, "%s includes %s, which is not in the tree" % (s, inc))
                continue
            tf = row_of(target)
            if tf is None or folder_row[tf] == folder_row[me]:
                continue
            trow = folder_row[tf]
            ok = may_include(folder_row[me], trow) and os.path.basename(target) in rows[trow][1]
            check(ok, "%s includes %s: %s" % (s, target, "not a boundary header of " + tf
                                             if may_include(folder_row[me], trow) else tf + " may not be included here"))

    # ---- the link level: which file's objects refer to which file's symbols ----
    defined, refs = {}, {}
    for lib in libs:
        libdir = os.path.relpath(os.path.dirname(os.path.abspath(lib)), build)  # its meson.build's folder
        out = subprocess.run(["nm", "-A", lib], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            parts = line.split(":")
            if len(parts) < 3:
                continue
            member = os.path.basename(parts[1])
            src = source_of(root, libdir, member)
            if src is None:
                continue
            fields = parts[2].split()
            kind, sym = fields[-2], fields[-1]
            if kind in "TDBRC" and kind.isupper():
                defined.setdefault(sym, src)
            elif kind == "U":
                refs.setdefault(src, set()).add(sym)
    edges = {}
    for src, syms in refs.items():
        for sym in syms:
            dst = defined.get(sym)
            if dst and dst != src:
                edges.setdefault(src, set()).add(dst)
    for src, dsts in sorted(edges.items()):
        for dst in sorted(dsts):
            a, b = row_of(src), row_of(dst)
            if a and b:
                check(may_include(folder_row[a], folder_row[b]),
                      "%s calls into %s, a folder %s may not use" % (src, dst, a))
    for scc in strongly_connected(edges):
        if len(scc) > 1:
            check(set(scc) in ALLOWED_CYCLES, "files call each other in a cycle: " + " <-> ".join(sorted(scc)))
    check(bool(defined), "nm found no symbols in the libraries given")
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def source_of(root, libdir, member):
    """The source file of a library member such as "codegen_cg_unit.c.o" or "meson-generated_lexer.c.o"."""
    name = member[:-2] if member.endswith(".o") else member
    if name.startswith("meson-generated_"):
        gen = name[len("meson-generated_"):].replace(".._", "")
        for cand in ("grammar/" + gen.replace("grammar_", ""),):
            base = cand[:-2]
            for ext in (".y", ".re"):
                if os.path.isfile(os.path.join(root, base + ext)):
                    return base + ext
        return None
    # folder_file.c with '/' flattened to '_': try every split against the tree
    for i in [-1] + [k for k, ch in enumerate(name) if ch == "_"]:
        rel = name if i < 0 else name[:i] + "/" + name[i + 1:]
        if os.path.isfile(os.path.join(root, libdir, rel)):
            return libdir + "/" + rel
        if i >= 0:
            for j in [k for k, ch in enumerate(rel) if ch == "_" and k > i]:
                rel2 = rel[:j] + "/" + rel[j + 1:]
                if os.path.isfile(os.path.join(root, libdir, rel2)):
                    return libdir + "/" + rel2
    return None


def strongly_connected(edges):
    """Tarjan's algorithm over the file graph; yields each component as a list."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    nodes = set(edges) | {d for ds in edges.values() for d in ds}

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    sys.exit(main())
