"""Exact evaluation of IR operators on Python constants, with the compiler's
semantics: wrapping integers, Euclidean division and modulo (x/0 == 0),
IEEE floats in their own width, saturating float->int casts."""
from __future__ import annotations

import math

import numpy as np

from pyhalide import ir


def euclid_div(a: int, b: int) -> int:
    if b == 0:
        return 0
    q = a // b if b > 0 else -(a // -b)
    if a - q * b < 0:
        q += 1 if b < 0 else -1
    return q


def euclid_mod(a: int, b: int) -> int:
    if b == 0:
        return 0
    return a - euclid_div(a, b) * b


def _float(t: ir.Type, v: float) -> float:
    return float(np.float32(v)) if t.bits == 32 else float(v)


def cast_value(t: ir.Type, src: ir.Type, v):
    """Value of Cast(t, Const(src, v))."""
    if t.is_bool():
        return bool(v != 0)
    if t.is_float():
        if src.is_float() or src.is_bool():
            return _float(t, float(v))
        return ir.int_to_float(t, int(v))
    # to an integer type
    if src.is_float():
        if v != v:
            return 0
        if v == math.inf:
            return t.max_value()
        if v == -math.inf:
            return t.min_value()
        iv = int(v)
        return max(t.min_value(), min(t.max_value(), iv))
    return t.wrap(int(v))


def _fold_float(cls, t, a, b):
    with np.errstate(all="ignore"):
        ft = np.float32 if t.bits == 32 else np.float64
        x, y = ft(a), ft(b)
        if cls is ir.Add:
            return float(x + y)
        if cls is ir.Sub:
            return float(x - y)
        if cls is ir.Mul:
            return float(x * y)
        if cls is ir.Div:
            return float(x / y)
        if cls is ir.Mod:
            return float(x - y * np.floor(x / y))
    if cls is ir.Min:
        return a if a < b else b
    if cls is ir.Max:
        return a if a > b else b
    return None


def _fold_int(cls, t, a, b):
    bits = t.bits
    if cls is ir.Add:
        return t.wrap(a + b)
    if cls is ir.Sub:
        return t.wrap(a - b)
    if cls is ir.Mul:
        return t.wrap(a * b)
    if cls is ir.Div:
        return t.wrap(euclid_div(a, b))
    if cls is ir.Mod:
        return t.wrap(euclid_mod(a, b))
    if cls is ir.Min:
        return min(a, b)
    if cls is ir.Max:
        return max(a, b)
    if cls is ir.BitAnd:
        return t.wrap(a & b)
    if cls is ir.BitOr:
        return t.wrap(a | b)
    if cls is ir.BitXor:
        return t.wrap(a ^ b)
    if cls is ir.Shl:
        return 0 if b < 0 or b >= bits else t.wrap(a << b)
    if cls is ir.Shr:
        if b < 0 or b >= bits:
            return -1 if a < 0 else 0
        return a >> b
    return None


_COMPARE = {ir.EQ: lambda a, b: a == b, ir.NE: lambda a, b: a != b,
            ir.LT: lambda a, b: a < b, ir.LE: lambda a, b: a <= b,
            ir.GT: lambda a, b: a > b, ir.GE: lambda a, b: a >= b}


def fold_binary(cls, a: ir.Const, b: ir.Const):
    """Const result of `cls(a, b)`, or None if it is not foldable."""
    t = a.type
    if cls in _COMPARE:
        return ir.Const(ir.Bool(), _COMPARE[cls](a.value, b.value))
    if cls is ir.And:
        return ir.Const(t, a.value and b.value)
    if cls is ir.Or:
        return ir.Const(t, a.value or b.value)
    if t.is_float():
        v = _fold_float(cls, t, a.value, b.value)
    elif t.is_bool():
        v = None
    else:
        v = _fold_int(cls, t, a.value, b.value)
    return None if v is None else ir.Const(t, v)
