"""The trip count of `range(start, stop, k)` (k a constant) where the int32
difference of its bounds may wrap.

An empty range far below int32's edge (`range(2, n)` with n = -2**31) made
`stop - start` wrap to a huge positive extent: 2**31 iterations of an empty
body (5 s a call). A range of 2**31 iterations or more (`range(hi, lo, -1)`
with hi = 2**31 - 1, lo = -2**31) wrapped to a negative extent: no
iteration, a wrong result. `extent` computes the trip count from
max(stop, start) (k > 0; min for k < 0), which is 0 where the range is
empty without a wrapping difference; `check_trips` raises OverflowError at
call time where Python's range would run past what that difference can
hold (where the loop is reached: Context.reached_at_call)."""
from __future__ import annotations

from pyhalide import ir

from .ranges import INT32
from .values import Val


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

    def __call__(self, env):
        if self.reached is not None and not self.reached(env):
            return
        try:
            a, b = int(self.start(env)), int(self.stop(env))
        except Exception:           # (the bound's own check reports it)
            return
        span = b - a if self.k > 0 else a - b
        if span + abs(self.k) - 1 > INT32[1]:
            raise OverflowError(f"{self.what} runs {span // abs(self.k)} iterations or more: "
                                f"compiled loops run fewer than 2**31")


def check_trips(cx, start: Val, stop: Val, k: int, what: str) -> None:
    """Adds the call-time check _TripsFit for a range whose bounds are
    known at call time and whose ranges do not prove it (none in typing
    runs, none where whether the loop is reached is known only at run time:
    such a loop keeps the wrapping risk of before)."""
    if cx.typing or not _may_wrap(start, stop, k):
        return
    if not (start.is_static or start.is_const) or not (stop.is_static or stop.is_const):
        return
    reached = cx.reached_at_call()
    if reached is False:
        return
    cx.static_checks.append(_TripsFit(_value(start), _value(stop), k, reached, what))
