"""mapc — Python binding of libmapc (ctypes, no compiled extension): compile mapping programs, interpret
and compare their mappings, normal forms, where tensors hold indices, drawings, JIT-compiled layout
functions and declared GEMM kernels run on numpy arrays or buffers.

    import mapc
    prog = mapc.compile("axes![A = 8, B = 4]; type R = m![A, B];")
    prog.eval("R", 5)            # Cell({A:1, B:1})
    r = prog.types["R"]          # a Mapping: prints as m![A, B]
    r == prog.mapping("m![A / 1, B]")   # True: decided by the equivalence procedure

The library is $MAPC_LIBRARY, else one next to this package, else the installed one, else a build tree
of the source tree, else the system's (see _lib.find_library)."""

from ._lib import find_library, lib
from .errors import (ArgumentError, BackendError, CompileError, MapcError, NotFoundError, UndecidedError)
from .jit import Jit
from .kernel import Kernel
from .mapping import Cells, Mapping
from .movement import Dma, MovementError, Sequence, dma_cost
from .algebra import AlgebraError  # Program.compose, .complement, ...: the layout algebra
from .program import KINDS, Cell, Counterexample, Place, Program, compile, compile_file
from .interop import FORMATS as EXPORT_FORMATS  # Program.export, layouts of other systems

__version__ = lib.mapc_version().decode()
has_draw = hasattr(lib, "mapc_draw")

__all__ = ["AlgebraError", "ArgumentError", "BackendError", "Cell", "Cells", "CompileError", "Counterexample", "Jit", "KINDS", "Kernel",
           "Dma", "MovementError", "Sequence", "dma_cost",
           "Mapping", "MapcError", "NotFoundError", "Place", "Program", "UndecidedError", "compile", "compile_file",
           "find_library", "has_draw", "EXPORT_FORMATS"]
