"""Phase mode (carried_phases.py) reads an input only at each phase's own
points: the update's RDom spans the largest size over the phases, and a
reduction over one axis of a non-square array in a loop (`out +=
a.min(axis=1)` of a 16x5 `a`) raised a false IndexError (the input read over
[0, 15] in its 5-long axis), as did `a.T @ (a @ v)` of a non-square `a` and
argmin over one axis, and `a.min(axis=0).sum()` even of a square `a` (the
sum's blocks of 8). Compared with plain Python (min/max and integer
sums are exact); a read Python refuses is still refused."""
import numpy as np
import pytest

import pyhalide as ph


def rows_min(a, n):
    out = np.zeros(a.shape[0])
    for i in range(n):
        out += a.min(axis=1)
    return out


def cols_max(a, n):
    out = np.zeros(a.shape[1])
    for i in range(n):
        out += a.max(axis=0)
    return out


def rows_int_sum(a, n):
    out = np.zeros(a.shape[0], dtype=np.int64)
    for i in range(n):
        out = out + a.sum(axis=1)       # (a new array each time)
    return out


def sum_of_column_mins(a, n):
    out = np.zeros(a.shape[0])
    for i in range(n):
        out += a.min(axis=0).sum()
    return out


def rows_min_keepdims(a, n):
    out = np.zeros((a.shape[0], 1))
    for i in range(n):
        out += a.min(axis=1, keepdims=True)
    return out


def middle_min_3d(a, n):
    out = np.zeros((a.shape[0], a.shape[2]))
    for i in range(n):
        out += a.min(axis=1)
    return out


def power_steps(a, v, n):
    for i in range(n):
        w = a.T @ (a @ v)
        v = w / np.abs(w).max()
    return v


def rows_argmin(a, n):
    out = np.zeros(a.shape[0], dtype=np.int64)
    for i in range(n):
        out += a.argmin(axis=1)
    return out


def rows_min_and_column(a, k, n):
    out = np.zeros(a.shape[0])
    for i in range(n):
        out += a.min(axis=1) + a[:, k]
    return out


_KERNELS = {fn: ph.pipeline(fn) for fn in
            (rows_min, cols_max, rows_int_sum, rows_min_keepdims, middle_min_3d,
             sum_of_column_mins, power_steps, rows_argmin, rows_min_and_column)}

_SHAPES_2D = [(16, 5), (5, 16), (4, 3), (3, 3), (7, 1), (1, 7), (0, 4), (4, 0)]


def _check(fn, *args):
    try:
        want = fn(*args)
    except ValueError:                  # a reduction with no identity of an empty axis
        with pytest.raises(ValueError):
            _KERNELS[fn](*args)
        return
    got = _KERNELS[fn](*args)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fn", [rows_min, cols_max, rows_int_sum, rows_min_keepdims,
                                rows_argmin,
                                pytest.param(sum_of_column_mins, marks=pytest.mark.slow)])
def test_one_axis_of_2d(fn):
    rng = np.random.default_rng(25)
    for shape in _SHAPES_2D:
        a = rng.integers(-50, 50, shape) if fn is rows_int_sum else rng.random(shape)
        _check(fn, a, 2)
    _check(fn, rng.random((6, 2)) if fn is not rows_int_sum else
           rng.integers(-9, 9, (6, 2)), 0)


def test_middle_axis_of_3d():
    rng = np.random.default_rng(26)
    for shape in [(2, 3, 4), (4, 3, 2), (6, 2, 2), (2, 2, 6), (3, 5, 3)]:
        _check(middle_min_3d, rng.random(shape), 3)


def test_products_of_a_non_square_matrix():
    # (a product's order of additions is not BLAS's: close, not equal)
    rng = np.random.default_rng(28)
    for shape in [(16, 5), (5, 16), (1, 7), (7, 1)]:
        a, v = rng.random(shape), rng.random(shape[1])
        np.testing.assert_allclose(_KERNELS[power_steps](a, v, 3), power_steps(a, v, 3),
                                   rtol=1e-12)


def test_reads_python_refuses_still_raise():
    a = np.random.default_rng(27).random((16, 5))
    _check(rows_min_and_column, a, 4, 2)
    _check(rows_min_and_column, a, -5, 2)
    with pytest.raises(IndexError):
        rows_min_and_column(a, 5, 2)
    with pytest.raises(IndexError):
        _KERNELS[rows_min_and_column](a, 5, 2)
