"""_convert.py — the checked conversion of every argument that crosses the binding into libmapc: integers
range-checked before ctypes sees them (ctypes wraps an out-of-range int silently), reals and names refused
when they are not one, each refusal with the message the mapc command gives for the same input."""

import operator

# The C integer types the binding passes, as (lowest, highest).
U64 = (0, 2**64 - 1)
I64 = (-2**63, 2**63 - 1)
INT = (-2**31, 2**31 - 1)


def _is_bool(value):
    """Whether value is a bool or numpy's (which an int or float parameter refuses rather than read as 0 or 1)."""
    return isinstance(value, bool) or type(value).__name__ in ("bool_", "bool")


def integer(value, what, bounds, message, domain=None):
    """value as a Python int for a C integer of bounds (U64, I64, INT). Integers are ints and what has
    __index__ (numpy integers), never bool; anything else (a float, a str, None) is a TypeError "WHAT must be
    an integer, not TYPE". Outside bounds an OverflowError, outside domain (a narrower (lowest, highest),
    None: bounds) a ValueError, both with message, a format of {value} (the int) and {what}."""
    if _is_bool(value):
        raise TypeError("%s must be an integer, not %s" % (what, type(value).__name__))
    try:
        n = operator.index(value)
    except TypeError:
        raise TypeError("%s must be an integer, not %s" % (what, type(value).__name__)) from None
    if not bounds[0] <= n <= bounds[1]:
        raise OverflowError(message.format(value=n, what=what))
    if domain and not domain[0] <= n <= domain[1]:
        raise ValueError(message.format(value=n, what=what))
    return n


def position(value, what="position"):
    """A buffer position (uint64_t), refused as `mapc eval` refuses one."""
    return integer(value, what, U64, "{what} '{value}' is not a 64-bit number (decimal or 0x hex)")


def threads(value):
    """A kernel's thread count, 1 to 1024 as `mapc run --threads` takes."""
    return integer(value, "threads", INT, "threads takes 1 to 1024, not {value}", (1, 1024))


def real(value, what):
    """value as a float for a C double: ints and reals (what has __float__, never bool, str or complex); a TypeError
    otherwise, an OverflowError for an int too large for a double, with the library's message."""
    if _is_bool(value) or isinstance(value, (str, bytes, bytearray, complex)) or not hasattr(value, "__float__"):
        raise TypeError("%s must be a real number, not %s" % (what, type(value).__name__))
    try:
        return float(value)
    except OverflowError:
        raise OverflowError("%s (%d) must be finite and within the range of f32" % (what, value)) from None


def text(value, what="a name"):
    """value (str or bytes) as NUL-terminated bytes for a char * argument: a TypeError for another type, a
    ValueError when it holds a NUL character (C would read only up to it)."""
    if isinstance(value, str):
        data = value.encode()
    elif isinstance(value, (bytes, bytearray)):
        data = bytes(value)
    else:
        raise TypeError("%s must be a str or bytes, not %s" % (what, type(value).__name__))
    if b"\0" in data:
        raise ValueError("%s contains a NUL character: %r" % (what, value))
    return data
