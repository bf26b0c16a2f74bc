"""False errors from loop bounds (session 23): compiled calls that raised
where plain Python runs. Every case is compared with plain Python, on inputs
where Python returns and where it raises (the exception type stays
Python's)."""
import numpy as np
import pytest

from pyhalide import pipeline
from tests.frontend.test_minmax_hull22 import tri_max as max_stop


def _outcome(f, *args):
    try:
        return f(*args)
    except Exception as e:  # noqa: BLE001 - the type is compared
        return type(e)


def _same(kernel, f, *args):
    want = _outcome(f, *args)
    got = _outcome(kernel, *args)
    if isinstance(want, type):
        assert got is want
    else:
        assert not isinstance(got, type), got
        np.testing.assert_array_equal(got, want)


# -- an input read at a cancelling index (bounds_inference: cancelling_bounds) --
def cancelling(a):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[0]):
            s += a[j - i + i] * (i + 1)
    return s


def cancelling_past_the_end(a):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[0]):
            s += a[j - i + i + 1] * (i + 1)
    return s


def split_inner(a):
    # merged into one loop read at `i + (x - max(0, i))`: i cancels
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(i):
            s += a[j]
        for j in range(i, a.shape[0]):
            s += 2 * a[j]
    return s


_CANCELLING = pipeline(cancelling)
_CANCELLING_PAST = pipeline(cancelling_past_the_end)
_SPLIT_INNER = pipeline(split_inner)


@pytest.mark.parametrize("n", [4, 1, 0])
def test_cancelling_index_reads_only_its_values(n):
    a = np.arange(n, dtype=np.float64) + 0.5
    _same(_CANCELLING, cancelling, a)
    # one past the end: IndexError as in Python (none for n = 0)
    _same(_CANCELLING_PAST, cancelling_past_the_end, a)


@pytest.mark.parametrize("n", [5, 1, 0])
def test_second_inner_loop_on_the_same_variable(n):
    _same(_SPLIT_INNER, split_inner, np.arange(n, dtype=np.float64) * 1.5)


# -- loop hulls of bounds built from Python int arguments of either sign -------
# (`i + lo` with lo a Python int keeps its affine bounds under its int64
# check; a min/max bound, through that check and a constant offset, is
# bounded by its operands' hulls: emit.hull_node, loops.hull_checked_bound)
# max_stop: test_minmax_hull22's kernel (lo >= 0 there), here with lo < 0


def min_start(a, lo):
    k = 1
    for i in range(a.shape[0]):
        for j in range(min(i, lo) - 2, a.shape[0]):
            k = k * 3 % 10007 + j
    return k


def descending_min_stop(a, lo):
    # the stop a `while j >= lo` loop is widened to
    k = 1
    for i in range(1, a.shape[0]):
        for j in range(i - 1, min(lo - 1, i - 1) - 1, -1):
            k = k * 3 % 10007 + j
    return k


def descending_both(a, lo, hi):
    k = 1
    for i in range(a.shape[0]):
        for j in range(max(hi, i + 1) + 1, min(lo, i) - 1, -1):
            k = k * 3 % 10007 + j
    return k


_MAX_STOP = pipeline(max_stop)
_MIN_START = pipeline(min_start)
_DESCENDING_MIN_STOP = pipeline(descending_min_stop)
_DESCENDING_BOTH = pipeline(descending_both)
_BIG = 2**40


@pytest.mark.parametrize("n,lo,hi", [(4, -2, 5), (4, -3, 2), (4, 3, 20), (0, -5, 7)])
def test_max_stop_with_a_negative_start_offset(n, lo, hi):
    _same(_MAX_STOP, max_stop, np.arange(n), lo, hi)


@pytest.mark.parametrize("n,lo", [(5, 3), (5, -4), (1, 0), (0, -_BIG), (4, _BIG)])
def test_min_start(n, lo):
    _same(_MIN_START, min_start, np.arange(n), lo)


@pytest.mark.parametrize("n,lo", [(5, 0), (5, 2), (5, -3), (3, _BIG), (0, -_BIG)])
def test_descending_loop_to_a_min_stop(n, lo):
    _same(_DESCENDING_MIN_STOP, descending_min_stop, np.arange(n), lo)


@pytest.mark.parametrize("n,lo,hi", [(5, 0, 3), (5, -2, -5), (4, 3, 9), (4, _BIG, -_BIG)])
def test_descending_loop_max_start_min_stop(n, lo, hi):
    _same(_DESCENDING_BOTH, descending_both, np.arange(n), lo, hi)


# -- a nest that runs no iteration computes no index (bounds_inference:
# int32 obligations only where the stage runs) --------------------------------
def empty_outer_max_stop(a, hi):
    k = 1
    for i in range(a.shape[0]):
        for j in range(i, max(i, hi - i)):
            k = k * 3 % 10007 + j
    return k


def empty_outer_wide_span(a, lo, hi):
    k = 1
    for i in range(a.shape[0]):
        for j in range(i + lo, hi):
            k = k * 3 % 10007 + j
    return k


_EMPTY_OUTER_MAX_STOP = pipeline(empty_outer_max_stop)
_EMPTY_OUTER_WIDE_SPAN = pipeline(empty_outer_wide_span)


