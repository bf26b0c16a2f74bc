"""An inner loop that stops early (`break`, a `while` test) while it
updates one element of an array per iteration of the enclosing loops
(`out[i] += a[i, j]; if out[i] > t: break`): the array and the inner loop's
flag and counter are one tuple Func, the carried values stored at the
element the iteration writes (frontend_ast/loop_cycles.py). Plain Python is
the oracle: values, dtypes, the arrays written in place, the exception
type."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast.errors import FrontendError

from .test_exit_recurrence import run_both


@ph.pipeline
def while_rows(a, t):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        j = 0
        while j < a.shape[1]:
            out[i] += a[i, j]
            if out[i] > t:
                break
            j += 1
    return out


@ph.pipeline
def for_rows_arg(a, t, out):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i] = out[i] * 0.5 + a[i, j]
            if out[i] > t:
                break
    return out


@ph.pipeline
def search_rows_arg(a, t, found):
    for i in range(a.shape[0]):
        k = 0
        while k < a.shape[1]:
            found[i, 1] += k
            if a[i, k] > t and found[i, 1] > 1:
                break
            k += 1
    return found


@ph.pipeline
def while_test_reads(a, t):
    out = np.zeros((a.shape[0], 2))
    for i in range(a.shape[0]):
        j = 0
        while j < a.shape[1] and out[i, 1] <= t:
            out[i, 1] += a[i, j] * a[i, j]
            j += 1
    return out


@ph.pipeline
def int_counts(a, lim):
    out = np.zeros(a.shape[0], dtype=np.int64)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i] += a[i, j]
            if out[i] >= lim:
                break
    return out


def _inputs(rng, shape):
    yield rng.random(shape)
    yield np.sort(rng.random(shape), axis=-1)
    yield np.sort(rng.random(shape), axis=-1)[..., ::-1].copy()
    yield np.full(shape, 0.5)


@pytest.mark.parametrize("shape", [(5, 7), (1, 1), (0, 4), (4, 0), (1, 9), (9, 1)])
def test_row_sums_until(shape):
    rng = np.random.default_rng(3)
    for a in _inputs(rng, shape):
        for t in (-1.0, 0.7, 1.5, 100.0):
            run_both(while_rows, a, t)
            run_both(for_rows_arg, a, t, np.zeros(shape[0]))
            run_both(for_rows_arg, a, t, np.full(shape[0], 0.25))
            run_both(while_test_reads, a, t)


@pytest.mark.parametrize("shape", [(6, 5), (0, 3), (3, 0), (1, 1)])
def test_int_counts(shape):
    rng = np.random.default_rng(4)
    a = rng.integers(-3, 6, shape)
    for lim in (-5, 0, 4, 100):
        run_both(int_counts, a, lim)


def test_nan_stops_nothing():
    a = np.array([[0.5, np.nan, 2.0], [np.nan, 0.1, 0.2], [3.0, 1.0, np.nan]])
    run_both(while_rows, a, 1.0)
    run_both(for_rows_arg, a, 1.0, np.zeros(3))


def test_counter_read_after_is_located():
    """The inner loop's counter read after it by another array: its Func no
    longer holds the values, a located error (not a wrong value)."""
    def f(a, t):
        out = np.zeros(a.shape[0])
        cnt = np.zeros(a.shape[0], dtype=np.int64)
        for i in range(a.shape[0]):
            j = 0
            while j < a.shape[1]:
                out[i] += a[i, j]
                if out[i] > t:
                    break
                j += 1
            cnt[i] = j
        return out, cnt
    a = np.random.default_rng(5).random((4, 5))
    with pytest.raises(FrontendError, match=r"test_break_row_element.py:\d+:\d+: .*read after"):
        ph.pipeline(f)(a, 1.0)


@pytest.mark.parametrize("shape", [(5, 7), (1, 1), (0, 4), (4, 0), (3, 1)])
def test_argument_rows(shape):
    """The written array is an argument (the enclosing loop is an RVar of
    its update: out may be shorter than the loop, IndexError as in Python)."""
    rng = np.random.default_rng(6)
    for a in _inputs(rng, shape):
        for t in (-1.0, 0.7, 1.5):
            for m in (shape[0], shape[0] + 2, max(shape[0] - 1, 0)):
                run_both(for_rows_arg, a, t, rng.random(m))
                run_both(search_rows_arg, a, t, np.zeros((m, 2), dtype=np.int64))


@ph.pipeline
def grow_rows_arg(out, a, r, t):
    for i in range(a.shape[0]):
        for j in range(1, a.shape[1]):
            out[i, j] = out[i, j - 1] * r + a[i, j]
            if out[i, j] > t:
                break
    return out


@ph.pipeline
def grow_rows_n(out, n, r, t):
    for i in range(n):
        for j in range(1, out.shape[1]):
            out[i, j] = out[i, j - 1] * r
            if out[i, j] > t:
                break
    return out


@pytest.mark.parametrize("shape,m", [((4, 6), 4), ((4, 6), 3), ((1, 1), 1), ((0, 3), 0),
                                     ((3, 0), 3), ((3, 4), 5), ((2, 5), 0)])
def test_recurrence_rows_of_argument(shape, m):
    """A recurrence along the inner loop, the enclosing loop's range not the
    array's (an RVar of the array's update): each row's stop flag starts at
    the row's first iteration; rows past the array raise IndexError as in
    Python."""
    rng = np.random.default_rng(7)
    x = rng.random(shape) + 0.5
    a = rng.random((m, shape[1] + 1))
    for r, t in ((1.7, 3.0), (0.5, 10.0), (2.0, -1.0)):
        run_both(grow_rows_arg, x, a, r, t)
        run_both(grow_rows_n, x, m, r, t)
