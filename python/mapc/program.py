"""program.py — a compiled mapping program: its axes and types, the interpreter (eval), equivalence with a
counterexample, normal forms, where tensors hold indices, and drawings; errors raise exceptions."""

import collections
import ctypes
import difflib
import os
import weakref

from . import _convert
from ._lib import DrawOptions, Owner, Place as _PlaceC, lib, libc
from .errors import ERR_INPUT, ERR_NOT_FOUND, OK, status_error

KINDS = ("live", "pad(top)", "pad(zero)", "pad(bottom)", "oob", "overflow")
DRAW_FORMATS = {"svg": 0, "png": 1, "html": 2}
DRAW_VIEWS = {None: 0, "buffer": 1, "index": 2}

Place = collections.namedtuple("Place", "chip cluster slice element")
Place.__doc__ = "A unit and element position of a tensor (cluster and slice 0 outside DM, chip 0 on the host)."


class Cell:
    """The cell of one position: .kind (one of KINDS) and .coords (one int per axis, in declaration order;
    all 0 unless live). str() is mapc's printed form: {A:1, B:7} (zero coordinates left out), pad(top), ..."""

    __slots__ = ("kind", "coords", "axes")

    def __init__(self, kind, coords, axes):
        self.kind, self.coords, self.axes = kind, tuple(coords), tuple(axes)

    @property
    def live(self):
        return self.kind == "live"

    def as_dict(self):
        """{axis name: coordinate} of every axis."""
        return dict(zip(self.axes, self.coords))

    def __eq__(self, other):
        return isinstance(other, Cell) and (self.kind, self.coords) == (other.kind, other.coords)

    def __hash__(self):
        return hash((self.kind, self.coords))

    def __str__(self):
        if not self.live:
            return self.kind
        return "{" + ", ".join("%s:%d" % (a, c) for a, c in zip(self.axes, self.coords) if c) + "}"

    def __repr__(self):
        return "Cell(%s)" % self


class Counterexample(collections.namedtuple("Counterexample", "position cell1 cell2 sizes")):
    """Why two mappings are not equivalent: the smallest position where their cells differ (position, cell1,
    cell2; sizes None), or their sizes when those differ (sizes = (size1, size2), the rest None). str() is
    mapc equiv's text after "not equivalent: "."""

    def __str__(self):
        if self.sizes:
            return "sizes %d vs %d" % self.sizes
        return "position %d: %s vs %s" % (self.position, self.cell1, self.cell2)


def _b(s, what="a name"):
    """A name or inline mapping for a char * argument (checked: _convert.text)."""
    return _convert.text(s, what)


def compile(text, name="<string>"):
    """Compiles program text (str or bytes; name labels its diagnostics), or the file at a path given as an
    os.PathLike (compile_file). Raises CompileError carrying every diagnostic when the program has errors."""
    if isinstance(text, os.PathLike):
        return compile_file(text)
    if not isinstance(text, (str, bytes, bytearray)):
        raise TypeError("the program text must be a str, bytes or a path, not %s" % type(text).__name__)
    data = text.encode() if isinstance(text, str) else bytes(text)  # passed with its length: NULs are text
    h = ctypes.c_void_p()
    st = lib.mapc_compile_string(_b(name, "the program's name"), data, len(data), ctypes.byref(h))
    return Program._from(st, h, "compile %s" % name)


def compile_file(path):
    """Compiles the file at path (diagnostics name it). Raises OSError when it cannot be read, CompileError
    when the program has errors."""
    h = ctypes.c_void_p()
    st = lib.mapc_compile_file(_convert.text(os.fsencode(path), "the path"), ctypes.byref(h))
    return Program._from(st, h, "compile %s" % os.fsdecode(path))


def _index_key(key):
    """A key of an index dict: a digit of the index literal (an axis name, or a digit such as "B / 64")."""
    text = _convert.text(key, "an index key").decode()
    if any(c in text for c in ",:[]"):
        raise ValueError("an index key is an axis or a digit expression, not %r" % (key,))
    return text


def _index_value(key, value):
    """A coordinate of an index dict: 0 to 2^64 - 1, as an i![...] literal takes it."""
    return _convert.integer(value, "index %s" % key, _convert.U64,
                            "{what}: number {value} does not fit in 64 bits (coordinates are 0 to 2^64 - 1)")


