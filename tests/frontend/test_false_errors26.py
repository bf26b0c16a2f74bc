"""Loops whose bounds leave or come near 32 bits, compared with plain Python.

(1) Loops run relative to their start (emit.relative_rdom) whose start is
near an end of int32: the loop variable start + r * step wrapped past the
last iteration and the wrapped value passed the `v < stop` predicate, so the
compiled loop ran iterations Python does not (a wrong sum).
(2) A range empty at every outer iteration whose computed bounds leave
int32 (frontend_ast/loop_empty.py): no OverflowError where Python runs
nothing; the exception type stays Python's where it runs."""
import numpy as np
import pytest

from pyhalide import pipeline
from tests.frontend.test_false_errors23 import _outcome, _same

M = 2**31


def down_near_min(a, lo, hi):
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(min(lo, hi - i), lo - 3, -1):
            s += a[j % n] * (j % 7) + 1.0
    return s


def up_near_max(a, lo, hi):
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(max(lo, hi + i), lo + 3):
            s += a[j % n] * (j % 7) + 1.0
    return s


def up_step2_near_max(a, lo, hi):
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(max(lo, hi + i), lo + 5, 2):
            s += a[j % n] * (j % 7) + 1.0
    return s


_DOWN = pipeline(down_near_min)
_UP = pipeline(up_near_max)
_UP2 = pipeline(up_step2_near_max)


@pytest.mark.parametrize("lo,hi", [(-M + 3, -M + 3), (-M + 5, -M + 3), (-M + 4, -M + 6),
                                   (10, 9), (0, -2)])
def test_descending_start_near_int32_min(lo, hi):
    _same(_DOWN, down_near_min, np.arange(4.0), lo, hi)


@pytest.mark.parametrize("lo,hi", [(M - 4, M - 4), (M - 6, M - 4), (10, 11), (3, 0)])
def test_ascending_start_near_int32_max(lo, hi):
    _same(_UP, up_near_max, np.arange(4.0), lo, hi)


@pytest.mark.parametrize("lo,hi", [(M - 6, M - 6), (M - 9, M - 6), (10, 11), (3, 0)])
def test_step2_start_near_int32_max(lo, hi):
    _same(_UP2, up_step2_near_max, np.arange(4.0), lo, hi)


# -- (2) empty ranges past int32 (loop_empty.py) --
def empty_up(a, n, lo):
    # empty for every i where lo >= 2: an OverflowError before loop_empty
    s = 0.0
    for i in range(n):
        for j in range(i + lo, max(i + lo, 2 - i)):
            s += a[j]
    return s


_EMPTY_UP = pipeline(empty_up)
_BIG = [2, 7, 2**31 - 1, 2**31, 2**40, 2**62]
_NEG = [-2**31, -2**31 - 1, -2**40, -2**63]


def _same_copies(kernel, f, *args):
    a, b = np.arange(6.0), np.arange(6.0)
    want = _outcome(f, a, *args)
    got = _outcome(kernel, b, *args)
    if isinstance(want, type):
        assert got is want
    else:
        assert not isinstance(got, type), got
        assert got == want
    np.testing.assert_array_equal(b, a)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_empty_ascending_ranges_out_of_int32(n):
    for lo in _BIG + [0, 1, -2, -5]:
        _same_copies(_EMPTY_UP, empty_up, n, lo)


def test_nonempty_ascending_ranges_keep_python_errors():
    # the range runs (a[j] past the end: IndexError, Python's type)
    for lo in _NEG:
        _same_copies(_EMPTY_UP, empty_up, 3, lo)


def step_two_inner(a, lo, hi):
    # a clamped bound of the step-2 k loop reached the reads' index
    # arithmetic (a false OverflowError); loop_empty leaves such loops alone
    n = a.shape[0]
    s = 0.0
    for i in range(min(0, n - 1), hi, 2):
        for j in range(i + lo, max(i - 1, n), -1):
            for k in range(min(j - 1, j + 1), min(lo, j + 1), 2):
                s += a[k - j] - a[j + k] * j
    return s


_STEP_TWO = pipeline(step_two_inner)


def test_step_two_inner_loop_unchanged():
    for n, lo, hi in [(0, 0, 3), (4, 0, 3), (4, 1, 6), (7, 3, 9), (4, 2**40, 3)]:
        want = _outcome(step_two_inner, np.arange(n) * 1.5 + 1, lo, hi)
        got = _outcome(_STEP_TWO, np.arange(n) * 1.5 + 1, lo, hi)
        assert got == want or got is want


def down_min_start(a, lo, hi):
    # the descending loop the clamped start of session 25 ran (16.0 for
    # lo = -2**40, hi = 3; Python 0.0): relative_rdom's wrapped variable
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(min(lo - i, i + hi), i + 1, -1):
            s += a[j % n] * (j % 7) + 1.0
    return s


_DOWN_MIN = pipeline(down_min_start)


@pytest.mark.parametrize("lo,hi", [(-2**40, 3), (-M, M - 1), (-2**40, -2**40), (5, 0),
                                   (10, 10), (-M + 3, 9)])
def test_descending_clamped_start(lo, hi):
    _same(_DOWN_MIN, down_min_start, np.arange(4.0), lo, hi)


def down_hull_near_max(a, lo, hi):
    # a descending loop over the hull of its ranges: its variable was
    # lo_hull + hi_hull - r, whose sum left int32 (84.0 Python, 51.0 compiled
    # for lo = 2**31 - 4)
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(lo + 3, min(lo - i, i + lo), -1):
            s += a[j % n] * (j % 7) + 1.0
    return s


_DOWN_HULL = pipeline(down_hull_near_max)


@pytest.mark.parametrize("lo", [M - 4, M - 5, 10, -3])
def test_descending_hull_near_int32_max(lo):
    _same(_DOWN_HULL, down_hull_near_max, np.arange(4.0), lo, 0)
