"""interop.py — layouts of other systems: Program.export(name, to=...) writes a mapping as a CuTe layout, a Triton
linear layout, an MLIR affine map or strided layout, or a TVM index map (mapc_export); the literals that read them
back (cute![...], cute_tiler![...], triton![...], affine![...], index_map![...], strided![...]) are NAMEs like
any inline mapping:

    prog.export("Tiled", to="cute")                          # '((2,2),8):((1,16),2)'
    prog.norm("cute![((2,2),8):((1,16),2)]")                 # 'm![M / 2, N, M % 2]'
    prog.equiv("Tiled", "index_map![lambda i, j: (i // 2, j, i % 2)]")
"""

import ctypes

from ._lib import lib, libc
from .errors import ERR_ARGUMENT, ERR_NOT_FOUND, OK, status_error
from .program import Program, _b

FORMATS = ("cute", "cute-tiler", "triton", "affine", "strided", "index-map")


class ExportOptions(ctypes.Structure):
    _fields_ = [("lanes", ctypes.c_uint64), ("warps", ctypes.c_uint64), ("blocks", ctypes.c_uint64)]


lib.mapc_export.restype = ctypes.c_int
lib.mapc_export.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ExportOptions),
                            ctypes.POINTER(ctypes.c_void_p)]


def _count(what, v):
    if v is None:
        return 0
    if isinstance(v, bool) or not isinstance(v, int) or v < 0 or v >= 1 << 64:
        raise status_error(ERR_ARGUMENT, "export", detail="%s must be a power of two, not %r" % (what, v))
    return v


def export(self, name, to, lanes=None, warps=None, blocks=None):
    """The mapping name (a type or an inline literal) in the syntax of another system, one line as mapc export
    prints it. to is one of FORMATS; lanes, warps and blocks split a Triton layout's positions (the top bits are
    the blocks, then the warps, then the lanes). Raises CompileError with the reason ("no CuTe layout: ...")
    when the mapping has no such form, ArgumentError for an unknown format."""
    if to not in FORMATS:
        raise status_error(ERR_ARGUMENT, "export %s" % name,
                           detail="unknown format %r (one of %s)" % (to, ", ".join(FORMATS)))
    opts = ExportOptions(_count("lanes", lanes), _count("warps", warps), _count("blocks", blocks))
    out = ctypes.c_void_p()
    h = self.handle
    before = lib.mapc_diag_count(h)
    st = lib.mapc_export(h, _b(name), _b(to), ctypes.byref(opts), ctypes.byref(out))
    if st != OK:
        diags = [lib.mapc_diag_text(h, i).decode() for i in range(before, lib.mapc_diag_count(h))]
        detail = None
        if st == ERR_NOT_FOUND:
            detail = self._unknown((name,))
        elif diags:  # "no CuTe layout: REASON", or the literal's first error
            detail = diags[-1].split(": error: ", 1)[-1].splitlines()[0]
        raise status_error(st, "export %s --to %s" % (name, to), diags, detail)
    try:
        return ctypes.string_at(out).decode()
    finally:
        libc.free(out)


Program.export = export
