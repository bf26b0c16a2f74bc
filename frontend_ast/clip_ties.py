"""Which of NumPy's two np.clip loops computes an array's elements: they
differ only where an element ties a bound (the sign of a zero). NumPy's
loop with both bounds at stride 0 keeps x on a tie; its general loop takes
the bound (minimum(maximum(x, lo), hi)).

NumPy 2's iterator (C order, default buffer size 8192) gives a bound stride
0 in the inner loop when:
- the bound is a Python number or 0-d, or has one element, and the call is
  not NumPy's trivial loop (every operand 0-d or of the result's shape, the
  result one element: there a bound of the result's shape has its own
  stride);
- the bound is constant along the result's trailing axes (extent 1 there,
  or absent) and those axes hold more than 8192 // (k + 1) elements, k the
  number of such bounds: a shorter line is buffered (the bound copied out to
  a contiguous buffer, its stride the item size).
A bound that varies along the last axis always takes the general loop.
Operands in other layouts are taken as C-ordered (docs/numpy_code.md)."""
from __future__ import annotations

from pyhalide import ir

from . import ops
from .arrayexpr import ArrayExpr, broadcast_shapes, size_is

BUFFER = 8192      # NumPy's default buffer size (elements)


def keep_ties(cx, x, lo, hi, node):
    """True, False, or a boolean IR node decided at call time: whether
    np.clip(x, lo, hi) keeps x where it ties a bound (the operands are
    Vals or ArrayExprs; a bound None is absent)."""
    if lo is None or hi is None:
        return False        # np.clip with one bound calls np.maximum / np.minimum
    arrays = [v for v in (x, lo, hi) if isinstance(v, ArrayExpr)]
    if not arrays:
        return True
    # (the lift of np.clip registers the broadcast check)
    shape = broadcast_shapes(cx, [a.shape for a in arrays], node, checked=False)
    nd = len(shape)
    lines = []
    for b in (lo, hi):
        if not isinstance(b, ArrayExpr) or b.ndim == 0:
            continue
        ones = 0
        for k in range(1, nd + 1):
            if k > b.ndim or size_is(b.shape[-k], 1):
                ones += 1
            else:
                break
        if ones == 0:
            return False
        if ones < nd:
            lines.append(ones)
    conds = []
    if lines:
        line = _count(cx, shape[nd - min(lines):])
        conds.append(ir.GT(line, ir.Const(ir.Int(64), BUFFER // (len(lines) + 1))))
    if nd and any(isinstance(b, ArrayExpr) and b.ndim == nd for b in (lo, hi)) and \
            all(not isinstance(v, ArrayExpr) or v.ndim in (0, nd) for v in (x, lo, hi)):
        # NumPy's trivial loop where the result has one element
        conds.append(ir.NE(_count(cx, shape), ir.Const(ir.Int(64), 1)))
    if not conds:
        return True
    return conds[0] if len(conds) == 1 else ir.And(conds[0], conds[1])


def _count(cx, sizes) -> ir.Expr:
    """The product of the sizes (Vals) as an int64 node."""
    out = ir.Const(ir.Int(64), 1)
    for s in sizes:
        out = ir.Mul(out, ops.cast(ir.Int(64), ops.node_of(cx, s)))
    return out
