"""Moving slices, session 28 (frontend_ast/moving_slices.py): a vector times
a matrix of moving slices (`data[:, i] @ data[:, i:]`, `A[i:, :] @ x`) and
chained targets (`cov[i:, i] = cov[i, i:] = ...`) in element-wise slice
assignments equal plain Python, with NumPy's ValueError where the core
dimensions differ; forms the element loop cannot do exactly stay located
errors."""
import numpy as np
import pytest

import pyhalide as ph

RNG = np.random.default_rng(28)


def covariance(data):
    n = data.shape[1]
    cov = np.zeros((n, n), dtype=data.dtype)
    for i in range(n):
        cov[i:n, i] = cov[i, i:n] = data[:, i] @ data[:, i:n] / (data.shape[0] - 1.0)
    return cov


def matvec_update(y, A, x, c):
    for i in range(y.shape[0]):
        y[i:] += np.dot(A[i:, c:], x) * 0.5 - A[i:, 0]
    return y


def two_products(A, x):
    y = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        y[i:] = A[i:, :] @ x + A[i:, :] @ x
    return y


def reads_target(A):
    for i in range(1, A.shape[0]):
        A[i, i:] = A[:, i] @ A[:, i:]
    return A


def moving_sum(A):
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        out[i] = A[i, :i].sum()
    return out


_JIT = {}


def jit(f):
    return _JIT.setdefault(f, ph.pipeline(f))


def run(f, *args):
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        return f(*args), args
    except Exception as e:  # noqa: BLE001 - the exception type is the result
        return type(e), args


def check(f, *args):
    want, wargs = run(f, *args)
    got, gargs = run(jit(f), *args)
    if isinstance(want, type):
        assert got is want
    else:
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
        assert np.asarray(got).dtype == np.asarray(want).dtype
    for w, g in zip(wargs, gargs):
        if isinstance(w, np.ndarray):
            np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-15)


def test_covariance_vector_times_matrix_chained_targets():
    data = RNG.random((7, 6))
    check(covariance, data - data.mean(axis=0))


@pytest.mark.parametrize("c,m", [(0, 4), (1, 3), (0, 3), (-2, 2), (5, 0)])
def test_matrix_times_vector_bounds_and_errors(c, m):
    # m != the columns from c: NumPy's ValueError (nothing written)
    check(matvec_update, RNG.random(5), RNG.random((5, 4)), RNG.random(m), c)


@pytest.mark.parametrize("f", [two_products, reads_target, moving_sum])
def test_forms_without_an_exact_element_loop_stay_refused(f):
    # two products (two inner loops), a product reading the target (NumPy
    # reads before writing), a float sum (NumPy's pairwise order)
    with pytest.raises(ph.CompileError, match="slice bounds"):
        jit(f)(RNG.random((5, 5)), *([RNG.random(5)] if f is two_products else []))
