"""jit.py — a program's layout functions compiled by LLVM's ORC JIT, as Python callables: E_cell (position to
cell) and E_offset (coordinates to the smallest live position)."""

import ctypes

from . import _convert
from ._lib import CELL_FN, OFFSET_FN, JitOptions, Owner, lib
from .errors import OK, status_error
from .program import KINDS, Cell, _b


class Jit(Owner):
    """The compiled functions of every type of a program (Program.jit). Independent of the program once
    made; close() frees the code (after the calls in progress return), after which its callables raise
    ValueError."""

    _closed_message = "the JIT is closed"

    def __init__(self, program, opt_level=2, cpu=None):
        opt_level = _convert.integer(opt_level, "opt_level", _convert.INT, "opt_level must be 0 to 3, not {value}",
                                     (0, 3))
        # mapc_jit_options: 0 is the default (-O2) and -1 no optimization
        opts = JitOptions(-1 if opt_level == 0 else opt_level, _b(cpu, "cpu") if cpu else None, None)
        h = ctypes.c_void_p()
        program._call("jit", lib.mapc_jit_create, ctypes.byref(opts), ctypes.byref(h))
        self._h = h
        self.axis_names = program.axis_names

    def _free(self, handle):
        lib.mapc_jit_free(handle)

    def _lookup(self, what, fn, name, proto):
        addr = ctypes.c_void_p()
        with self._pin() as h:
            st = fn(h, _b(name), ctypes.byref(addr))
        if st != OK:
            raise status_error(st, "%s %s" % (what, name))
        return proto(addr.value)

    def cell(self, type_name):
        """The compiled TYPE_cell as f(pos) -> Cell (equal to Program.eval(TYPE, pos) at every position)."""
        raw = self._lookup("jit cell", lib.mapc_jit_cell, type_name, CELL_FN)
        axes, n = self.axis_names, len(self.axis_names)

        def cell(pos):
            pos = _convert.position(pos)
            coords = (ctypes.c_int64 * (n + 1))()
            with self._pin():
                kind = raw(pos, coords)
            return Cell(KINDS[kind], coords[:n], axes)

        cell.__name__ = type_name + "_cell"
        return cell

    def offset(self, type_name):
        """The compiled TYPE_offset as f(coords) -> the smallest position whose cell is live with those
        coordinates, or None. coords: one int per axis in declaration order, or an {axis: value} dict
        (omitted axes 0)."""
        raw = self._lookup("jit offset", lib.mapc_jit_offset, type_name, OFFSET_FN)
        axes, n = self.axis_names, len(self.axis_names)

        def offset(coords):
            if isinstance(coords, dict):
                unknown = set(coords) - set(axes)
                if unknown:
                    raise KeyError("no axis %s (axes: %s)" % (", ".join(sorted(map(str, unknown))), ", ".join(axes)))
                coords = [coords.get(a, 0) for a in axes]
            elif isinstance(coords, (str, bytes, bytearray)) or not hasattr(coords, "__len__"):
                raise TypeError("%s takes a sequence or a dict of coordinates, not %s" % (offset.__name__,
                                                                                          type(coords).__name__))
            if len(coords) != n:
                raise ValueError("%s takes %d coordinates (%s), not %d" % (offset.__name__, n, ", ".join(axes),
                                                                          len(coords)))
            values = [_convert.integer(c, "coordinate %s" % a, _convert.I64,
                                       "{what}: number {value} does not fit in a signed 64-bit number")
                      for a, c in zip(axes, coords)]
            with self._pin():
                pos = raw((ctypes.c_int64 * (n + 1))(*values))
            return None if pos < 0 else pos

        offset.__name__ = type_name + "_offset"
        return offset
