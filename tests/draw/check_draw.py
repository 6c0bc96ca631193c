#!/usr/bin/env python3
"""check_draw.py — pictures checked against the interpreter: generated mappings (drawn through mapc_draw by
draw-gen, which also checks every PNG's pixels), and every type and tensor of samples/*.map and diffs of samples
and the tensors of tests/draw/tensors.map (drawn by `mapc draw` / `mapc diff`).

Usage: check_draw.py MAPC DRAW_GEN SOURCE_ROOT

Each SVG must parse as XML; every cell's text must equal `mapc eval` at its position (a tensor's: the layout's
position, unit by unit); fills must follow the colour key (a function of the coordinate, distinct values for
axes of at most 10 values, one shade per non-live kind everywhere). Diffs: both cells of every position, marks
exactly where they differ, the first mark at `mapc equiv`'s position. Prints "N passed, N failed"."""
import glob
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tally import add, check, report  # noqa: E402

NS = "{http://www.w3.org/2000/svg}"
kind_fill = {}  # one shade per non-live kind, across every picture



def run(argv, want=(0,)):
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode not in want:
        raise RuntimeError("%s exited %d: %s" % (" ".join(argv), r.returncode, r.stderr.strip()))
    return r


def evaluate(mapc, path, name, positions):
    """{pos: cell text} from `mapc eval`, in chunks of positions."""
    cells = {}
    positions = list(positions)
    for i in range(0, len(positions), 2000):
        out = run([mapc, "eval", path, name] + [str(p) for p in positions[i:i + 2000]]).stdout
        for line in out.splitlines():
            pos, cell = line.split(": ", 1)
            cells[int(pos)] = cell
    return cells


def svg_panels(path):
    """The panels of a picture: (attributes, [(pos, kind, fill, texts, mark)]), and the subtitle."""
    root = ET.parse(path).getroot()
    texts = root.findall(NS + "text")
    subtitle = texts[1].text if len(texts) > 1 else ""
    title = texts[0].text if texts else ""
    panels = []
    for pg in root.findall(NS + "g"):
        if pg.get("class") != "panel":
            continue
        cells = []
        for g in pg.findall(NS + "g"):
            if g.get("data-pos") is None:
                continue
            rect = g.find(NS + "rect")
            cs = [t.text or "" for t in g.findall(NS + "text") if t.get("class") == "c"]
            cells.append((int(g.get("data-pos")), g.get("data-kind"), rect.get("fill"), cs, g.get("data-mark")))
        panels.append((pg.attrib, cells))
    return title, subtitle, panels


def axis_sizes(src):
    m = re.search(r"axes!\[([^\]]*)\]", src)
    return {a.strip(): int(v) for a, v in re.findall(r"(\w+)\s*=\s*(\d+)", m.group(1))} if m else {}


KINDS = ["live", "pad(top)", "pad(zero)", "pad(bottom)", "oob", "overflow"]


def printed(line, axes):
    """A cell as SPEC section 1 prints it, from draw-gen's "KIND C0 C1 ..." line (mapc_eval's answer)."""
    kind, *coords = [int(w) for w in line.split()]
    if kind != 0:
        return KINDS[kind] if 0 < kind < len(KINDS) else "undecided"
    return "{" + ", ".join("%s:%d" % (a, c) for a, c in zip(axes, coords) if c) + "}"


def coord(cell, axis):
    m = re.search(r"\b%s:(\d+)" % re.escape(axis), cell)
    return int(m.group(1)) if m else 0


def check_colours(what, cells, color, sizes):
    """Fills against the colour key ('padding' or an axis name)."""
    by_key, ok = {}, True
    for pos, kind, fill, texts, _ in cells:
        if kind != "live":
            ok &= kind_fill.setdefault(kind, fill) == fill
            continue
        key = 0 if color == "padding" else coord(texts[0], color)
        ok &= by_key.setdefault(key, fill) == fill
    check(ok, "%s: fills are not a function of the colour key %s (or a non-live kind changed shade)" % (what, color))
    if color != "padding" and sizes.get(color, 99) <= 10:
        check(len(set(by_key.values())) == len(by_key), "%s: values of %s share fills" % (what, color))


