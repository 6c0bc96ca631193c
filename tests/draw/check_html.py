#!/usr/bin/env python3
"""check_html.py — the HTML pictures of `mapc draw` rendered by headless Chromium: a screenshot's pixel at every
cell of a mapping's and of a tensor's page has the cell's fill in the SVG inside the page.

Usage: check_html.py MAPC SOURCE_ROOT

Chromium is installed with apt-get when it is missing and this runs as root with apt (MAPC_NO_INSTALL=1 stops
that); otherwise the test is skipped (exit 77) with the reason. Prints "N passed, N failed"."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pngread  # noqa: E402
from tally import check, report  # noqa: E402

PROGRAM = """axes![C = 3, D = 5, S = 4];
type Padded = m![C, D #{0} 6 # 8];
tensor Spread: DmTensor<f32, m![1], m![1], m![S], m![C, D]>;
"""



def browser():
    """The Chromium binary, installing it when possible; (path, None) or (None, why not)."""
    names = ("chromium", "chromium-browser", "google-chrome")
    found = next((shutil.which(n) for n in names if shutil.which(n)), None)
    if found:
        return found, None
    if os.environ.get("MAPC_NO_INSTALL") == "1":
        return None, "Chromium is not installed and MAPC_NO_INSTALL=1"
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return None, "Chromium is not installed and apt-get cannot install it here (not root, or no apt)"
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium"]):
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        except subprocess.TimeoutExpired:
            return None, "installing Chromium took more than 10 minutes"
        if r.returncode != 0:
            return None, "apt-get could not install Chromium: " + r.stderr.strip()[-300:]
    found = next((shutil.which(n) for n in names if shutil.which(n)), None)
    return (found, None) if found else (None, "apt-get installed no chromium binary")


def cells(html):
    """[(x, y, fill)] of every cell rect in the page's SVG, and the SVG's size."""
    w, h = (int(v) for v in re.search(r'<svg [^>]*width="(\d+)" height="(\d+)"', html).groups())
    rects = re.findall(r'<g data-pos="\d+"[^>]*><rect x="(\d+)" y="(\d+)" width="\d+" height="\d+" fill="#([0-9a-f]{6})"', html)
    return [(int(x), int(y), tuple(int(f[i:i + 2], 16) for i in (0, 2, 4))) for x, y, f in rects], w, h


def main():
    mapc, _ = sys.argv[1:3]
    exe, why = browser()
    if not exe:
        print("SKIP: " + why)
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "page.map")
        open(src, "w").write(PROGRAM)
        for name, color in (("Padded", "D"), ("Spread", "unit")):
            page = os.path.join(tmp, name + ".html")
            shot = os.path.join(tmp, name + ".png")
            r = subprocess.run([mapc, "draw", src, name, "-o", page, "--color-by", color, "--view", "buffer"], capture_output=True, text=True)
            if not check(r.returncode == 0, "mapc draw %s: %s" % (name, r.stderr)):
                continue
            html = open(page).read()
            want, w, h = cells(html)
            r = subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                "--user-data-dir=" + os.path.join(tmp, "profile"), "--no-first-run",
                                "--force-device-scale-factor=1", "--force-color-profile=srgb",
                                "--window-size=%d,%d" % (w, h + 40), "--screenshot=" + shot, "file://" + page],
                               capture_output=True, text=True, timeout=120, cwd=tmp)
            if not check(r.returncode == 0 and os.path.exists(shot), "%s: Chromium made no screenshot: %s" % (name, r.stderr[-500:])):
                continue
            sw, sh, pixel = pngread.read(shot)
            bad = [(x, y, f, pixel(x + 1, y + 1)) for x, y, f in want
                   if x + 1 >= sw or y + 1 >= sh or max(abs(a - b) for a, b in zip(pixel(x + 1, y + 1), f)) > 3]
            check(len(want) > 0 and not bad, "%s: %d of %d cells show another colour than their fill, first %s"
                  % (name, len(bad), len(want), bad[:1]))
    return report()


if __name__ == "__main__":
    sys.exit(main())
