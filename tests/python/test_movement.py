"""test_movement.py — the Python binding of the NPU's data movement (python/mapc/movement.py) through the built libmapc:
the book's sequencer configs and DMA cycle counts as dataclasses, tails, plans, and the errors as MovementError.

Usage: test_movement.py   (MAPC_LIBRARY and PYTHONPATH point at the build; prints "N passed, N failed")"""

import dataclasses
import sys

import mapc

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what, file=sys.stderr)


prog = mapc.compile("""axes![N = 4, C = 3, H = 8, W = 8, A = 15, X = 8, Y = 8, Z = 256];
type Buf = m![N, C, H, W];
tensor S: HbmTensor<i8, m![1], m![X, Y, Z]>;
tensor D: HbmTensor<i8, m![1], m![Y, X, Z]>;
tensor F: DmTensor<f32, m![1], m![1], m![1], m![Y, X, Z]>;
""")
s = prog.sequence("Buf", time="m![W, H, C, N]", packet="m![1]")
check(isinstance(s, mapc.Sequence) and dataclasses.is_dataclass(s), "sequence returns a dataclass")
check(s.config == [(8, 1), (8, 8), (3, 64), (4, 192)] and s.packet == 1, "NCHW as WHCN: %s" % s)
check(str(s) == "[8:1, 8:8, 3:64, 4:192]:1" and s.access == 1 and s.run == 4 and s.bank_run == 2, "its facts %r" % s)
s = prog.sequence("Buf", "m![N, C, H]", "m![W]", type="bf16")
check(s.raw == [(4, 192), (3, 64), (8, 8), (8, 1)] and s.config == [(96, 8), (8, 1)] and s.run == 768 and s.access == 8,
      "the doctest: %r" % s)
try:
    prog.sequence("m![A % 5, A / 5]", "m![1]", "m![A % 3, A / 3]")
    check(False, "incompatible raises")
except mapc.MovementError as e:
    check(e.code == "incompatible" and "boundary 3" in str(e), "incompatible: %s" % e)
try:
    prog.sequence("Buf", "m![1]", "m![1]", mode="sideways")
    check(False, "a bad mode raises")
except ValueError:
    check(True, "a bad mode raises ValueError")
try:
    prog.sequence("Nope", "m![1]", "m![1]")
    check(False, "an unknown type raises")
except mapc.NotFoundError:
    check(True, "an unknown type raises NotFoundError")
x = prog.dma("S", "D", time="m![X, Y]", packet="m![Z]")
check(isinstance(x, mapc.Dma) and x.cycles == 628 and x.tails == (256, 256, 256) and x.min_align == 1,
      "example 1: %r" % x)
check(x.read == [(8, 2048), (8, 256), (256, 1)] and x.write == [(8, 256), (8, 2048), (256, 1)], "its sequencers")
try:
    prog.dma("S", "F")
    check(False, "dma-type raises")
except mapc.MovementError as e:
    check(e.code == "dma-type", "dma-type: %s" % e)
check(prog.tails("m![X, Y]", "m![X, Y # 16]") == (8, 16, 8), "tails")
book = {"64:256:hbm>hbm": 628, "65536:256:hbm>dm": 66036, "65536:256:dm>dm": 131572, "65536:256:hbm/32c>dm*8": 655860,
        "512:256:hbm/16>dm*8": 1857, "128:256:dm/1>hbm*3, 64:256:dm/1>hbm + 32:256:dm/1>hbm": 1192}
for plan, cycles in book.items():
    check(mapc.dma_cost(plan) == cycles, "%s: %d cycles" % (plan, cycles))
try:
    mapc.dma_cost("64:256:hbm")
    check(False, "a bad plan raises")
except mapc.MovementError as e:
    check(e.code == "plan", "a bad plan: %s" % e)
prog.close()
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
