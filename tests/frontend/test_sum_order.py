"""NumPy's float summation order (frontend_ast/sum_order.float_sum): the
sums equal np.sum bit for bit for float32 and float64, 1-D to 3-D, every
axis and axis tuple, C, F, permuted, sliced and reversed inputs, and with a
cast (dtype=) the iterator's 8192-element chunks. float_sum is driven through
a test-only array method (h3's np.sum is wired to it after the merge)."""
import ast
import itertools

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast import array_calls
from pyhalide.frontend_ast.sum_order import float_sum
from pyhalide.frontend_ast.types import np_ty


@array_calls.method("_np_sum_order")
def _np_sum_order(b, obj, name, node):
    """a._np_sum_order(axis[, dtype]) -> float_sum of a (axis a literal)."""
    ac = b.array_code
    operand = ac.as_array(obj, node)
    axis = ast.literal_eval(node.args[0])
    nd = operand.ndim
    if axis is None:
        axes = tuple(range(nd))
    elif isinstance(axis, int):
        axes = (axis % nd,)
    else:
        axes = tuple(sorted(x % nd for x in axis))
    dtype = np.dtype(node.args[1].value) if len(node.args) > 1 else operand.ty.dtype
    out = float_sum(ac, operand, axes, np_ty(dtype), node)
    return out.elem([]) if out.ndim == 0 else out


def data(shape, dt, seed=0):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    return (rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)).astype(dt).reshape(shape)


def assert_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(np.ascontiguousarray(got).view(np.uint8),
                          np.ascontiguousarray(want).view(np.uint8)), (got, want)


@ph.pipeline
def sum_all(a):
    return a._np_sum_order(None)


@ph.pipeline
def sum_all64(a):
    return a._np_sum_order(None, "float64")


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_1d_small_sizes(dt):
    for n in list(range(0, 300)) + [1000]:
        a = data((n,), dt, n)
        assert_bits(sum_all(a), np.sum(a))
