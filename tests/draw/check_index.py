#!/usr/bin/env python3
"""check_index.py — the index view of `mapc draw` against the interpreter, through the Python binding: for seeded
generated programs (mapgen-print) every cell of the SVG's grid is labelled with the smallest position whose cell
is that index (Mapping.eval of every position, inverted), '-' where none is, '+' where several are; the grid has a
row per value of the row axis and a panel per value of the other axes; the tile outlines of the blocked layouts
(of every size and level) enclose exactly the blocks; tensors' cells name unit:element; `mapc diff` in the index
view marks exactly the indices whose holders differ.

Usage: check_index.py MAPC MAPGEN_PRINT [SEED [COUNT]]   (MAPC_LIBRARY and PYTHONPATH set by meson)
Prints "N passed, N failed"; exit 1 if any check failed."""
import itertools
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tally import check as _check, report  # noqa: E402

import mapc  # noqa: E402
import numpy  # noqa: E402

NS = "{http://www.w3.org/2000/svg}"
# The environment of the programs run beside the binding: without a sanitizer runtime preloaded for this
# interpreter (a sanitizer build's programs carry their own).
TOOL_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def check(ok, msg, detail=None):
    """Counts one case (tally's), with what went wrong when it failed."""
    return _check(ok, msg if ok or detail is None else "%s\n  %s" % (msg, detail))
TITLE = re.compile(r"^((?:\w+=\d+(?:, )?)+): (?:position (\d+)|held by no position|(.*))")


def grid_cells(svg):
    """[(panel label, {axis: value}, data-pos or None, label text)] of an index-view SVG, and its outline paths."""
    root = ET.fromstring(svg)
    cells, paths = [], []
    for pg in root.iter(NS + "g"):
        if pg.get("class") != "panel":
            continue
        for g in pg.findall(NS + "g"):
            if g.get("data-kind") is None:
                continue
            title = g.find(NS + "title").text
            m = TITLE.match(title)
            index = dict((k, int(v)) for k, v in (kv.split("=") for kv in m.group(1).split(", ")))
            text = g.find(NS + "text").text
            pos = g.get("data-pos")
            cells.append((pg.get("data-label"), index, None if pos is None else int(pos), text))
        paths += [p.get("d") for p in pg.findall(NS + "path") if p.get("class") == "tile"]
    return cells, paths


def holders(m, axes):
    """{index tuple over axes: [positions]} from the cells of every position of m."""
    cells = m.eval()
    live = numpy.nonzero(cells.live)[0]
    out = {}
    cols = [cells[a] for a in axes]
    for p in live:
        out.setdefault(tuple(int(c[p]) for c in cols), []).append(int(p))
    return out


def used_axes(prog, m):
    """The axes m's cells use, in declaration order (an axis is used when a live cell has it non-zero or the
    normal form names it)."""
    text = str(m.norm())
    return [a for a, _ in prog.axes if re.search(r"\b%s\b" % a, text)]


