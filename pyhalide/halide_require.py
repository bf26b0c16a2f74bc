"""Halide 21's require(cond, value, *msg): `value`, and a RuntimeError
"Requirement Failed: (false) value msg..." (Halide's text; Halide raises its
HalideError) when the compiled code computes it with `cond` false
(lowering/require_checks.py places the check). The message is strings and
scalar Exprs (printed with their values).
"""
from __future__ import annotations

from . import ir
from .expr import Expr, to_node

__all__ = ["require"]


def require(cond, value, *msg) -> Expr:
    from .ir.requirements import PREFIX
    if isinstance(cond, bool):
        raise ValueError("require's condition is a Python bool: use a bool Expr (&, |, ~)")
    c = to_node(cond)
    if not c.type.is_bool():
        raise TypeError(f"require's condition must be a bool Expr, not {c.type}")
    v = to_node(value)
    text, args = [], []
    for m in msg:
        if isinstance(m, str):
            text.append(m.replace("{", "{{").replace("}", "}}"))
        else:
            n = to_node(m)
            if n.type.lanes != 1:
                raise TypeError("require's message takes scalar Exprs")
            text.append("{}")
            args.append(n)
    name = PREFIX + " ".join(text)
    return Expr.wrap(ir.Call(v.type, name, (c, v, *args), ir.INTRINSIC))
