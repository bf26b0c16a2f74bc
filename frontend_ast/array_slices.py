"""Slices of array axes with NumPy's normalization (Python's slice.indices):
the first index a slice selects and the number it selects, for an axis whose
size is a call-time value. The number is a Python-int Val with its own
symbol (so equal slices of one axis have provably equal sizes), its exact
call-time function and an IR node."""
from __future__ import annotations

import itertools
import weakref

from pyhalide import ir
from pyhalide.expr import cast_node as cast

from . import ops
from .ranges import INT32, Aff
from .types import PY_INT
from .values import Val, const_val, exact_aff

_I64 = ir.Int(64)
_SIZES = weakref.WeakKeyDictionary()     # Context -> {canonical key: size Val}
_ids = itertools.count()
_SAMPLES = 64                             # constant bounds up to this size are canonical


def static_int(v):
    """The call-time function of an index Val as a Python int (None for None)."""
    if v is None:
        return None
    f = v.static
    return lambda env: int(f(env))


def slice_axis(cx, n: Val, start, stop, step: int):
    """(first index as an int32 node, size Val) of slice(start, stop, step)
    over an axis of size n; start and stop are integer Vals with call-time
    values (.static) or None, step a nonzero int. The first index is the normalized
    start even where the slice is empty, so that the (empty) range of
    indices it reads stays next to the axis."""
    nn = ops.node_of(cx, n)
    small = nn.type.bits <= 32 and all(v is None or (v.is_const and abs(int(v.const)) < 2**30)
                                       for v in (start, stop))
    t = ir.INDEX if small else _I64      # int32 arithmetic where it cannot overflow
    nn = cast(t, nn)
    lower, upper = (ir.Const(t, 0), nn) if step > 0 else \
        (ir.Const(t, -1), ir.Sub(nn, ir.Const(t, 1)))

    def norm(v, default):
        if v is None:
            return default
        if v.is_const:
            c = int(v.const)
            return ir.Max(ir.Add(nn, ir.Const(t, c)), lower) if c < 0 else \
                ir.Min(ir.Const(t, c), upper)
        x = ops.node_of(cx, v)
        if v.static is not None and ir.find_calls(x):
            # a bound computed with checks (int() of a float argument): the
            # value Python computes at call time (raising as Python does), as
            # a parameter bounds inference keeps symbolic; through the checks
            # it bounded the first index by the whole axis only
            x = cx.static_param(v)
        x = cast(t, x)
        return ir.Select(ir.LT(x, ir.Const(t, 0)), ir.Max(ir.Add(x, nn), lower),
                         ir.Min(x, upper))

    s = norm(start, upper if step < 0 else lower)
    e = norm(stop, lower if step < 0 else upper)
    k = abs(step)
    d = ir.Max(ir.Sub(e, s) if step > 0 else ir.Sub(s, e), ir.Const(t, 0))
    length = d if k == 1 else ir.Div(ir.Add(d, ir.Const(t, k - 1)), ir.Const(t, k))
    first, count = cast(ir.INDEX, s), cast(ir.INDEX, length)
    if t != ir.INDEX:
        # int64 arithmetic narrowed to int32: the results lie in the axis by
        # construction; the clamps say so to bounds inference (a narrowing
        # cast alone is unbounded there)
        n32 = cast(ir.INDEX, nn)
        lo32, hi32 = (ir.index(0), n32) if step > 0 else \
            (ir.index(-1), ir.Sub(n32, ir.index(1)))
        first = ir.Max(ir.Min(first, hi32), lo32)
        count = ir.Max(ir.Min(count, n32), ir.index(0))
    return first, _size(cx, n, start, stop, step, count)


def _size(cx, n: Val, start, stop, step, node) -> Val:
    fs, fe, fn = static_int(start), static_int(stop), static_int(n)

    def size(env):
        lo = None if fs is None else fs(env)
        hi = None if fe is None else fe(env)
        return len(range(*slice(lo, hi, step).indices(fn(env))))

    if n.is_const and all(v is None or v.is_const for v in (start, stop)):
        bounds = [None if v is None else int(v.const) for v in (start, stop)]
        return const_val(len(range(*slice(*bounds, step).indices(int(n.const)))))
    key = _canonical(n, start, stop, step)
    memo = _SIZES.setdefault(cx, {})
    if key is not None:
        if key == "whole":
            return n
        if key in memo:
            return memo[key][0]
    sym = f"len(slice#{next(_ids)})"
    hi = n.hi if n.hi is not None else INT32[1]
    cx.syms.add(sym, 0, hi)
    cx.sym_nodes[sym] = node
    cx.sym_static[sym] = size
    out = Val(node, PY_INT, 0, hi, [Aff.sym(sym)], [Aff.sym(sym)], static=size)
    if key is not None:
        memo[key] = (out, n)             # n kept alive while its id is in a key
    return out


def _canonical(n: Val, start, stop, step):
    """A key equal for slices of one axis that select equally many elements
    at every axis size ("whole" for as many as the axis has), or None when
    a bound is neither a constant nor the axis size plus a constant (`m - 1`
    with `m = a.shape[0]`), with constants of at most _SAMPLES. Past the
    largest bound the size is ceil((c*n + d) / |step|) with the key's
    (c, d); below it, the key holds every value."""
    s, e = _bound_form(n, start), _bound_form(n, stop)
    if s is False or e is False:
        return None
    if any(abs(x[1]) > _SAMPLES for x in (s, e) if x is not None):
        return None

    def value(v, m):
        return None if v is None else v[0] * m + v[1]

    def at(v, is_start):
        """The bound past the largest constant: (coefficient of n, constant)."""
        if v is None:
            if step > 0:
                return (0, 0) if is_start else (1, 0)
            return (1, -1) if is_start else (0, -1)
        k, c = v
        if k == 1:      # the axis size plus c, clamped into the axis
            return (1, min(c, 0 if step > 0 else -1))
        return (1, c) if c < 0 else (0, c)

    a, b = at(s, True), at(e, False)
    diff = (b[0] - a[0], b[1] - a[1]) if step > 0 else (a[0] - b[0], a[1] - b[1])
    samples = tuple(len(range(*slice(value(s, m), value(e, m), step).indices(m)))
                    for m in range(_SAMPLES + 2 + 2 * abs(step)))
    if diff == (1, 0) and abs(step) == 1 and samples == tuple(range(len(samples))):
        return "whole"
    return (id(n), abs(step), diff, samples)


def _bound_form(n: Val, v):
    """A slice bound as (coefficient of the axis size, constant): (0, c) for
    a constant, (1, c) for the axis size plus a constant; None for no bound,
    False for any other form."""
    if v is None:
        return None
    if v.is_const:
        return (0, int(v.const))
    ev, en = exact_aff(v), exact_aff(n)
    if ev is None or en is None:
        return False
    d = ev.shift(-en.c)
    if d.terms != en.terms:
        return False
    return (1, d.c)

