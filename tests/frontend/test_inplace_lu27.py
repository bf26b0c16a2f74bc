"""In-place Doolittle LU and row Cholesky (npbench/polybench `lu`,
`cholesky`; session 27): deps.py cannot relate the reads of A to its writes
in these nests, so the build runs the nest again in phase mode with its
inner loops as Blocks (specialize._build_with_blocks,
frontend_ast/carried_blocks.py). `acc = 0.0` becomes a NumPy float in the
reduction loop (carried_blocks: promoted members). Plain Python is the
oracle: the values written in place into A (bit for bit), the exception
type and the writes made before it."""
import warnings

import numpy as np
import pytest

import pyhalide as ph


def lu(A):
    for i in range(A.shape[0]):
        for j in range(i):
            acc = 0.0
            for k in range(j):
                acc += A[i, k] * A[k, j]
            A[i, j] -= acc
            A[i, j] /= A[j, j]
        for j in range(i, A.shape[0]):
            acc = 0.0
            for k in range(i):
                acc += A[i, k] * A[k, j]
            A[i, j] -= acc


def cholesky(A):
    A[0, 0] = np.sqrt(A[0, 0])
    for i in range(1, A.shape[0]):
        for j in range(i):
            acc = 0.0
            for k in range(j):
                acc += A[i, k] * A[j, k]
            A[i, j] -= acc
            A[i, j] /= A[j, j]
        acc2 = 0.0
        for k in range(i):
            acc2 += A[i, k] * A[i, k]
        A[i, i] -= acc2
        A[i, i] = np.sqrt(A[i, i])


def acc_type(A, c):
    # the reduction's result is a Python float where its loop does not run
    # (j = 0) and a NumPy float after it runs: `1.0 / (acc - c)` at zero
    # raises ZeroDivisionError in the first case, gives NumPy's inf in the
    # second
    for i in range(A.shape[0]):
        for j in range(i + 1):
            acc = 0.0
            for k in range(j):
                acc += A[i, k] * A[k, j]
            A[i, j] = 1.0 / (acc - c)


_JIT = {f.__name__: ph.pipeline(f) for f in (lu, cholesky, acc_type)}


def _matrices(n):
    rng = np.random.default_rng(n)
    m = rng.standard_normal((n, n))
    spd = m @ m.T + n * np.eye(n)
    sing = m @ m.T
    sing[:, n // 2] = 0.0
    sing[n // 2, :] = 0.0
    ties = np.ones((n, n)) + 2.0 * np.eye(n)
    return {"random": m, "spd": spd, "singular": sing, "ties": ties}


def _check(fn, a, *args):
    a1, a2 = a.copy(), a.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(a1, *args)
            e1 = None
        except Exception as e:      # the oracle's exception type
            e1 = type(e)
        try:
            _JIT[fn.__name__](a2, *args)
            e2 = None
        except Exception as e:
            e2 = type(e)
    assert e1 is e2
    assert a1.dtype == a2.dtype
    np.testing.assert_array_equal(a1, a2)       # (NaN equal to NaN)
    return e1, a1


@pytest.mark.parametrize("fn", [lu, cholesky])
@pytest.mark.parametrize("n", [1, 2, 7])
def test_square(fn, n):
    for a in _matrices(n).values():
        _check(fn, a)


@pytest.mark.parametrize("fn", [lu, cholesky])
def test_other_shapes_and_float32(fn):
    rng = np.random.default_rng(3)
    for a in (rng.standard_normal((3, 5)), rng.standard_normal((5, 3)), np.zeros((0, 0)),
              (rng.standard_normal((6, 6)) + 6.0 * np.eye(6)).astype(np.float32)):
        _check(fn, a)       # (5, 3), (0, 0) cholesky: IndexError, A as Python leaves it


def test_python_float_where_the_loop_does_not_run():
    e, _ = _check(acc_type, np.ones((3, 3)), 0.0)
    assert e is ZeroDivisionError           # (i = j = 0: 1.0 / 0.0 of Python floats)
    b = np.ones((3, 3))
    b[0, 1] = -1.0
    e, a = _check(acc_type, b, 1.0)
    assert e is None and np.isinf(a[1, 1])  # (acc = 1.0, a NumPy float: inf)
    _check(acc_type, np.eye(4) + 1.0, 2.0)