@pytest.mark.parametrize("n,hi", [(0, 2**31 - 1), (0, 2**31 + 10), (3, 7), (0, 5)])
def test_no_iteration_near_the_int32_limit(n, hi):
    _same(_EMPTY_OUTER_MAX_STOP, empty_outer_max_stop, np.arange(n), hi)


@pytest.mark.parametrize("n,lo,hi", [(0, -2**31, 2**31 - 1), (3, -2, 4)])
def test_no_iteration_wide_span(n, lo, hi):
    _same(_EMPTY_OUTER_WIDE_SPAN, empty_outer_wide_span, np.arange(n), lo, hi)


# -- a triangular loop followed by a second inner loop on the same variable:
# merged into one loop of extent max(0, n - i - 1) + max(0, m) (a sum of
# Python ints: the sum of the terms' hulls, context.sum_parts) -----------------
def triangle_then_argument_loop(a, m):
    s = 0.0
    n = a.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            s += a[j]
        for j in range(m):
            s += j
    return s


def triangle_then_shifted_loop(a, k):
    s = 0
    n = a.shape[0]
    for i in range(n):
        for j in range(i, n):
            s += j
        for j in range(i + k):
            s += 2 * j
    return s


_TRIANGLE_ARG = pipeline(triangle_then_argument_loop)
_TRIANGLE_SHIFTED = pipeline(triangle_then_shifted_loop)


@pytest.mark.parametrize("n,m", [(5, 3), (5, -2), (0, 7), (1, 0)])
def test_triangle_then_argument_loop(n, m):
    _same(_TRIANGLE_ARG, triangle_then_argument_loop, np.arange(n, dtype=np.float64), m)


@pytest.mark.parametrize("n,k", [(5, 2), (5, -2), (4, -100), (0, 3)])
def test_triangle_then_shifted_loop(n, k):
    _same(_TRIANGLE_SHIFTED, triangle_then_shifted_loop, np.arange(n), k)


# -- an index monotone in an inner loop whose range the predicates give
# (`for j in range(i + 1, n)` runs over a hull with `i + 1 <= j`: a[j - i]
# reads [1, n - 1], not [2 - n, n - 1]; cancelling_bounds.rvar_ranges) -------
def lag_products(a, off):
    n = a.shape[0]
    s = np.float64(0.0)
    for i in range(n):
        for j in range(i + 1, n):
            s += a[i] * a[j] - a[j - i + off]
    return s


def lag_descending(a):
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            s += a[n - 1 - (j - i)] * (j + 1)
    return s


_LAG = pipeline(lag_products)
_LAG_DESC = pipeline(lag_descending)


@pytest.mark.parametrize("n,off", [(6, 0), (6, -1), (1, 0), (0, 0), (6, 1), (6, -2)])
def test_lag_index_reads_inside(n, off):
    # off = 1 reads a[n] at i = 0 and off = -2 reads a[-1] (which Python wraps)
    _same(_LAG, lag_products, np.arange(n, dtype=np.float64) * 0.5 + 1, off)


@pytest.mark.parametrize("n", [6, 2, 0])
def test_lag_index_descending(n):
    _same(_LAG_DESC, lag_descending, np.arange(n, dtype=np.float64) + 2)


# -- an RVar bounded by a predicate on a sum (`y + x < min(n, y + 3)`:
# x <= min(n, y + 3) - y - 1; cancelling_bounds.rvar_ranges) --
def window_min_stop(a, k):
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(i, min(n, i + 3)):
            s += a[i + j - i] - a[j - i] * k
    return s


def window_min_stop_sum(a):
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(i, min(n - 1, i + 2)):
            s = s * 0.5 + a[j + 1] * (i + 1)
    return s


_WINDOW_MIN_STOP = pipeline(window_min_stop)
_WINDOW_MIN_STOP_SUM = pipeline(window_min_stop_sum)


@pytest.mark.parametrize("n,k", [(3, 0), (6, 0), (1, 0), (0, 0), (6, 1), (6, -1)])
def test_window_to_a_min_stop(n, k):
    _same(_WINDOW_MIN_STOP, window_min_stop, np.arange(n, dtype=np.float64) * 1.5 + 1, k)


@pytest.mark.parametrize("n", [6, 2, 1, 0])
def test_window_to_a_min_stop_shifted_read(n):
    _same(_WINDOW_MIN_STOP_SUM, window_min_stop_sum, np.arange(n, dtype=np.float64) * 1.5 + 1)


# -- an inner loop bounded by a descending outer loop from a computed start
# (loop_params: the start's parameter is a symbol of its own, i <= it) --
def descending_from_max(a, lo, hi):
    n = a.shape[0]
    s = 0.0
    for i in range(max(0 + lo, hi - 0), 1, -1):
        for j in range(i + 1, n - 1):
            s += a[j - i] * (i + 1)
    return s


_DESCENDING_FROM_MAX = pipeline(descending_from_max)


@pytest.mark.parametrize("n,lo,hi", [(0, -1, 2), (3, 0, 3), (6, 0, 3), (8, 4, -2), (8, 1, 2),
                                     (4, -_BIG, 5)])
def test_inner_loop_of_a_descending_loop_from_a_max(n, lo, hi):
    _same(_DESCENDING_FROM_MAX, descending_from_max, np.arange(n, dtype=np.float64) * 1.5 + 1,
          lo, hi)
