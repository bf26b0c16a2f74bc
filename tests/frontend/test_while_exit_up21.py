"""Shifting `while` loops whose counter counts up (`while j < n and a[j] <
key: a[j - g] = a[j]; j += g`), the mirror of insertion sort's (session 20
refused them: their kernel ran 2**31 - 1 iterations), and gap-g insertion
counting down (`j -= g`, g > 1 was refused: "must have step 1 or -1").
The write after the loop is made in its last iteration
(frontend_ast/while_exit_write.py); the loop runs relative to its start and
is left at the iteration after it (ir.Definition.exit_moves). Plain Python
is the oracle: the result, the array in place, the exception type."""
import numpy as np
import pytest

import pyhalide as ph

from .test_exit_recurrence import run_both
from .test_insertion_sort import _inputs


@ph.pipeline
def isort_up(a):
    n = a.shape[0]
    for i in range(n - 2, -1, -1):
        key = a[i]; j = i + 1
        while j < n and a[j] < key:
            a[j - 1] = a[j]
            j += 1
        a[j - 1] = key
    return a


@ph.pipeline
def gap2_up(a):
    n = a.shape[0]
    for i in range(n - 3, -1, -1):
        key, j = a[i], i + 2
        while j < n and a[j] < key:
            a[j - 2] = a[j]; j += 2
        a[j - 2] = key
    return a


@ph.pipeline
def gap2_down(a):
    for i in range(2, a.shape[0]):
        key = a[i]
        j = i - 2
        while j >= 0 and key < a[j]:
            a[j + 2] = a[j]; j -= 2
        a[j + 2] = key
    return a


@ph.pipeline
def gap3_down(a):
    for i in range(3, len(a)):
        key, j = a[i], i - 3
        while j > -1 and a[j] > key:
            a[j + 3] = a[j]
            j = j - 3
        a[j + 3] = key
    return a


@ph.pipeline
def isort_up_le(a):
    n = len(a)
    for i in range(n - 2, -1, -1):
        key = a[i]; j = i + 1
        while j <= n - 1 and key > a[j]:
            a[j - 1] = a[j]; j = j + 1
        a[j - 1] = key
    return a


KERNELS = [isort_up, gap2_up, gap2_down, gap3_down, isort_up_le]


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 8, 33])
def test_shifting_loops(n):
    rng = np.random.default_rng(100 + n)
    for a in _inputs(rng, n):
        for p in KERNELS:
            run_both(p, a)


def test_specials_and_numpy_sort():
    for a in (np.array([3.0, np.nan, 1.0, 2.0, np.nan, 0.5, -1.0]),
              np.array([np.inf, -np.inf, 1.0, np.nan, -1.0]),
              np.array([0.0, -0.0, 0.0, -0.0, 1.0]),
              np.random.default_rng(7).integers(-5, 5, 25)):
        for p in KERNELS:
            run_both(p, a)
    a = np.random.default_rng(8).random(201)
    b, c = a.copy(), a.copy()
    KERNELS[0](b)
    assert np.array_equal(b, np.sort(a))
    KERNELS[2](c)       # a gap-2 pass sorts the even and the odd positions
    assert np.array_equal(c[0::2], np.sort(a[0::2])) and np.array_equal(c[1::2], np.sort(a[1::2]))
    for p in KERNELS:
        assert "exit loop" in p.lower("loops")
