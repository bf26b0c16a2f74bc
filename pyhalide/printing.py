"""Halide's `hl.print(value, ...)` and `hl.print_when(cond, value, ...)`:
Exprs whose value is `value` and which print all their arguments (strings as
they are, numbers as Halide prints them: float32 as %f, float64 as %e, bool
as true/false), separated by spaces, each time the compiled code evaluates
them (print_when: where `cond` holds), on stdout. The compiled code calls
back into Python through the trace hook (pyhalide/tracing.py); the
arguments' kinds travel in the intrinsic's name."""
from __future__ import annotations

import json

from . import ir
from .expr import Expr, to_node


def _parts(args) -> tuple:
    """(format parts, Expr nodes): a part is a string or the type of the next node."""
    parts, nodes = [], []
    for a in args:
        if isinstance(a, str):
            parts.append(["s", a])
        else:
            n = to_node(a)
            if n.type.lanes != 1:
                raise TypeError("print() takes scalar Exprs")
            parts.append(["v", str(n.type)])
            nodes.append(n)
    return parts, nodes


def _call(event: str, cond, args) -> Expr:
    from .tracing import ensure_hook, intrinsic_name
    if not args or isinstance(args[0], str):
        raise TypeError("the first argument of print()/print_when() must be an Expr or a "
                        "number: it is the value the print gives (as in Halide)")
    parts, nodes = _parts(args)
    if cond is not None:
        if isinstance(cond, bool):
            raise ValueError("print_when's condition is a Python bool: Python's `and`, `or` "
                             "and `not` cannot be converted to a bool Expr; use &, | and ~")
        c = to_node(cond)
        if not c.type.is_bool():
            raise TypeError(f"print_when's condition must be a bool Expr, not {c.type}")
        nodes.append(c)
    ensure_hook()
    name = intrinsic_name(event, 0, json.dumps(parts, separators=(",", ":")))
    return Expr.wrap(ir.Call(nodes[0].type, name, (nodes[0],) + tuple(nodes), ir.INTRINSIC))


def print_(*args) -> Expr:
    return _call("print", None, args)


def print_when(cond, *args) -> Expr:
    return _call("print_when", cond, args)


print = print_        # hl.print (the name Halide's bindings use)
