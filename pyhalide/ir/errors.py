"""The compiler's exception for invalid algorithms and schedules. It lives in
the IR layer so that every layer can raise it; `pyhalide.CompileError` is the
same class, a subclass of `pyhalide.HalideError`."""
from __future__ import annotations


class HalideError(Exception):
    """Base of pyhalide's own errors (Halide's hl.HalideError)."""


class CompileError(HalideError):
    """An invalid algorithm or schedule. The message names the Func, stage or
    variable at fault and, where known, the user's source line."""


class InPlaceRefused(Exception):
    """The in-place variant of a kernel (lowering/in_place.py) does not
    apply to it: the caller compiles and runs the copying kernel instead.
    Not a HalideError: it never reaches the user."""


# the error name and message of an in-place kernel's hoisted loop checks
# (lowering/in_place_checks.py): no builtin exception has the name, so the
# kernel raises RuntimeError with the message, having stored nothing; the
# caller then computes the call on a copy (is_in_place_fallback)
IN_PLACE_FALLBACK = "PyhalideInPlaceFallback"
IN_PLACE_FALLBACK_MESSAGE = "pyhalide: the in-place kernel's loop checks do not hold over its loops"


def is_in_place_fallback(e: BaseException) -> bool:
    """Whether e is the failure of an in-place kernel's hoisted checks."""
    return type(e) is RuntimeError and str(e) == IN_PLACE_FALLBACK_MESSAGE


def counted(n: int, noun: str) -> str:
    """`1 dimension`, `2 dimensions`: a count for a message."""
    return f"{n} {noun}" + ("" if n == 1 else "s")
