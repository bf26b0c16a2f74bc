"""An access index's interval, tightened by the interval of its simplified form.

Interval arithmetic takes an index term by term, so a variable that cancels
(`j - i + i`, or the merged second loop of `for j in range(i): ...; for j in
range(i, n): ...`, read at `i + (x - max(0, i))`) widens the interval by its
range once per occurrence. The same values, written after
- each min/max whose operands' intervals are ordered over the scope replaced
  by the operand it picks (`max(0, i)` is i where i >= 0), then
- exact simplification (`i + (x - i)` is x),
have an interval of their own. Both intervals hold every value the index
takes, so their intersection does too: the result is never wider than the
interval of the index as written (replacing one form by the other was
tried in session 22 and widened other indices, `max(j - k, 0) + r` ->
`max(j - k + r, r)`)."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.mutator import Mutator

from .interval import BoundsOf, Interval
from .simplify import simplify


def _s(e):
    return simplify(e, assume_no_overflow=True)


def _true(cond) -> bool:
    c = _s(cond)
    return isinstance(c, ir.Const) and bool(c.value)


class _PickOrdered(Mutator):
    """Replaces min/max of two integer operands whose intervals (under
    `bounds`) are ordered by the operand it always picks. Reads and lets are
    left as they are (a let's body sees names the scope does not bound)."""

    def __init__(self, bounds: BoundsOf):
        super().__init__()
        self.bounds = bounds

    def visit_Let(self, n):
        return n

    def visit_Load(self, n):
        return n

    def visit_Call(self, n):
        return n

    def _pick(self, n, is_min: bool):
        n = self.mutate_children(n)
        if not (n.type.is_scalar() and n.type.is_integer()):
            return n
        a, b = self.bounds(n.a), self.bounds(n.b)
        # a <= b everywhere: min picks a, max picks b (and the other way round)
        if a.hi is not None and b.lo is not None and _true(ir.LE(a.hi, b.lo)):
            return n.a if is_min else n.b
        if b.hi is not None and a.lo is not None and _true(ir.LE(b.hi, a.lo)):
            return n.b if is_min else n.a
        return n

    def visit_Min(self, n):
        return self._pick(n, True)

    def visit_Max(self, n):
        return self._pick(n, False)


def _tighter(x, xd, y, yd, upper: bool):
    """The tighter of two bounds of the same values (None: unbounded), with
    its data flag; a bound from a data value's type range gives way to one
    that is not (as interval.BoundsOf._minmax)."""
    if x is None:
        return y, yd
    if y is None:
        return x, xd
    if xd != yd:
        return (y, yd) if xd else (x, xd)
    if _true(ir.LE(x, y)):
        return (x, xd) if upper else (y, yd)
    if _true(ir.LE(y, x)):
        return (y, yd) if upper else (x, xd)
    return _s((ir.Min if upper else ir.Max)(x, y)), xd


def tightened_bounds(bounds: BoundsOf, e: ir.Expr, iv: Interval) -> Interval:
    """iv (the interval of e under `bounds`), intersected with the interval
    of e's rewritten form (module doc) where that form differs. The form's
    interval records its int32 obligations (BoundsOf.obligations) in
    `bounds` only where the result uses one of its ends."""
    if not (e.type.is_scalar() and e.type.is_integer()) or isinstance(e, (ir.Variable, ir.Const)):
        return iv
    own = BoundsOf(bounds.scope, [], bounds.facts)
    own.narrowing = bounds.narrowing
    alt = _s(_PickOrdered(own).mutate(e))
    if ir.equal(alt, e):
        return iv
    other = own(alt)
    lo, lo_d = _tighter(iv.lo, iv.lo_data, other.lo, other.lo_data, False)
    hi, hi_d = _tighter(iv.hi, iv.hi_data, other.hi, other.hi_data, True)
    if lo is iv.lo and hi is iv.hi:
        return iv
    bounds.obligations.extend(own.obligations)
    return Interval(lo, hi, lo_d, hi_d)
