"""False errors from loop bounds (session 24): compiled calls that raised
where plain Python runs. Every case is compared with plain Python, on inputs
where Python returns and where it raises (the exception type stays
Python's)."""
import numpy as np
import pytest

from pyhalide import pipeline
from tests.frontend.test_false_errors23 import _same


# -- call-time bounds past 32 bits where the range is empty (loop_start.empty_static_bounds) --
def static_range(a, lo, hi):
    s = 0.0
    for j in range(lo, hi, -1):
        s += a[j]
    return s


def static_stop_inner(a, lo):
    s = 0.0
    for i in range(3):
        for j in range(lo, i, -1):
            s += a[j] * (i + 1)
        for j in range(i, lo):
            s += a[j]
    return s


_STATIC_RANGE = pipeline(static_range)
_STATIC_STOP_INNER = pipeline(static_stop_inner)
_BIG = 2**40


@pytest.mark.parametrize("lo,hi", [(1, _BIG), (_BIG, 2 * _BIG), (-_BIG, _BIG), (-_BIG, 3),
                                   (4, 1), (4, -2), (_BIG, 3), (3, -_BIG)])
def test_static_bounds_past_32_bits(lo, hi):
    _same(_STATIC_RANGE, static_range, np.arange(6.0), lo, hi)


@pytest.mark.parametrize("lo", [-_BIG, _BIG, 4, -1, 9])
def test_static_bound_of_an_inner_loop(lo):
    _same(_STATIC_STOP_INNER, static_stop_inner, np.arange(6.0), lo)


# -- min/max at both ends of an inner range whose enclosing loop starts at a min
# (emit.hull_node: a loop variable's hull from its loop's bounds, _loop_hull) --
def both_ends(a, lo, hi):
    n = a.shape[0]
    s = 0.0
    for i in range(min(0, lo), 1):
        for j in range(min(i, lo), max(i + lo, hi - i)):
            s += a[j % n] * (j + 1)
    return s


def both_ends_descending(a, lo, hi):
    s = 0.0
    for i in range(min(0, lo), max(2, hi)):
        for j in range(max(i, lo) - 1, min(i + 3, hi - i), -1):
            s += a[j] * (i + 1)
    return s


_BOTH_ENDS = pipeline(both_ends)
_BOTH_ENDS_DESCENDING = pipeline(both_ends_descending)


@pytest.mark.parametrize("n,lo,hi", [(6, 2, 5), (6, -2, 5), (4, -3, 9), (1, 5, -2), (7, 0, 0)])
def test_min_max_at_both_ends(n, lo, hi):
    _same(_BOTH_ENDS, both_ends, np.arange(n) + 1.0, lo, hi)


@pytest.mark.parametrize("n,lo,hi", [(7, -3, 6), (4, 2, 3), (4, -1, 9), (1, 0, -2), (7, 5, 9)])
def test_min_max_at_both_ends_descending(n, lo, hi):
    # (some of these read past the end: IndexError as Python)
    _same(_BOTH_ENDS_DESCENDING, both_ends_descending, np.arange(n) + 1.0, lo, hi)


# -- the kernel's "index arithmetic overflows int32" where Python raises first
# (check_order.index_wrap: the plain function tells) --
def descending_near_int32_max(a, lo, hi):
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(hi, i + lo, -1):
            s += a[j - 1] * (i + 1)
    return s


_DESCENDING_NEAR_MAX = pipeline(descending_near_int32_max)


@pytest.mark.parametrize("n,lo,hi", [(3, 1, 2**31 - 5), (6, 1, 2**31 - 2), (3, 1, 2**30),
                                     (6, 1, 4), (6, -2, 3)])
def test_index_wrap_where_python_raises_first(n, lo, hi):
    _same(_DESCENDING_NEAR_MAX, descending_near_int32_max, np.arange(n) + 1.0, lo, hi)


