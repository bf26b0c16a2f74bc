"""LU with a hand-written pivot search, row swap and update nest in one `k`
loop (session 27, issue 17): phase mode runs the inner loops as Blocks
(frontend_ast/carried_blocks.py). Plain Python is the oracle: the array
(and the pivots) after the call, written in place into the arguments."""
import warnings

import numpy as np
import pytest

import pyhalide as ph


def lu_piv(a):
    n = a.shape[0]
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if abs(a[i, k]) > abs(a[p, k]):
                p = i
        for j in range(n):
            t = a[k, j]
            a[k, j] = a[p, j]
            a[p, j] = t
        for i in range(k + 1, n):
            f = a[i, k] / a[k, k]
            for j in range(k + 1, n):
                a[i, j] -= f * a[k, j]
            a[i, k] = f


def lu_tuple(a):
    # the search backwards (ties: the last row), the swap a tuple assignment
    n = a.shape[0]
    for k in range(n):
        p = k
        for i in range(n - 1, k, -1):
            if abs(a[i, k]) >= abs(a[p, k]):
                p = i
        for j in range(n):
            a[k, j], a[p, j] = a[p, j], a[k, j]
        for i in range(k + 1, n):
            a[i, k] = a[i, k] / a[k, k]
            for j in range(k + 1, n):
                a[i, j] = a[i, j] - a[i, k] * a[k, j]


def lu_factor(a, piv):
    # scipy.linalg.lu_factor's result: L and U in a, the pivot rows in piv
    n = a.shape[0]
    for k in range(n):
        p = k
        big = abs(a[k, k])
        for i in range(k + 1, n):
            if abs(a[i, k]) > big:
                big = abs(a[i, k])
                p = i
        piv[k] = p
        if p != k:
            for j in range(n):
                a[k, j], a[p, j] = a[p, j], a[k, j]
        for i in range(k + 1, n):
            a[i, k] /= a[k, k]
            for j in range(k + 1, n):
                a[i, j] -= a[i, k] * a[k, j]


def lu_rows(a):
    # the swap by row slices
    n = a.shape[0]
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if a[i, k] != 0.0 and abs(a[i, k]) > abs(a[p, k]):
                p = i
        t = a[k, :].copy()
        a[k, :] = a[p, :]
        a[p, :] = t
        for i in range(k + 1, n):
            f = a[i, k] / a[k, k]
            for j in range(k + 1, n):
                a[i, j] -= f * a[k, j]
            a[i, k] = f


_FNS = {f.__name__: (f, ph.pipeline(f)) for f in (lu_piv, lu_tuple, lu_factor, lu_rows)}


def _matrices():
    rng = np.random.default_rng(27)
    out = [rng.standard_normal((n, n)) for n in (1, 2, 7)]
    sing = rng.standard_normal((7, 7))
    sing[:, 3] = 0.0                    # a singular column: a zero pivot, inf and nan
    out.append(sing)
    out.append(np.array([[1.0, 2.0, -1.0], [-1.0, 1.0, 2.0], [1.0, 0.0, 1.0]]))  # |a| ties
    out.append(rng.choice([-1.0, 0.0, 1.0, 2.0], size=(7, 7)))     # ties, zero pivots
    return out


@pytest.mark.parametrize("name", sorted(_FNS))
def test_lu_pivot_as_python(name):
    fn, compiled = _FNS[name]
    for a in _matrices():
        args = [a] + ([np.full(a.shape[0], -1, np.int64)] if name == "lu_factor" else [])
        want = [x.copy() for x in args]
        got = [x.copy() for x in args]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            fn(*want)
        assert compiled(*got) is None
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g, w)     # (nan where Python has nan)


def test_lu_factor_matches_scipy_convention():
    # P A = L U with the pivots applied in order (LAPACK's getrf convention)
    a = np.random.default_rng(5).standard_normal((7, 7))
    lu, piv = a.copy(), np.zeros(7, np.int64)
    _FNS["lu_factor"][1](lu, piv)
    L, U = np.tril(lu, -1) + np.eye(7), np.triu(lu)
    pa = a.copy()
    for k, p in enumerate(piv):
        pa[[k, p]] = pa[[p, k]]
    np.testing.assert_allclose(L @ U, pa, rtol=1e-12, atol=1e-12)


def test_name_first_bound_in_inner_loop_is_not_read_after_it():
    def f(a):
        n = a.shape[0]
        for k in range(n):
            for j in range(n):
                t = a[k, j]
                a[k, j] = a[n - 1 - k, j]
                a[n - 1 - k, j] = t
            a[k, 0] = t
    with pytest.raises(ph.CompileError, match="line"):
        ph.pipeline(f)(np.ones((3, 3)))


def test_array_rebound_in_inner_loop_is_refused():
    # the next iteration of the inner loop would read this one's `b`
    def f(a):
        n = a.shape[0]
        b = a[0, :].copy()
        for k in range(n):
            c = 1.0
            for j in range(n):
                b = b * c
                a[k, j], a[n - 1 - k, j] = a[n - 1 - k, j], a[k, j]
        return b
    with pytest.raises(ph.CompileError, match="rebinds 'b'"):
        ph.pipeline(f)(np.ones((3, 3)))
