"""np.trace and a.trace() of NumPy-style array code, as NumPy computes it
(PyArray_Trace): the diagonal (offset, axis1, axis2; the other axes first,
the diagonal last) summed along its last axis by add.reduce with dtype=
(integers below intp become intp, as np.sum). A float trace of a 2-D array
is NumPy's pairwise sum of the diagonal (sum_order.float_sum of the 1-D
diagonal); float arrays of more than 2 dimensions are refused (NumPy's
order there depends on the strides)."""
from __future__ import annotations

import numpy as np

from pyhalide import ir

from . import array_calls, ops
from .array_args import dtype_value, numpy_ty, operand_of, parse_args
from .array_reduce import finish, total
from .arrayexpr import ArrayExpr
from .values import Val, const_val


def constant_int(b, got, name, default, what="trace"):
    """The constant integer argument `name` of `what` in parse_args' `got`."""
    v, where = got.get(name, (None, None))
    if v is None:
        return default
    if isinstance(v, Val) and v.is_const and isinstance(v.const, (int, np.integer)) and \
            not isinstance(v.const, (bool, np.bool_)):
        return int(v.const)
    raise b.cx.err(where, f"{name}= of {what} must be a constant integer")


def diagonal(b, a: ArrayExpr, offset: int, ax1: int, ax2: int, node) -> ArrayExpr:
    """a.diagonal(offset, ax1, ax2) as a new array value (other axes, then
    the diagonal)."""
    cx = b.cx
    n1, n2 = a.shape[ax1], a.shape[ax2]
    lo1, lo2 = max(0, -offset), max(0, offset)
    zero = const_val(0)

    def smaller(p, q):
        return ops.select(cx, cx.compare("<", p, q), p, q, lazy=False)
    k = smaller(ops.binary(cx, "-", n1, const_val(lo1)), ops.binary(cx, "-", n2, const_val(lo2)))
    k = ops.select(cx, cx.compare("<", k, zero), zero, k, lazy=False)
    others = [j for j in range(a.ndim) if j not in (ax1, ax2)]
    last1, last2 = (ir.Max(ir.Sub(ops.cast(ir.INDEX, ops.node_of(cx, n)), ir.index(1)),
                           ir.index(0)) for n in (n1, n2))

    def elem(idx):
        full = [None] * a.ndim
        for j, i in zip(others, idx):
            full[j] = i
        # (clamped into the axes so that bounds inference sees the reads
        # inside the array, also where the diagonal is read through an index
        # whose interval is wider than the diagonal (d[::-1]): the index is
        # always in [0, the diagonal's size))
        full[ax1] = ir.Max(ir.Min(ir.Add(idx[-1], ir.index(lo1)), last1), ir.index(0))
        full[ax2] = ir.Max(ir.Min(ir.Add(idx[-1], ir.index(lo2)), last2), ir.index(0))
        return a.elem(full)
    return ArrayExpr([a.shape[j] for j in others] + [k], a.ty, elem, node)


def diagonal_axes(b, got, a, node, what) -> list:
    """The axes axis1 and axis2 of `what` (trace, diagonal) in parse_args'
    `got`, as NumPy checks them."""
    axes = []
    for name, default in (("axis1", 0), ("axis2", 1)):
        k = constant_int(b, got, name, default, what)
        if not -a.ndim <= k < a.ndim:
            raise b.cx.err(got[name][1], f"{name}: axis {k} is out of bounds for array of "
                                         f"dimension {a.ndim}")
        axes.append(k % a.ndim)
    if axes[0] == axes[1]:
        raise b.cx.err(node, "axis1 and axis2 cannot be the same")
    return axes


def trace_call(b, obj, node):
    got = parse_args(b, "trace", obj, node, ("offset", "axis1", "axis2", "dtype", "out"))
    cx = b.cx
    a = operand_of(b, got["a"][0], got["a"][1])
    if a.ndim < 2:
        raise cx.err(node, "diag requires an array of at least two dimensions (NumPy's "
                           "ValueError)", hint="trace takes a 2-D (or higher) array")
    offset = constant_int(b, got, "offset", 0)
    axes = diagonal_axes(b, got, a, node, "trace")
    if a.ty.is_complex():
        raise cx.err(node, "trace of complex arrays is not supported yet")
    if a.ty.is_float() and a.ndim > 2:
        raise cx.err(node, "trace of a float array of more than 2 dimensions is not supported "
                           "(NumPy's summation order there depends on the strides)",
                     hint="take the trace of 2-D slices")
    dt = dtype_value(cx, *got.get("dtype", (None, None)))
    sample = np.zeros((2, 2), a.ty.dtype)
    rt = numpy_ty(b, lambda: np.trace(sample, dtype=dt).dtype, node)
    d = diagonal(b, a, offset, axes[0], axes[1], node)
    last = (d.ndim - 1,)
    out = total(b.array_code, d, last, rt, node, "trace")
    return finish(b.array_code, out, last, d.ndim, False, node)


@array_calls.function(np.trace)
def _trace(b, fn, node):
    return trace_call(b, None, node)


@array_calls.method("trace")
def _trace_method(b, obj, name, node):
    return trace_call(b, obj, node)
