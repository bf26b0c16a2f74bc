"""Shifting `while` loops with a step other than one (gap-2 insertion, one
pass of a Shell sort): the loop runs relative to its start over a bound of
its trip counts (frontend_ast/emit.py relative_rdom), the merged array's
positions are clamped to the array (loop_cycles._inside: the iterations
past the loop's range never run), and the loop is left once its `?done`
flag is set. Plain Python is the oracle: the result, the array in place,
the exception type, on inputs of every kind."""
import numpy as np
import pytest

import pyhalide as ph

from .test_exit_recurrence import run_both


@ph.pipeline
def gap2(a):
    n = a.shape[0]
    for i in range(2, n):
        key = a[i]
        j = i - 2
        while j >= 0 and a[j] > key:
            a[j + 2] = a[j]
            j -= 2
        a[j + 2] = key
    return a


@ph.pipeline
def gap3_desc(a):
    for i in range(3, len(a)):
        key = a[i]
        j = i - 3
        while j > -1 and key > a[j]:
            a[j + 3] = a[j]
            j = j - 3
        a[j + 3] = key
    return a


@ph.pipeline
def gap2_up(a):
    n = a.shape[0]
    for i in range(n - 3, -1, -1):
        key = a[i]
        j = i + 2
        while j < n and a[j] < key:
            a[j - 2] = a[j]
            j += 2
        a[j - 2] = key
    return a


def _inputs(rng, n):
    yield rng.random(n)
    yield np.sort(rng.random(n))
    yield np.sort(rng.random(n))[::-1].copy()
    yield np.full(n, 2.0)
    yield rng.integers(0, 3, n).astype(np.float64)
    yield rng.standard_normal(n).astype(np.float32)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 8, 31])
def test_gapped_insertion(n):
    rng = np.random.default_rng(200 + n)
    for a in _inputs(rng, n):
        for p in (gap2, gap3_desc, gap2_up):
            run_both(p, a)


def test_specials_and_parity_sorts():
    for a in (np.array([3.0, np.nan, 1.0, 2.0, np.nan, 0.5, -1.0]),
              np.array([0.0, -0.0, 0.0, -0.0, 1.0]),
              np.random.default_rng(9).integers(-5, 5, 25)):
        for p in (gap2, gap3_desc, gap2_up):
            run_both(p, a)
    a = np.random.default_rng(10).random(101)
    b = a.copy()
    gap2(b)
    assert np.array_equal(b[0::2], np.sort(a[0::2])) and np.array_equal(b[1::2], np.sort(a[1::2]))
    assert "exit loop" in gap2.lower("loops")
