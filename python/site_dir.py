#!/usr/bin/env python3
"""site_dir.py — prints where the mapc package must be installed under PREFIX for this Python to import it: the
site directory of this Python that lies under PREFIX (Debian's /usr/local/lib/python3.X/dist-packages for
/usr/local, /usr/lib/python3/dist-packages for /usr), else PREFIX's posix_prefix purelib directory (which
PYTHONPATH must then name). Usage: site_dir.py PREFIX (meson's python/meson.build runs it)."""
import os
import site
import sys
import sysconfig


def site_dir(prefix):
    prefix = os.path.normpath(prefix)
    seen = [p for p in site.getsitepackages() + sys.path if p and os.path.isabs(p)]
    for path in seen:
        rel = os.path.relpath(os.path.normpath(path), prefix)
        if rel.startswith("lib") and not rel.startswith(".."):
            return os.path.normpath(path)
    return sysconfig.get_path("purelib", "posix_prefix", vars={"base": prefix, "platbase": prefix})


if __name__ == "__main__":
    print(site_dir(sys.argv[1]))
