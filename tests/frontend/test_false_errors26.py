"""Loops run relative to their start (emit.relative_rdom) whose start is
near an end of int32: the loop variable start + r * step wrapped past the
last iteration and the wrapped value passed the `v < stop` predicate, so the
compiled loop ran iterations Python does not (a wrong sum). Compared with
plain Python."""
import numpy as np
import pytest

from pyhalide import pipeline

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
        assert got == want


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
