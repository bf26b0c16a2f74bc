"""np.dot / @ of row slices whose length is a loop variable inside a loop
(frontend_ast/slice_dots.py: an inner reduction before the statement):
values, dtypes and exceptions as plain Python's (the sums in order, which
NumPy's BLAS may round differently: compared within rounding)."""
import numpy as np
import pytest

from pyhalide import pipeline
from tests.frontend.outcomes import outcome

RNG = np.random.default_rng(21)


def two_arrays(X, Y):
    out = np.zeros(X.shape[0])
    for j in range(X.shape[0]):
        out[j] = np.dot(X[j, :j], Y[j, :j]) + X[j, 0]
    return out


def fixed_row(X, Y):
    out = np.zeros(X.shape[0])
    for j in range(X.shape[0]):
        out[j] = 2.0 * (X[j, :j] @ Y[1, :j])
    return out


def typed(X, Y):
    out = np.zeros(X.shape[0], dtype=np.int64)
    for j in range(X.shape[0]):
        out[j] = np.dot(X[j, :j], Y[j, :j])
    return out


def under_if(X):
    t = 0.0
    for j in range(1, X.shape[0]):
        if X[j, 0] > 0.5:
            t += np.dot(X[j, :j], X[j - 1, :j])
    return t


def _agree(got, exp, rtol):
    if got[0] != exp[0]:
        return False
    if got[0] == "raise":
        return got == exp
    g, e = np.asarray(got[1]), np.asarray(exp[1])
    return g.dtype == e.dtype and g.shape == e.shape and np.allclose(g, e, rtol=rtol)


CASES = [
    (two_arrays, (RNG.random((6, 6)), RNG.random((6, 6)))),
    (two_arrays, (RNG.random((6, 6)), RNG.random((6, 4)))),      # shapes not aligned
    (two_arrays, (RNG.random((6, 6)).astype(np.float32), RNG.random((6, 6)).astype(np.float32))),
    (fixed_row, (RNG.random((5, 5)), RNG.random((2, 5)))),
    (fixed_row, (RNG.random((5, 5)), RNG.random((1, 5)))),       # row 1 out of range
    (fixed_row, (RNG.random((1, 5)), RNG.random((1, 5)))),       # only j = 0: empty slices
    (typed, (RNG.integers(-9, 9, (5, 5)).astype(np.int32),
             RNG.integers(-9, 9, (5, 5)).astype(np.int8))),
    (under_if, (RNG.random((7, 7)),)),
]


@pytest.mark.parametrize("k", range(len(CASES)))
def test_row_slice_dots_as_python(k):
    fn, args = CASES[k]
    rtol = 1e-5 if any(a.dtype == np.float32 for a in args) else 1e-13
    assert _agree(outcome(pipeline(fn), *args), outcome(fn, *args), rtol)
