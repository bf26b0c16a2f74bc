"""An inner reduction that starts from an element read (`s = A[j, j]; for k
in range(j): s -= ...`) in a nest that writes the array the reduction reads
(imperative_nests.py): its values move into the merged Func, so its own
Func is not an unused loop with checks (check_order.unrealized_checked
skips a merged group). Compared with plain Python bit for bit, including
its IndexError (a non-square matrix) and NaN (not positive definite)."""
import math

import numpy as np
import pytest

from pyhalide import pipeline
from tests.frontend.test_exception_order import same_outcome

RNG = np.random.default_rng(2020)


def spd(n):
    r = RNG.random((n, n))
    return r @ r.T + n * np.eye(n)


def cholesky_from_element(A):
    n = A.shape[0]
    L = np.zeros((n, n))
    for j in range(n):
        s = A[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        L[j, j] = np.sqrt(s)
        for i in range(j + 1, n):
            t = A[i, j]
            for k in range(j):
                t -= L[i, k] * L[j, k]
            L[i, j] = t / L[j, j]
    return L


def cholesky_math_sqrt(A):
    n = A.shape[0]
    L = np.zeros((n, n))
    for j in range(n):
        s = A[j, j]
        for k in range(j):
            s -= L[j, k] ** 2
        L[j, j] = math.sqrt(s)
        for i in range(j + 1, n):
            t = A[i, j]
            for k in range(j):
                t -= L[i, k] * L[j, k]
            L[i, j] = t / L[j, j]
    return L


def forward_from_element(L, b):
    n = b.shape[0]
    x = np.zeros(n)
    for i in range(n):
        s = b[i]
        for j in range(i):
            s -= L[i, j] * x[j]
        x[i] = s / L[i, i]
    return x


P_CHOL = pipeline(cholesky_from_element)
P_MATH = pipeline(cholesky_math_sqrt)
P_FWD = pipeline(forward_from_element)


@pytest.mark.parametrize("n", [0, 1, 2, 5, 9])
def test_cholesky_bit_exact(n):
    A = spd(n)
    for p, f in ((P_CHOL, cholesky_from_element), (P_MATH, cholesky_math_sqrt)):
        got, want = p(A), f(A)
        assert got.tobytes() == want.tobytes()


def test_not_positive_definite():
    A = -spd(4)
    with np.errstate(invalid="ignore"):
        want = cholesky_from_element(A)
    got = P_CHOL(A)
    assert np.array_equal(got, want, equal_nan=True)
    same_outcome(P_MATH, A)           # math.sqrt: ValueError


def test_non_square_index_error():
    same_outcome(P_CHOL, RNG.random((4, 2)))
    same_outcome(P_CHOL, RNG.random((2, 4)))


@pytest.mark.parametrize("n", [0, 1, 6])
def test_forward_substitution(n):
    L = np.tril(RNG.random((n, n))) + n * np.eye(n)
    b = RNG.random(n)
    assert P_FWD(L, b).tobytes() == forward_from_element(L, b).tobytes()
    same_outcome(P_FWD, L[:, :max(n - 2, 0)], b)
