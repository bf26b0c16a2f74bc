"""A float sum over one axis of a 2-D operand in phase mode
(carried_phases.py): NumPy's order, as phases of the loop's STATE.

NumPy reduces axis 0 of an operand whose axis 1 is inner in memory (a C
array; likewise axis 1 of one whose axis 0 is inner: a transposed C
array) row by row: its iterator keeps the inner axis as the inner loop,
so out[j] = ((+0.0 + y[0, j]) + y[1, j]) + ... in turn (the output
starts at the identity: [[-0.0]] sums to +0.0). Where the kept axis has
one element the iterator drops it and the reduction is the inner loop: a
pairwise sum of the column (sum_order.py), the whole-array sum of
carried_sums.phase_sum over the R elements y[i, 0]. Both are phases
(PhaseRun.reduction: the rows in turn at each column, the reduced axis
innermost; phase_sum over a column of R elements where the kept axis has
one element, of none elsewhere), the result selected by the kept axis's
size when the function runs (at compile time where it is a constant).

Another memory order (the reduced axis inner: a pairwise sum per
column), an operand NumPy casts, or one with two axes of more than one
element read from arrays whose layout phase mode does not know
(PhaseRun.layout_known) stay located errors (carried_sums.phase_sum's)."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.expr import cast_node as cast

from . import ops
from .arrayexpr import ArrayExpr, element_node, size_is
from .types import PY_INT
from .values import Val, fresh, with_type_range


def applies(run, operand: ArrayExpr, axes, acc_ty, layout, memory_order) -> bool:
    """Whether rows_sum computes this sum: axis 0 of a 2-D operand of the
    sum's type whose axis 1 is inner in memory (or has one element), read
    from arrays of known layout."""
    if operand.ndim != 2 or len(axes) != 1 or operand.ty != acc_ty:
        return False
    a = axes[0]
    cx, m_ = run.cx, run.m
    if not size_is(operand.shape[1 - a], 1):
        order, _ = memory_order(operand, layout)
        if tuple(order) != (a, 1 - a):
            return False
    at = [ir.Variable(ir.INDEX, fresh(f"row{k}")) for k in range(2)]
    saved = set(m_.reads)
    m_.reads.clear()
    element_node(cx, operand.elem(at), acc_ty)
    made = m_.reads - run.layout_known
    m_.reads |= saved
    return not made or size_is(operand.shape[1 - a], 1)


def rows_sum(run, operand: ArrayExpr, axis, acc_ty, node, lanes, phase_sum, memory_order,
             plan) -> ArrayExpr:
    """operand summed over `axis` (0 or 1; the other axis inner in memory)
    in NumPy's order (see the module docstring), as phases of run (a
    carried_phases.PhaseRun): an ArrayExpr of the other axis's shape."""
    cx = run.cx
    R, C = operand.shape[axis], operand.shape[1 - axis]

    def at(i, j):
        """operand's element at row i (along axis), column j."""
        return operand.elem([i, j] if axis == 0 else [j, i])
    t = acc_ty.ir()
    zero = ir.index(0)
    one_col = size_is(C, 1)
    rows = None
    if not one_col:
        def step(cx_, state, x, _rvars):
            return [Val(ir.Add(state[0].node, element_node(cx_, x, acc_ty)), acc_ty)]
        rows = run.reduction(run.bld.array_code, operand, (axis,), [acc_ty], [ir.Const(t, 0.0)],
                             step, "sum_rows", node, False, None)
    col = None
    if one_col or not C.is_const:
        # the column's R elements where C is 1, none elsewhere
        c_node = cast(ir.INDEX, ops.node_of(cx, C))
        r_node = cast(ir.INDEX, ops.node_of(cx, R))
        n = r_node if one_col else ir.Select(ir.EQ(c_node, ir.index(1)), r_node, zero)
        n_val = R if one_col else Val(n, PY_INT, 0, None, static=_column_size(R, C))
        # (axis 1 read at min(i, 0), 0 where read: bounded by the column as
        # i is, so an empty column reads nothing where C is 0)
        column = ArrayExpr([n_val], operand.ty,
                           lambda i: at(i[0], ir.Min(i[0], zero)), node)
        col = phase_sum(run, column, (0,), acc_ty, node, "C", lanes, memory_order, plan)
    if rows is None:
        return ArrayExpr([C], acc_ty, lambda i: col.elem([]), node)
    if col is None:
        return rows

    def elem(i):
        cx.cur_node = node
        c_node = cast(ir.INDEX, ops.node_of(cx, C))
        a = ops.node_of(cx, col.elem([]))
        b = ops.node_of(cx, rows.elem(i))
        return with_type_range(Val(ir.Select(ir.EQ(c_node, ir.index(1)), a, b), acc_ty))
    return ArrayExpr([C], acc_ty, elem, node)


def _column_size(R, C):
    """The call-time function of the column's length: R where C is 1, else 0."""
    def size(v):
        return (lambda env: v.const) if v.static is None else v.static
    r, c = size(R), size(C)
    return lambda env: int(r(env)) if int(c(env)) == 1 else 0
