"""Marks on the exceptions that are limits of the compiled code, not
failures Python has (NotImplementedError of a case not built, OverflowError
of int32 loop bounds): Python would run the call to its end. Where
check_order.raise_first runs a prefix of the function on the caller's own
arrays to find an earlier Python failure and finds none, the marked
exception is raised with the arrays as they were before (arg_snapshots)."""
from __future__ import annotations

_LIMIT = "_pyhalide_limit"


def limit(e: BaseException) -> BaseException:
    """e, marked as a limit of the compiled code."""
    setattr(e, _LIMIT, True)
    return e


def is_limit(e: BaseException) -> bool:
    return getattr(e, _LIMIT, False) is True


def int_text(v: int) -> str:
    """An int in a limit's message: its digits, or its size where Python
    refuses to convert it to a string (sys.get_int_max_str_digits: a
    ValueError in place of the limit's own exception)."""
    if v.bit_length() <= 1000:
        return str(v)
    return f"{'-' if v < 0 else ''}<an int of {v.bit_length()} bits>"
