"""`if a[k, k] == 0.0: ok = False; break` before LU's row loops, the flag
returned (frontend_ast/outer_exit.py: the carried names keep their scan,
computed after the update's nest from the values iteration k found).
Against plain Python on copies: the returned value, the exception type and
the partial writes made before it."""
import numpy as np
import pytest

from pyhalide import pipeline


def lu_ok(a):
    n = a.shape[0]
    ok = True
    for k in range(n):
        if a[k, k] == 0.0:
            ok = False
            break
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                a[i, j] -= a[i, k] / a[k, k] * a[k, j]
    return ok


def lu_stop(a):
    # the k where it stopped, and the value read there
    n = a.shape[0]
    stop = n
    p = 1.0
    for k in range(n):
        if a[k, k] == 0.0:
            stop = k
            p = a[k, k] + k
            break
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                a[i, j] -= a[i, k] / a[k, k] * a[k, j]
    return stop, p


def lu_f_ok(a):
    # the multiplier in a name (its checks stored where Python computes it)
    n = a.shape[0]
    ok = True
    for k in range(n):
        if a[k, k] == 0.0:
            ok = False
            break
        for i in range(k + 1, n):
            f = a[i, k] / a[k, k]
            for j in range(k, n):
                a[i, j] -= f * a[k, j]
    return ok


def lu_ok_rect(a):
    # j to the column count: on (m + 1, m) the test at k = m raises IndexError
    n = a.shape[0]
    ok = True
    for k in range(n):
        if a[k, k] == 0.0:
            ok = False
            break
        for i in range(k + 1, n):
            for j in range(k + 1, a.shape[1]):
                a[i, j] -= a[i, k] / a[k, k] * a[k, j]
    return ok


LU_OK = pipeline(lu_ok)
LU_STOP = pipeline(lu_stop)
LU_F_OK = pipeline(lu_f_ok)
LU_OK_RECT = pipeline(lu_ok_rect)


def _outcome(fn, a):
    try:
        return fn(a)
    except Exception as e:      # noqa: BLE001 (the type is compared)
        return type(e)


def _check(jit, py, a):
    got, want = a.copy(), a.copy()
    r, w = _outcome(jit, got), _outcome(py, want)
    assert r == w and type(r) is type(w) or (isinstance(w, bool) and r is bool(w)), (r, w)
    np.testing.assert_array_equal(got, want)
    return w


def _singular_at(n, m, cols=None):
    # L @ U with unit L and U[m, m] = 0: exact in float64 (small integers,
    # multipliers L[i, k]), so LU's pivot is exactly 0 at k = m
    cols = cols or n
    rng = np.random.default_rng((m or 0) + 10 * n)
    low = np.tril(rng.integers(-2, 3, (n, n)), -1) + np.eye(n)
    up = np.triu(rng.integers(-2, 3, (n, cols)), 1) + np.eye(n, cols) * 2.0
    if m is not None:
        up[m, m] = 0.0
    return low @ up


@pytest.mark.parametrize("m", [0, 3, 5, None])
def test_flag_at_k(m):
    # the zero pivot at k = 0, in the middle, at the last k, none
    a = _singular_at(6, m)
    assert _check(LU_OK, lu_ok, a) is (m is None)
    assert _check(LU_STOP, lu_stop, a)[0] == (6 if m is None else m)
    assert _check(LU_F_OK, lu_f_ok, a) is (m is None)


@pytest.mark.parametrize("shape,m", [((4, 7), None), ((4, 7), 2), ((6, 4), None),
                                     ((6, 4), 0), ((0, 0), None), ((1, 1), 0)])
def test_non_square(shape, m):
    # tall without a zero pivot: IndexError in k = 0's rows with Python's
    # partial writes; with one at k = 0 the break comes first
    a = _singular_at(shape[0], m, shape[1]) if shape[0] <= shape[1] else \
        np.random.default_rng(1).random(shape) + 2.0
    if m is not None and shape[0] > shape[1]:
        a[m, m] = 0.0
    _check(LU_OK, lu_ok, a)
    _check(LU_STOP, lu_stop, a)


@pytest.mark.parametrize("shape,m", [((5, 4), None), ((5, 4), 2), ((4, 5), 3)])
def test_rect_test_raises_after_updates(shape, m):
    # (5, 4) with no zero pivot: every update made, then a[4, 4] raises
    a = np.random.default_rng(2).random(shape) + 2.0
    if m is not None:
        a[m, m] = 0.0
    _check(LU_OK_RECT, lu_ok_rect, a)


def test_in_place_size():
    # 100 x 100 float64 (80 KB): the in-place variant
    for m in (40, None):
        assert _check(LU_OK, lu_ok, _singular_at(100, m)) is (m is None)
