"""Halide's require(cond, value, *msg) in the IR: an intrinsic Call named
PREFIX + the message format; message_of gives the failure's text. Shared by
the frontend's halide_require, lowering's require_checks and the reference
evaluator (which import nothing of one another)."""
from __future__ import annotations

from . import nodes as N

PREFIX = "require:"


def message_of(call: N.Call) -> str:
    """The AssertStmt message, Halide's: the (failed) condition, the value and
    the message, space-separated (a format string: {} for the value and for
    each message Expr)."""
    return "Requirement Failed: (false) {} " + call.name[len(PREFIX):]
