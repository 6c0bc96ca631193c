"""errors.py — the exceptions of the binding: one per mapc_status, carrying the library's message and the
diagnostics (FILE:LINE:COL: error: MESSAGE, the source line and a caret) of the failed call."""

from ._lib import lib

OK, ERR_INPUT, ERR_ARGUMENT, ERR_NOT_FOUND, ERR_UNDECIDED, ERR_IO, ERR_NOMEM, ERR_BACKEND = range(8)


class MapcError(Exception):
    """A call into libmapc failed: .status (the mapc_status), .diagnostics (the texts the call added to
    the program, perhaps none); str() is the message followed by the diagnostics."""

    def __init__(self, status, message, diagnostics=()):
        self.status = status
        self.message = message
        self.diagnostics = list(diagnostics)
        text = message
        if self.diagnostics:
            text += "\n" + "".join(self.diagnostics).rstrip("\n")
        super().__init__(text)


class CompileError(MapcError):
    """The program (or an inline m![...] or i![...] given to a call) has errors: see .diagnostics."""


class NotFoundError(MapcError, LookupError):
    """No type, tensor, kernel or function of that name."""


class ArgumentError(MapcError, ValueError):
    """An argument is out of range (a bad scalar, a wrong buffer, an index on a foreign axis)."""


class UndecidedError(MapcError):
    """A decision exceeded its budget."""


class BackendError(MapcError):
    """Code generation or a kernel run failed."""


_CLASSES = {ERR_INPUT: CompileError, ERR_ARGUMENT: ArgumentError, ERR_NOT_FOUND: NotFoundError,
            ERR_UNDECIDED: UndecidedError, ERR_IO: OSError, ERR_NOMEM: MemoryError, ERR_BACKEND: BackendError}


def status_error(status, what, diagnostics=(), detail=None):
    """The exception for a failed status: "WHAT: DETAIL", DETAIL by default the status's description (an
    OSError or MemoryError for those statuses, a MapcError subclass otherwise)."""
    message = "%s: %s" % (what, detail or lib.mapc_status_string(status).decode())
    cls = _CLASSES.get(status, MapcError)
    if cls is OSError or cls is MemoryError:
        return cls(message + "".join("\n" + d.rstrip("\n") for d in diagnostics))
    return cls(status, message, diagnostics)
