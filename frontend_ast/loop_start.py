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
from .ranges import INT32, n_within
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


def empty_static_bounds(cx, start: Val, stop: Val, k: int, body: list):
    """(start, stop) of `range(start, stop, k)` with the bounds known at
    call time (static) that do not fit int32 replaced by values that do
    where Python's range is empty, over the same iterations: the call-time
    check that a bound fits 32 bits (loop_params.index_param) then fails
    only where the loop runs (`range(1, lo, -1)` with lo = 2**40 runs
    nothing in Python).

    With both bounds static, where the range is empty a bound that does not
    fit becomes the other bound (range(stop, stop)), or 0 where neither
    fits (range(0, 0)). With one static bound,
    it is clamped to the int32 edge past which the range is empty whatever
    the other bound in int32 (the other bound's own check or clamp covers
    the rest): for k > 0 a stop below INT32_MIN and a start above INT32_MAX,
    for k < 0 the mirror image. The bounds keep their affine bounds: they
    hold for the loop variable, whose values are the same. A risky bound
    (its computation may raise) is left as it is. A clamped bound's range
    as the program and the loop's body see it is appended to `body`
    (_narrowed)."""
    out = [start, stop]
    static = [v.is_static and not v.risky and not v.is_const for v in out]
    wide = [s and not n_within(v.rng, INT32) for s, v in zip(static, out)]
    if not any(wide):
        return start, stop
    if all(static):
        fa, fb = start.static, stop.static

        def empty(env):
            a, b = int(fa(env)), int(fb(env))
            return a >= b if k > 0 else a <= b
        for i, (f, other) in enumerate(((fa, fb), (fb, fa))):
            if not wide[i]:
                continue
            if wide[1 - i]:         # both wide: range(0, 0)
                out[i] = _replaced(out[i], lambda env, f=f: 0 if empty(env) else int(f(env)),
                                   0, 0)
            else:                   # range(stop, stop) or range(start, start)
                o = out[1 - i]
                out[i] = _replaced(out[i], lambda env, f=f, g=other: int(g(env)) if empty(env)
                                   else int(f(env)), o.lo, o.hi)
        return tuple(out)
    # (i = 0: start, 1: stop) the edge past which the range is empty
    for i, v in enumerate(out):
        if not wide[i]:
            continue
        low_edge = (i == 1) == (k > 0)      # stop going up, start going down
        edge = INT32[0] if low_edge else INT32[1]
        pick = max if low_edge else min
        f = v.static
        out[i] = _replaced(v, lambda env, f=f, pick=pick, edge=edge: pick(int(f(env)), edge),
                           pick(v.lo, edge) if v.lo is not None else (edge if low_edge else None),
                           pick(v.hi, edge) if v.hi is not None else (None if low_edge else edge))
        if not cx.typing:
            body.append(_narrowed(v, low_edge))
    return tuple(out)


def _narrowed(v: Val, low_edge: bool):
    """(v, lo, hi): v (the bound as the program goes on using it) narrowed
    in place to int32 on the side its clamped copy keeps, where the call-time
    check of that copy (loop_params.index_param) fails past it, as
    index_param narrows an unclamped bound; and v's range inside the loop's
    body, int32 on both sides: the body runs only where the range is not
    empty, so the clamped side is not past its edge there (the sieve's `n`
    of `for i in range(2, n)`, which relates the inner `range(i * i, n, i)`
    to i). After the loop that side is v's own again (LoopRunner.run_loop):
    past it Python runs no iteration and raises nothing."""
    lo = INT32[0] if v.lo is None else max(v.lo, INT32[0])
    hi = INT32[1] if v.hi is None else min(v.hi, INT32[1])
    if low_edge:
        v.set_range(v.lo, hi, v.lbs, v.ubs)
    else:
        v.set_range(lo, v.hi, v.lbs, v.ubs)
    return v, lo, hi


def _replaced(v: Val, fn, lo, hi) -> Val:
    """A call-time Val computing fn, with v's range widened to [lo, hi]
    (None: unbounded) and v's affine bounds."""
    lo = None if v.lo is None or lo is None else min(v.lo, lo)
    hi = None if v.hi is None or hi is None else max(v.hi, hi)
    return Val(None, v.ty, static=fn).set_range(lo, hi, list(v.lbs), list(v.ubs))
