"""algebra.py — the layout algebra (<mapc/algebra.h>) as methods of Program: compose, complement, cover, divide,
product, blocked_product, raked_product, inverse, left_inverse, conversion, nullspace and coalesce return Mapping
objects of the program (printing as m![...]); vector and injective answer queries. A refusal raises AlgebraError.

    prog = mapc.compile("axes![X = 10, Y = 20]; type T = m![X = 4];")
    c = prog.complement("T", "X")             # m![X # 12 / 4]
    prog.compose(c, X="m![Y = 10]")           # m![Y = 10 # 12 / 4]
    prog.cover("T", "X", pad="bottom")        # m![X #{!} 12]"""

import ctypes

from ._lib import lib, libc
from .errors import ERR_INPUT, ERR_NOT_FOUND, MapcError, status_error
from .program import Program, _b

ERR_ALGEBRA = 32  # MAPC_ERR_ALGEBRA
# padding kinds by name or by the CLI's spelling -> mapc_pad_kind
PADS = {"top": 1, "#": 1, "#{*}": 1, "zero": 2, "#{0}": 2, "bottom": 3, "#{!}": 3}


class AlgebraError(MapcError, ValueError):
    """The algebra refused the operands: .code is the error's name ("size-mismatch", "no-complement",
    "undeclared-axis", ...), the message names the positions and values (what mapc prints after "algebra: CODE: ")."""

    def __init__(self, code, message):
        self.code = code
        super().__init__(ERR_ALGEBRA, "%s: %s" % (code, message))


class _Error(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("code", ctypes.c_char * 32), ("message", ctypes.c_char * 512)]


_P, _S, _I, _U64, _PTR = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_uint64, ctypes.POINTER
_SS = _PTR(_S)
_OUT = [_PTR(ctypes.c_void_p), _PTR(_Error)]
for _name, _args in (
        ("mapc_compose", [_P, _S, _I, _SS, _SS] + _OUT),
        ("mapc_complement", [_P, _S, _S] + _OUT),
        ("mapc_cover", [_P, _S, _S, _I] + _OUT),
        ("mapc_divide", [_P, _S, _I, _SS, _SS, _I] + _OUT),
        ("mapc_product", [_P, _S, _S, _S, _S] + _OUT),
        ("mapc_blocked_product", [_P, _S, _S, _I, _SS, _SS, _SS, _I] + _OUT),
        ("mapc_inverse", [_P, _S, _S, _I, _SS, _I, _I] + _OUT),
        ("mapc_conversion", [_P, _S, _S, _S] + _OUT),
        ("mapc_nullspace", [_P, _S, _S] + _OUT),
        ("mapc_coalesce", [_P, _S] + _OUT),
        ("mapc_vector_width", [_P, _S, _S, _PTR(_U64), _PTR(_Error)]),
        ("mapc_injective", [_P, _S, _PTR(_I), _PTR(_U64), _PTR(_U64), _PTR(_Error)])):
    _fn = getattr(lib, _name)
    _fn.restype, _fn.argtypes = _I, _args


def _ref(prog, m, what):
    """The C argument of a mapping: a Mapping of this program (ValueError for another program's) or a type name or
    m![...] text."""
    from .mapping import Mapping
    if isinstance(m, Mapping):
        if m.program is not prog:
            raise ValueError("%s (%s) is a mapping of another program" % (what, m))
        return _b(m.ref, what)
    if not isinstance(m, (str, bytes)):
        raise TypeError("%s needs a Mapping, a type name or m![...] text, not %s" % (what, type(m).__name__))
    return _b(m, what)


def _axis(a, what="an axis"):
    if not isinstance(a, (str, bytes)):
        raise TypeError("%s is an axis name, not %s" % (what, type(a).__name__))
    return _b(a, what)


def _strings(items):
    return (_S * (len(items) + 1))(*items, None)


def _pad(pad):
    if pad not in PADS:
        raise ValueError("pad is one of top, zero, bottom (or #, #{0}, #{!}), not %r" % (pad,))
    return PADS[pad]


def _call(prog, what, fn, *args, names=()):
    """Runs fn(handle, *args, &err); raises AlgebraError for a refusal, the status's exception otherwise."""
    err = _Error()
    with prog._pin() as h:
        before = lib.mapc_diag_count(h)
        st = fn(h, *args, ctypes.byref(err))
        diags = [lib.mapc_diag_text(h, i).decode() for i in range(before, lib.mapc_diag_count(h))]
    if st == ERR_ALGEBRA:
        raise AlgebraError(err.code.decode(), err.message.decode())
    if st:
        detail = err.message.decode() or None
        if st == ERR_NOT_FOUND and names:
            detail = prog._unknown([n for n in names if isinstance(n, str)] or [""])
        elif st == ERR_INPUT and diags:
            detail = "the inline mapping has errors"
        raise status_error(st, what, diags, detail)


def _mapping(prog, what, fn, *args, names=()):
    """The Mapping whose m![...] text fn returns into its out-parameter."""
    from .mapping import Mapping
    out = ctypes.c_void_p()
    _call(prog, what, fn, *args, ctypes.byref(out), names=names)
    try:
        return Mapping(prog, None, ctypes.string_at(out).decode())
    finally:
        libc.free(out)


def _pairs(subs, kw, what):
    items = dict(subs or {})
    items.update(kw)
    if not items:
        raise ValueError("%s needs at least one axis" % what)
    return items


