"""movement.py — how the NPU moves tensors (<mapc/seq.h>): Program.sequence, Program.dma and Program.tails return
plain dataclasses (sequencer configs, DMA commands with tails and cycles), and dma_cost prices a plan of commands.

    prog = mapc.compile("axes![N = 4, C = 3, H = 8, W = 8];")
    s = prog.sequence("m![N, C, H, W]", time="m![W, H, C, N]", packet="m![1]")
    str(s)            # '[8:1, 8:8, 3:64, 4:192]:1'
    s.access, s.bank_run"""

import ctypes
from dataclasses import dataclass, field
from typing import List, Tuple

from ._lib import lib
from .errors import MapcError, status_error
from .program import Program, _b

# the movement errors of seq.h, numbered from 16 in this order
CODES = ("unsupported", "incompatible", "input-bottom-padding", "unmatched-segment", "unconsumed", "iteration-limit",
         "too-many-entries", "innermost-entry", "packet-size", "dma-type", "dma-packet-contiguity", "dma-packet-size",
         "dma-align", "plan")
MODES = {"read": 0, "write": 1, "carve": 2}
ELEM_BITS = {"i4": 4, "i8": 8, "f8": 8, "bf16": 16, "f16": 16, "f32": 32, "i32": 32, "f64": 64}


class MovementError(MapcError, ValueError):
    """The derivation refused the move: .code is the error's name ("incompatible", "dma-align", ...), the message
    names the factor or entry at fault and its numbers (what mapc prints after "error: CODE: ")."""

    def __init__(self, code, message):
        self.code = code
        super().__init__(16 + CODES.index(code), "%s: %s" % (code, message))


class _Entry(ctypes.Structure):
    _fields_ = [("n", ctypes.c_uint64), ("stride", ctypes.c_int64)]


class _Config(ctypes.Structure):
    _fields_ = [("e", _Entry * 8), ("count", ctypes.c_uint32), ("time_count", ctypes.c_uint32),
                ("packet", ctypes.c_uint64), ("run", ctypes.c_uint64), ("access", ctypes.c_uint64),
                ("read_size", ctypes.c_uint64), ("bank_run", ctypes.c_uint64), ("reads", ctypes.c_uint64),
                ("fetch_cycles", ctypes.c_uint64), ("raw", _Entry * 64), ("raw_count", ctypes.c_uint32),
                ("raw_time_count", ctypes.c_uint32)]


class _Plan(ctypes.Structure):
    _fields_ = [("read", _Config), ("write", _Config), ("tails", ctypes.c_uint64 * 3), ("engines", ctypes.c_uint64),
                ("cycles", ctypes.c_uint64), ("min_align", ctypes.c_uint)]


class _Diag(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("message", ctypes.c_char * 512)]


_P, _S, _PTR = ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER
for _name, _res, _args in (
        ("mapc_sequence", ctypes.c_int, [_P, _S, _S, _S, ctypes.c_int, ctypes.c_uint, _PTR(_Config), _PTR(_Diag)]),
        ("mapc_dma_tails", ctypes.c_int, [_P, _S, _S, ctypes.c_uint64 * 3, _PTR(_Diag)]),
        ("mapc_dma_derive", ctypes.c_int, [_P, _S, _S, _S, _S, _S, _PTR(_Plan), _PTR(_Diag)]),
        ("mapc_dma_cost_plan", ctypes.c_int, [_S, _PTR(ctypes.c_uint64), _PTR(_Diag)])):
    _fn = getattr(lib, _name)
    _fn.restype, _fn.argtypes = _res, _args


def config_text(entries, packet):
    """"[n:stride, ...]:packet", as mapc prints a config."""
    return "[%s]:%d" % (", ".join("%d:%d" % e for e in entries), packet)