def test_generated(mapgen, seed, count):
    out = subprocess.run([mapgen, str(seed), str(count)], capture_output=True, text=True, check=True,
                         env=TOOL_ENV).stdout
    drawn = 0
    for i, line in enumerate(out.splitlines()):
        src = line.split("\t")[0]
        with mapc.compile(src, name="gen") as prog:
            m = prog.types["E"]
            axes = used_axes(prog, m)
            if not axes or len(m) > 4096:
                continue
            what = "generated %d (seed %d) %s" % (i, seed, m)
            try:
                svg = prog.draw("E", "svg", view="index")
            except mapc.MapcError as e:
                check("more than the limit" in str(e), what + ": draws", e)
                continue
            cells, _ = grid_cells(svg)
            if not cells:  # a compact picture (more than 4096 cells): no per-cell elements to read
                continue
            drawn += 1
            names = [a for a, _ in prog.axes]
            held = holders(m, names)
            sizes = dict(prog.axes)
            want = 1
            for a in cells[0][1]:
                want *= sizes[a]
            ok, bad = len(cells) == want, ("%d cells, %d expected" % (len(cells), want))
            for label, index, pos, text in cells if ok else ():
                hs = held.get(tuple(index.get(a, 0) for a in names), [])
                expect = "-" if not hs else "%d%s" % (hs[0], "+" if len(hs) > 1 else "")
                if text != expect or pos != (hs[0] if hs else None):
                    ok, bad = False, (index, text, expect)
                    break
            axes_used = set(cells[0][1])
            missing = [a for a in names if a not in axes_used and any(i[names.index(a)] for i in held)]
            check(ok and not missing, what + ": every index is labelled with its first holder (%d cells)" % len(cells),
                  bad if not ok else "axes with live coordinates not drawn: %s" % missing)
    check(drawn >= count // 3, "drew %d of %d generated programs in the index view" % (drawn, count))


def segments(d):
    """The segments of an outline path "Mx yVy2..." as ((x0, y0), (x1, y1))."""
    out = []
    for m in re.finditer(r"M([\d.]+) ([\d.]+)([HV])([\d.]+)", d):
        x, y, k, e = float(m.group(1)), float(m.group(2)), m.group(3), float(m.group(4))
        out.append(((x, y), (e, y)) if k == "H" else ((x, y), (x, e)))
    return out


def test_blocked():
    """Blocked layouts: labels are the blocked positions; the outlines of each level are the blocks' edges (a
    vertical line at every block boundary column, spanning the grid)."""
    for n, b in ((16, 4), (8, 2), (32, 8), (12, 3)):
        src = "axes![M = %d, N = %d]; type E = m![M / %d, N / %d, M %% %d, N %% %d];" % (n, n, b, b, b, b)
        with mapc.compile(src) as prog:
            svg = prog.draw("E", "svg", view="index").decode()
            cells, paths = grid_cells(svg)
            ok = all(text == str(((ix["M"] // b) * (n // b) + ix["N"] // b) * b * b + (ix["M"] % b) * b + ix["N"] % b)
                     for _, ix, _, text in cells)
            check(ok and len(cells) == n * n, "blocked %dx%d by %d: every label is its position" % (n, n, b))
            check(len(paths) == 1, "blocked %dx%d by %d: one outline level" % (n, n, b), paths)
            xs = sorted({s[0][0] for s in segments(paths[0]) if s[0][0] == s[1][0]})
            check(len(xs) == n // b + 1, "blocked %dx%d by %d: %d vertical tile edges" % (n, n, b, n // b + 1), xs)
            ys = sorted({s[0][1] for s in segments(paths[0]) if s[0][1] == s[1][1]})
            check(len(ys) == n // b + 1, "blocked %dx%d by %d: %d horizontal tile edges" % (n, n, b, n // b + 1), ys)
    # two levels: 8x8 blocks of 4x4 blocks of a 16x16 grid
    src = "axes![M = 16, N = 16]; type E = m![M / 8, N / 8, M / 4 % 2, N / 4 % 2, M % 4, N % 4];"
    with mapc.compile(src) as prog:
        _, paths = grid_cells(prog.draw("E", "svg", view="index"))
        levels = [sorted({s[0][0] for s in segments(d) if s[0][0] == s[1][0]}) for d in paths]
        check(len(paths) == 2 and len(levels[0]) == 3 and len(levels[1]) == 5,
              "two-level blocking: 8x8 outlines (3 edges) and 4x4 ones (5 edges)", levels)
    # row-major has no tiles; the column-major order within blocks still has them
    with mapc.compile("axes![M = 8, N = 8]; type R = m![M, N]; type C = m![M / 4, N / 4, N % 4, M % 4];") as prog:
        check(grid_cells(prog.draw("R", "svg", view="index"))[1] == [], "row-major: no outlines")
        check(len(grid_cells(prog.draw("C", "svg", view="index"))[1]) == 1, "blocks column-major inside: outlined")


def test_panels_and_axes():
    src = "axes![K = 3, M = 4, N = 5]; type E = m![K, N, M];"
    with mapc.compile(src) as prog:
        svg = prog.draw("E", "svg", view="index", axes="N,M").decode()
        cells, _ = grid_cells(svg)
        labels = sorted({c[0] for c in cells})
        check(labels == ["K=0", "K=1", "K=2"], "a panel per value of the third axis", labels)
        check('data-rows="5" data-cols="4"' in svg, "--axes N,M: 5 rows of N, 4 columns of M")
        ok = all(c[3] == str(c[1]["K"] * 20 + c[1]["N"] * 4 + c[1]["M"]) for c in cells)
        check(ok and len(cells) == 60, "panels: every label is its position")
        one = prog.draw("m![N]", "svg", view="index").decode()
        check('data-rows="1" data-cols="5"' in one, "one axis: one row of its values")
        e = None
        try:
            prog.draw("E", "svg", view="index", axes="M,Q")
        except mapc.ArgumentError as err:
            e = err
        check(e is not None and "one or two distinct axes" in str(e), "an unknown axis is refused", e)


def test_tensor():
    src = ("axes![M = 8, N = 8];\n"
           "tensor D[M, N]: DmTensor<f32, m![1], m![2], m![M / 4, N / 4], m![M % 4, N % 4]>;\n")
    with mapc.compile(src) as prog:
        svg = prog.draw("D", "svg", view="index").decode()
        cells, paths = grid_cells(svg)
        ok = True
        for _, ix, _, text in cells:
            unit = (ix["M"] // 4) * 2 + ix["N"] // 4
            places = prog.where("D", ix)
            ok = ok and text == "%d:%d+" % (unit, (ix["M"] % 4) * 4 + ix["N"] % 4) and len(places) == 2
        check(ok and len(cells) == 64, "tensor cells are unit:element of the first holder, + for the replica")
        check(len(paths) == 1 and "unit:element" in svg, "tensor: the units' regions outlined", paths)


def test_diff(mapc_bin):
    src = "axes![M = 8, N = 8];\ntype A = m![M, N];\ntype B = m![M / 4, N / 4, M % 4, N % 4];\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "d.map")
        open(path, "w").write(src)
        svg = os.path.join(tmp, "d.svg")
        r = subprocess.run([mapc_bin, "diff", path, "A", "B", "-o", svg], capture_output=True, text=True, env=TOOL_ENV)
        with mapc.compile(src) as prog:
            ha, hb = holders(prog.types["A"], ["M", "N"]), holders(prog.types["B"], ["M", "N"])
        root = ET.parse(svg).getroot()
        marks = {}
        for g in root.iter(NS + "g"):
            if g.get("data-kind") is None:
                continue
            m = TITLE.match(g.find(NS + "title").text)
            ix = tuple(int(kv.split("=")[1]) for kv in m.group(1).split(", "))
            marks[ix] = g.get("data-mark")
        ok = all((marks[ix] is not None) == (ha[ix] != hb[ix]) for ix in itertools.product(range(8), range(8)))
        differing = sum(ha[ix] != hb[ix] for ix in ha)
        check(r.returncode == 1 and ok and len(marks) == 64, "index diff marks exactly the indices held differently",
              r.stdout + r.stderr)
        check(("%d indices are held differently" % differing) in r.stdout, "index diff counts them", r.stdout)
        check(list(marks.values()).count("first") == 1, "one first difference")


def main():
    mapc_bin, mapgen = sys.argv[1:3]
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    count = int(os.environ.get("MAPC_TEST_COUNT", sys.argv[4] if len(sys.argv) > 4 else 150))
    test_blocked()
    test_panels_and_axes()
    test_tensor()
    test_diff(mapc_bin)
    test_generated(mapgen, seed, count)
    return report()


if __name__ == "__main__":
    sys.exit(main())
