"""Reductions into one point, computed from whole histories at once.

When every iteration of a chunk writes the same point (one instance, one
slot: a zero-dimensional reduction, an argmin, a kitchen sink), the serial
loop is replaced by array operations on each tuple element's *history*
(its value before each iteration), element after element in dependency
order. Each element's value must have one of these forms, where y and c do
not read the element itself but may read other elements (their histories are
substituted for those calls):

- keep:       f[i] = f[i]
- assign:     f[i] = y
- accumulate: f[i] = f[i] op y  or  y op f[i]  (op.accumulate applies in order)
- improve:    f[i] = select(y cmp f[i], y, f[i]), cmp one of < <= > >=: the
              value is the running min (max) of y and the start value, and
              an iteration improves when y cmp (running value) holds, which
              is exactly the serial comparison (NaN never compares true)
- choose:     f[i] = select(c, y, f[i])  or  select(c, f[i], y)

Anything else (an element reading itself otherwise, elements reading each
other in a cycle) has no plan and runs serially.
"""
from __future__ import annotations

import numpy as np

from ..ir import nodes as N
from ..ir.ops import equal
from .exprs import Context

# comparison -> (its ufunc, the running extreme it improves on, skipping NaN)
_IMPROVE = {N.LT: (np.less, np.fmin), N.LE: (np.less_equal, np.fmin),
            N.GT: (np.greater, np.fmax), N.GE: (np.greater_equal, np.fmax)}


def plan(info, accumulate_ops) -> list | None:
    """[(element, kind, exprs...)] in dependency order, or None.
    `accumulate_ops` maps node classes to (ufunc, type categories)."""
    u = info.update
    if not all(info.reads_lhs(c, c.value_index) for c in info.self_calls):
        return None
    steps = {}
    for i, v in enumerate(u.values):
        step = _classify(info, i, v, accumulate_ops)
        if step is None:
            return None
        steps[i] = step
    order, done = [], set()
    needs = {i: set(info.reads(v)) - {i} for i, v in enumerate(u.values)}
    while len(order) < len(steps):
        ready = [i for i in steps if i not in done and needs[i] <= done]
        if not ready:
            return None                 # elements read each other in a cycle
        for i in ready:
            order.append((i,) + steps[i])
            done.add(i)
    return order


def _classify(info, i, v, accumulate_ops):
    own = lambda e: i in info.reads(e)
    is_self = lambda e: info.reads_lhs(e, i)
    if is_self(v):
        return ("keep",)
    if not own(v):
        return ("assign", v)
    entry = accumulate_ops.get(type(v))
    if entry is not None and _category(v.type) in entry[1]:
        if is_self(v.a) and not own(v.b):
            return ("accumulate", entry[0], v.b)
        if type(v) is not N.Sub and is_self(v.b) and not own(v.a):
            return ("accumulate", entry[0], v.a)
    if isinstance(v, N.Select):
        c, t, f = v.condition, v.true_value, v.false_value
        if (type(c) in _IMPROVE and is_self(f) and is_self(c.b) and not own(t)
                and equal(t, c.a)):
            return ("improve", _IMPROVE[type(c)], t)
        if not own(c) and is_self(f) and not own(t):
            return ("choose", c, t, True)
        if not own(c) and is_self(t) and not own(f):
            return ("choose", c, f, False)
    return None


def _category(t) -> str:
    return "b" if t.is_bool() else "f" if t.is_float() else "i"


def run(realizer, info, steps, vars, n, start: list) -> list:
    """The final value of every element after n iterations (bound in `vars`)
    from the values `start`."""
    histories = {}

    def missing(ctx, call):
        raise AssertionError(f"history of {info.name}[{call.value_index}] used before it is known")

    pre = {}
    ctx = Context(realizer, vars, pre, info.name, missing)
    for i, kind, *exprs in steps:
        h = _history(ctx, kind, exprs, start[i], n)
        histories[i] = h
        for c in info.self_calls:
            if c.value_index == i:
                pre[id(c)] = h[:-1]     # the element's value before each iteration
    return [histories[i][-1] for i in range(len(start))]


def _history(ctx, kind, exprs, init, n):
    """The values of one element: before the first iteration, then after each."""
    dt = init.dtype
    if kind == "keep":
        return np.full(n + 1, init, dt)
    if kind == "choose":
        c, y, when = exprs
        flags = np.broadcast_to(ctx.ev(c), (n,))
        return _last_chosen(flags if when else ~flags, _values(ctx, y, n, dt), init)
    seq = np.empty(n + 1, dt)        # the start value, then y of every iteration
    seq[0] = init
    seq[1:] = ctx.ev(exprs[-1])
    if kind == "assign":
        return seq
    if kind == "accumulate":
        return exprs[0].accumulate(seq, dtype=dt)
    (compare, extreme), y = exprs[0], seq[1:]             # improve
    if dt.kind == "f" and np.isnan(init):
        return np.full(n + 1, init, dt)                   # nothing compares true with NaN
    running = extreme.accumulate(seq, dtype=dt)[:-1]      # before each iteration
    return _last_chosen(compare(y, running), y, init)


def _values(ctx, e, n, dt):
    out = np.empty(n, dt)
    out[:] = ctx.ev(e)
    return out


def _last_chosen(flags, y, init):
    """History of a value that becomes y[t] at each iteration t where flags[t]."""
    n = len(y)
    last = np.maximum.accumulate(np.where(flags, np.arange(n), -1))
    out = np.empty(n + 1, y.dtype)
    out[0] = init
    out[1:] = np.where(last >= 0, y[np.maximum(last, 0)], init)
    return out
