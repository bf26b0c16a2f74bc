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


_I32, _I64 = ir.Int(32), ir.Int(64)


def _low32(e):
    """An int32 expression equal to the int64 e modulo 2**32 (e a sum,
    difference or product of int32 values widened and constants that fit
    int32: `int64(i) + 1` is i + 1), or None."""
    if isinstance(e, ir.Cast) and e.value.type == _I32:
        return e.value
    if isinstance(e, ir.Const):
        return ir.Const(_I32, e.value) if -2**31 <= e.value < 2**31 else None
    if isinstance(e, (ir.Add, ir.Sub, ir.Mul)):
        a, b = _low32(e.a), _low32(e.b)
        return None if a is None or b is None else type(e)(a, b)
    return None


class _Narrowed(Mutator):
    """int32(x) of an int64 x that _low32 writes in int32 replaced by that
    form: the same value (int32 arithmetic wraps as the cast does), which
    simplification can cancel (`int32(int64(i) + 1) - i` is 1)."""

    def visit_Cast(self, n):
        n = self.mutate_children(n)
        if n.type == _I32 and n.value.type == _I64:
            low = _low32(n.value)
            if low is not None:
                return low
        return n


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


def _isolated(a, b, names):
    """(x, other, x_is_low) for each RVar x (of `names`) that one side of
    `a <= b` (or a < b) is x plus or minus terms free of x: x itself on
    that side, `other` the other side moved over (`y + x < n`: x < n - y);
    x_is_low: x is on the low side (x <= other)."""
    out = []
    for side, far, low in ((b, a, False), (a, b, True)):
        if isinstance(side, ir.Variable):
            if side.name in names and side.type.is_integer():
                out.append((side, far, low))
            continue
        if not (side.type.is_scalar() and side.type.is_integer()):
            continue
        for name, v in ir.free_vars(side).items():
            if name not in names or v.type != side.type:
                continue
            k = _slope(side, v)
            if k not in (1, -1):
                continue
            rest = _s(ir.Sub(side, v) if k == 1 else ir.Add(side, v))
            if name in ir.free_vars(rest):
                continue
            # x + rest <= far: x <= far - rest; rest - x <= far: x >= rest - far
            moved = _s(ir.Sub(far, rest)) if k == 1 else _s(ir.Sub(rest, far))
            out.append((v, moved, low if k == 1 else not low))
    return out


def rvar_ranges(predicates, rvars) -> dict:
    """{RVar name: ([lower bounds], [upper bounds])} that the RDom predicates
    state directly (`y + 1 <= x`, `x < n`: x >= y + 1 and x <= n - 1; `y + x
    < n`: x <= n - y - 1), each bound free of that RVar and of memory
    reads."""
    names = {rv.name for rv in rvars}
    out: dict = {}
    stack = list(predicates)
    while stack:
        c = stack.pop()
        if isinstance(c, ir.And):
            stack += [c.a, c.b]
            continue
        if not isinstance(c, (ir.LE, ir.LT, ir.GE, ir.GT)):
            continue
        a, b = c.a, c.b
        if isinstance(c, (ir.GE, ir.GT)):
            a, b = b, a                 # a <= b (or a < b)
        strict = isinstance(c, (ir.LT, ir.GT))
        for x, other, x_is_low in _isolated(a, b, names):
            if x.name in ir.free_vars(other) or ir.reads_memory(other):
                continue
            one = ir.Const(other.type, 1)
            if x_is_low:                # x <= other (- 1)
                out.setdefault(x.name, ([], []))[1].append(_s(ir.Sub(other, one)) if strict
                                                             else other)
            else:                       # other (+ 1) <= x
                out.setdefault(x.name, ([], []))[0].append(_s(ir.Add(other, one)) if strict
                                                             else other)
    return out


def _slope(e, x: ir.Variable):
    """e's constant change when x grows by one (None: not such)."""
    d = _s(ir.Sub(ir.substitute(e, {x.name: ir.Add(x, ir.Const(x.type, 1))}), e))
    return d.value if isinstance(d, ir.Const) and d.type.is_integer() else None


def _at_ends(own: BoundsOf, e, ranges: dict):
    """(lower, upper) bounds of e from each RVar it is monotone in: e at
    that RVar's bounds (`x - y` with x >= y + 1 is >= 1), bounded over the
    rest of the scope. [] where none."""
    lows, highs = [], []
    for name, v in ir.free_vars(e).items():
        r = ranges.get(name)
        k = None if r is None else _slope(e, v)
        if not k:
            continue
        # (increasing: the lower ends bound e below, the upper ends above)
        for ends, upper in ((r[0], k < 0), (r[1], k > 0)):
            for end in ends:
                iv = own(_s(_Narrowed().mutate(ir.substitute(e, {name: end}))))
                b = iv.hi if upper else iv.lo
                if b is not None:
                    (highs if upper else lows).append((b, iv.hi_data if upper else iv.lo_data))
    return lows, highs


def tightened_bounds(bounds: BoundsOf, e: ir.Expr, iv: Interval, ranges=None) -> Interval:
    """iv (the interval of e under `bounds`), intersected with the interval
    of e's rewritten form (module doc) where that form differs, and, with
    `ranges` (rvar_ranges of the predicates known where e is evaluated),
    with e's bounds at the ends of the RVars it is monotone in. These
    intervals record their int32 obligations (BoundsOf.obligations) in
    `bounds` only where the result uses one of their ends."""
    if not (e.type.is_scalar() and e.type.is_integer()) or isinstance(e, (ir.Variable, ir.Const)):
        return iv
    own = BoundsOf(bounds.scope, [], bounds.facts)
    own.narrowing = bounds.narrowing
    alt = _s(_PickOrdered(own).mutate(e))
    lows, highs = [], []
    if not ir.equal(alt, e):
        other = own(alt)
        lows.append((other.lo, other.lo_data))
        highs.append((other.hi, other.hi_data))
    if ranges:
        # e at an RVar's end holds that end, a side of a predicate: as in
        # BoundsOf.sides, its int64 -> int32 casts (a Python int bound
        # narrowed, `int32(min(int64(n), int64(y) + 3))`) are bounded by their
        # values' ends, with obligations that these fit int32
        at_end = BoundsOf(bounds.scope, own.obligations, bounds.facts)
        at_end.narrowing = True
        more = _at_ends(at_end, e, ranges)
        lows += more[0]
        highs += more[1]
    lo, lo_d, hi, hi_d = iv.lo, iv.lo_data, iv.hi, iv.hi_data
    for b, d in lows:
        lo, lo_d = _tighter(lo, lo_d, b, d, False)
    for b, d in highs:
        hi, hi_d = _tighter(hi, hi_d, b, d, True)
    if lo is iv.lo and hi is iv.hi:
        return iv
    bounds.obligations.extend(own.obligations)
    return Interval(lo, hi, lo_d, hi_d)