def check_texts(what, cells, want):
    bad = [(p, t[0], want.get(p)) for p, _, _, t, _ in cells if t[0] != want.get(p)]
    check(not bad, "%s: %d cells differ from mapc eval, first %s" % (what, len(bad), bad[:1]))


def generated(mapc, draw_gen, tmp):
    out = subprocess.run([draw_gen, tmp, "1", "200"], capture_output=True, text=True)
    m = re.search(r"^(\d+) passed, (\d+) failed$", out.stdout, re.M)
    if not check(m is not None and out.returncode == 0, "draw-gen: %s%s" % (out.stdout[-500:], out.stderr[-2000:])):
        return
    add(int(m.group(1)))  # its PNG checks
    cases = 0
    for line in open(os.path.join(tmp, "manifest.txt")):
        i, color, rows = line.split()
        base = os.path.join(tmp, "case-%s" % i)
        src = open(base + ".map").read()
        try:
            _, subtitle, panels = svg_panels(base + ".svg")
        except ET.ParseError as e:
            check(False, "case %s: the SVG does not parse: %s" % (i, e))
            continue
        cells = panels[0][1]
        axes = list(axis_sizes(src))
        want = dict(enumerate(printed(l, axes) for l in open(base + ".cells")))
        want.update({c[0]: "oob" for c in cells if c[0] >= len(want)})
        check_texts("case %s" % i, cells, want)
        shown = subtitle.rsplit("colour: ", 1)[-1]
        check(color == "-" or shown == color, "case %s: the subtitle names colour %s, not %s" % (i, shown, color))
        check_colours("case %s" % i, cells, shown, axis_sizes(src))
        if int(rows):
            check(panels[0][0]["data-rows"] == rows, "case %s: %s rows drawn, %s asked" % (i, panels[0][0]["data-rows"], rows))
        cases += 1
    check(cases >= 180, "only %d generated cases were drawn" % cases)


def tensor_layout(title):
    """The inline layout m![[CHIP], ..., [ELEMENT]] of a tensor picture's title "tensor T: DmTensor<f32, m![..], ...>"."""
    maps, i = [], title.find("m![")
    while i >= 0:
        depth, j = 0, i + 2
        while True:
            depth += {"[": 1, "]": -1}.get(title[j], 0)
            if depth == 0:
                break
            j += 1
        maps.append(title[i + 3:j])
        i = title.find("m![", j)
    return "m![" + ", ".join("[%s]" % m for m in maps) + "]"


def samples(mapc, draw_gen, root, tmp):
    extra = [os.path.join(root, "tests", "draw", "tensors.map")]
    for path in sorted(glob.glob(os.path.join(root, "samples", "*.map"))) + extra:
        if subprocess.run([mapc, "check", path], capture_output=True).returncode != 0:
            continue  # a sample of diagnostics (samples/bad.map)
        src = open(path).read()
        names = re.findall(r"^type\s+(\w+)", src, re.M)
        tensors = re.findall(r"^tensor\s+(\w+)", src, re.M)
        for name in names + tensors:
            what = "%s %s" % (os.path.basename(path), name)
            svg = os.path.join(tmp, "s.svg")
            run([mapc, "draw", path, name, "-o", svg, "--view", "buffer"])
            title, subtitle, panels = svg_panels(svg)
            if name in tensors:
                layout = tensor_layout(title)
                for attrs, cells in panels:
                    first, count = int(attrs["data-first"]), int(attrs["data-count"])
                    want = evaluate(mapc, path, layout, [first + c[0] for c in cells if c[0] < count])
                    want = {p - first: c for p, c in want.items()}
                    want.update({c[0]: "oob" for c in cells if c[0] >= count})
                    check_texts("%s, %s" % (what, attrs.get("data-label")), cells, want)
                by_unit = os.path.join(tmp, "u.svg")
                run([mapc, "draw", path, name, "-o", by_unit, "--color-by", "unit", "--view", "buffer"])
                fills = [{c[2] for c in cells if c[1] == "live"} for _, cells in svg_panels(by_unit)[2]]
                check(all(len(f) <= 1 for f in fills), "%s: a unit's live cells have several fills by unit" % what)
                used = [f.pop() for f in fills if f]
                check(len(used) > 10 or len(set(used)) == len(used), "%s: units share a fill by unit" % what)
            else:
                cells = panels[0][1]
                check_texts(what, cells, evaluate(mapc, path, name, [c[0] for c in cells]))
                check_colours(what, cells, subtitle.rsplit("colour: ", 1)[-1], axis_sizes(src))
            drawn = sum(len(c) for _, c in panels)
            if drawn == 0:
                shown = sum(int(a.get("data-count", 0)) for a, _ in panels)
                check(shown > 4096, "%s: the SVG lists no cells, though %d are not a compact picture" % (what, shown))
                continue  # a compact picture (over 4096 cells) lists no cells to compare pixel by pixel
            if drawn > 1024 and name not in ("RowMajor", "H"):
                continue  # encoding large PNGs is slow: the generated cases and two large samples cover them
            png = os.path.join(tmp, "s.png")
            run([mapc, "draw", path, name, "-o", png, "--view", "buffer"])
            r = subprocess.run([draw_gen, "--check", png, svg], capture_output=True, text=True)
            check(r.returncode == 0, "%s: PNG: %s" % (what, r.stderr.strip()))


