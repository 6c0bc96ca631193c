#!/usr/bin/env python3
"""cache_cli.py — the on-disk JIT cache as `mapc run` uses it, probed as an attacker who can write the cache
directory and as a careless user would set it up (docs/cli.md, "The JIT cache").

Usage: cache_cli.py MAPC CACHE.map

Checked: a new directory is made 0700 with a 0600 secret key of 32 bytes and no leftover files; a second run
loads everything; an entry planted by someone without the key (in the format of an earlier mapc, or in this
one's, signed under another key), an entry moved to another entry's name, a truncated one, a FIFO or a link to
one, and (as root) an entry of another user are ignored and compiled again, never run or waited on; a
directory writable by others or a key others may read turn the cache off with one warning naming the directory
(or key) and its mode; MAPC_CACHE_DIR= turns it off silently. (The library's test, test_lib_cache, goes through
every kind of refused directory and key, and the default directories.) Ends with "N passed, N failed".
"""

import hashlib
import hmac
import os
import re
import shutil
import stat
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from checks import check, report  # noqa: E402




def run(mapc, cache_map, kernel, env_extra, timeout=60):
    """mapc run CACHE.map KERNEL --reps 1 with the environment changed by env_extra (a value None unsets):
    (status, stdout, stderr, compiled, loaded); status None when it timed out."""
    env = dict(os.environ)
    env.pop("MAPC_ISA", None)  # the host's kernels: an entry's code is the host's
    for k, v in env_extra.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    try:
        p = subprocess.run([mapc, "run", cache_map, kernel, "--reps", "1"], env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", "timed out after %d s" % timeout, -1, -1
    m = re.search(r"\((\d+) compiled, (\d+) from the cache\)", p.stdout)
    return p.returncode, p.stdout, p.stderr, int(m.group(1)) if m else -1, int(m.group(2)) if m else -1


def entries(d):
    return sorted(f for f in os.listdir(d) if f.endswith(".o"))


def fnv(data):
    """FNV-1a 64, the checksum of the entries of mapc before signed entries."""
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def forge(genuine, obj):
    """An entry holding obj in place of the genuine entry's bytes, made without the cache's secret, in the
    format the genuine entry has: an earlier mapc's (magic, size, FNV checksum, the key's two words copied from
    the genuine header), or the signed one (the key copied, the MAC made under a key of the forger's own)."""
    if genuine[:8] == b"MAPCJIT1":
        key_hi, key_lo = struct.unpack("<QQ", genuine[24:40])
        return b"MAPCJIT1" + struct.pack("<QQQQ", len(obj), fnv(obj), key_hi, key_lo) + obj
    header = b"MAPCJIT2" + struct.pack("<Q", len(obj)) + genuine[16:48]
    return header + obj + hmac.new(os.urandom(32), header + obj, hashlib.sha256).digest()


def object_of(entry):
    """The object an entry holds (either format)."""
    if entry[:8] == b"MAPCJIT1":
        return entry[40:]
    return entry[48:-32]


def fresh(root, name):
    d = os.path.join(root, name)
    shutil.rmtree(d, ignore_errors=True)
    return d


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        print("0 passed, 1 failed")
        return 2
    mapc, cache_map = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    root = tempfile.mkdtemp(prefix="mapc-cache-")
    try:
        tests(mapc, cache_map, root)
    finally:
        for dirpath, dirnames, _ in os.walk(root):
            for d in dirnames:
                os.chmod(os.path.join(dirpath, d), 0o700)
        shutil.rmtree(root, ignore_errors=True)
    return report()


def tests(mapc, cache_map, root):
    def ok_run(name, r, compiled=None, loaded=None):
        status, out, err, c, l = r
        good = status == 0 and "check:" in out and ": ok" in out
        if compiled is not None:
            good = good and c == compiled
        if loaded is not None:
            good = good and l == loaded
        return check(name, good, "status %s, %s compiled, %s loaded\n%s%s" % (status, c, l, out[-600:], err[-600:]))

    # a new cache: nested directories made 0700, the key 0600, entries, nothing else
    d = os.path.join(root, "new", "cache")
    env = {"MAPC_CACHE_DIR": d}
    first = run(mapc, cache_map, "wide", env)
    ok_run("first run compiles", first, loaded=0)
    n = first[3]
    check("the directory is 0700", stat.S_IMODE(os.stat(d).st_mode) == 0o700, oct(os.stat(d).st_mode))
    check("its new parent is 0700", stat.S_IMODE(os.stat(os.path.dirname(d)).st_mode) == 0o700)
    key = os.path.join(d, "key")
    check("the key is a 0600 file of 32 bytes", os.path.isfile(key) and stat.S_IMODE(os.stat(key).st_mode) == 0o600
          and os.path.getsize(key) == 32)
    check("one entry per compiled module, nothing left over",
          sorted(os.listdir(d)) == sorted(entries(d) + ["key"]) and len(entries(d)) == n,
          "%s (%d compiled)" % (os.listdir(d), n))
    check("entries are 0600", all(stat.S_IMODE(os.stat(os.path.join(d, e)).st_mode) == 0o600 for e in entries(d)))
    ok_run("second run loads everything", run(mapc, cache_map, "wide", env), compiled=0, loaded=n)
    check("no warning for a good cache", first[2] == "", first[2])

    # planted entries: tall's routines under the name of wide's, without the key
    wide_d, tall_d = fresh(root, "wide"), fresh(root, "tall")
    run(mapc, cache_map, "wide", {"MAPC_CACHE_DIR": wide_d})
    run(mapc, cache_map, "tall", {"MAPC_CACHE_DIR": tall_d})
    only_wide = sorted(set(entries(wide_d)) - set(entries(tall_d)))
    only_tall = sorted(set(entries(tall_d)) - set(entries(wide_d)))
    if not check("the two kernels have entries of their own", only_wide and only_tall,
                 "%s / %s" % (only_wide, only_tall)):
        return
    shared = len(entries(wide_d)) - len(only_wide)
    targets = [os.path.join(wide_d, e) for e in only_wide]
    foreign = [open(os.path.join(tall_d, e), "rb").read() for e in only_tall]
    planted = []
    for i, t in enumerate(targets):
        planted.append(forge(open(t, "rb").read(), object_of(foreign[i % len(foreign)])))
        with open(t, "wb") as f:
            f.write(planted[-1])
    ok_run("forged entries are compiled again, never run", run(mapc, cache_map, "wide", {"MAPC_CACHE_DIR": wide_d}),
           compiled=len(targets), loaded=shared)
    check("and replaced by genuine ones", all(open(t, "rb").read() != p for t, p in zip(targets, planted)))
    target = targets[0]

    # another kernel's genuine entry moved to this name (the MAC covers the key)
    shutil.copyfile(os.path.join(tall_d, only_tall[0]), target)
    ok_run("an entry moved to another key's name is compiled again", run(mapc, cache_map, "wide",
           {"MAPC_CACHE_DIR": wide_d}), compiled=1)

    # truncated
    data = open(target, "rb").read()
    with open(target, "wb") as f:
        f.write(data[: len(data) // 2])
    ok_run("a truncated entry is compiled again", run(mapc, cache_map, "wide", {"MAPC_CACHE_DIR": wide_d}), compiled=1)

    # a FIFO, and a link to one: never opened for blocking reads
    for kind in ("fifo", "link"):
        os.unlink(target)
        if kind == "fifo":
            os.mkfifo(target)
        else:
            fifo = os.path.join(wide_d, "fifo")
            if not os.path.exists(fifo):
                os.mkfifo(fifo)
            os.symlink("fifo", target)
        r = run(mapc, cache_map, "wide", {"MAPC_CACHE_DIR": wide_d}, timeout=30)
        check("a %s as an entry does not hang" % kind, r[0] is not None, r[2])
        ok_run("a %s as an entry is compiled again" % kind, r, compiled=1)
        check("and replaced by a regular entry (%s)" % kind, os.path.isfile(target) and not os.path.islink(target))

    # another user's entry (only root can make one)
    if os.geteuid() == 0:
        os.chown(target, 65534, 65534)
        ok_run("another user's entry is compiled again", run(mapc, cache_map, "wide", {"MAPC_CACHE_DIR": wide_d}),
               compiled=1)

    # directories and keys that turn the cache off, with one warning naming them
    def refused(name, d, want):
        r = run(mapc, cache_map, "wide", {"MAPC_CACHE_DIR": d})
        ok_run(name + ": every module compiled", r, loaded=0)
        warns = [l for l in r[2].splitlines() if l.startswith("mapc: warning:")]
        check(name + ": one warning naming it", len(warns) == 1 and want in warns[0] and d in warns[0],
              "want %r in\n%s" % (want, r[2]))

    d = fresh(root, "open")
    run(mapc, cache_map, "wide", {"MAPC_CACHE_DIR": d})
    os.chmod(d, 0o777)
    refused("a directory writable by everyone", d, "writable by its group and others (mode 0777)")
    os.chmod(d, 0o700)
    key = os.path.join(d, "key")
    if not check("the key exists", os.path.isfile(key)):
        return
    os.chmod(key, 0o644)
    refused("a key others may read", d, "key %s is refused: it is readable or writable by its group and others "
            "(mode 0644)" % key)

    # off
    r = run(mapc, cache_map, "wide", {"MAPC_CACHE_DIR": ""})
    ok_run("MAPC_CACHE_DIR= compiles everything", r, loaded=0)
    check("and says nothing", r[2] == "", r[2])

if __name__ == "__main__":
    sys.exit(main(sys.argv))
