#!/usr/bin/env python3
"""emit_isa.py — `mapc emit --isa` bounds every instruction of a kernel's routines, whatever --cpu says: the
objects of emit_isa.map (kernels only) are disassembled with llvm-objdump and every instruction of every function
is checked against the ISA.

Usage: emit_isa.py MAPC LLVM-OBJDUMP EMIT_ISA.map

For --isa avx2 with --cpu sapphirerapids (AVX-512 and its bf16 and VNNI extensions): no zmm register, no mask
register, no EVEX-encoded instruction (prefix 0x62), no xmm16-31 or ymm16-31. For --isa portable with --cpu
skylake-avx512 (the issue's case): no ymm or zmm register, no VEX or EVEX encoding (prefixes 0xc4, 0xc5, 0x62),
no AVX mnemonic (v...). As a control the same scan finds
AVX-512 in --isa avx512 objects for --cpu x86-64 (a CPU without it: the ISA, not the CPU, decides), and the
routines of every kernel are present. Ends with "N passed, N failed".
"""

import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from checks import check, report  # noqa: E402

INSN = re.compile(r"^\s*[0-9a-f]+:\s+((?:[0-9a-f]{2} )+)\s*(\S+)\s*(.*)$")
FUNC = re.compile(r"^[0-9a-f]+ <(.+)>:$")
KERNELS = ["kf32", "kstaged", "kbf16", "kf16", "ki8"]



def functions(objdump, obj):
    """{function: [(first byte, mnemonic, operands)]} of the object's code."""
    out = subprocess.run([objdump, "-d", obj], capture_output=True, text=True, check=True).stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        m = FUNC.match(line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        m = INSN.match(line)
        if m and cur is not None:
            cur.append((int(m.group(1).split()[0], 16), m.group(2), m.group(3)))
    return funcs


def beyond(isa, insn):
    """Why the instruction is beyond isa ("" when it is not)."""
    first, mnem, ops = insn
    if re.search(r"%zmm|%k[0-7]\b", ops) or first == 0x62:
        return "AVX-512"
    if re.search(r"%[xy]mm(1[6-9]|2[0-9]|3[01])\b", ops):
        return "AVX-512 registers"
    if isa == "portable" and (re.search(r"%ymm", ops) or first in (0xc4, 0xc5) or mnem.startswith("v")):
        return "AVX"
    return ""


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        print("0 passed, 1 failed")
        return 2
    mapc, objdump, src = argv[1:]
    with tempfile.TemporaryDirectory(prefix="mapc-isa-") as work:
        for isa, cpu in [("avx2", "sapphirerapids"), ("portable", "skylake-avx512"), ("avx512", "x86-64")]:
            obj = os.path.join(work, "%s-%s.o" % (isa, cpu))
            p = subprocess.run([mapc, "emit", src, "-o", obj, "--isa", isa, "--cpu", cpu], capture_output=True,
                               text=True)
            if not check("emit --isa %s --cpu %s" % (isa, cpu), p.returncode == 0, p.stderr):
                continue
            funcs = functions(objdump, obj)
            want = {k + s for k in KERNELS for s in ("", ".macro", ".pack_a", ".pack_b", ".blocks")} | {"kstaged.stage_in_a"}
            check("--isa %s --cpu %s: every kernel's routines are there" % (isa, cpu), want <= set(funcs),
                  "missing %s" % sorted(want - set(funcs)))
            found = {}
            for f, insns in funcs.items():
                for i in insns:
                    why = beyond("avx2" if isa == "avx512" else isa, i)
                    if why:
                        found.setdefault(f, []).append("%s %s (%s)" % (i[1], i[2], why))
            if isa == "avx512":
                check("control: --isa avx512 --cpu x86-64 routines use AVX-512", any(f.endswith(".macro") for f in found),
                      "no AVX-512 found in %s" % sorted(funcs))
                continue
            total = sum(len(v) for v in found.values())
            check("--isa %s --cpu %s: no instruction beyond %s in %d functions (%d instructions)" % (
                isa, cpu, isa, len(funcs), sum(len(v) for v in funcs.values())), not found,
                "%d instructions beyond it, e.g.\n%s" % (total, "\n".join(
                    "%s: %s" % (f, v[0]) for f, v in sorted(found.items())[:10])))
    return report()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
