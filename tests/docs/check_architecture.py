#!/usr/bin/env python3
"""check_architecture.py — docs/architecture.md names every source file of the pipeline under its folder, and no file that is gone.

Usage: check_architecture.py SOURCE_ROOT

Under each heading "### `FOLDER/`" the table rows "| `FILE` | PURPOSE |" must be exactly the .c, .h,
.re and .y files of FOLDER, each with a purpose. Prints one line per failed check, then
"N passed, N failed".
"""

import os
import re
import sys

from tally import check, finish

src = sys.argv[1]
text = open(os.path.join(src, "docs", "architecture.md"), encoding="utf-8").read()
sections = re.findall(r"^### `([^`]+)/`\n(.*?)(?=^#)", text + "\n#", re.M | re.S)
check(len(sections) >= 11, "docs/architecture.md has a file table per folder (%d)" % len(sections))
for folder, body in sections:
    rows = dict(re.findall(r"^\| `([^`]+)` \| (.*?) \|$", body, re.M))
    files = sorted(f for f in os.listdir(os.path.join(src, folder)) if re.search(r"\.(c|h|re|y)$", f))
    check(sorted(rows) == files, "%s/: the table lists %s, the folder holds %s" % (folder, sorted(rows), files))
    for name, purpose in sorted(rows.items()):
        check(len(purpose) > 10, "%s/%s has a purpose in the table" % (folder, name))
finish()
