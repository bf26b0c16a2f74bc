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


def _unclamp(e, var: str):
    """e without min/max clamps against bounds that do not depend on var
    (clamping only narrows an interval)."""
    if isinstance(e, (ir.Min, ir.Max)):
        if var not in ir.free_vars(e.b):
            return _unclamp(e.a, var)
        if var not in ir.free_vars(e.a):
            return _unclamp(e.b, var)
    if isinstance(e, ir.Add) and isinstance(e.b, ir.Const):
        return ir.Add(_unclamp(e.a, var), e.b)
    if isinstance(e, ir.Sub) and isinstance(e.b, ir.Const):
        return ir.Sub(_unclamp(e.a, var), e.b)
    return e


def window_span(lo: ir.Expr, hi: ir.Expr, var: str):
    """A constant upper bound on hi - lo + 1 for every value of var, or None."""
    from .linear import constant_difference
    d = constant_difference(_unclamp(hi, var), _unclamp(lo, var))
    return None if d is None or d < 0 else d + 1
