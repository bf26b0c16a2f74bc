"""The bounds trim_no_ops takes from a comparison of its loop variable, exact
where the rearranged value leaves int32.

trim_no_ops rearranges `var + rest < 0` into `var <= -rest - 1` (an upper
bound) and `rest - var < 0` into `var >= rest + 1` (a lower bound). The
user's comparison may stay within int32 where the rearranged value does not:
`r.x > b - r.y` at b = 2**31 - 1, r.y = 0 became `r.x >= b - r.y + 1`, which
wrapped to -2**31, so every r.x ran (and `r.x + r.y < b` at b = -2**31
likewise); `r.x < b` at b = -2**31 gave `r.x <= b - 1`.

    limit_of(is_upper, value, scope) -> Limit

Limit.value is the int32 bound; where it is not proven to stay within
int32 (int_ranges.exact_range over the enclosing loops' ranges in `scope`,
or index_overflow.surely_fits), Limit.wide is the value computed exactly in
int64.

    split_guard(limit) -> Expr | None

Where a split of the range at Limit.value may wrap, the condition (invariant
in the loop) under which it does not: the value, exactly, within [-2**31,
2**31 - 2] for an upper bound (_split cuts after it: value + 1), within
[-2**31 + 1, 2**31 - 1] for a lower one (value - 1). `x < B` split at B - 1,
which wrapped to 2**31 - 1 at B = -2**31: the whole range took `x < B` as
true (an index check's failing value read as in range).

    trim_forms(limit) -> (value, guard)

The bound a trim applies and a condition that does not change in the loop
(None if none is needed), together exactly the iterations where the bound
holds, on a range whose last value is at most 2**31 - 2 (trim_no_ops._loop's
hi + 1): a lower bound saturated within [-2**31, 2**31 - 1] (below -2**31
every iteration holds; above 2**31 - 1 none); an upper bound within
[-2**31, 2**31 - 2], with the guard `wide >= -2**31` where it may be below
(then no iteration holds, but the saturated range would keep -2**31)."""
from __future__ import annotations

from typing import NamedTuple, Optional

from pyhalide import ir

from .index_overflow import surely_fits, widened
from .int_ranges import exact_range
from .simplify import simplify

_INDEX = ir.index(0).type
_MIN, _MAX = _INDEX.min_value(), _INDEX.max_value()


class Limit(NamedTuple):
    is_upper: bool
    value: ir.Expr                  # the int32 bound (exact where wide is None)
    wide: Optional[ir.Expr]         # the exact value in int64, where it may leave int32
    wide_range: Optional[tuple]     # (lo, hi) of wide where bounded exactly


def _s(e):
    return simplify(e, assume_no_overflow=True)


def _saturated(wide, lo: int, hi: int):
    t = wide.type
    return _s(ir.Cast(_INDEX, ir.Max(ir.Min(wide, ir.Const(t, hi)), ir.Const(t, lo))))


def limit_of(is_upper: bool, value: ir.Expr, scope: dict) -> Limit:
    """The Limit of `var <= value` (is_upper) or `var >= value`."""
    r = exact_range(value, scope)
    if (r is not None and _MIN <= r[0] and r[1] <= _MAX) or surely_fits(value):
        return Limit(is_upper, value, None, None)
    wide = widened(value)
    return Limit(is_upper, value, wide, exact_range(wide, scope))


def split_guard(limit: Limit):
    """Where a split at limit.value may wrap, the condition that it does not
    (see the module doc); None where it cannot wrap."""
    if limit.wide is None:
        return None
    lo, hi = (_MIN, _MAX - 1) if limit.is_upper else (_MIN + 1, _MAX)
    r, t = limit.wide_range, limit.wide.type
    conds = []
    if r is None or r[0] < lo:
        conds.append(ir.GE(limit.wide, ir.Const(t, lo)))
    if r is None or r[1] > hi:
        conds.append(ir.LE(limit.wide, ir.Const(t, hi)))
    return ir.conjunction(conds)


def trim_forms(limit: Limit):
    """(value, guard) of a trim by `limit` (see the module doc)."""
    if limit.wide is None:
        return limit.value, None
    if not limit.is_upper:
        return _saturated(limit.wide, _MIN, _MAX), None
    below = limit.wide_range is None or limit.wide_range[0] < _MIN
    guard = ir.GE(limit.wide, ir.Const(limit.wide.type, _MIN)) if below else None
    return _saturated(limit.wide, _MIN, _MAX - 1), guard