@dataclass
class Sequence:
    """A sequencer config: config (merged per descriptor, [(n, stride)] outermost first) of which time_entries are
    time entries, raw (one entry per stream digit), the packet, and the access facts. str() is the config."""
    config: List[Tuple[int, int]]
    raw: List[Tuple[int, int]]
    packet: int
    time_entries: int
    raw_time_entries: int
    run: int
    access: int
    read_size: int
    reads: int
    fetch_cycles: int
    bank_run: int

    def __str__(self):
        return config_text(self.config, self.packet)


@dataclass
class Dma:
    """A DMA command: its read and write sequencers (merged; the same loop counts), the packet, the tails
    (src_packet, dst_packet, common), the engines, the cycles of the cost model and the alignment in bytes."""
    read: List[Tuple[int, int]]
    write: List[Tuple[int, int]]
    packet: int
    tails: Tuple[int, int, int]
    engines: int
    cycles: int
    min_align: int
    time_entries: int = field(default=0)


def _raise(program, what, st, d):
    if st >= 16:
        raise MovementError(CODES[st - 16], d.message.decode())
    h = program.handle
    diags = [lib.mapc_diag_text(h, i).decode() for i in range(lib.mapc_diag_count(h))][-1:] if st == 1 else []
    raise status_error(st, what, diags, d.message.decode() or None)


def _entries(arr, n):
    return [(arr[i].n, arr[i].stride) for i in range(n)]


def sequence(self, buf, time, packet, mode="read", type="i8"):
    """The sequencer that walks the buffer buf as the stream m![{time}, {packet}] (type names or inline m![...])
    in mode read, write or carve, for elements of type (i4, i8, bf16, f32, ...). Raises MovementError."""
    if mode not in MODES:
        raise ValueError("mode is read, write or carve, not %r" % mode)
    if type not in ELEM_BITS:
        raise ValueError("type is one of %s, not %r" % (", ".join(ELEM_BITS), type))
    c, d = _Config(), _Diag()
    st = lib.mapc_sequence(self.handle, _b(buf), _b(time), _b(packet), MODES[mode], ELEM_BITS[type], ctypes.byref(c),
                           ctypes.byref(d))
    if st:
        _raise(self, "sequence", st, d)
    return Sequence(_entries(c.e, c.count), _entries(c.raw, c.raw_count), c.packet, c.time_count, c.raw_time_count,
                    c.run, c.access, c.read_size, c.reads, c.fetch_cycles, c.bank_run)


def dma(self, src, dst, time=None, packet=None, engines=None):
    """The DMA command moving tensor src into tensor dst over the stream [engines, time, packet] (time and packet
    together, or neither for the destination's own stream). Raises MovementError."""
    if (time is None) != (packet is None):
        raise ValueError("dma takes time and packet together")
    x, d = _Plan(), _Diag()
    enc = [None if s is None else _b(s) for s in (time, packet, engines)]
    st = lib.mapc_dma_derive(self.handle, _b(src), _b(dst), enc[0], enc[1], enc[2], ctypes.byref(x), ctypes.byref(d))
    if st:
        _raise(self, "dma", st, d)
    return Dma(_entries(x.read.e, x.read.count), _entries(x.write.e, x.write.count), x.read.packet, tuple(x.tails),
               x.engines, x.cycles, x.min_align, x.read.time_count)


def tails(self, src, dst):
    """tails(src, dst) of two mappings: (src_packet, dst_packet, common)."""
    out, d = (ctypes.c_uint64 * 3)(), _Diag()
    st = lib.mapc_dma_tails(self.handle, _b(src), _b(dst), out, ctypes.byref(d))
    if st:
        _raise(self, "tails", st, d)
    return tuple(out)


def dma_cost(plan):
    """The cycles of a plan of DMA commands in mapc dma-cost's syntax ("65536:256:hbm/32c>dm*8")."""
    cycles, d = ctypes.c_uint64(), _Diag()
    st = lib.mapc_dma_cost_plan(_b(plan), ctypes.byref(cycles), ctypes.byref(d))
    if st:
        raise MovementError("plan", d.message.decode()) if st >= 16 else status_error(st, "dma_cost")
    return cycles.value


Program.sequence = sequence
Program.dma = dma
Program.tails = tails
