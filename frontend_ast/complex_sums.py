"""Sums and products of complex arrays.

Sums (np.sum, .sum(), mean): the sums of the parts in
NumPy's order (sum_order.float_sum). NumPy adds complex values where it
adds floats one element after another, and along the innermost axis in
memory it sums them pairwise with its complex pairwise_sum: the parts
summed side by side, 4 accumulators per part, blocks of 64 elements
(float_sum with lanes=4). A sum that casts (np.sum(z64,
dtype=np.complex128)) along that axis is refused: NumPy's buffered pieces
of a complex cast add in an order not reproduced here."""
from __future__ import annotations

from pyhalide import ir

from . import complex_values as C
from . import ops
from .array_complex import part_value
from .arrayexpr import ArrayExpr, lift, size_is
from .sum_order import float_sum, memory_order

COMPLEX_LANES = 4       # accumulators per part of NumPy's complex pairwise_sum


def complex_sum(ac, operand: ArrayExpr, axes, acc_ty, node, name="sum") -> ArrayExpr:
    """The sum of a complex operand over `axes` (array_reduce.total): the
    sums of its parts in NumPy's order (sum_order.float_sum, with NumPy's
    complex pairwise blocks where it sums pairwise)."""
    cx = ac.cx
    layout = memory_order(operand)
    order = [k for k in layout[0] if not size_is(operand.shape[k], 1)]
    if operand.ty != acc_ty and order and order[-1] in axes:
        raise cx.err(node, f"a {operand.ty.describe()} sum in {acc_ty.describe()} along the "
                           f"array's innermost axis in memory is not supported (NumPy casts "
                           f"it in buffer pieces in an order of its own)",
                     hint=f"cast the array first: z.astype(np.{acc_ty.dtype.name}).sum()")
    if operand.ty != acc_ty:
        operand = lift(cx, lambda cx, v: ops.cast_to(cx, v, acc_ty), [operand], node)
    re, im = (float_sum(ac, part_value(operand, k), axes, acc_ty.part(), node,
                        layout=layout, name=f"{name}_{s}", lanes=COMPLEX_LANES)
              for k, s in enumerate(("real", "imag")))
    return ArrayExpr(re.shape, acc_ty,
                     lambda idx: C.ComplexVal(cx, re.elem(idx), im.elem(idx), acc_ty, fused=True),
                     node)


def complex_prod(ac, operand: ArrayExpr, axes, acc_ty, node, reduction) -> ArrayExpr:
    """np.prod of a complex operand over `axes` (array_reduce.reduce_call;
    `reduction` is array_reduce.reduction): the elements multiplied in turn
    from 1 + 0j, NumPy's order. Along the innermost axis in memory NumPy's
    reduce loop multiplies unfused; where that axis is kept, its vector
    multiply loop fuses (complex_values._mul)."""
    order = [k for k in memory_order(operand)[0] if not size_is(operand.shape[k], 1)]
    fused = not (order and order[-1] in axes)
    pt = acc_ty.part()

    def step(cx, s, x, r):
        acc = C.ComplexVal(cx, s[0], s[1], acc_ty, fused=fused)
        x = ops.cast_to(cx, x, acc_ty)
        p = C.binary(cx, "*", acc, C.ComplexVal(cx, x.re, x.im, acc_ty, fused=fused))
        return [p.re, p.im]

    t = pt.ir()
    return reduction(ac, operand, axes, [pt, pt], [ir.Const(t, 1.0), ir.Const(t, 0.0)], step,
                     "prod", node, view=False,
                     result=(acc_ty, lambda cx, v: C.ComplexVal(cx, v[0], v[1], acc_ty,
                                                                 fused=True)))