DIFFS = [("Blocked", "m![B]"), ("Shuffled", "m![B / 64, B % 64]"), ("RowMajor", "Transposed"), ("Outer", "Inner"),
         ("Aligned", "ZeroPadded"), ("Tile", "m![A, B / 32 = 2 #{!} 16, B % 32]")]


def diffs(mapc, draw_gen, root, tmp):
    path = os.path.join(root, "samples", "layouts.map")
    for a, b in DIFFS:
        what = "diff %s %s" % (a, b)
        svg = os.path.join(tmp, "d.svg")
        r = run([mapc, "diff", path, a, b, "-o", svg, "--view", "buffer"], want=(0, 1))
        eq = run([mapc, "equiv", path, a, b], want=(0, 1)).stdout.strip()
        check(r.stdout.splitlines()[0] == eq, "%s: prints %r, mapc equiv %r" % (what, r.stdout, eq))
        check(r.returncode == (0 if eq == "equivalent" else 1), "%s: exit %d" % (what, r.returncode))
        cells = svg_panels(svg)[2][0][1]
        pos = [c[0] for c in cells]
        wa, wb = evaluate(mapc, path, a, pos), evaluate(mapc, path, b, pos)
        check(all(c[3] == [wa[c[0]], wb[c[0]]] for c in cells), "%s: the cells are not both mappings' cells" % what)
        check(all((c[4] is not None) == (wa[c[0]] != wb[c[0]]) for c in cells), "%s: marks are not where cells differ" % what)
        firsts = [c[0] for c in cells if c[4] == "first"]
        m = re.match(r"not equivalent: position (\d+)", eq)
        differing = [p for p in pos if wa[p] != wb[p]]
        want_first = [int(m.group(1))] if m else differing[:1]
        check(firsts == want_first, "%s: first difference marked at %s, expected %s" % (what, firsts, want_first))
        png = os.path.join(tmp, "d.png")
        run([mapc, "diff", path, a, b, "-o", png, "--view", "buffer"], want=(0, 1))
        r = subprocess.run([draw_gen, "--check", png, svg], capture_output=True, text=True)
        check(r.returncode == 0, "%s: PNG: %s" % (what, r.stderr.strip()))


def main():
    mapc, draw_gen, root = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        for part in (lambda: generated(mapc, draw_gen, tmp), lambda: samples(mapc, draw_gen, root, tmp),
                     lambda: diffs(mapc, draw_gen, root, tmp)):
            try:
                part()
            except (RuntimeError, ET.ParseError, OSError, KeyError, IndexError) as e:
                check(False, "%s: %s" % (type(e).__name__, e))
    check(len(set(kind_fill.values())) == len(kind_fill), "non-live kinds share shades: %s" % kind_fill)
    return report()


if __name__ == "__main__":
    sys.exit(main())
