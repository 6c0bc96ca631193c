#!/usr/bin/env python3
"""check_browser.py — every kind of picture rendered by headless Chromium: the index view of the 16x16 blocked layout
(SVG), a tensor's index view (HTML), a buffer view (SVG), an index diff (SVG), panels over a third axis (SVG) and a
compact 262144-cell index view. One page holds the small ones inline; its script asks the browser, at each cell's
centre, which element is there (elementFromPoint: what was laid out) and checks its label against the expected
position; a screenshot of the page must show the pictures' colours; the compact picture is opened on its own, within
5 seconds and 5 MB, and its screenshot must show its tiles. One browser session through chromedriver (Debian's
chromium-driver) runs every check; without chromedriver, Chromium is started for each (slower).

Usage: check_browser.py MAPC
Skipped (exit 77) when Chromium is not installed. Prints "N passed, N failed"."""
import base64
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pngread  # noqa: E402
from tally import check, report  # noqa: E402

PROGRAM = """axes![M = 16, N = 16, K = 2, X = 512, Y = 512];
type Blocked = m![M / 4, N / 4, M % 4, N % 4];
type RowMajor = m![M, N];
type Panels = m![K, M / 8, N / 8, M % 8, N % 8];
type Big = m![X / 64, Y / 64, X / 8 % 8, Y / 8 % 8, X % 8, Y % 8];
tensor D[M, N]: DmTensor<f32, m![1], m![2], m![M / 8, N / 8], m![M % 8, N % 8]>;
"""

