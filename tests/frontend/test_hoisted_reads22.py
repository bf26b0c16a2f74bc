"""A value read outside an inner loop, at an element that inner loop writes
(`f = a[i, k] / a[k, k]` then `for j in range(k, n): a[i, j] -= f * a[k, j]`):
Python reads the element once, before the loop writes it; the write's update
evaluated the read at every iteration of the inner loop and so, from the
iteration after the one that wrote it, used the written value (LU with the
column included in the row update returned its input's rows unchanged:
[[2, 1, 1], [0, 3, 3], [0, 0, 9]] where Python gives [[2, 1, 1], [0, 1, 1],
[0, 0, 2]]). Such a read is now a located error (deps.own_write_reached);
reads of elements the inner loop provably does not write compile and equal
plain Python."""
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


@pytest.mark.parametrize("fn,line", [(lu_row_from_k, "f = a[i, k] / a[k, k]"),
                                     (add_first, "t = a[i, 0]"),
                                     (add_diag_shifted, "t = a[i, i]"),
                                     (normalize_rows, "d = a[i, i]")])
def test_a_read_the_inner_loop_overwrites_is_refused(fn, line):
    with pytest.raises(FrontendError) as e:
        ph.pipeline(fn)(MATRIX.copy())
    msg = str(e.value)
    assert "at an element that loop writes" in msg and line in msg and "hint:" in msg


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


@pytest.mark.parametrize("fn,arg,line", [
    (add_mirrored_1d, np.array([1.0, 2.0, 3.0]), "d = a[n - 1 - i]"),
    (subtract_each_while, np.array([1.0, 2.0, 3.0]), "d = a[i]"),
    (column_from_top, MATRIX, "c = a[0, j]"),
    (read_two_loops_out, MATRIX, "d = a[i, i]")])
def test_sibling_reads_the_inner_loop_overwrites_are_refused(fn, arg, line):
    with pytest.raises(FrontendError) as e:
        ph.pipeline(fn)(arg.copy())
    assert "at an element that loop writes" in str(e.value) and line in str(e.value)
