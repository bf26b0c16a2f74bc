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
    d = None if h is None or l is None else constant_difference(h, l)
    if d is None or d < 0:
        return offset_span(lo, hi, var)
    return d + 1


def offset_span(lo: ir.Expr, hi: ir.Expr, var: str):
    """A constant upper bound on hi - lo + 1 for every value of var (and of
    the other names), or None, from bounds `lo >= var + K1` and
    `hi <= var + K2` where the terms free of var are bounded by constants
    (a NumPy slice's start clamped to the array: `var + min(max(E - 1, 0), 2)`
    lies in [var, var + 2])."""
    a, b = _offset(hi, var, True), _offset(lo, var, False)
    if a is None or b is None or a - b < 0:
        return None
    return a - b + 1


def _offset(e, var: str, upper: bool):
    """K with e <= var + K (upper) or e >= var + K (lower), or None."""
    if isinstance(e, ir.Variable) and e.name == var:
        return 0
    if isinstance(e, ir.Cast) and e.type.is_integer() and e.type.bits >= e.value.type.bits:
        return _offset(e.value, var, upper)
    if isinstance(e, (ir.Add, ir.Sub)):
        sign = 1 if isinstance(e, ir.Add) else -1
        if var in ir.free_vars(e.b):
            if sign < 0 or var in ir.free_vars(e.a):
                return None
            e = ir.Add(e.b, e.a)
        k = _offset(e.a, var, upper)
        r = _const_range(e.b)
        side = r[1] if (upper == (sign > 0)) else r[0]
        return None if k is None or side is None else k + sign * side
    if isinstance(e, (ir.Min, ir.Max)):
        ks = [_offset(x, var, upper) if var in ir.free_vars(x) else None for x in (e.a, e.b)]
        loose = isinstance(e, ir.Min) == upper      # min(a, b) <= a: either side bounds it
        if loose:
            known = [k for k in ks if k is not None]
            return (min(known) if upper else max(known)) if known else None
        if None in ks:
            return None
        return max(ks) if upper else min(ks)
    if isinstance(e, ir.Select):
        ks = [_offset(x, var, upper) for x in (e.true_value, e.false_value)]
        return None if None in ks else (max(ks) if upper else min(ks))
    return None


def _const_range(e):
    """(lo, hi) constant bounds of an integer expression (None: unbounded)."""
    if isinstance(e, ir.Const):
        return e.value, e.value
    if isinstance(e, ir.Cast) and e.type.is_integer() and e.type.bits >= e.value.type.bits:
        return _const_range(e.value)
    if isinstance(e, (ir.Min, ir.Max)):
        (alo, ahi), (blo, bhi) = _const_range(e.a), _const_range(e.b)
        if isinstance(e, ir.Min):
            lo = None if alo is None or blo is None else min(alo, blo)
            hi = bhi if ahi is None else ahi if bhi is None else min(ahi, bhi)
        else:
            lo = blo if alo is None else alo if blo is None else max(alo, blo)
            hi = None if ahi is None or bhi is None else max(ahi, bhi)
        return lo, hi
    if isinstance(e, (ir.Add, ir.Sub)):
        (alo, ahi), (blo, bhi) = _const_range(e.a), _const_range(e.b)
        if isinstance(e, ir.Sub):
            blo, bhi = (None if bhi is None else -bhi), (None if blo is None else -blo)
        lo = None if alo is None or blo is None else alo + blo
        hi = None if ahi is None or bhi is None else ahi + bhi
        return lo, hi
    return None, None
