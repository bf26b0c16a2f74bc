"""Insertion sort's shifting `while` loop (issue 17): the write after the
loop is made in its last iteration (frontend_ast/while_exit_write.py), and
the array with the loop's stop flag, counter and the element it inserts is
one tuple Func (frontend_ast/loop_cycles.py). Plain Python is the oracle:
the result, the array sorted in place, the exception type; inputs of every
kind (empty, one element, sorted, reversed, all equal, ties, NaN, -0.0,
integers)."""
import numpy as np
import pytest

import pyhalide as ph

from .test_exit_recurrence import run_both


@ph.pipeline
def isort(a):
    n = a.shape[0]
    for i in range(1, n):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


@ph.pipeline
def isort_copy(a):
    b = a.copy()
    for i in range(1, len(b)):
        key = b[i]; j = i - 1
        while j >= 0 and b[j] > key:
            b[j + 1] = b[j]; j -= 1
        b[j + 1] = key
    return b


@ph.pipeline
def isort_desc(a):
    for i in range(1, len(a)):
        key = a[i]
        j = i - 1
        while j > -1 and key > a[j]:
            a[j + 1] = a[j]
            j = j - 1
        a[j + 1] = key
    return a


@ph.pipeline
def isort_rows(a):
    for r in range(a.shape[0]):
        for i in range(1, a.shape[1]):
            key = a[r, i]
            j = i - 1
            while j >= 0 and a[r, j] > key:
                a[r, j + 1] = a[r, j]
                j -= 1
            a[r, j + 1] = key
    return a


def _inputs(rng, n):
    yield rng.random(n)
    yield np.sort(rng.random(n))
    yield np.sort(rng.random(n))[::-1].copy()
    yield np.full(n, 2.0)
    yield rng.integers(0, 3, n).astype(np.float64)
    yield rng.standard_normal(n).astype(np.float32)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 40])
def test_insertion_sorts(n):
    rng = np.random.default_rng(n)
    for a in _inputs(rng, n):
        for p in (isort, isort_copy, isort_desc):
            got = run_both(p, a)
            if a.size and not np.isnan(a).any():
                assert got is not None
        rows = np.stack([a, a[::-1], np.roll(a, 1)])
        run_both(isort_rows, rows)


def test_integers_and_specials():
    rng = np.random.default_rng(11)
    for a in (rng.integers(-5, 5, 25), rng.integers(0, 2**40, 9, dtype=np.int64),
              np.array([3, 1, 2], dtype=np.uint8), np.array([0.0, -0.0, 0.0, -0.0]),
              np.array([3.0, np.nan, 1.0, 2.0, np.nan, 0.5]),
              np.array([np.inf, -np.inf, 1.0, np.nan, -1.0])):
        for p in (isort, isort_copy, isort_desc):
            run_both(p, a)


def test_sorted_in_place_equals_numpy():
    """The sort itself (not only agreement with Python): NumPy's sort."""
    a = np.random.default_rng(12).random(300)
    b = a.copy()
    isort(b)
    assert np.array_equal(b, np.sort(a))


def test_parallel_arrays_shift_together():
    """Two arrays shifted together (an argsort by insertion, refused before
    session 22: loop_cycles merges both arrays with the loop state): plain
    Python's result and NumPy's stable argsort."""
    def perm(a):
        idx = np.arange(a.shape[0])
        for i in range(1, a.shape[0]):
            key = a[i]
            kk = idx[i]
            j = i - 1
            while j >= 0 and a[j] > key:
                a[j + 1] = a[j]
                idx[j + 1] = idx[j]
                j -= 1
            a[j + 1] = key
            idx[j + 1] = kk
        return idx
    a = np.random.default_rng(0).random(6)
    p = ph.pipeline(perm)
    assert np.array_equal(p(a.copy()), perm(a.copy()))
    assert np.array_equal(p(a.copy()), np.argsort(a, kind="stable"))



def test_shifting_loop_is_left():
    """The shifting loop is left when its stop flag is set (ir.Definition.
    exit_moves): the lowered loop holds an exit of the while loop's RVar;
    the array after the call is NumPy's sort."""
    a = np.random.default_rng(13).random(64)
    b = a.copy()
    isort(b)
    assert np.array_equal(b, np.sort(a))
    loops = isort.lower("loops")
    assert "exit loop" in loops and "while" in loops.split("exit loop")[1].split("\n")[0]
