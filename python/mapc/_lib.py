"""_lib.py — finds and loads libmapc.so and declares the C signatures of mapc.h for ctypes."""

import contextlib
import ctypes
import ctypes.util
import glob
import os
import threading

_HERE = os.path.dirname(os.path.abspath(__file__))


def _files():
    """The files libmapc may be, in the order find_library tries them."""
    yield from sorted(glob.glob(os.path.join(_HERE, "libmapc.so*")))  # a copy inside the package
    try:
        from . import _install  # written by meson install: the library's installed directory
        yield from sorted(glob.glob(os.path.join(_install.LIBDIR, "libmapc.so*")))
    except ImportError:
        pass
    root = os.path.dirname(os.path.dirname(_HERE))  # python/mapc -> the source tree
    yield os.path.join(root, "build", "compiler", "api", "libmapc.so")
    yield from sorted(glob.glob(os.path.join(root, "*", "compiler", "api", "libmapc.so")))


def find_library():
    """The path of libmapc: $MAPC_LIBRARY when set, else a copy inside this package, else the installed
    library directory, else a meson build tree of the source tree this package is in, else the system's
    search (ctypes.util.find_library). Raises OSError naming what was tried."""
    env = os.environ.get("MAPC_LIBRARY")
    if env:
        return env
    tried = []
    for path in _files():
        if os.path.isfile(path):
            return path
        tried.append(path)
    found = ctypes.util.find_library("mapc")
    if found:
        return found
    raise OSError("libmapc.so not found (tried %s and the system's library path); set MAPC_LIBRARY to its path"
                  % ", ".join(tried))


class Owner:
    """A Python object owning one C object (self._h): close() frees it once with self._free(handle), and so
    do leaving a with block and garbage collection. _h is None once closed (or when construction failed).
    A call that hands the handle to C (the GIL is released there) holds it through _pin(): close() waits for
    every such call to return before freeing, and calls after close() raise ValueError."""

    _h = None
    _pins = 0                # calls holding the handle now
    _cond = None             # made on first use, under _COND_LOCK
    _closed_message = "the object is closed"

    def _free(self, handle):
        raise NotImplementedError

    def _condition(self):
        if self._cond is None:
            with _COND_LOCK:
                if self._cond is None:
                    self._cond = threading.Condition()
        return self._cond

    @contextlib.contextmanager
    def _pin(self):
        """with self._pin() as handle: the live handle, not freed until the block ends (ValueError with
        _closed_message when the object is closed or closing)."""
        cond = self._condition()
        with cond:
            if not self._h:
                raise ValueError(self._closed_message)
            self._pins += 1
            handle = self._h
        try:
            yield handle
        finally:
            with cond:
                self._pins -= 1
                if not self._pins:
                    cond.notify_all()

    def _retire(self):
        """Marks the object closed (new calls raise) and waits for the calls in progress; the handle to free,
        or None when it was closed already."""
        cond = self._condition()
        with cond:
            h, self._h = self._h, None
            while self._pins:
                cond.wait()
        return h

    def close(self):
        """Frees the C object (after the calls in progress from other threads return); a no-op once closed."""
        h = self._retire()
        if h:
            self._free(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if self._h:
            self.close()


_COND_LOCK = threading.Lock()


class Place(ctypes.Structure):
    _fields_ = [("chip", ctypes.c_uint64), ("cluster", ctypes.c_uint64), ("slice", ctypes.c_uint64),
                ("element", ctypes.c_uint64)]


class JitOptions(ctypes.Structure):
    _fields_ = [("opt_level", ctypes.c_int), ("cpu", ctypes.c_char_p), ("prefix", ctypes.c_char_p)]


class KernelOptions(ctypes.Structure):
    _fields_ = [("threads", ctypes.c_int)]


class DrawOptions(ctypes.Structure):
    _fields_ = [("format", ctypes.c_int), ("color", ctypes.c_char_p), ("rows", ctypes.c_int64), ("view", ctypes.c_int),
                ("axes", ctypes.c_char_p)]


CELL_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint64, ctypes.POINTER(ctypes.c_int64))
OFFSET_FN = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.POINTER(ctypes.c_int64))

_P, _S, _VP = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p
_U64, _I64, _SZ, _I = ctypes.c_uint64, ctypes.c_int64, ctypes.c_size_t, ctypes.c_int
_PTR = ctypes.POINTER

# name: (result type, argument types); every status is an int
_SIGNATURES = {
    "mapc_version": (_S, []),
    "mapc_status_string": (_S, [_I]),
    "mapc_compile_string": (_I, [_S, _S, _SZ, _PTR(_P)]),
    "mapc_compile_file": (_I, [_S, _PTR(_P)]),
    "mapc_program_free": (None, [_P]),
    "mapc_diag_count": (_SZ, [_P]),
    "mapc_diag_text": (_S, [_P, _SZ]),
    "mapc_axis_count": (_I, [_P]),
    "mapc_axis": (_I, [_P, _I, _PTR(_S), _PTR(_U64)]),
    "mapc_type_count": (_I, [_P]),
    "mapc_type_name": (_I, [_P, _I, _PTR(_S)]),
    "mapc_type_size": (_I, [_P, _S, _PTR(_U64)]),
    "mapc_eval": (_I, [_P, _S, _U64, _PTR(_I), _PTR(_I64)]),
    "mapc_equiv": (_I, [_P, _S, _S, _PTR(_I), _PTR(_U64)]),
    "mapc_norm": (_I, [_P, _S, _PTR(_VP)]),
    "mapc_map_text": (_I, [_P, _S, _PTR(_VP)]),
    "mapc_eval_many": (_I, [_P, _S, _PTR(_U64), _SZ, _PTR(_I), _PTR(_I64)]),
    "mapc_where": (_I, [_P, _S, _S, _PTR(Place), _SZ, _PTR(_SZ)]),
    "mapc_jit_create": (_I, [_P, _PTR(JitOptions), _PTR(_P)]),
    "mapc_jit_cell": (_I, [_P, _S, _PTR(_VP)]),
    "mapc_jit_offset": (_I, [_P, _S, _PTR(_VP)]),
    "mapc_jit_free": (None, [_P]),
    "mapc_kernel_create": (_I, [_P, _S, _PTR(KernelOptions), _PTR(_P)]),
    "mapc_kernel_operand_bytes": (_SZ, [_P, _I]),
    "mapc_kernel_run": (_I, [_P, _VP, _VP, _VP, ctypes.c_double, ctypes.c_double]),
    "mapc_kernel_error": (_S, [_P]),
    "mapc_kernel_free": (None, [_P]),
    "mapc_draw": (_I, [_P, _S, _PTR(DrawOptions), _PTR(_VP), _PTR(_SZ)]),  # when the library has it
}


def load(path=None):
    """The loaded library (at path, else find_library()) with its signatures declared; functions the
    library lacks (mapc_draw in an older one) are simply absent: hasattr(lib, name) tells."""
    lib = ctypes.CDLL(path or find_library())
    for name, (res, args) in _SIGNATURES.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            continue
        fn.restype, fn.argtypes = res, args
    return lib


lib = load()
libc = ctypes.CDLL(None)  # free() of the strings and buffers the library returns
libc.free.argtypes, libc.free.restype = [ctypes.c_void_p], None
