"""Tuples as local values: concatenation (`t + (x,)`), repetition by a
constant (`t * 2`), slices with constant bounds (`t[1:]`) and items at a
computed index (`t[i]`, as in `for s in a.shape`), as in Python.
(Packing, unpacking, len() and constant indices are in the interpreter.)"""
from __future__ import annotations

import ast

from . import ops
from .values import TupleVal, Val, const_val


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


def item_at(cx, t: TupleVal, k: Val, node):
    """t[k] for an integer k known only at run time: IndexError outside
    [-len, len), as Python; the item chosen by conditional expressions."""
    items = list(t.items)
    if not all(isinstance(v, Val) for v in items):
        raise cx.err(node, "a tuple holding arrays or tuples can be indexed only by a constant",
                     hint="write the index as a literal")
    if not (k.ty.is_int() or k.ty.is_bool()) or k.union:
        raise cx.err(node, "tuple indices must be integers")
    if not items:
        raise cx.err(node, "tuple index out of range")
    n = const_val(len(items))
    k = ops.to_python_int(cx, k)
    idx = ops.select(cx, cx.compare("<", k, const_val(0)), ops.binary(cx, "+", k, n), k)
    ok = ops.truth(cx, cx.logical_and(cx.compare(">=", idx, const_val(0)),
                                      cx.compare("<", idx, n)))
    if not (ok.is_const and ok.const):
        idx = cx.guard(idx, ops.node_of(cx, ok), "IndexError", "tuple index out of range")
    out = items[-1]
    for j in range(len(items) - 2, -1, -1):
        out = ops.select(cx, cx.compare("==", idx, const_val(j)), items[j], out)
    return out
