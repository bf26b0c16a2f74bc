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


def _split_broadcasts(index: ir.Expr):
    """(scalar, rest): `index` as broadcast(scalar) + rest, where the sum's
    terms (an Add tree) that are broadcasts of scalars are added into
    `scalar` (None when there are none) and `rest` is the one other term;
    None when more than one term is not such a broadcast."""
    terms, scalars, stack = [], [], [index]
    while stack:
        e = stack.pop()
        if isinstance(e, ir.Add):
            stack += (e.b, e.a)
        elif isinstance(e, ir.Broadcast) and e.value.type.lanes == 1:
            scalars.append(e.value)
        else:
            terms.append(e)
    if len(terms) != 1:
        return None
    scalar = None
    for v in scalars:
        scalar = v if scalar is None else ir.Add(scalar, v)
    return scalar, terms[0]


def _broadcasts_and(index: ir.Expr, match, lookup):
    """(s, match(rest, lookup)) when `index`, an int32 vector of at least 4
    lanes, is a sum of broadcasts (s: their scalars added; None when there
    are none) and one other term `rest` that `match` accepts (not None)."""
    if index.type.lanes < 4 or index.type.element_of() != ir.Int(32):
        return None
    split = _split_broadcasts(index)
    if split is None:
        return None
    scalar, rest = split
    found = match(rest, lookup)
    return None if found is None else (scalar, found)


def half_ramp_index(index: ir.Expr, lookup: Callable[[str], Optional[ir.Expr]]):
    """(even, odd, n): the scalar first indices of the dense n-lane loads
    whose interleaving is the load at `index`, or None when `index` is not
    a sum of broadcasts and one ramp(b, 1, 2n) / 2 (in any order and
    nesting of the Adds, or the half ramp alone). `lookup(name)` is the
    value of a vector let in scope, or None."""
    lanes = index.type.lanes
    found = _broadcasts_and(index, _half_ramp, lookup) if lanes % 2 == 0 else None
    if found is None:
        return None
    scalar, b = found
    two = ir.Const(ir.Int(32), 2)
    even = ir.Div(b, two)
    odd = ir.Div(ir.Add(b, ir.Const(ir.Int(32), 1)), two)
    if scalar is not None:
        even, odd = ir.Add(scalar, even), ir.Add(scalar, odd)
    return even, odd, lanes // 2


# The strides of a clamped ramp loaded densely where no lane is clamped: 1,
# and the short strides codegen_llvm loads as dense spans plus a shuffle
# (a downsampling read of a boundary condition: clamp(2 * x + k, lo, hi)).
CLAMPED_STRIDES = (1, 2, 3, 4, -1, -2, -3, -4)


def _clamped_ramp(e, lookup):
    """(b, stride, lo, hi) when e is max(min(ramp(b, stride, L), x(hi)),
    x(lo)) or min(max(ramp(b, stride, L), x(lo)), x(hi)) with a constant
    stride of CLAMPED_STRIDES (directly or through a vector let)."""
    if isinstance(e, ir.Variable):
        e = lookup(e.name)
    for outer, inner in ((ir.Max, ir.Min), (ir.Min, ir.Max)):
        if isinstance(e, outer) and isinstance(e.a, inner) and isinstance(e.b, ir.Broadcast) \
                and isinstance(e.a.b, ir.Broadcast) and isinstance(e.a.a, ir.Ramp) \
                and isinstance(e.a.a.stride, ir.Const) \
                and e.a.a.stride.value in CLAMPED_STRIDES \
                and e.b.value.type.lanes == 1 and e.a.b.value.type.lanes == 1:
            first, second = e.a.b.value, e.b.value
            lo, hi = (second, first) if outer is ir.Max else (first, second)
            return e.a.a.base, e.a.a.stride.value, lo, hi
    return None


def clamped_ramp_index(index: ir.Expr, lookup: Callable[[str], Optional[ir.Expr]]):
    """(s, b, stride, lo, hi, lanes) when `index` is a sum of broadcasts
    (their scalars added into s; None when there are none) and one
    clamp(ramp(b, stride, lanes), lo, hi): a boundary condition's clamped
    coordinate. Where the lanes' smallest and largest values b and
    b + (lanes - 1) * stride lie in [lo, hi] the clamp changes no lane and
    the load is the ramp's own at s + b (codegen_llvm tests that at run time
    and gathers otherwise)."""
    found = _broadcasts_and(index, _clamped_ramp, lookup)
    if found is None:
        return None
    scalar, clamped = found
    return (scalar, *clamped, index.type.lanes)
