"""The values of the `range(...)` calls loop_steps.py builds for a range()
with a computed step (marked with loop_steps.STEP_ATTR):

    index    range(x): x as a Python int (range() takes integers only; a
             float is a located error, as Python's TypeError)
    nonzero  range(step): True where the step is not 0 (constant True when
             its range proves it: the assert checking it then vanishes)
    positive range(x): x >= 1, nonneg range(x): x >= 0 (slice_steps.py's
             tests of a slice's step and start), constant where x's range
             decides it
    pick     range(p, q, step): p for a positive step, q for a negative one
             (decided by the step's range where it can be, else selected at
             run time; a zero step has raised before)
    trips    range(step, start, stop): the iteration count (_count, exact in
             unsigned 64-bit arithmetic: no check), of the step's sign as
             `pick`, bounded by the span it steps over (_running)
    value    range(v, start, stop, step): the loop's value v = first + k * step,
             with the range every iteration that runs gives it: [start,
             stop - 1] for a positive step, [stop + 1, start] for a negative
             one (k < trips: the loop runs only where start is before stop,
             then first is start), so an index `a[v]` with stop <= len(a)
             needs no run-time check
    clamp    range(trips): the count within [0, 2**31 - 1]: it is never negative
             (the interval of its form may say otherwise), and a count that
             may exceed 2**31 - 1 is checked here (OverflowError: the limit of
             a compiled loop)"""
from __future__ import annotations

import copy

from pyhalide import ir

from . import ops
from .loop_steps import INT32_MAX, STEP_ATTR
from .ranges import Aff
from .values import Val, const_val


def marked(node) -> bool:
    return getattr(node, STEP_ATTR, None) is not None


def call(b, node):
    """The value of the marked range() call `node` (see the module doc)."""
    cx = b.cx
    what = getattr(node, STEP_ATTR)
    args = [_integer(b, a) for a in node.args]
    cx.cur_node = node
    if what == "index":
        return args[0]
    if what == "nonzero":
        (step,) = args
        if _positive(cx, step) or _negative(cx, step):
            return const_val(True)
        return cx.compare("!=", step, const_val(0))
    if what in ("positive", "nonneg"):
        (x,) = args
        low = 1 if what == "positive" else 0
        if (x.lo is not None and x.lo >= low) or cx.syms.prove_le([Aff.const(low)], x.lbs):
            return const_val(True)
        if (x.hi is not None and x.hi < low) or cx.syms.prove_le(x.ubs, [Aff.const(low - 1)]):
            return const_val(False)
        return cx.compare(">=", x, const_val(low))
    if what == "pick":
        p, q, step = args
        if _positive(cx, step):
            return p
        if _negative(cx, step):
            return q
        return ops.select(cx, ops.truth(cx, cx.compare(">", step, const_val(0))), p, q)
    if what == "value":
        return _within(cx, *args)
    if what == "trips":
        step, start, stop = args
        if _positive(cx, step):
            return _running(_count(cx, start, stop, step, 1), start, stop)
        if _negative(cx, step):
            return _running(_count(cx, stop, start, step, -1), stop, start)
        loops = set(cx.syms.loops)
        if any(set(ir.free_vars(ops.node_of(cx, v))) & loops for v in (start, stop, step)):
            # its bounds over the enclosing loops' iterations would be those of
            # either direction: a loop over a hull no bound limits
            raise cx.err(node, "the sign of this range()'s step is not known here, and its "
                               "bounds change with an enclosing loop",
                         hint="branch on the sign: `if s > 0:` a loop over range(a, b, s), "
                              "`else:` another; or write a step whose sign is evident "
                              "(range(a, b, max(s, 1)))")
        up, down = _count(cx, start, stop, step, 1), _count(cx, stop, start, step, -1)
        picked = ops.select(cx, ops.truth(cx, cx.compare(">", step, const_val(0))), up, down)
        return _running(picked, None, None)
    (trips,) = args
    # the count is never negative (its form's interval may say otherwise)
    low = trips.lo is None or trips.lo < 0
    high = trips.hi is None or trips.hi > INT32_MAX
    if not (low or high):
        return trips
    n = ops.node_of(cx, trips)
    node = ir.Max(n, ir.Const(n.type, 0)) if low else n
    node = ir.Min(node, ir.Const(n.type, INT32_MAX)) if high else node
    static = None
    if trips.is_static:
        f = trips.static

        def static(env):
            return min(max(f(env), 0), INT32_MAX)
    lbs = [Aff.const(0)] if low else trips.lbs
    ubs = list(trips.ubs) + [Aff.const(INT32_MAX)] if high else trips.ubs
    out = Val(node, trips.ty, risky=trips.risky, static=static)
    out.set_range(0 if low else trips.lo, INT32_MAX if high else trips.hi, lbs, ubs)
    if high and _bounded_at_call(cx, trips, cx.cur_node):
        return out
    if high:
        out = cx.guard(out, ir.LE(n, ir.Const(n.type, INT32_MAX)), "OverflowError",
                       f"a range() of more than {INT32_MAX} iterations is not supported in "
                       f"compiled loops")
    return out


