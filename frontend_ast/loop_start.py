"""The start of `range(start, stop, k)` (k a constant) clamped towards its
stop, for a start whose range does not fit a loop bound (`range(i * i, n)`:
i * i exceeds 32 bits where i does not, but then i * i >= n and the loop
does not run).

For k > 0, with L the start's lower bound, the loop runs over the same
values from c = min(start, max(stop, L)): where start < stop, c = start
(start < stop <= max(stop, L)); where start >= stop, start >= max(stop,
L) so c = max(stop, L) >= stop and both ranges are empty. c lies in
[L, max(stop's upper bound, L)], and below start's affine upper bounds
(and the stop's where the stop is at least L). For k < 0 the mirror image:
c = max(start, min(stop, U)), U the start's upper bound. loops.make_loop
checks c as it checks any bound."""
from __future__ import annotations

from pyhalide import ir

from . import ops
from .values import Val


def clamped_start(cx, start: Val, stop: Val, k: int):
    """c (see the module doc) as a Python int Val with its range, or None
    where the start has no bound on the side it runs from."""
    up = k > 0
    edge = start.lo if up else start.hi
    if edge is None or (stop.hi if up else stop.lo) is None:
        return None
    x, y = ops.node_of(cx, start), ops.node_of(cx, stop)
    t = ir.Int(64)
    x, y = ops.cast(t, x), ops.cast(t, y)
    e = ir.Const(t, edge)
    node = ir.Min(x, ir.Max(y, e)) if up else ir.Max(x, ir.Min(y, e))
    out = Val(node, start.ty, risky=start.risky or stop.risky)
    if up:
        ubs = list(start.ubs) + (list(stop.ubs) if stop.lo is not None and stop.lo >= edge else [])
        return out.set_range(edge, max(stop.hi, edge), None, ubs or None)
    lbs = list(start.lbs) + (list(stop.lbs) if stop.hi is not None and stop.hi <= edge else [])
    return out.set_range(min(stop.lo, edge), edge, lbs or None, None)
