"""Hand-written operators: forms outside the enumeration grammar (widening
casts, type-maximum constants, NaN tests, literal constants, tuples of mixed
types or of more than two elements) and operators too large to enumerate.

They are written in the export syntax (see syntax.py) and go through the same
proofs as enumerated ones; `operators(t)` instantiates those that belong to
the table of value type `t`. Argmin/argmax carry an index element of type
int32 or int64 (INDEX_TYPES), in value-first and index-first tuple orders.
"""
from __future__ import annotations

from pyhalide import ir

from .grammar import variables
from .syntax import parse_expr, type_name

INDEX_TYPES = (ir.Int(32), ir.Int(64))

# (value comparison that picks the new value's index, True if it compares x to y)
_ARGMIN_PICKS = [("x0 < y0", "x1", "y1"), ("x0 <= y0", "x1", "y1"),
                 ("x0 > y0", "y1", "x1"), ("x0 >= y0", "y1", "x1")]
_ARGMAX_PICKS = [("x0 > y0", "x1", "y1"), ("x0 >= y0", "x1", "y1"),
                 ("x0 < y0", "y1", "x1"), ("x0 <= y0", "y1", "x1")]


def _swap_elements(text: str) -> str:
    """Rename x0<->x1 and y0<->y1 (to write the index-first order)."""
    for a, b in (("x0", "@x"), ("x1", "x0"), ("@x", "x1"), ("y0", "@y"), ("y1", "y0"), ("@y", "y1")):
        text = text.replace(a, b)
    return text


def _arg_extrema(v: ir.Type) -> list:
    out = []
    for idx in INDEX_TYPES:
        for fn, picks in (("min", _ARGMIN_PICKS), ("max", _ARGMAX_PICKS)):
            for cond, keep, new in picks:
                ops = [f"{fn}(x0, y0)", f"select({cond}, {keep}, {new})"]
                out.append(((v, idx), ops))
                out.append(((idx, v), [_swap_elements(o) for o in reversed(ops)]))
            # lexicographic: ties keep the smaller index (commutative, two-sided)
            strict = "x0 < y0" if fn == "min" else "x0 > y0"
            rev = "y0 < x0" if fn == "min" else "y0 > x0"
            out.append(((v, idx), [f"{fn}(x0, y0)",
                                   f"select({strict}, x1, select({rev}, y1, min(x1, y1)))"]))
    return out


def _complex_mul(v: ir.Type) -> list:
    return [((v, v), ["x0 * y0 - x1 * y1", "x0 * y1 + x1 * y0"]),
            ((v, v), ["y0 * x0 - y1 * x1", "y0 * x1 + y1 * x0"])]


def _quaternion_mul(v: ir.Type) -> list:
    return [((v,) * 4, ["x0 * y0 - x1 * y1 - x2 * y2 - x3 * y3",
                        "x0 * y1 + x1 * y0 + x2 * y3 - x3 * y2",
                        "x0 * y2 - x1 * y3 + x2 * y0 + x3 * y1",
                        "x0 * y3 + x1 * y2 - x2 * y1 + x3 * y0"])]


def _saturating_add(v: ir.Type) -> list:
    top = v.max_value()
    out = [((v,), [f"select(x0 + y0 < x0, {top}, x0 + y0)"]),
           ((v,), [f"select(x0 > {top} - y0, {top}, x0 + y0)"])]
    if v.bits < 64:
        w = type_name(ir.UInt(2 * v.bits))
        out.append(((v,), [f"{type_name(v)}(min({w}(x0) + {w}(y0), {top}))"]))
    return out


def _wide_add(v: ir.Type) -> list:
    """Add of a double-width unsigned number held as {low, high} words."""
    return [((v, v), ["x0 + y0", "x1 + y1 + select(x0 + y0 < x0, 1, 0)"])]


def _nan_propagating(v: ir.Type) -> list:
    out = []
    for fn, cmp in (("max", ">"), ("min", "<")):
        out.append(((v,), [f"select(is_nan(x0), x0, select(is_nan(y0), y0, {fn}(x0, y0)))"]))
        out.append(((v,), [f"select(x0 {cmp} y0 or is_nan(x0), x0, y0)"]))
    return out


def _sources(v: ir.Type) -> list:
    out = []
    if v.is_bool():
        return out
    out += [((v,), ["x0 + y0 + k0 * x0 * y0"])]
    out += _arg_extrema(v) + _complex_mul(v)
    if v.is_float():
        # (over wrapping integers it is associative too, but Z3 cannot refute
        # its commutativity over 64-bit bit-vectors within the resource limit)
        out += _quaternion_mul(v)
    if v.is_uint():
        out += _saturating_add(v) + _wide_add(v)
    if v.is_float():
        out += _nan_propagating(v)
    return out


def operators(v: ir.Type) -> list:
    """[(types, ops)] of the hand-written operators of value type `v`, ops as IR."""
    out = []
    for types, texts in _sources(v):
        names = variables(types)
        out.append((types, tuple(parse_expr(s, names, t) for s, t in zip(texts, types))))
    return out
