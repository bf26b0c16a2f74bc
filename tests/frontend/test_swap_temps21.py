"""Element swaps through a user's temporary (`t = a[j]; a[j] = a[j + 1];
a[j + 1] = t`: bubble sort), refused until session 21; frontend_ast/
swap_temps.py makes them the tuple swap the frontend compiles. Plain Python
is the oracle: the result, the array in place, the exception type. (A
temporary read after the swap under an `if` in a loop stays refused: the
`if` then holds an assignment besides the writes.)"""
import numpy as np
import pytest

import pyhalide as ph

from .test_exit_recurrence import run_both


@ph.pipeline
def bubble(a):
    for last in range(a.shape[0] - 1, 0, -1):
        for j in range(last):
            if a[j + 1] < a[j]:
                t = a[j]
                a[j] = a[j + 1]
                a[j + 1] = t
    return a


@ph.pipeline
def reverse_in_place(a):
    n = len(a)
    for i in range(n // 2):
        tmp = a[i]
        a[i] = a[n - 1 - i]
        a[n - 1 - i] = tmp
    return a


@ph.pipeline
def swap_at(a, i, j):
    t = a[i]
    a[i] = a[j]
    a[j] = t
    return a


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6, 17])
def test_swaps(n):
    rng = np.random.default_rng(500 + n)
    for a in (rng.random(n), np.arange(n)[::-1].astype(np.float64), rng.integers(-3, 3, n)):
        run_both(bubble, a)
        run_both(reverse_in_place, a)
        for i, j in ((0, n - 1), (-1, 0), (n, 0), (0, -n - 1), (1, 1)):
            run_both(swap_at, a, i, j)
    a = rng.random(n)
    b = a.copy()
    bubble(b)
    assert np.array_equal(b, np.sort(a))