# (file, mapc arguments, expected label of index (r, c) of panel 0 or None to only require every cell labelled)
PICTURES = [
    ("blocked.svg", ["draw", "Blocked"], lambda r, c: str((r // 4 * 4 + c // 4) * 16 + r % 4 * 4 + c % 4)),
    ("tensor.html", ["draw", "D"], lambda r, c: "%d:%d+" % (r // 8 * 2 + c // 8, r % 8 * 8 + c % 8)),
    ("buffer.svg", ["draw", "Blocked", "--view", "buffer"], None),
    ("diff.svg", ["diff", "Blocked", "RowMajor"], lambda r, c: str((r // 4 * 4 + c // 4) * 16 + r % 4 * 4 + c % 4)),
    ("panels.svg", ["draw", "Panels", "--color-by", "M / 8"], lambda r, c: str((r // 8 * 2 + c // 8) * 64 + r % 8 * 8 + c % 8)),
]

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--force-device-scale-factor=1", "--force-color-profile=srgb"]

# Runs in the page: for each picture, the element at the centre of every cell of its first panel, compared with the
# expected labels; the results as JSON in <pre id="result">.
SCRIPT = """
var out = [];
document.querySelectorAll('div.pic').forEach(function (div) {
  div.scrollIntoView();  /* elementFromPoint sees the viewport only */
  var svg = div.querySelector('svg'), panel = svg.querySelector('g.panel'), d = panel.dataset;
  var pitch = d.pitch.split(' ').map(Number), want = JSON.parse(div.dataset.want), bad = [], seen = 0;
  var box = svg.getBoundingClientRect();
  for (var r = 0; r < +d.rows; r++)
    for (var c = 0; c < +d.cols; c++) {
      var x = box.left + +d.x + c * pitch[0] + 6, y = box.top + +d.y + r * pitch[1] + pitch[1] / 2;
      var e = document.elementFromPoint(x, y), g = e && e.closest('g[data-kind]');
      if (!g) { bad.push([r, c, 'nothing']); continue; }
      seen++;
      var text = g.querySelector('text.c').textContent, title = g.querySelector('title');
      if (!title || !title.textContent) bad.push([r, c, 'no title']);
      if (want && want[r * +d.cols + c] !== text) bad.push([r, c, text, want[r * +d.cols + c]]);
    }
  out.push({name: div.id, cells: +d.rows * +d.cols, seen: seen, bad: bad.slice(0, 5), nbad: bad.length,
            tiles: svg.querySelectorAll('path.tile').length, width: box.width});
});
window.scrollTo(0, 0);
return out;
"""


def browser():
    names = ("chromium", "chromium-browser", "google-chrome")
    return next((shutil.which(n) for n in names if shutil.which(n)), None)


class Driver:
    """One Chromium session through chromedriver's WebDriver protocol (one browser start for every check)."""

    def __init__(self, exe, tmp):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen([shutil.which("chromedriver"), "--port=%d" % self.port], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                self.call("GET", "/status")
                break
            except OSError:
                time.sleep(0.1)
        caps = {"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
            "binary": exe, "args": FLAGS + ["--user-data-dir=" + tempfile.mkdtemp(dir=tmp)]}}}}
        self.session = self.call("POST", "/session", caps)["sessionId"]

    def call(self, method, path, body=None, timeout=60):
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.port, path), method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read().decode())["value"] if method != "GET" or path != "/status" else None

    def s(self, method, path, body=None):
        return self.call(method, "/session/%s%s" % (self.session, path), body)

    def size(self, w, h):
        self.s("POST", "/window/rect", {"width": w, "height": h})

    def open(self, url):
        self.s("POST", "/url", {"url": url})

    def script(self, js):
        return self.s("POST", "/execute/sync", {"script": js, "args": []})

    def screenshot(self, path):
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.s("GET", "/screenshot")))

    def close(self):
        try:
            self.call("DELETE", "/session/" + self.session)
        finally:
            self.proc.terminate()
            self.proc.wait()


class Cli:
    """Chromium started once per check from its command line (when chromedriver is not installed)."""

    def __init__(self, exe, tmp):
        self.exe, self.tmp, self.w, self.h, self.url = exe, tmp, 1600, 1200, None

    def run(self, args):
        subprocess.run([self.exe] + FLAGS + ["--user-data-dir=" + tempfile.mkdtemp(dir=self.tmp),
                                             "--window-size=%d,%d" % (self.w, self.h)] + args + [self.url],
                       capture_output=True, text=True, timeout=60, cwd=self.tmp)

    def size(self, w, h):
        self.w, self.h = w, h

    def open(self, url):
        self.url = url

    def script(self, js):
        page = self.url[len("file://"):]
        text = open(page, encoding="utf-8").read()
        with open(page + ".run.html", "w", encoding="utf-8") as f:
            f.write(text.replace("</body>", "<script>document.getElementById('result').textContent = "
                                            "JSON.stringify((function () {%s})());</script></body>" % js))
        r = subprocess.run([self.exe] + FLAGS + ["--user-data-dir=" + tempfile.mkdtemp(dir=self.tmp),
                                                 "--window-size=%d,%d" % (self.w, self.h), "--dump-dom",
                                                 "file://" + page + ".run.html"],
                           capture_output=True, text=True, timeout=60, cwd=self.tmp)
        m = re.search(r'<pre id="result">(.*?)</pre>', r.stdout, re.S)
        return json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&")) if m and m.group(1) else []

    def screenshot(self, path):
        self.run(["--screenshot=" + path])

    def close(self):
        pass


def colours(shot, step=3):
    """How many distinct colours a screenshot has (sampled every step pixels) and the share of non-white ones."""
    w, h, pixel = pngread.read(shot)
    seen, ink, n = set(), 0, 0
    for y in range(0, h, step):
        for x in range(0, w, step):
            p = pixel(x, y)
            seen.add(p)
            ink += p != (255, 255, 255)
            n += 1
    return len(seen), ink / max(n, 1)


def main():
    mapc = sys.argv[1]
    exe = browser()
    if not exe:
        print("SKIP: Chromium is not installed (scripts/install-deps installs chromium)")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "p.map")
        open(src, "w").write(PROGRAM)
        body = []
        for name, args, want in PICTURES:
            out = os.path.join(tmp, name)
            r = subprocess.run([mapc, args[0], src] + args[1:] + ["-o", out], capture_output=True, text=True)
            if not check(r.returncode in (0, 1) and os.path.exists(out), "mapc %s: %s" % (" ".join(args), r.stderr)):
                continue
            text = open(out, encoding="utf-8").read()
            svg = text[text.index("<svg"):text.index("</svg>") + 6]
            labels = [want(i // 16, i % 16) for i in range(256)] if want else None
            body.append("<div class=\"pic\" id=\"%s\" data-want='%s'>%s</div>" % (name, json.dumps(labels), svg))
        page = os.path.join(tmp, "page.html")
        with open(page, "w", encoding="utf-8") as f:
            f.write("<!DOCTYPE html><html><body style=\"margin:0\">%s<pre id=\"result\"></pre></body></html>"
                    % "\n".join(body))
        big = os.path.join(tmp, "big.svg")
        subprocess.run([mapc, "draw", src, "Big", "-o", big], check=True)
        size = os.path.getsize(big)
        check(size <= 5 << 20, "the 262144-cell picture is %d bytes (at most 5 MB)" % size)
        tiny = os.path.join(tmp, "tiny.svg")
        open(tiny, "w").write('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>')
        b = Driver(exe, tmp) if shutil.which("chromedriver") else Cli(exe, tmp)
        times = [0.0, 0.0]
        try:
            b.size(1600, 1200)
            b.open("file://" + page)
            results = b.script(SCRIPT)
            check(len(results) == len(PICTURES), "the page's script checked %d of %d pictures" % (len(results), len(PICTURES)))
            for res in results:
                check(res["seen"] == res["cells"] and res["nbad"] == 0 and res["width"] > 100,
                      "%s: %d of %d cells laid out, %d wrong labels, first %s" % (res["name"], res["seen"], res["cells"],
                                                                                  res["nbad"], res["bad"]))
                if res["name"] in ("blocked.svg", "diff.svg", "tensor.html", "panels.svg"):
                    check(res["tiles"] >= 1, "%s: tile outlines drawn (%d paths)" % (res["name"], res["tiles"]))
            shot = os.path.join(tmp, "page.png")
            b.screenshot(shot)
            if check(os.path.exists(shot), "the page's screenshot"):
                n, ink = colours(shot)
                check(n >= 16 and ink > 0.2, "the page's screenshot shows the pictures (%d colours, %.0f%% ink)"
                      % (n, ink * 100))
            b.size(2700, 2700)
            for i, path in enumerate((tiny, big)):
                shot = path + ".png"
                start = time.monotonic()
                b.open("file://" + path)
                b.screenshot(shot)
                times[i] = time.monotonic() - start
            check(os.path.exists(big + ".png") and times[1] < 5.0,
                  "the 262144-cell picture opened and rendered in %.1f s (under 5 s; %.1f s for an empty one)"
                  % (times[1], times[0]))
            if os.path.exists(big + ".png"):
                n, ink = colours(big + ".png", 7)
                check(n >= 8 and ink > 0.5, "its screenshot shows the tiles (%d colours, %.0f%% ink)" % (n, ink * 100))
        finally:
            b.close()
    print("the 262144-cell picture: %d bytes, %.2f s to open and render (%.2f s for an empty one)"
          % (size, times[1], times[0]))
    return report()


if __name__ == "__main__":
    sys.exit(main())
