"""Tuple assignments whose targets are array elements or slices
(frontend_ast/tuple_targets.py) and the builtin divmod: each compiled result
equals plain Python's, including Python's order (the right side first, then
the targets from left to right, each target's index read when it is
assigned) and NumPy's views (swapping two rows through views copies one row
twice, as in Python)."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check
from .located_errors import expect_error


@ph.pipeline
def swap_ends(a):
    a = a.copy()
    a[0], a[-1] = a[-1], a[0]
    return a


@ph.pipeline
def swap_rows_views(a):
    a = a.copy()
    a[0], a[1] = a[1], a[0]          # the second value is a view of row 0, already overwritten
    return a


@ph.pipeline
def swap_rows_copies(a):
    a = a.copy()
    a[0], a[1] = a[1].copy(), a[0].copy()
    return a


@ph.pipeline
def index_assigned_first(a):
    a = a.copy()
    i = 0
    i, a[i] = 2, 7.0                 # writes a[2]: i is assigned before a[i]
    return a, i


@ph.pipeline
def nested_targets(a, b):
    q = np.empty(a.shape[0])
    r = np.empty(a.shape[0])
    k = 0
    for i in range(a.shape[0]):
        q[i], (r[i], k) = a[i] * 2, (b[i] + 1, i)
    return q, r, k


@ph.pipeline
def from_tuple_value(a):
    out = np.empty((a.shape[0], 2))
    for i in range(a.shape[0]):
        t = (a[i], -a[i])
        out[i, 0], out[i, 1] = t
    return out


@ph.pipeline
def from_array(a, b):
    out = np.zeros(3)
    out[0], out[2] = b               # ValueError unless b has two elements
    return out


@ph.pipeline
def into_slices(a):
    out = np.zeros(6)
    out[:3], out[3:] = a[3:], a[:3]
    return out


@ph.pipeline
def divmod_loop(a, b):
    q = np.empty(a.shape[0], a.dtype)
    r = np.empty(a.shape[0], a.dtype)
    for i in range(a.shape[0]):
        q[i], r[i] = divmod(a[i], b[i])
    return q, r


@ph.pipeline
def divmod_python_ints(n, m):
    s = 0
    for i in range(1, n):
        q, r = divmod(i * 7 - 50, m)
        s += q * 3 + r
    return s


@ph.pipeline
def divmod_scalars(x, y):
    return divmod(x, y)


def test_element_and_slice_targets():
    a = np.arange(7.0)
    check(swap_ends, a)
    check(swap_ends, np.arange(5, dtype=np.int32))
    check(swap_rows_views, np.arange(6.0).reshape(3, 2))
    check(swap_rows_copies, np.arange(6.0).reshape(3, 2))
    check(index_assigned_first, np.zeros(4))
    check(nested_targets, a, a + 1)
    check(from_tuple_value, a)
    check(into_slices, np.arange(6.0))


def test_unpacking_an_array_checks_its_length():
    check(from_array, np.arange(3.0), np.array([4.0, 5.0]))
    with pytest.raises(ValueError):
        from_array(np.arange(3.0), np.array([4.0, 5.0, 6.0]))


def test_divmod_is_floor_division_and_remainder():
    ai = np.arange(-5, 5)
    bi = np.array([3, -2] * 5)
    check(divmod_loop, ai, bi)
    check(divmod_loop, ai, bi * 0)             # NumPy integers: 0, 0 (no exception)
    af = np.array([5.5, -5.5, 1e300, -0.0, 3.0, np.inf, 2.0, np.nan])
    bf = np.array([2.0, 2.0, 1e-300, 3.0, -0.0, 2.0, np.inf, 1.0])
    check(divmod_loop, af, bf)
    check(divmod_python_ints, 30, -4)
    check(divmod_python_ints, 30, 0)           # ZeroDivisionError, as Python
    check(divmod_scalars, 5.5, -2.0)
    check(divmod_scalars, -7, 2)
    check(divmod_scalars, 7, 0.0)


def test_divmod_of_arrays_is_a_located_error():
    def f(a, b):
        return divmod(a, b)
    expect_error(f, (np.arange(3), np.arange(1, 4)), "divmod(a, b)", "divmod() of arrays")
