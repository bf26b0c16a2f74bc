"""Sums of complex arrays (np.sum, .sum(), mean): the sums of the parts in
NumPy's float order (sum_order.float_sum), where NumPy adds one element
after another; along the innermost axis in memory NumPy sums complex
values pairwise in an order of its own, which is refused."""
from __future__ import annotations

from . import complex_values as C
from . import ops
from .array_complex import part_value
from .arrayexpr import ArrayExpr, lift, size_is
from .sum_order import float_sum, memory_order


def complex_sum(ac, operand: ArrayExpr, axes, acc_ty, node, name="sum") -> ArrayExpr:
    """The sum of a complex operand over `axes` (array_reduce.total): the
    sums of its parts in NumPy's float order (sum_order.float_sum), where
    NumPy adds along its innermost axis in memory one element after
    another. NumPy sums complex values along that axis pairwise in an order
    of its own (blocks counted in floats, four accumulators per part),
    which is not compiled: a located error."""
    cx = ac.cx
    order, merges = memory_order(operand)
    visited = [k for k in order if not size_is(operand.shape[k], 1)]
    if visited and visited[-1] in axes:
        raise cx.err(node, "a sum of complex values along the array's innermost axis in "
                           "memory is not supported (NumPy adds them pairwise in an order "
                           "of its own)",
                     hint="sum along the other axes, or sum the parts in NumPy's float "
                          "order: z.real.sum() + 1j * z.imag.sum() (which may round "
                          "differently from np.sum(z))")
    if operand.ty != acc_ty:
        operand = lift(cx, lambda cx, v: ops.cast_to(cx, v, acc_ty), [operand], node)
    re, im = (float_sum(ac, part_value(operand, k), axes, acc_ty.part(), node,
                        layout=(order, merges), name=f"{name}_{s}")
              for k, s in enumerate(("real", "imag")))
    return ArrayExpr(re.shape, acc_ty,
                     lambda idx: C.ComplexVal(cx, re.elem(idx), im.elem(idx), acc_ty, fused=True),
                     node)