def _within(cx, v: Val, start: Val, stop: Val, step: Val) -> Val:
    """v (the loop's value) with the range of the iterations that run: at
    least the start's bounds and at most the stop's less one for a step of
    known positive sign (the reverse for a negative one), besides its own."""
    if _positive(cx, step):
        (lo, lbs), (hi, ubs) = _shifted(start.lo, start.lbs, 0), _shifted(stop.hi, stop.ubs, -1)
    elif _negative(cx, step):
        (lo, lbs), (hi, ubs) = _shifted(stop.lo, stop.lbs, 1), _shifted(start.hi, start.ubs, 0)
    else:
        return v
    lo = lo if v.lo is None else (v.lo if lo is None else max(v.lo, lo))
    hi = hi if v.hi is None else (v.hi if hi is None else min(v.hi, hi))
    return copy.copy(v).set_range(lo, hi, list(dict.fromkeys(list(v.lbs) + lbs)),
                                  list(dict.fromkeys(list(v.ubs) + ubs)))


def _shifted(end, bounds, c):
    """A value's end (lo or hi) and affine bounds, moved by c."""
    return (None if end is None else end + c), [b.shift(c) for b in bounds]


def _bounded_at_call(cx, trips: Val, node) -> bool:
    """Whether an affine upper bound of the count in argument symbols (the
    span the loop steps over, _running) is required at call time to be at
    most 2**31 - 1 (OverflowError naming the loop where it is not, as the
    hull of a loop whose bounds change with an enclosing loop is,
    emit.check_span): the count then fits wherever the loop runs, with no
    run-time check (one in a loop under an `if` on data could not be
    placed where Python evaluates the range)."""
    static = cx.sym_static
    cands = [c for a in trips.ubs for c in cx.syms.expand(a, True)
             if all(s in static for s in c.terms) and abs(c.c) < 2**30]
    if not cands:
        return False
    cx.require(cx.smap.loc(node).line, cands, None, INT32_MAX)
    return True


def _integer(b, e) -> Val:
    v = b.ev(e)
    if isinstance(v, Val) and v.union and all(t.is_int() or t.is_bool() for t in v.types()):
        v = ops.to_python_int(b.cx, v)
    if not isinstance(v, Val) or v.union or not (v.ty.is_int() or v.ty.is_bool()):
        what = v.ty.describe() if isinstance(v, Val) and not v.union else b.describe_obj(v)
        raise b.cx.err(e, f"range() needs integers, got {what}", hint="convert with int(...)")
    return ops.to_python_int(b.cx, v)


def _count(cx, lo: Val, hi: Val, step: Val, sign: int) -> Val:
    """len(range(lo, hi, step)) for a step of sign `sign` (range(hi, lo,
    step) for -1: the values from hi down to above lo), at most 2**31 (a
    count of 2**31 or more, which `clamp` refuses, is 2**31): the span
    hi - lo and the stride |step| are exact as unsigned 64-bit values where
    hi > lo, so the count (span - 1) // stride + 1 needs no overflow
    check. A stride below 1 (a step of the other sign, whose count is not
    chosen; a zero step has raised before) divides by 1."""
    u64, i64 = ir.UInt(64), ir.Int(64)

    def wide(v):        # (a Python int's node: int64, or narrower where its range fits)
        n = ops.node_of(cx, v)
        return n if n.type == i64 else ir.Cast(i64, n)

    a, b, s = wide(lo), wide(hi), wide(step)
    stride = ir.Cast(u64, s) if sign > 0 else ir.Sub(ir.Const(u64, 0), ir.Cast(u64, s))
    stride = ir.Max(stride, ir.Const(u64, 1))
    span = ir.Sub(ir.Cast(u64, b), ir.Cast(u64, a))
    q = ir.Add(ir.Div(ir.Sub(span, ir.Const(u64, 1)), stride), ir.Const(u64, 1))
    q = ir.Min(q, ir.Const(u64, INT32_MAX + 1))
    node = ir.Select(ir.LT(a, b), ir.Cast(i64, q), ir.Const(i64, 0))
    return Val(node, lo.ty).set_range(0, INT32_MAX + 1, [Aff.const(0)], [])


def _running(count: Val, first, last) -> Val:
    """count (never negative), bounded by the span last - first it steps
    over (by at least 1 per step): numerically by max(last - first, 0) and,
    first, by the affine bounds of last - first, which hold where the loop
    runs (a loop's hull is taken from its stop's first upper bound; where
    the loop does not run its stop needs no bound: only the loop reads it)."""
    low = 0 if count.lo is None else max(count.lo, 0)
    hi, ubs = count.hi, list(count.ubs)
    if first is not None:
        if last.hi is not None and first.lo is not None:
            span = max(last.hi - first.lo, 0)
            hi = span if hi is None else min(hi, span)
        ubs = list(dict.fromkeys([u - v for u in last.ubs for v in first.lbs] + ubs))
    return copy.copy(count).set_range(low, hi, [Aff.const(0)], ubs)


def _positive(cx, v: Val) -> bool:
    """v >= 1 by its range or by the enclosing branches' conditions."""
    return (v.lo is not None and v.lo > 0) or cx.syms.prove_le([Aff.const(1)], v.lbs)


def _negative(cx, v: Val) -> bool:
    return (v.hi is not None and v.hi < 0) or cx.syms.prove_le(v.ubs, [Aff.const(-1)])