# -- one call-time bound past 32 bits, the other not (a wrong result found while
# fixing the above: range(min(n - 2, lo), n - 2, -1) must stay empty) --
def one_wide_bound(a, lo):
    n = a.shape[0]
    s = 0.0
    for i in range(min(n - 2, lo), n - 2, -1):
        s += i + 1.0
    for i in range(n - 2, max(n - 3, lo)):
        s += 10.0 * (i + 2)
    return s


_ONE_WIDE_BOUND = pipeline(one_wide_bound)


@pytest.mark.parametrize("n,lo", [(1, 0), (1, -3), (4, 0), (4, -2**40), (5, -2**40), (0, 1)])
def test_one_wide_bound_runs_as_python(n, lo):
    _same(_ONE_WIDE_BOUND, one_wide_bound, np.arange(n) + 1.0, lo)


# -- a loop bound computed from a loop variable whose start is a min or max: the
# int32 requirement of `j + lo` is not taken from j's type range (it required
# lo >= 0: OverflowError where Python runs; loops.certified_bound) --
def start_from_min(a, lo):
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(min(i + lo, n), max(i, n - i)):
            for k in range(max(j + lo, j + 1), j + 1, -1):
                s = s * 0.5 + a[k % n]
    return s


def start_from_max(a, lo, hi):
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(min(hi - i, i + lo), n):
            for k in range(max(hi - j, n - 1), max(n, j + lo), -1):
                s += a[k % n] - a[i + j - k] * j
    return s


_START_FROM_MIN = pipeline(start_from_min)
_START_FROM_MAX = pipeline(start_from_max)


@pytest.mark.parametrize("n,lo", [(4, -2), (1, -1), (7, 2), (8, 3), (5, -9)])
def test_bound_from_a_loop_starting_at_a_min(n, lo):
    _same(_START_FROM_MIN, start_from_min, np.arange(n) + 1.0, lo)


@pytest.mark.parametrize("n,lo,hi", [(4, 0, 3), (7, -2, 5), (8, 3, 12), (1, 3, 9), (6, -4, 12)])
def test_bound_from_a_loop_starting_at_a_max(n, lo, hi):
    # (some read a[i + j - k] past the ends: IndexError as Python)
    _same(_START_FROM_MAX, start_from_max, np.arange(n) + 1.0, lo, hi)


# -- an inner stop known at call time whose own bounds are a type's range
# (max(n, hi)): its hull is its parameter (emit.hull_node, _static_bound) --
def stop_of_call_time_max(a, lo, hi):
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(hi - i, i + 1, -1):
            for k in range(min(n, n - j), max(n, hi + lo)):
                s += a[max(k - 1, 0)] - a[j] * j
    return s


_STOP_OF_CALL_TIME_MAX = pipeline(stop_of_call_time_max)


@pytest.mark.parametrize("n,lo,hi", [(4, 0, 3), (7, -2, 5), (1, -4, -4), (7, 2, -1), (3, 0, 9)])
def test_stop_of_a_call_time_max(n, lo, hi):
    _same(_STOP_OF_CALL_TIME_MAX, stop_of_call_time_max, np.arange(n) + 1.0, lo, hi)


# -- a clamped bound keeps its own range after the loop: only the body sees it
# within int32 (loop_start._narrowed; the sieve's `n` relates its inner loop) --
def bound_after_loop(a, n):
    b = a.copy()
    for i in range(2, n):
        if b[i] > 0.0:
            for j in range(i * i, n, i):
                b[j] = 0.0
    return b.sum() + (n // 2**32) * 1.0 + (n < -2**31) * 100.0


_BOUND_AFTER_LOOP = pipeline(bound_after_loop)


# (a stop at or below -2**31 cost ~5 s of CPU per call before session 25's
# loop_trips: test_false_errors25 times it)
@pytest.mark.parametrize("n", [-2**40, -2**31 - 1, -2**31 + 2**20, 0, 3, 40])
def test_bound_after_a_clamped_loop(n):
    _same(_BOUND_AFTER_LOOP, bound_after_loop, np.arange(48.0), n)
