"""A value read outside an inner loop, at an element that inner loop writes
(`f = a[i, k] / a[k, k]` then `for j in range(k, n): a[i, j] -= f * a[k, j]`):
Python reads the element once, before the loop writes it; the write's update
evaluated the read at every iteration of the inner loop and so, from the
iteration after the one that wrote it, used the written value (LU with the
column included in the row update returned its input's rows unchanged:
[[2, 1, 1], [0, 3, 3], [0, 0, 9]] where Python gives [[2, 1, 1], [0, 1, 1],
[0, 0, 2]]). Session 22 (h5) made such a read a located error
(deps.own_write_reached); where the inner loop's iterations commute (its one
statement is the write, every other element it reads is one no other
iteration writes) it now compiles, the iteration that writes the element run
last (hoisted_order.py), and equals plain Python. Reads of elements the inner
loop provably does not write compile as before; the other forms stay refused."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast.errors import FrontendError


def lu_row_from_k(a):
    n = a.shape[0]
    for k in range(n):
        for i in range(k + 1, n):
            f = a[i, k] / a[k, k]
            for j in range(k, n):
                a[i, j] -= f * a[k, j]
    return a


def add_first(a):
    n = a.shape[0]
    for i in range(n):
        t = a[i, 0]
        for j in range(n):
            a[i, j] = a[i, j] + t
    return a


def add_diag_shifted(a):
    n = a.shape[0]
    for i in range(n):
        t = a[i, i]
        for j in range(i, n):
            a[i, j] = a[i, j] * 2.0 + t
    return a


def normalize_rows(a):
    # (wrong on session 21's main: [[2, 4, 6], ...] gave [[1, 4, 6], ...])
    for i in range(a.shape[0]):
        d = a[i, i]
        s = 1.0 / d
        for j in range(a.shape[1]):
            a[i, j] *= s
    return a


def odd_columns_from_even(a):
    # the read column 2 * i and the written columns 2 * j + 1 never meet
    # (proven with Z3: deps.own_write_reached)
    n = a.shape[0]
    for i in range(n):
        t = a[i, 2 * (i // 2)]
        for j in range(a.shape[1] // 2):
            a[i, 2 * j + 1] = a[i, 2 * j + 1] + t
    return a


def scale_right_of_diag(a):
    n = a.shape[0]
    for i in range(n):
        p = a[i, i]
        for j in range(i + 1, n):
            a[i, j] = a[i, j] / p
    return a


def scale_left_of_diag(a):
    n = a.shape[0]
    for i in range(n):
        p = a[i, i]
        for j in range(i):
            a[i, j] = a[i, j] - p
    return a


def lu_column_first(a):
    n = a.shape[0]
    for k in range(n):
        for i in range(k + 1, n):
            a[i, k] = a[i, k] / a[k, k]
            for j in range(k + 1, n):
                a[i, j] -= a[i, k] * a[k, j]
    return a


MATRIX = np.array([[2., 1., 1.], [4., 3., 3.], [8., 7., 9.]])


_COMPILED = {}


def _check(fn, a):
    """fn compiled (once per file) on a copy of a equals plain Python, in
    its result and in the array it writes."""
    if fn not in _COMPILED:
        _COMPILED[fn] = ph.pipeline(fn)
    expect = fn(a.copy())
    got_arg = a.copy()
    got = _COMPILED[fn](got_arg)
    np.testing.assert_array_equal(got, expect)
    np.testing.assert_array_equal(got_arg, expect)


def _matrix(n, dtype=np.float64):
    rng = np.random.default_rng(n)
    a = rng.random((n, n)) + 3.0 * np.eye(n) if n != 3 else MATRIX.copy()
    return a if dtype == np.float64 else (a * 10).astype(dtype)


@pytest.mark.parametrize("fn", [lu_row_from_k, add_first, add_diag_shifted, normalize_rows])
def test_a_read_the_inner_loop_overwrites_equals_python(fn):
    # (refused in round 1 of session 22; wrong before)
    for n in (0, 1, 3, 5):
        _check(fn, _matrix(n))


@pytest.mark.parametrize("fn", [scale_right_of_diag, scale_left_of_diag, lu_column_first,
                                odd_columns_from_even])
@pytest.mark.parametrize("n", [0, 1, 3, 6])
def test_a_read_the_inner_loop_never_writes_compiles(fn, n):
    rng = np.random.default_rng(n)
    a = rng.random((n, n)) + 3.0 * np.eye(n) if n != 3 else MATRIX.copy()
    expect = fn(a.copy())
    got_arg = a.copy()
    got = ph.pipeline(fn)(got_arg)
    np.testing.assert_array_equal(got, expect)
    np.testing.assert_array_equal(got_arg, expect)


# Siblings the lead found wrong on session 21's main (values from plain Python
# against what main returned): a 1-D read at n - 1 - i (input [1, 2, 3]:
# [46, 45, 44] expected in the fuzz's case, [46, 68, 78] returned), a read in a
# `while` loop body, a column's first element, and a read two loops out.
def add_mirrored_1d(a):
    n = a.shape[0]
    for i in range(n):
        d = a[n - 1 - i]
        for j in range(n):
            a[j] = a[j] + d
    return a


def subtract_each_while(a):
    n = a.shape[0]
    i = 0
    while i < n:
        d = a[i]
        for j in range(n):
            a[j] = a[j] - d
        i += 1
    return a


def column_from_top(a):
    n, m = a.shape
    for j in range(m):
        c = a[0, j]
        for i in range(n):
            a[i, j] = a[i, j] * 2 + c
    return a


def read_two_loops_out(a):
    n = a.shape[0]
    for i in range(n):
        d = a[i, i]
        for j in range(n):
            e = a[j, i]
            for k in range(n):
                a[j, k] += d * e * 0.001
    return a


@pytest.mark.parametrize("fn,arg", [
    (add_mirrored_1d, np.array([1.0, 2.0, 3.0])),
    (subtract_each_while, np.array([1.0, 2.0, 3.0])),
    (column_from_top, MATRIX)])
def test_sibling_reads_the_inner_loop_overwrites_equal_python(fn, arg):
    _check(fn, arg)
    _check(fn, arg[:1].copy())


@pytest.mark.parametrize("fn,arg,line", [(read_two_loops_out, MATRIX, "d = a[i, i]")])
def test_sibling_reads_the_inner_loop_overwrites_are_refused(fn, arg, line):
    with pytest.raises(FrontendError) as e:
        ph.pipeline(fn)(arg.copy())
    assert "at an element that loop writes" in str(e.value) and line in str(e.value)


# Where the order cannot make the read right (iterations that do not commute,
# two reads written at different iterations, a reversed or strided inner loop,
# a second statement), the located error stays: each of these would give a
# wrong result if the written element's iteration were run last.
def recurrence_after_read(a):
    n = a.shape[0]
    for i in range(n):
        d = a[i, 1]
        for j in range(1, n):
            a[i, j] = a[i, j - 1] + d
    return a


def reads_first_of_row(a):
    n = a.shape[0]
    for i in range(n):
        d = a[i, i]
        for j in range(n):
            a[i, j] = a[i, j] - d * a[i, 0]
    return a


def two_reads_two_iterations(a):
    n = a.shape[0]
    for i in range(n):
        d = a[i, i]
        e = a[i, 0]
        for j in range(n):
            a[i, j] = a[i, j] * d + e
    return a


def reversed_inner(a):
    n = a.shape[0]
    for i in range(n):
        d = a[i, i]
        for j in range(n - 1, -1, -1):
            a[i, j] = a[i, j] - d
    return a


def two_statements(a):
    n = a.shape[0]
    for i in range(n):
        d = a[i, i]
        for j in range(n):
            a[i, j] = a[i, j] + d
            a[i, j] = a[i, j] * 2.0
    return a


@pytest.mark.parametrize("fn,line", [(recurrence_after_read, "d = a[i, 1]"),
                                     (reads_first_of_row, "d = a[i, i]"),
                                     (two_reads_two_iterations, "d = a[i, i]"),
                                     (reversed_inner, "d = a[i, i]"),
                                     (two_statements, "d = a[i, i]")])
def test_reads_the_order_cannot_fix_stay_refused(fn, line):
    with pytest.raises(FrontendError) as e:
        ph.pipeline(fn)(MATRIX.copy())
    msg = str(e.value)
    assert "at an element that loop writes" in msg and line in msg


def divide_where_large(a):
    n = a.shape[0]
    for i in range(n):
        d = a[i, i]
        for j in range(n):
            if a[i, j] > 1.0:
                a[i, j] = a[i, j] / d
    return a


def column_by_diagonal(a):
    n = a.shape[0]
    for i in range(n):
        d = a[i, i]
        for j in range(n):
            a[j, i] /= d
    return a


def minus_last_column(a):
    n = a.shape[0]
    for i in range(n):
        d = a[i, -1]
        for j in range(n):
            a[i, j] = a[i, j] - d
    return a


def int_upper_rows(a):
    n = a.shape[0]
    for i in range(n):
        d = a[i, i]
        for j in range(i, n):
            a[i, j] = a[i, j] * 3 - d
    return a


def shifted_write(a):
    # the write's column is j + 1: the element read is written at j = 0
    n = a.shape[0]
    for i in range(n):
        d = a[i, 1]
        for j in range(n - 1):
            a[i, j + 1] = a[i, j + 1] - d
    return a


def read_outside_some_ranges(a):
    # the column read is inside the inner loop's range only at i = 0
    n = a.shape[0]
    for i in range(n):
        d = a[i, 0]
        for j in range(i, n):
            a[i, j] = a[i, j] + d
    return a


@pytest.mark.parametrize("fn,dtype", [(divide_where_large, np.float64),
                                      (shifted_write, np.float64),
                                      (read_outside_some_ranges, np.float64),
                                      (column_by_diagonal, np.float64),
                                      (minus_last_column, np.float64),
                                      (int_upper_rows, np.int64)])
def test_more_reads_the_inner_loop_overwrites_equal_python(fn, dtype):
    for n in (0, 1, 2, 5) if fn is not shifted_write else (2, 5):
        _check(fn, _matrix(n, dtype))
