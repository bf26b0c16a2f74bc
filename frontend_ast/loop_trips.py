"""The trip count of `range(start, stop, k)` (k a constant) where the int32
difference of its bounds may wrap.

An empty range far below int32's edge (`range(2, n)` with n = -2**31) made
`stop - start` wrap to a huge positive extent: 2**31 iterations of an empty
body (5 s a call). A range of 2**31 iterations or more (`range(hi, lo, -1)`
with hi = 2**31 - 1, lo = -2**31) wrapped to a negative extent: no
iteration, a wrong result. `extent` computes the trip count from
max(stop, start) (k > 0; min for k < 0), which is 0 where the range is
empty without a wrapping difference; `check_trips` raises OverflowError
where Python's range would run past what that difference can hold, where
the loop is reached: at call time where that is known then
(Context.reached_at_call), else by a run-time check in the loop's stop
that passes where Python does not reach the loop."""
from __future__ import annotations

import itertools

from pyhalide import ir
from pyhalide.buffer import Param

from .context import StaticParam
from .loop_bound_reach import reached_only
from .ranges import INT32
from .values import Val

_FLAGS = itertools.count()


def _may_wrap(start: Val, stop: Val, k: int) -> bool:
    """Whether stop - start (k > 0; start - stop for k < 0), plus |k| - 1,
    may leave int32 by the bounds' ranges."""
    hi_a, lo_a = (stop.hi, start.lo) if k > 0 else (start.hi, stop.lo)
    lo_b, hi_b = (stop.lo, start.hi) if k > 0 else (start.lo, stop.hi)
    if None in (hi_a, lo_a, lo_b, hi_b):
        return True
    return hi_a - lo_a + abs(k) - 1 > INT32[1] or lo_b - hi_b < INT32[0]


def extent(start_n, stop_n, start: Val, stop: Val, k: int):
    """The trip count of range(start, stop, k) as an int32 node (start_n,
    stop_n: the bounds' int32 nodes): max((stop - start + k - 1) / k, 0)
    where the bounds' ranges prove the difference fits, else computed from
    max(stop, start) (k > 0) or min(stop, start) (k < 0), 0 where the range
    is empty. (Where it runs, check_trips holds the difference in int32.)"""
    s = abs(k)
    if not _may_wrap(start, stop, k):
        span = ir.Sub(stop_n, start_n) if k > 0 else ir.Sub(start_n, stop_n)
        if s == 1:
            return ir.Max(span, ir.index(0))
        return ir.Max(ir.Div(ir.Add(span, ir.index(s - 1)), ir.index(s)), ir.index(0))
    span = ir.Sub(ir.Max(stop_n, start_n), start_n) if k > 0 else \
        ir.Sub(start_n, ir.Min(stop_n, start_n))
    if s == 1:
        return span
    return ir.Div(ir.Add(span, ir.index(s - 1)), ir.index(s))


def _value(v: Val):
    if v.is_static:
        return v.static
    return lambda env, c=v.const: c


class _TripsFit:
    """The call-time check that range(start, stop, k), where reached,
    spans at most what an int32 difference holds (OverflowError)."""

    def __init__(self, start, stop, k, reached, what):
        self.start, self.stop, self.k = start, stop, k
        self.reached, self.what = reached, what

    def span(self, env):
        """stop - start (start - stop for k < 0) of the call; None where a
        bound raises (the bound's own check reports it)."""
        try:
            a, b = int(self.start(env)), int(self.stop(env))
        except Exception:
            return None
        return b - a if self.k > 0 else a - b

    def fits(self, env) -> int:
        """1 where the range's span fits (or a bound raises), else 0."""
        span = self.span(env)
        return int(span is None or span + abs(self.k) - 1 <= INT32[1])

    def __call__(self, env):
        if self.reached is not None and not self.reached(env):
            return
        if not self.fits(env):
            raise OverflowError(f"{self.what} runs {self.span(env) // abs(self.k)} iterations "
                                f"or more: compiled loops run fewer than 2**31")


def check_trips(cx, start: Val, stop: Val, k: int, what: str, sink=None) -> Val:
    """stop, after the check that range(start, stop, k) runs fewer than
    2**31 iterations, for a range whose bounds are known at call time and
    whose ranges do not prove it (none in typing runs). Where whether the
    loop is reached is known at call time, the call-time check _TripsFit;
    under a condition known only at run time (`if a[0] > 0:`, `if i > 2:`)
    the fit is a call-time flag and stop carries a run-time check of it,
    raising only where Python reaches the loop
    (loop_bound_reach.reached_only; `sink` as there)."""
    if cx.typing or not _may_wrap(start, stop, k):
        return stop
    if not (start.is_static or start.is_const) or not (stop.is_static or stop.is_const):
        return stop
    reached = cx.reached_at_call()
    if reached is not False:
        cx.static_checks.append(_TripsFit(_value(start), _value(stop), k, reached, what))
        return stop
    fits = _TripsFit(_value(start), _value(stop), k, None, what)
    p = Param(ir.UInt(8), f"__pyhalide_trips{next(_FLAGS)}")
    cx.static_params.append(StaticParam(p, fits.fits, ir.UInt(8)))
    out = cx.guard(stop, ir.NE(p.node, ir.Const(ir.UInt(8), 0)), "OverflowError",
                   f"{what} runs 2**31 iterations or more: compiled loops run fewer than 2**31")
    return reached_only(cx, out, sink)
