"""Which loop NumPy 2.4 runs for a float max/min (fmax/fmin) reduction of
one axis of a view the function makes of part of an array (`a[:, ::2]`,
`a[1:, 1:]`, `a[:, ::-1]`, an argument's or a new array's): the rule
numpy_zero_ties._one_axis_rule gives a whole argument of the same strides
(docs/numpy_zero_ties25.md, 26.md). The view's axes are ordered by the
array's memory (sum_order.memory_order); its innermost axis has unit
stride where it steps by +1 along the array's innermost axis (the axes
inside that one of size 1: a run-time test where their sizes or the
argument's strides are known only at call time)."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.simplify import simplify

from . import ops
from .affine_maps import affine_rows
from .arrayexpr import ArrayExpr, size_is
from .result_order import Unresolved
from .sum_order import array_layout, memory_order


def part_view_rule(cx, operand, axis, fm):
    """(kind, lines, unit, backwards) as numpy_zero_ties._one_axis_rule for
    a view of part of an array, or None where not modelled (the serial rule
    stays; for max/min of an axis not innermost it is NumPy's). unit: None
    (unit stride), or a boolean node (a constant false where the step is
    not 1); backwards: the innermost axis has a negative stride (NumPy
    keeps it: the strided loops in the view's order)."""
    arr, _ = operand.view
    rows = affine_rows(operand)
    if rows is None:
        return None
    steps = []
    for k in range(operand.ndim):
        moving = [(j, row[k]) for j, row in enumerate(rows) if row[k]]
        if len(moving) > 1:
            return None
        steps.append(moving[0] if moving else None)
    try:
        order, merges = memory_order(operand)
    except Unresolved:
        return None
    perm = [k for k in order if steps[k] is not None and not size_is(operand.shape[k], 1)]
    if axis not in perm:
        return None
    base, step = steps[perm[-1]]
    layout = getattr(arr, "layout", None)
    backwards = step < 0
    if isinstance(layout, tuple) and len(layout) > 2:
        # (an argument read backwards along its innermost axis: a step > 0
        # there keeps the negative stride; others not known here)
        if step < 0 or base != layout[0][-1]:
            return None
        unit, backwards = _never(), True
    elif step == 1:
        unit = _unit_stride(cx, arr, base)
        if unit is None:
            return None
    else:
        unit = _never()
    unit = simplify(unit)
    if isinstance(unit, ir.Const) and unit.value:
        unit = None
    if axis == perm[-1]:
        return "reduce", None, unit, backwards
    pos = order.index(axis)
    if not fm or len(order) - pos > 2 and isinstance(layout, tuple) and \
            any(st is not None and st[1] < 0 for st in steps):
        # (lines of two or more axes of an argument laid out by its strides:
        # the signs of its strides are not in the call's key, so whether a
        # reversed view's lines merge is not known here)
        return None
    return lines_rule(order, merges, pos, unit, backwards)


def lines_rule(order, merges, pos, unit, backwards):
    """("lines", axes, unit, backwards) of NumPy's binary fmax/fmin loop for
    a reduction of axis order[pos] (order: axes outermost first, merges[i]:
    order[i] and order[i + 1] are one run of memory): the lines are the
    axes inside it; where they do not merge, NumPy's iterator copies them
    into its buffer (contiguous lines: no unit-stride test, not backwards;
    measured with 3-D views of up to 600-element lines, /tmp/h1/model3d.py
    of session 26; lines of more than 8192 elements are not modelled)."""
    lines = tuple(order[pos + 1:])
    if not all(merges[pos + 1:]):
        return "lines", lines, None, False
    return "lines", lines, unit, backwards


def _unit_stride(cx, arr, base):
    """The test that axis `base` of the viewed array has unit stride: a C,
    Fortran or new array: the axes inside it in memory all of size 1; an
    argument laid out by its strides: its stride at call time where `base`
    is its innermost axis; None where not known."""
    layout = array_layout(arr)
    image = getattr(arr, "image", None)
    if isinstance(getattr(arr, "layout", None), tuple):
        if image is None or base != layout[0][-1]:
            return None
        return ir.EQ(image.dim(arr.ndim - 1 - base).stride().node, ir.index(1))
    try:
        order, _ = memory_order(ArrayExpr(arr.shape, arr.ty, None, None), layout)
    except Unresolved:
        return None
    size = ir.index(1)
    for j in order[order.index(base) + 1:]:
        size = ir.Mul(size, ops.cast(ir.INDEX, ops.node_of(cx, arr.shape[j])))
    return ir.EQ(size, ir.index(1))


def _never():
    """A false boolean node (a stride known not to be 1)."""
    return ir.EQ(ir.index(0), ir.index(1))
