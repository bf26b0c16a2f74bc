"""Tuples as local values: concatenation (`t + (x,)`), repetition by a
constant (`t * 2`) and slices with constant bounds (`t[1:]`), as in Python.
(Packing, unpacking, len() and constant indices are in the interpreter.)"""
from __future__ import annotations

import ast

from .values import TupleVal, Val


def binary(cx, op: str, a, b, node):
    """a op b where a or b is a tuple."""
    if op == "+" and isinstance(a, TupleVal) and isinstance(b, TupleVal):
        return TupleVal(list(a.items) + list(b.items))
    if op == "*":
        t, k = (a, b) if isinstance(a, TupleVal) else (b, a)
        if isinstance(t, TupleVal) and isinstance(k, Val) and k.is_const and \
                isinstance(k.const, int) and (k.ty.is_int() or k.ty.is_bool()):
            return TupleVal(list(t.items) * int(k.const))
        if isinstance(k, Val) and (k.ty.is_int() or k.ty.is_bool()):
            raise cx.err(node, "a tuple can be repeated only a constant number of times",
                         hint="write the count as a literal")
    what = "tuple" if isinstance(a, TupleVal) else "a scalar"
    other = "tuple" if isinstance(b, TupleVal) else "a scalar"
    raise cx.err(node, f"unsupported operand types for {op}: {what} and {other}",
                 hint="tuples support + (another tuple), * (a constant), len() and "
                      "constant indices")


def slice_of(ev_val, cx, t: TupleVal, sl: ast.Slice):
    """t[lower:upper:step] with constant bounds (ev_val evaluates them)."""
    parts = []
    for e in (sl.lower, sl.upper, sl.step):
        if e is None:
            parts.append(None)
            continue
        v = ev_val(e)
        if not v.is_const or not isinstance(v.const, int):
            raise cx.err(e, "a tuple slice needs constant bounds",
                         hint="write the bounds as literals")
        parts.append(int(v.const))
    if parts[2] == 0:
        raise cx.err(sl, "slice step cannot be zero")
    return TupleVal(list(t.items)[slice(*parts)])
