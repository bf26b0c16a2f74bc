"""Column-oriented loops whose first statements write the array the loop
after them writes from the next index (frontend_ast/loop_prologue.py):
textbook column Cholesky compiles and equals plain Python bit for bit;
other nests of that shape keep Python's results."""
import math

import numpy as np
import pytest

from pyhalide import pipeline

RNG = np.random.default_rng(20)


def spd(n, order="C"):
    r = RNG.random((n, n))
    return np.asarray(r @ r.T + n * np.eye(n), order=order)


def cholesky_columns(A):
    n = A.shape[0]
    L = np.zeros((n, n))
    for j in range(n):
        s = 0.0
        for k in range(j):
            s += L[j, k] ** 2
        L[j, j] = math.sqrt(A[j, j] - s)
        for i in range(j + 1, n):
            t = 0.0
            for k in range(j):
                t += L[i, k] * L[j, k]
            L[i, j] = (A[i, j] - t) / L[j, j]
    return L


def cholesky_one_name(A):
    n = len(A)
    L = np.zeros_like(A)
    for j in range(n):
        s = 0.0
        for k in range(j):
            s += L[j, k] * L[j, k]
        L[j, j] = np.sqrt(A[j, j] - s)
        for i in range(j + 1, n):
            s = 0.0
            for k in range(j):
                s += L[i, k] * L[j, k]
            L[i, j] = (A[i, j] - s) / L[j, j]
    return L


def cholesky_dots(A):
    n = A.shape[0]
    L = np.zeros((n, n))
    for j in range(n):
        L[j, j] = math.sqrt(A[j, j] - np.dot(L[j, :j], L[j, :j]))
        for i in range(j + 1, n):
            L[i, j] = (A[i, j] - np.dot(L[i, :j], L[j, :j])) / L[j, j]
    return L


def cholesky_matmul(A):
    n = A.shape[0]
    L = np.zeros_like(A)
    for j in range(n):
        L[j, j] = np.sqrt(A[j, j] - L[j, :j] @ L[j, :j])
        for i in range(j + 1, n):
            L[i, j] = (A[i, j] - L[i, :j] @ L[j, :j]) / L[j, j]
    return L


def diagonal_first(a):
    n = a.shape[0]
    out = np.zeros((n, n))
    for j in range(n):
        out[j, j] = a[j]
        for i in range(j + 1, n):
            out[i, j] = out[j, j] * 0.5 + a[i]
    return out


def row_prologue(a):
    n = a.shape[0]
    out = np.zeros((n, n))
    for j in range(n):
        out[j, 0] = 1.0
        for i in range(j + 1, n):
            out[j, i] = a[i]
    return out


def scalar_prologue(a):
    n = a.shape[0]
    out = np.zeros(n + 1)
    for j in range(n):
        t = a[j] * 2
        out[j] += t
        for i in range(j + 1, n):
            out[i] += t * out[j]
    return out


def _same(a, b):
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == \
            np.ascontiguousarray(b).tobytes()
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("fn", [cholesky_columns, cholesky_one_name])
def test_column_cholesky_bit_exact(fn):
    compiled = pipeline(fn)
    for n in (0, 1, 2, 3, 8, 17):
        A = spd(n)
        assert _same(compiled(A), fn(A)), n
    A = spd(9, "F")
    assert _same(compiled(A), fn(A))
    big = np.zeros((12, 12))
    big[::2, 1::2] = spd(6)
    B = big[::2, 1::2]                  # a strided view
    assert _same(compiled(B), fn(B))


@pytest.mark.parametrize("fn", [cholesky_dots, cholesky_matmul])
def test_column_cholesky_of_row_slices(fn):
    # the compiled np.dot of two vectors sums in order: the loop form's result
    # bit for bit, NumPy's (BLAS) within rounding
    compiled = pipeline(fn)
    for n in (0, 1, 2, 5, 16):
        A = spd(n)
        got = compiled(A)
        assert _same(got, cholesky_columns(A)), n
        np.testing.assert_allclose(got, fn(A), rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(got, np.linalg.cholesky(A), rtol=1e-10, atol=1e-12)


def test_not_positive_definite_as_python():
    A = spd(5)
    A[3, 3] = -50.0                     # math.sqrt of a negative: ValueError
    with pytest.raises(ValueError):
        cholesky_columns(A)
    with pytest.raises(ValueError):
        pipeline(cholesky_columns)(A)


@pytest.mark.parametrize("fn", [diagonal_first, row_prologue, scalar_prologue])
def test_other_prologues(fn):
    compiled = pipeline(fn)
    for n in (0, 1, 2, 7):
        a = RNG.random(n)
        assert _same(compiled(a), fn(a)), n
