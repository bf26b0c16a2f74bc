"""Shifting `while` loops whose counter counts up (`while j < n and a[j] <
key: a[j - 1] = a[j]; j += 1`), the mirror of insertion sort's (session 20
refused them: their kernel ran 2**31 - 1 iterations). The write after the
loop is made in its last iteration (frontend_ast/while_exit_write.py) and
the loop is left at the iteration after it (ir.Definition.exit_moves).
Plain Python is the oracle: the result, the array sorted in place, the
exception type, on inputs of every kind."""
import numpy as np
import pytest

import pyhalide as ph

from .test_exit_recurrence import run_both


@ph.pipeline
def isort_up(a):
    n = a.shape[0]
    for i in range(n - 2, -1, -1):
        key = a[i]
        j = i + 1
        while j < n and a[j] < key:
            a[j - 1] = a[j]
            j += 1
        a[j - 1] = key
    return a


@ph.pipeline
def isort_up_le(a):
    n = len(a)
    for i in range(n - 2, -1, -1):
        key = a[i]
        j = i + 1
        while j <= n - 1 and key > a[j]:
            a[j - 1] = a[j]
            j = j + 1
        a[j - 1] = key
    return a


def _inputs(rng, n):
    yield rng.random(n)
    yield np.sort(rng.random(n))
    yield np.sort(rng.random(n))[::-1].copy()
    yield np.full(n, 2.0)
    yield rng.integers(0, 3, n).astype(np.float64)
    yield rng.standard_normal(n).astype(np.float32)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, 33])
def test_counting_up_sorts(n):
    rng = np.random.default_rng(100 + n)
    for a in _inputs(rng, n):
        for p in (isort_up, isort_up_le):
            run_both(p, a)


def test_specials_and_numpy_sort():
    for a in (np.array([3.0, np.nan, 1.0, 2.0, np.nan, 0.5]),
              np.array([np.inf, -np.inf, 1.0, np.nan, -1.0]),
              np.array([0.0, -0.0, 0.0, -0.0]),
              np.random.default_rng(7).integers(-5, 5, 25)):
        run_both(isort_up, a)
    a = np.random.default_rng(8).random(200)
    b = a.copy()
    isort_up(b)
    assert np.array_equal(b, np.sort(a))
    assert "exit loop" in isort_up.lower("loops")
