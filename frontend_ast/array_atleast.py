"""np.atleast_1d / atleast_2d / atleast_3d and np.column_stack of
NumPy-style array code (numpy/_core/shape_base.py, numpy/lib/
_shape_base_impl.py): views with axes of size 1 added, as NumPy's
reshapes are.

- atleast_1d: a scalar or 0-d array becomes shape (1,); atleast_2d adds
  leading axes ((N,) -> (1, N)); atleast_3d: 0-d -> (1, 1, 1), (N,) ->
  (1, N, 1), (M, N) -> (M, N, 1). With several arguments, a tuple of arrays.
- column_stack(tup): a 0-d or 1-D item as a column (N,) -> (N, 1) (NumPy's
  array(v, ndmin=2).T), then np.concatenate along axis 1."""
from __future__ import annotations

import numpy as np

from . import array_calls
from .array_create import as_any_array, concatenate, result_ty, sequence
from .array_shape import call_args, reshaped
from .values import Arr, TupleVal, const_val


def at_least(b, x, nd, node):
    """x with NumPy's atleast_{nd}d axes added (a view)."""
    if x.ndim >= nd:
        return x
    one = const_val(1)
    if nd == 3:
        shape = [one] + list(x.shape) + [one] if x.ndim == 1 else \
            list(x.shape) + [one] if x.ndim == 2 else [one, one, one]
    else:
        shape = [one] * (nd - x.ndim) + list(x.shape)
    return reshaped(b.cx, x, shape, node)


@array_calls.function(np.atleast_1d, np.atleast_2d, np.atleast_3d)
def _atleast(b, fn, node):
    nd = {np.atleast_1d: 1, np.atleast_2d: 2, np.atleast_3d: 3}[fn]
    if node.keywords:
        raise b.cx.err(node.keywords[0], f"np.{fn.__name__}() takes no keyword arguments")
    if not node.args:
        return TupleVal([])
    out = []
    for a in node.args:
        v = b.ev(a)
        x = as_any_array(b, v, a)
        # an array with enough axes is returned itself, as NumPy does
        out.append(v if isinstance(v, Arr) and x.ndim >= nd else at_least(b, x, nd, a))
    return out[0] if len(out) == 1 else TupleVal(out)


@array_calls.function(np.column_stack)
def _column_stack(b, fn, node):
    a = call_args(b, node, "column_stack", ["tup"], 1)
    items, where = sequence(b, a["tup"], "np.column_stack")
    if not items:
        raise b.cx.err(node, "need at least one array to concatenate")
    arrays = []
    for v, w in zip(items, where):
        x = as_any_array(b, v, w)
        if x.ndim < 2:
            x = reshaped(b.cx, x, ([x.shape[0]] if x.ndim else [const_val(1)]) +
                         [const_val(1)], w)
        arrays.append(x)
    return concatenate(b, arrays, 1, result_ty(b, arrays, {}, node), node)
