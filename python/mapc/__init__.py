"""mapc — Python binding of libmapc (ctypes, no compiled extension): compile mapping programs, interpret
and compare their mappings, normal forms, where tensors hold indices, drawings, JIT-compiled layout
functions and declared GEMM kernels run on numpy arrays or buffers.

    import mapc
    prog = mapc.compile("axes![A = 8, B = 4]; type R = m![A, B];")
    prog.eval("R", 5)            # Cell({A:1, B:1})

The library is $MAPC_LIBRARY, else one next to this package, else the installed one, else a build tree
of the source tree, else the system's (see _lib.find_library)."""

from ._lib import find_library, lib
from .errors import (ArgumentError, BackendError, CompileError, MapcError, NotFoundError, UndecidedError)
from .jit import Jit
from .kernel import Kernel
from .movement import Dma, MovementError, Sequence, dma_cost
from .program import KINDS, Cell, Counterexample, Place, Program, compile, compile_file

__version__ = lib.mapc_version().decode()
has_draw = hasattr(lib, "mapc_draw")

__all__ = ["ArgumentError", "BackendError", "Cell", "CompileError", "Counterexample", "Dma", "Jit", "KINDS", "Kernel",
           "MapcError", "MovementError", "Sequence", "dma_cost", "NotFoundError", "Place", "Program", "UndecidedError", "compile", "compile_file",
           "find_library", "has_draw"]
