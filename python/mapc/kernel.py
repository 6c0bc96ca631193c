"""kernel.py — a program's declared GEMM kernel run on caller buffers laid out as its operands' tensors
(numpy arrays when numpy is there, or bytearray / memoryview / bytes)."""

import ctypes
import threading

from . import _convert
from ._lib import KernelOptions, Owner, lib
from .errors import ERR_ARGUMENT, OK, ArgumentError, status_error
from .program import _b


def _pointer(obj, nbytes, writable, what):
    """(address, keep-alive object) of a C-contiguous buffer of exactly nbytes bytes; ArgumentError
    otherwise (a read-only buffer where the kernel writes, a strided view, the wrong size)."""
    if hasattr(obj, "__array_interface__") and hasattr(obj, "ctypes"):  # a numpy array
        if not obj.flags["C_CONTIGUOUS"]:
            raise ArgumentError(ERR_ARGUMENT, "%s must be C-contiguous" % what)
        if writable and not obj.flags["WRITEABLE"]:
            raise ArgumentError(ERR_ARGUMENT, "%s must be writable" % what)
        size, addr, keep = obj.nbytes, obj.ctypes.data, obj
    else:
        try:
            view = memoryview(obj)
        except TypeError:
            raise TypeError("%s must be a numpy array or a buffer (bytearray, memoryview, bytes), not %s"
                            % (what, type(obj).__name__)) from None
        if not view.c_contiguous:
            raise ArgumentError(ERR_ARGUMENT, "%s must be C-contiguous" % what)
        if view.readonly and writable:
            raise ArgumentError(ERR_ARGUMENT, "%s must be writable (a bytearray, not bytes)" % what)
        size = view.nbytes
        if view.readonly:  # bytes: read in place through a borrowed char pointer
            keep = view.tobytes() if not isinstance(obj, bytes) else obj
            addr = ctypes.cast(ctypes.c_char_p(keep), ctypes.c_void_p).value
        else:
            keep = (ctypes.c_char * size).from_buffer(view.cast("B")) if size else None
            addr = ctypes.addressof(keep) if size else None
    if size != nbytes:
        raise ArgumentError(ERR_ARGUMENT, "%s holds %d bytes; the operand's tensor has %d" % (what, size, nbytes))
    return addr, keep


class Kernel(Owner):
    """A declared kernel (Program.kernel): C <- alpha*A*B + beta*C on buffers in the operands' declared
    layouts (each tensor's buffer, chip after chip, element position by element position). It uses its
    program, which stays alive while the kernel does. close() (or closing the program) during a run in another
    thread waits for the run to return; runs of one kernel from several threads take turns."""

    _closed_message = "the kernel is closed"

    def __init__(self, program, name, threads=1):
        threads = _convert.threads(threads)
        h = ctypes.c_void_p()
        program._call("kernel %s" % name, lib.mapc_kernel_create, _b(name), ctypes.byref(KernelOptions(threads)),
                      ctypes.byref(h), not_found="no kernel '%s' is declared" % name,
                      bad_input="the kernel cannot run under the runtime's limits")
        self.name, self._program = name, program
        self._run_lock = threading.Lock()  # a mapc_kernel takes one call at a time
        self.operand_bytes = tuple(lib.mapc_kernel_operand_bytes(h, i) for i in range(3))
        try:
            with program._pin():  # registered while the program is open, so that closing it closes this first
                self._h = h
                program._children.add(self)
        except ValueError:
            lib.mapc_kernel_free(h)
            raise

    def _free(self, handle):
        lib.mapc_kernel_free(handle)

    def run(self, a, b, c, alpha=1.0, beta=0.0):
        """Runs the kernel: c is overwritten with alpha*a*b + beta*c (c read only when beta != 0). Each
        buffer holds exactly operand_bytes[i] bytes; c must be writable. Returns c."""
        alpha, beta = _convert.real(alpha, "alpha"), _convert.real(beta, "beta")
        with self._pin() as h, self._run_lock:
            pa, ka = _pointer(a, self.operand_bytes[0], False, "A")
            pb, kb = _pointer(b, self.operand_bytes[1], False, "B")
            pc, kc = _pointer(c, self.operand_bytes[2], True, "C")
            st = lib.mapc_kernel_run(h, pa, pb, pc, alpha, beta)
            del ka, kb, kc
            error = lib.mapc_kernel_error(h).decode() if st != OK else None
        if st != OK:
            raise status_error(st, "run %s" % self.name, (), error or None)
        return c
