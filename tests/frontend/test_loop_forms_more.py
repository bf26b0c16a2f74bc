"""Loop code as people write it (issue 17's list), compared with plain
Python: helpers called with functions inside loops, rows, zip/enumerate,
while loops, early returns, in-place sweeps, asserts, tuples."""
import math

import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check
from .test_exit_recurrence import run_both


def _square(x):
    return x * x


def _apply(f, x, scale=_square):
    return f(x) + scale(x)


@ph.pipeline
def function_argument_in_loop(a):
    s = 0.0
    for i in range(len(a)):
        s += _apply(math.sqrt, a[i]) + _apply(np.log, a[i], scale=math.exp)
    return s


def test_function_argument_in_loop():
    """A function passed to a helper called inside a loop (`math.sqrt` as an
    argument is substituted, not bound to a variable in the loop)."""
    check(function_argument_in_loop, np.arange(1.0, 9.0))


@ph.pipeline
def sweep_in_place(u, sweeps):
    for k in range(sweeps):
        for i in range(1, u.shape[0] - 1):
            for j in range(1, u.shape[1] - 1):
                u[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
    return u


def test_gauss_seidel_in_place():
    """Reads of values the same sweep already updated, as Python reads them."""
    run_both(sweep_in_place, np.arange(25.0).reshape(5, 5), 3)


@ph.pipeline
def first_above(a, t):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] > t:
                return i, j
    return -1, -1


@pytest.mark.parametrize("t", [5.0, 50.0])
def test_return_from_nested_loops(t):
    check(first_above, np.arange(12.0).reshape(3, 4), t)


@ph.pipeline
def rows_zip_enumerate(a, b):
    out = np.zeros(a.shape[0])
    for i, (x, y) in enumerate(zip(a, b)):
        out[i] = x * y + i
    for row in a.reshape(2, 4):
        out[0] += row[1]
    return out


def test_rows_zip_enumerate():
    check(rows_zip_enumerate, np.arange(1.0, 9.0), np.arange(8.0, 0.0, -1.0))


@ph.pipeline
def counter_written(a, t):
    out = np.zeros_like(a)
    i = 0
    while i < a.shape[0] and a[i] < t:
        out[i] = a[i] * 2
        i += 1
    return out, i


@pytest.mark.parametrize("t", [0.5, 4.5, 100.0])
def test_while_writes_at_its_counter(t):
    check(counter_written, np.arange(1.0, 9.0), t)
