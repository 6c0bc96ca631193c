"""jit.py — a program's layout functions compiled by LLVM's ORC JIT, as Python callables: E_cell (position to
cell) and E_offset (coordinates to the smallest live position)."""

import ctypes

from ._lib import CELL_FN, OFFSET_FN, JitOptions, Owner, lib
from .errors import OK, status_error
from .program import KINDS, Cell, _b


class Jit(Owner):
    """The compiled functions of every type of a program (Program.jit). Independent of the program once
    made; close() frees the code, after which its callables raise ValueError."""

    def __init__(self, program, opt_level=2, cpu=None):
        if opt_level not in (0, 1, 2, 3):
            raise ValueError("opt_level must be 0 to 3, not %r" % (opt_level,))
        # mapc_jit_options: 0 is the default (-O2) and -1 no optimization
        opts = JitOptions(-1 if opt_level == 0 else opt_level, _b(cpu) if cpu else None, None)
        h = ctypes.c_void_p()
        program._call("jit", lib.mapc_jit_create, ctypes.byref(opts), ctypes.byref(h))
        self._h = h
        self.axis_names = program.axis_names

    def _free(self, handle):
        lib.mapc_jit_free(handle)

    def _lookup(self, what, fn, name, proto):
        if not self._h:
            raise ValueError("the JIT is closed")
        addr = ctypes.c_void_p()
        st = fn(self._h, _b(name), ctypes.byref(addr))
        if st != OK:
            raise status_error(st, "%s %s" % (what, name))
        return proto(addr.value)

    def _live(self):
        if not self._h:
            raise ValueError("the JIT is closed")

    def cell(self, type_name):
        """The compiled TYPE_cell as f(pos) -> Cell (equal to Program.eval(TYPE, pos) at every position)."""
        raw = self._lookup("jit cell", lib.mapc_jit_cell, type_name, CELL_FN)
        axes, n = self.axis_names, len(self.axis_names)

        def cell(pos):
            self._live()
            coords = (ctypes.c_int64 * (n + 1))()
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
            self._live()
            if isinstance(coords, dict):
                unknown = set(coords) - set(axes)
                if unknown:
                    raise KeyError("no axis %s (axes: %s)" % (", ".join(sorted(unknown)), ", ".join(axes)))
                coords = [coords.get(a, 0) for a in axes]
            if len(coords) != n:
                raise ValueError("%s takes %d coordinates (%s), not %d" % (offset.__name__, n, ", ".join(axes),
                                                                          len(coords)))
            pos = raw((ctypes.c_int64 * (n + 1))(*coords))
            return None if pos < 0 else pos

        offset.__name__ = type_name + "_offset"
        return offset
