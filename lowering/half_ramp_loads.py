"""Loads at half speed: a vector index `broadcast(s) + ramp(b, 1, 2n) / 2`
(upsampling: lane i reads s + (b + i) / 2) as two dense n-lane loads.

Division is Euclidean (floor for the divisor 2), so the even lanes 2j read
s + b/2 + j and the odd lanes 2j+1 read s + (b+1)/2 + j: the two dense
vectors, interleaved, are the gather's result, read from exactly the
addresses the gather reads. codegen_llvm uses this instead of a gather
(Halide's interleave_vectors of two dense loads)."""
from __future__ import annotations

from typing import Callable, Optional

from pyhalide import ir


def _is_two(e) -> bool:
    while isinstance(e, ir.Broadcast):
        e = e.value
    return isinstance(e, ir.Const) and e.value == 2


def _half_ramp(e, lookup) -> Optional[ir.Expr]:
    """b when e is ramp(b, 1, L) / 2 (directly or through a vector let)."""
    if isinstance(e, ir.Variable):
        e = lookup(e.name)
    if isinstance(e, ir.Div) and _is_two(e.b) and isinstance(e.a, ir.Ramp) \
            and isinstance(e.a.stride, ir.Const) and e.a.stride.value == 1:
        return e.a.base
    return None


def _broadcast_sum(index: ir.Expr):
    """(s, rest) with index == broadcast(s) + rest, s the sum of every
    broadcast of a scalar among the terms of index's tree of Adds (None when
    there is none) and rest the one other term; (None, index) when the
    other terms are not exactly one. Summed in another order than index's
    tree: int32 addition wraps the same in any order."""
    terms, stack = [], [index]
    while stack:
        e = stack.pop()
        if isinstance(e, ir.Add):
            stack += [e.b, e.a]
        else:
            terms.append(e)
    scalars = [t.value for t in terms
               if isinstance(t, ir.Broadcast) and t.value.type.lanes == 1]
    others = [t for t in terms
              if not (isinstance(t, ir.Broadcast) and t.value.type.lanes == 1)]
    if len(others) != 1:
        return None, index
    scalar = None
    for v in scalars:
        scalar = v if scalar is None else ir.Add(scalar, v)
    return scalar, others[0]


def half_ramp_index(index: ir.Expr, lookup: Callable[[str], Optional[ir.Expr]]):
    """(even, odd, n): the scalar first indices of the dense n-lane loads
    whose interleaving is the load at `index`, or None when `index` is not
    broadcast(s) + ramp(b, 1, 2n) / 2 (in either order, or the half ramp
    alone). `lookup(name)` is the value of a vector let in scope, or None."""
    lanes = index.type.lanes
    if lanes < 4 or lanes % 2 or index.type.element_of() != ir.Int(32):
        return None
    scalar, rest = _broadcast_sum(index)
    b = _half_ramp(rest, lookup)
    if b is None:
        return None
    two = ir.Const(ir.Int(32), 2)
    even = ir.Div(b, two)
    odd = ir.Div(ir.Add(b, ir.Const(ir.Int(32), 1)), two)
    if scalar is not None:
        even, odd = ir.Add(scalar, even), ir.Add(scalar, odd)
    return even, odd, lanes // 2


def _clamped_ramp(e, lookup):
    """(b, lo, hi) when e is max(min(ramp(b, 1, L), x(hi)), x(lo)) or
    min(max(ramp(b, 1, L), x(lo)), x(hi)) (directly or through a vector let)."""
    if isinstance(e, ir.Variable):
        e = lookup(e.name)
    for outer, inner in ((ir.Max, ir.Min), (ir.Min, ir.Max)):
        if isinstance(e, outer) and isinstance(e.a, inner) and isinstance(e.b, ir.Broadcast) \
                and isinstance(e.a.b, ir.Broadcast) and isinstance(e.a.a, ir.Ramp) \
                and isinstance(e.a.a.stride, ir.Const) and e.a.a.stride.value == 1 \
                and e.b.value.type.lanes == 1 and e.a.b.value.type.lanes == 1:
            first, second = e.a.b.value, e.b.value
            lo, hi = (second, first) if outer is ir.Max else (first, second)
            return e.a.a.base, lo, hi
    return None


def clamped_ramp_index(index: ir.Expr, lookup: Callable[[str], Optional[ir.Expr]]):
    """(s, b, lo, hi, lanes) when `index` is broadcast(s) + clamp(ramp(b, 1,
    lanes), lo, hi) (s None when there is no broadcast part): a boundary
    condition's clamped coordinate. Where b >= lo and b + lanes - 1 <= hi the
    clamp changes no lane and the load is dense at s + b (codegen_llvm tests
    that at run time and gathers otherwise)."""
    lanes = index.type.lanes
    if lanes < 4 or index.type.element_of() != ir.Int(32):
        return None
    scalar, rest = _broadcast_sum(index)
    found = _clamped_ramp(rest, lookup)
    return None if found is None else (scalar, *found, lanes)