class Program(Owner):
    """A compiled program (from compile or compile_file). NAME arguments are type names or inline
    "m![...]" mappings; a failed call raises with the diagnostics it produced."""

    _closed_message = "the program is closed"

    def __init__(self, handle):
        self._h = handle
        self._children = weakref.WeakSet()  # the kernels that use it: closed before it
        n = lib.mapc_axis_count(handle)
        axes = []
        for i in range(n):
            name, size = ctypes.c_char_p(), ctypes.c_uint64()
            lib.mapc_axis(handle, i, ctypes.byref(name), ctypes.byref(size))
            axes.append((name.value.decode(), size.value))
        self.axes = axes
        self.axis_names = tuple(a for a, _ in axes)

    @classmethod
    def _from(cls, st, h, what):
        if st == OK:
            return cls(h)
        diags = []
        if h.value:
            diags = [lib.mapc_diag_text(h, i).decode() for i in range(lib.mapc_diag_count(h))]
            lib.mapc_program_free(h)
        raise status_error(st, what, diags)

    # ---- lifetime ----
    def close(self):
        """Frees the program, closing first the kernels made from it (each after its run in progress, if any,
        returns); calls in progress on the program from other threads return first."""
        if not self._h:
            return
        h = self._retire()
        for k in list(getattr(self, "_children", ())):
            k.close()
        if h:
            self._free(h)

    def _free(self, handle):
        lib.mapc_program_free(handle)

    @property
    def handle(self):
        """The C handle (ValueError once closed); a call handing it to C holds it with self._pin() instead."""
        if not self._h:
            raise ValueError(self._closed_message)
        return self._h

    # ---- calls ----
    def _call(self, what, fn, *args, names=(), not_found=None, bad_input="the inline mapping has errors"):
        """Runs fn(handle, *args); on a failed status raises with the diagnostics the call appended. names:
        the NAME arguments, so that an unknown one is named with the closest type ("did you mean");
        not_found: what to say instead when the status is MAPC_ERR_NOT_FOUND; bad_input: what to say when
        the call's own text (an inline mapping, an index) has errors."""
        with self._pin() as h:
            before = lib.mapc_diag_count(h)
            st = fn(h, *args)
            diags = [lib.mapc_diag_text(h, i).decode() for i in range(before, lib.mapc_diag_count(h))]
        if st != OK:
            detail = None
            if st == ERR_NOT_FOUND:
                detail = not_found or (self._unknown(names) if names else None)
            elif st == ERR_INPUT and diags:
                detail = bad_input
            raise status_error(st, what, diags, detail)

    def _unknown(self, names):
        """"no type 'X'; did you mean 'Y'?" (or the list of types) for the first of names that is no type."""
        types = self.types
        name = next((n for n in names if not n.startswith("m!") and n not in types), names[0])
        close = difflib.get_close_matches(name, types, n=1)
        if close:
            return "no type '%s'; did you mean '%s'?" % (name, close[0])
        return "no type '%s' (types: %s)" % (name, ", ".join(types) or "none")

    @property
    def types(self):
        """The types, in definition order: a dict of name -> Mapping (iterating it gives the names)."""
        from .mapping import Mapping
        out = {}
        with self._pin() as h:
            for i in range(lib.mapc_type_count(h)):
                name = ctypes.c_char_p()
                lib.mapc_type_name(h, i, ctypes.byref(name))
                out[name.value.decode()] = Mapping(self, name.value.decode())
        return out

    def mapping(self, text):
        """The Mapping of a type name or an inline "m![...]" text (a Mapping of this program is returned as
        it is). Raises NotFoundError for an unknown name, CompileError for a text with errors."""
        from .mapping import Mapping, _map_text
        if isinstance(text, Mapping):
            if text.program is not self:
                raise ValueError("%s is a mapping of another program" % text)
            return text
        if not isinstance(text, (str, bytes)):
            raise TypeError("mapping needs a type name or m![...] text, not %s" % type(text).__name__)
        text = text.decode() if isinstance(text, bytes) else text
        if text.startswith("m!"):
            return Mapping(self, None, _map_text(self, text))
        _map_text(self, text)  # raises for an unknown name
        return Mapping(self, text)

    def size(self, name):
        """|E|: the number of positions of the mapping."""
        size = ctypes.c_uint64()
        self._call("size of %s" % name, lib.mapc_type_size, _b(name), ctypes.byref(size), names=(name,))
        return size.value

    def cell(self, kind, coords):
        """A Cell of this program's axes (kind an int of mapc_cell_kind or a name of KINDS)."""
        if isinstance(kind, str):
            if kind not in KINDS:
                raise ValueError("kind must be one of %s, not %r" % (", ".join(KINDS), kind))
        else:
            kind = KINDS[_convert.integer(kind, "kind", _convert.INT, "kind {value} is not 0 to %d" % (len(KINDS) - 1),
                                          (0, len(KINDS) - 1))]
        return Cell(kind, coords, self.axis_names)

    def eval(self, name, pos):
        """The Cell of buffer position pos of the mapping, by the reference interpreter."""
        pos = _convert.position(pos)
        kind = ctypes.c_int()
        coords = (ctypes.c_int64 * (len(self.axes) + 1))()
        self._call("eval %s at %d" % (name, pos), lib.mapc_eval, _b(name), pos, ctypes.byref(kind), coords,
                   names=(name,))
        return self.cell(kind.value, coords[:len(self.axes)])

    def equiv(self, name1, name2):
        """(True, None) when the two mappings are equivalent, else (False, Counterexample)."""
        eq, pos = ctypes.c_int(), ctypes.c_uint64()
        self._call("equiv %s %s" % (name1, name2), lib.mapc_equiv, _b(name1), _b(name2), ctypes.byref(eq),
                   ctypes.byref(pos), names=(name1, name2))
        if eq.value:
            return True, None
        s1, s2 = self.size(name1), self.size(name2)
        if s1 != s2:
            return False, Counterexample(None, None, None, (s1, s2))
        p = pos.value
        return False, Counterexample(p, self.eval(name1, p), self.eval(name2, p), None)

    def _text(self, what, fn, name):
        """The malloc'ed text fn(handle, name, &out) returns (mapc_norm, mapc_map_text), as str."""
        out = ctypes.c_void_p()
        self._call(what, fn, _b(name), ctypes.byref(out), names=(name,))
        try:
            return ctypes.string_at(out).decode()
        finally:
            libc.free(out)

    def norm(self, name):
        """The normal form of the mapping as a valid m![...] line."""
        return self._text("norm %s" % name, lib.mapc_norm, name)

    def where(self, tensor, index):
        """Every unit and element position (Place) where the declared tensor holds index, in layout order
        ([] when none does). index is an "i![A: 1, B: 2]" literal or a {axis: value} dict; omitted axes are 0."""
        if isinstance(index, dict):
            index = "i![" + ", ".join("%s: %d" % (_index_key(k), _index_value(k, v)) for k, v in index.items()) + "]"
        count = ctypes.c_size_t()
        what = "where %s %s" % (tensor, index)
        self._call(what, lib.mapc_where, _b(tensor), _b(index), None, 0, ctypes.byref(count),
                   not_found="no tensor '%s' is declared" % tensor, bad_input="the index has errors")
        n = count.value
        places = (_PlaceC * max(n, 1))()
        self._call(what, lib.mapc_where, _b(tensor), _b(index), places, n, ctypes.byref(count))
        return [Place(p.chip, p.cluster, p.slice, p.element) for p in places[:n]]

    def draw(self, name, format="svg", color=None, rows=0, view=None, axes=None):
        """The mapping (or tensor) drawn as SVG, PNG or HTML bytes (mapc_draw): view "index" (the tensor's
        coordinates), "buffer" (the positions) or None (index over two axes or more); axes "M,N" (the index
        view's rows and columns; None: the first two the layout uses); color a colour key as mapc draw's
        --color-by (None: the view's default); rows the buffer view's (0: its own split).
        NotImplementedError when this libmapc has no mapc_draw."""
        if not hasattr(lib, "mapc_draw"):
            raise NotImplementedError("this libmapc has no mapc_draw")
        if format not in DRAW_FORMATS:
            raise ValueError("format must be one of %s, not %r" % (", ".join(DRAW_FORMATS), format))
        rows = _convert.integer(rows, "rows", _convert.I64, "rows takes a positive decimal number (or 0: the "
                                "mapping's own split), not {value}", (0, 2**63 - 1))
        if view not in DRAW_VIEWS:
            raise ValueError("view must be 'index', 'buffer' or None, not %r" % (view,))
        opts = DrawOptions(DRAW_FORMATS[format], _b(color, "color") if color else None, rows, DRAW_VIEWS[view],
                           _b(axes, "axes") if axes else None)
        out, length = ctypes.c_void_p(), ctypes.c_size_t()
        self._call("draw %s" % name, lib.mapc_draw, _b(name), ctypes.byref(opts), ctypes.byref(out),
                   ctypes.byref(length))
        try:
            return ctypes.string_at(out, length.value)
        finally:
            libc.free(out)

    def jit(self, opt_level=2, cpu=None):
        """Every type's layout functions compiled by LLVM's JIT (a Jit; independent of this program), at
        -O<opt_level> (0 to 3) for cpu (None: this machine's)."""
        from .jit import Jit
        return Jit(self, opt_level, cpu)

    def kernel(self, name, threads=1):
        """The declared GEMM kernel called name, compiled for this machine (a Kernel; it uses this program)."""
        from .kernel import Kernel
        return Kernel(self, name, threads)
