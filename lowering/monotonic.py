"""Whether an integer expression never decreases as one variable grows
(assuming no overflow, as bounds inference does)."""
from __future__ import annotations

from pyhalide import ir


def _direction(e, var: str) -> int | None:
    """+1 non-decreasing, -1 non-increasing, 0 independent, None unknown."""
    if isinstance(e, ir.Const):
        return 0
    if isinstance(e, ir.Variable):
        return 1 if e.name == var else 0
    if var not in ir.free_vars(e):
        return 0
    if isinstance(e, (ir.Add, ir.Min, ir.Max)):
        return _combine(_direction(e.a, var), _direction(e.b, var))
    if isinstance(e, ir.Sub):
        b = _direction(e.b, var)
        return _combine(_direction(e.a, var), None if b is None else -b)
    if isinstance(e, (ir.Mul, ir.Div)) and isinstance(e.b, ir.Const):
        a = _direction(e.a, var)
        if a is None or e.b.value == 0:
            return 0 if e.b.value == 0 else None
        return a if e.b.value > 0 else -a
    if isinstance(e, ir.Mul) and isinstance(e.a, ir.Const):
        b = _direction(e.b, var)
        return None if b is None else (b if e.a.value >= 0 else -b)
    if isinstance(e, ir.Cast) and e.type.is_integer() and e.type.bits >= e.value.type.bits:
        return _direction(e.value, var)
    return None


def _combine(a, b):
    if a is None or b is None:
        return None
    if a == 0:
        return b
    if b == 0 or a == b:
        return a
    return None


def non_decreasing(e: ir.Expr, var: str) -> bool:
    return _direction(e, var) in (0, 1)


def _unclamp(e, var: str, upper: bool):
    """An expression bounding e from the given side (an upper bound of e if
    `upper`, else a lower bound) with the clamps against bounds independent of
    var removed where that keeps it a bound: min(a, c) <= a and
    max(a, c) >= a. None where no such bound is found (a max on the upper
    side, or a min on the lower side, widens the interval)."""
    if isinstance(e, (ir.Min, ir.Max)):
        keeps = isinstance(e, ir.Min) if upper else isinstance(e, ir.Max)
        for a, b in ((e.a, e.b), (e.b, e.a)):
            if var not in ir.free_vars(b):
                return _unclamp(a, var, upper) if keeps else None
        return None
    if isinstance(e, ir.Add) and isinstance(e.b, ir.Const):
        inner = _unclamp(e.a, var, upper)
        return None if inner is None else ir.Add(inner, e.b)
    if isinstance(e, ir.Sub) and isinstance(e.b, ir.Const):
        inner = _unclamp(e.a, var, upper)
        return None if inner is None else ir.Sub(inner, e.b)
    return e


def window_span(lo: ir.Expr, hi: ir.Expr, var: str):
    """A constant upper bound on hi - lo + 1 for every value of var, or None."""
    from .linear import constant_difference
    h, l = _unclamp(hi, var, True), _unclamp(lo, var, False)
    if h is None or l is None:
        return None
    d = constant_difference(h, l)
    return None if d is None or d < 0 else d + 1