def compose(self, e, subs=None, /, **kw):
    """compose(E, X := F, ...): E with each F written where its axis stood, all at once. The substitutions are
    keywords (X=F) or a dict {axis: F}; F a Mapping, type name or m![...] text, |F| = |X|."""
    items = _pairs(subs, kw, "compose")
    axes = [_axis(a) for a in items]
    fs = [_ref(self, f, "the substitution of %s" % a) for a, f in items.items()]
    return _mapping(self, "compose", lib.mapc_compose, _ref(self, e, "E"), len(axes), _strings(axes), _strings(fs),
                    names=[e, *items.values()])


def complement(self, t, x):
    """complement(T, X): the origins of the tiler t over axis x, as a mapping over x."""
    return _mapping(self, "complement", lib.mapc_complement, _ref(self, t, "T"), _axis(x), names=[t])


def cover(self, t, x, pad="top"):
    """cover(T, X, KIND): the complement and t as one mapping over x, the overhang padding of kind pad."""
    return _mapping(self, "cover", lib.mapc_cover, _ref(self, t, "T"), _axis(x), _pad(pad), names=[t])


def divide(self, a, modes=None, /, *, zipped=False, **kw):
    """divide(A, X: T, ...) (zipped: zipped_divide, which tiled and flat divides are): the modes are keywords
    (X=T) or a dict {axis: tiler}, in order, mode 0 first."""
    items = _pairs(modes, kw, "divide")
    axes = [_axis(x) for x in items]
    ts = [_ref(self, t, "the tiler of %s" % x) for x, t in items.items()]
    return _mapping(self, "divide", lib.mapc_divide, _ref(self, a, "A"), len(axes), _strings(axes), _strings(ts),
                    1 if zipped else 0, names=[a, *items.values()])


def zipped_divide(self, a, modes=None, /, **kw):
    """divide(..., zipped=True)."""
    return divide(self, a, modes, zipped=True, **kw)


def product(self, a, x, b, y):
    """product(A, X, B, Y): CuTe's logical product in the tiler view."""
    return _mapping(self, "product", lib.mapc_product, _ref(self, a, "A"), _axis(x), _ref(self, b, "B"), _axis(y),
                    names=[a, b])


def blocked_product(self, g, t, fused=None, /, *, raked=False, **kw):
    """blocked_product(G, T, X = Xo * Xi, ...) (raked: raked_product): the fused axes are keywords X=(Xo, Xi) or a
    dict {X: (Xo, Xi)}."""
    items = _pairs(fused, kw, "blocked_product")
    x, xo, xi = [], [], []
    for a, pair in items.items():
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError("the fused axis %s is (Xo, Xi), not %r" % (a, pair))
        x.append(_axis(a))
        xo.append(_axis(pair[0]))
        xi.append(_axis(pair[1]))
    return _mapping(self, "blocked_product", lib.mapc_blocked_product, _ref(self, g, "G"), _ref(self, t, "T"), len(x),
                    _strings(x), _strings(xo), _strings(xi), 1 if raked else 0, names=[g, t])


def raked_product(self, g, t, fused=None, /, **kw):
    """blocked_product(..., raked=True)."""
    return blocked_product(self, g, t, fused, raked=True, **kw)


def _inverse(self, what, e, p, order, pad, left):
    if isinstance(order, (str, bytes)):
        order = [order]
    axes = [_axis(a, "an index axis") for a in order]
    return _mapping(self, what, lib.mapc_inverse, _ref(self, e, "E"), _axis(p), len(axes), _strings(axes), _pad(pad),
                    1 if left else 0, names=[e])


def inverse(self, e, p, order, pad="bottom"):
    """inverse(E, P, [A, ...], KIND): index (the axes of order, the first major) -> {P: its first position}, pad
    where e holds it nowhere."""
    return _inverse(self, "inverse", e, p, order, pad, False)


def left_inverse(self, e, p, order, pad="bottom"):
    """The inverse of an injective e (AlgebraError not-injective otherwise)."""
    return _inverse(self, "left_inverse", e, p, order, pad, True)


def conversion(self, src, dst, q):
    """conversion(Src, Dst, Q): the relayout plan from src to dst over axis q."""
    return _mapping(self, "conversion", lib.mapc_conversion, _ref(self, src, "Src"), _ref(self, dst, "Dst"), _axis(q),
                    names=[src, dst])


def nullspace(self, e, p):
    """nullspace(E, P): the positions of e holding its first cell, increasing, over axis p."""
    return _mapping(self, "nullspace", lib.mapc_nullspace, _ref(self, e, "E"), _axis(p), names=[e])


def coalesce(self, e):
    """coalesce(E): the normal form of e, checked equivalent to it."""
    return _mapping(self, "coalesce", lib.mapc_coalesce, _ref(self, e, "E"), names=[e])


def vector(self, src, dst=None):
    """vector(Src [, Dst]): the widest vector width of the conversion (dst None: the identity layout)."""
    n = ctypes.c_uint64()
    _call(self, "vector", lib.mapc_vector_width, _ref(self, src, "Src"), None if dst is None else _ref(self, dst, "Dst"),
          ctypes.byref(n), names=[src, dst])
    return n.value


def injective(self, e):
    """(True, None) when no live cell of e occurs twice, else (False, (p1, p2)): p2 the smallest position whose
    cell occurred before, p1 that cell's first position."""
    yes, p1, p2 = ctypes.c_int(), ctypes.c_uint64(), ctypes.c_uint64()
    _call(self, "injective", lib.mapc_injective, _ref(self, e, "E"), ctypes.byref(yes), ctypes.byref(p1),
          ctypes.byref(p2), names=[e])
    return (True, None) if yes.value else (False, (p1.value, p2.value))


for _f in (compose, complement, cover, divide, zipped_divide, product, blocked_product, raked_product, inverse,
           left_inverse, conversion, nullspace, coalesce, vector, injective):
    setattr(Program, _f.__name__, _f)
