"""range() loops of @pipeline functions: any step (scans backwards and by
strides) and bounds from scalar arguments and enclosing loop variables, for
scalars of every integer type and extreme values. Each compiled result is
compared with the plain function."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check


# scans over any step --------------------------------------------------------------------------
@ph.pipeline
def reverse_scan(a):
    out = np.zeros(len(a), np.int64)
    acc = 0
    for i in range(len(a) - 1, -1, -1):
        acc += a[i]
        out[i] = acc
    return out


@ph.pipeline
def stride_scan(a):
    out = np.zeros(len(a), np.float64)
    acc = 0.0
    for i in range(0, len(a), 2):
        acc += a[i]
        out[i] = acc
    return out


@ph.pipeline
def compact_backwards(a):
    out = np.zeros(len(a), np.int64)
    k = 0
    for i in range(len(a) - 1, -1, -2):
        out[k] = a[i]
        k += 1
    return out, k


def test_scans_with_any_step():
    for n in (0, 1, 5, 8):
        a = np.arange(1, n + 1, dtype=np.int32)
        check(reverse_scan, a)
        check(stride_scan, a.astype(np.float64))
        check(compact_backwards, a)


# loop bounds from scalar arguments and enclosing loop variables ------------------------------
@ph.pipeline
def window_sum(x, k):
    n = len(x)
    y = np.zeros_like(x)
    for j in range(1, n - 1):
        s = x[j - k]
        for jj in range(j - k + 1, j + k + 1):
            s += x[jj]
        y[j] = s
    return y


@ph.pipeline
def clipped_window(x, k):
    n = len(x)
    y = np.zeros_like(x)
    for j in range(n):
        s = 0.0
        for jj in range(max(0, j - k), min(n, j + k + 1)):
            s += x[jj]
        y[j] = s
    return y


@ph.pipeline
def descending_window(x, k):
    n = len(x)
    y = np.zeros(n, np.int64)
    for j in range(n):
        c = 0
        for jj in range(j + k, j - k, -1):
            if 0 <= jj < n:
                c = c * 3 + x[jj]
        y[j] = c
    return y


@ph.pipeline
def strided_window(x, k):
    n = len(x)
    y = np.zeros(n, np.int64)
    for j in range(n):
        c = 0
        for jj in range(j - k, j + k, 2):
            if 0 <= jj < n:
                c += x[jj] * (jj - j)
        y[j] = c
    return y


@ph.pipeline
def nested_dependent(x, k):
    n = len(x)
    y = np.zeros(n, np.int64)
    for j in range(n):
        c = 0
        for jj in range(j, j + k):
            for m in range(jj, jj + 2):
                if m < n:
                    c += x[m]
        y[j] = c
    return y


SCALARS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, int]


def check_or_overflow(p, *args):
    """check(p, *args), except that where the bounds arithmetic wraps in an
    unsigned type (NumPy then loops over a wrapped range) the compiled call
    may raise OverflowError instead."""
    try:
        check(p, *args)
    except OverflowError:
        assert any(isinstance(a, np.unsignedinteger) for a in args)


@pytest.mark.parametrize("scalar", SCALARS, ids=lambda t: t.__name__)
@pytest.mark.parametrize("k", [0, 1, 2, 3, 7])
def test_window_bounds_from_a_scalar_argument(scalar, k):
    x = np.arange(9, dtype=np.float64) ** 2
    check_or_overflow(window_sum, x, scalar(k))
    check_or_overflow(clipped_window, x, scalar(k))
    xi = np.arange(9, dtype=np.int64) % 5
    check_or_overflow(descending_window, xi, scalar(k))
    check_or_overflow(strided_window, xi, scalar(k))
    check_or_overflow(nested_dependent, xi, scalar(k))


def test_the_issue_example():
    x = np.array([0., 0., 1., 0., 0., 0.])
    for k in (np.int32(1), 1, np.int64(1)):
        assert window_sum(x, k).tolist() == [0, 1, 1, 1, 0, 0]


@pytest.mark.parametrize("k", [-1, -3, 2 ** 31 - 1, -2 ** 31, 2 ** 40, -2 ** 62])
def test_window_bounds_at_extreme_values_raise_or_match(k):
    x = np.arange(6, dtype=np.float64)
    for scalar in (np.int64, int):
        try:
            exp = window_sum.py_func(x.copy(), scalar(k))
        except (IndexError, OverflowError):
            exp = None
        try:
            got = window_sum(x, scalar(k))
        except (IndexError, OverflowError):
            got = None
        if got is not None:
            assert exp is not None and np.array_equal(got, exp)
    for small in (-1, -3, 0, 4):
        check(clipped_window, x, small)
