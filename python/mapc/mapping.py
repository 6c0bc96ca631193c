"""mapping.py — mapping objects: a type or an inline m![...] of a program that prints as m![...], compares with ==
by the equivalence decision, evaluates many positions at once into numpy arrays and draws itself (notebooks show
its picture through _repr_svg_)."""

import ctypes

from ._lib import lib
from .errors import MapcError

def _b(s):
    return s.encode() if isinstance(s, str) else s


def _numpy():
    try:
        import numpy
    except ImportError:
        raise ImportError("Mapping.eval returns numpy arrays: install numpy (python3-numpy), or use "
                          "Mapping.cell(pos) for one position") from None
    return numpy


class Cells:
    """The cells of many positions (Mapping.eval): .kinds (int8, a KINDS index per position, the positions'
    shape), .coords (int64, that shape plus one axis of the program's axes in declaration order; 0 unless
    live), .live (bool mask), and cells[AXIS] the coordinates of one axis."""

    __slots__ = ("kinds", "coords", "axes")

    def __init__(self, kinds, coords, axes):
        self.kinds, self.coords, self.axes = kinds, coords, tuple(axes)

    @property
    def live(self):
        return self.kinds == 0

    def __getitem__(self, axis):
        try:
            return self.coords[..., self.axes.index(axis)]
        except ValueError:
            raise KeyError("no axis '%s' (axes: %s)" % (axis, ", ".join(self.axes))) from None

    def __len__(self):
        return len(self.kinds)

    def __repr__(self):
        return "Cells(%d positions over %s)" % (self.kinds.size, ", ".join(self.axes))


class Mapping:
    """A mapping of a program (Program.mapping(text), or a value of Program.types). str() and repr() are its
    m![...] text; == decides equivalence (raises UndecidedError past the decision's budget) and hash() agrees
    with it (the normal form); len() is |E|; m[pos] or m.cell(pos) is the Cell of one position, m.eval(positions)
    the Cells of many. .name is the type's name, or None for an inline mapping."""

    __slots__ = ("program", "name", "_text", "__weakref__")

    def __init__(self, program, name, text=None):
        """Use Program.mapping(text) (it checks the text); this wraps a type name or a checked m![...] text."""
        self.program, self.name, self._text = program, name, text

    # ---- the text ----
    @property
    def ref(self):
        """What the C calls are given: the type's name, or the m![...] text."""
        return self.name if self.name is not None else self._text

    @property
    def text(self):
        """The mapping as a valid m![...] line (a type: its definition)."""
        if self._text is None:
            self._text = _map_text(self.program, self.name)
        return self._text

    def __str__(self):
        return self.text

    def __repr__(self):
        return self.text

    # ---- size and cells ----
    @property
    def size(self):
        """|E|: the number of buffer positions."""
        return self.program.size(self.ref)

    def __len__(self):
        return self.size

    def cell(self, pos):
        """The Cell of buffer position pos, by the reference interpreter."""
        return self.program.eval(self.ref, pos)

    def __getitem__(self, pos):
        return self.cell(pos)

    def eval(self, positions=None):
        """The Cells of many positions in one call (all of them, 0 .. |E| - 1, when positions is None): any
        array-like of non-negative integers below 2^64, of any shape. Needs numpy."""
        np = _numpy()
        if positions is None:
            pos = np.arange(self.size, dtype=np.uint64)
        else:
            pos = _positions(np, positions)
        flat = np.ascontiguousarray(pos.reshape(-1), dtype=np.uint64)
        axes = self.program.axis_names
        kinds = np.zeros(flat.size, dtype=np.intc)
        coords = np.zeros((flat.size, max(len(axes), 1)), dtype=np.int64)
        self.program._call("eval %s at %d positions" % (self.ref, flat.size), lib.mapc_eval_many, _b(self.ref),
                           flat.ctypes.data_as(ctypes.POINTER(ctypes.c_uint64)), flat.size,
                           kinds.ctypes.data_as(ctypes.POINTER(ctypes.c_int)),
                           coords.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)), names=(self.ref,))
        return Cells(kinds.astype(np.int8).reshape(pos.shape),
                     coords[:, :len(axes)].reshape(pos.shape + (len(axes),)), axes)

    # ---- equivalence ----
    def _other_ref(self, other):
        if isinstance(other, Mapping):
            if other.program is not self.program:
                raise ValueError("cannot compare mappings of different programs (%s and %s): their axes may differ"
                                 % (self, other))
            return other.ref
        if isinstance(other, str):
            return self.program.mapping(other).ref
        return None

    def equiv(self, other):
        """(True, None) when equivalent to other (a Mapping of the same program, a type name or m![...] text),
        else (False, Counterexample)."""
        ref = self._other_ref(other)
        if ref is None:
            raise TypeError("equiv needs a Mapping or a mapping's text, not %s" % type(other).__name__)
        return self.program.equiv(self.ref, ref)

    def __eq__(self, other):
        ref = self._other_ref(other)
        if ref is None:
            return NotImplemented
        return self.program.equiv(self.ref, ref)[0]

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash((id(self.program), self.program.norm(self.ref)))

    def norm(self):
        """The normal form, as a Mapping (the same text for every equivalent mapping)."""
        return Mapping(self.program, None, self.program.norm(self.ref))

    # ---- pictures ----
    def draw(self, format="svg", **options):
        """The picture as bytes (Program.draw's formats and options: view, axes, color, rows)."""
        return self.program.draw(self.ref, format, **options)

    def _repr_svg_(self):
        """The notebook's display: the picture in the tensor's coordinates when it has one, else the buffer's;
        None (the notebook shows the text) when it cannot be drawn (too many cells, a library without pictures)."""
        try:
            return self.draw("svg").decode()
        except (MapcError, NotImplementedError):
            return None


def _map_text(program, ref):
    """The m![...] text of a type name or an inline mapping (raises as the program's calls do)."""
    return program._text("text of %s" % ref, lib.mapc_map_text, ref)


def _positions(np, positions):
    """positions as a uint64 array; ValueError for a value that is not a non-negative integer below 2^64."""
    arr = np.asarray(positions)
    if arr.dtype == object or arr.dtype.kind in "iu":
        if arr.size and arr.dtype.kind != "u":
            lo, hi = arr.min(), arr.max()
            if not all(isinstance(v, (int, np.integer)) for v in (lo, hi)):
                raise TypeError("positions must be integers")
            if lo < 0 or hi >= 1 << 64:
                raise ValueError("position %d is out of range (0 to 2^64 - 1)" % (lo if lo < 0 else hi))
        return arr.astype(np.uint64)
    if arr.dtype == bool:
        raise TypeError("positions must be integers, not booleans")
    raise TypeError("positions must be integers, not %s" % arr.dtype)
