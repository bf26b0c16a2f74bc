"""np.polyval (issue 17): Horner's rule as NumPy runs it, bit for bit (no
fused multiply-add; `0 * x` in x's dtype first), NumPy's result types,
scalar and n-d x, coefficients as arrays and literals. Compared with NumPy
at sizes 0, 1, 5 and 1003."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check


@ph.pipeline
def polyval(p, x):
    return np.polyval(p, x)


@ph.pipeline
def polyval_literal(x):
    return np.polyval(np.array([1.5, -2.0, 0.25, 3.0]), x) + 1.0


@ph.pipeline
def polyval_in_loop(p, a):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = np.polyval(p, a[i]) * 2.0
    return out


def _arr(n, dtype, seed):
    rng = np.random.default_rng(seed * 1000 + n)
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(n) * 3).astype(dtype)
    return rng.integers(-5, 6, n).astype(dtype)


@pytest.mark.parametrize("n", (0, 1, 5, 1003))
@pytest.mark.parametrize("pt,xt", [(np.float64, np.float64), (np.float64, np.int64)] + [
    pytest.param(*d, marks=pytest.mark.slow) for d in
    [(np.float32, np.float32), (np.float64, np.float32), (np.int64, np.int64),
     (np.int32, np.float32)]])
def test_polyval_arrays(n, pt, xt):
    x = _arr(n, xt, 1)
    for m in (1, 2, 6):
        p = _arr(m, pt, 2)
        check(polyval, p, x)
        check(polyval, p, x.reshape(1, n))
    check(polyval_literal, x)


def test_polyval_scalar_x_and_signs():
    p = np.array([-0.0, 1.0, -0.0])
    for x in (2.5, -3.0, np.float32(1.5), 7, np.int64(-2)):
        check(polyval, p, x)
        check(polyval, np.array([2, -3]), x)
    # an integer x: NumPy's 0 * x is +0 (a float product would give -0)
    check(polyval, np.array([-0.0]), np.arange(-3, 4))
    check(polyval, np.array([1.0, 2.0]), np.array([np.inf, -np.inf, np.nan, -0.0]))


def test_polyval_empty_coefficients():
    check(polyval, np.zeros(0), np.arange(4.0))
    check(polyval, np.zeros(0, np.int64), np.arange(4))
    with pytest.raises(ValueError, match="no coefficients"):
        polyval(np.zeros(0), np.arange(4))


@pytest.mark.parametrize("n", (0, 1, 5, 1003))
def test_polyval_in_loop(n):
    check(polyval_in_loop, _arr(4, np.float64, 3), _arr(n, np.float64, 4))


def test_polyval_refusals():
    @ph.pipeline
    def two_d(p, x):
        return np.polyval(p, x)

    with pytest.raises(ph.CompileError, match="1-D"):
        two_d(np.ones((2, 2)), np.ones(3))
