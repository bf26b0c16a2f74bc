"""The inner loop that runs its writing iteration j* last (hoisted_order.py:
LU's row update from column k, row normalisation) split into affine pieces
(lowering/split_permuted_loops.py): [lo, j*) and (j*, hi) as plain loops,
their index checks' range split off (piece_checks.py) and the loads of
elements no iteration of a piece stores made once before it
(hoist_piece_loads.py), then j*. Every result equals plain Python, on
sizes that run the vector bodies and their remainders, non-square and
strided arrays, a zero pivot, and shapes where Python raises IndexError."""
import numpy as np
import pytest

import pyhalide as ph

from .test_hoisted_reads22 import lu_row_from_k, normalize_rows, read_outside_some_ranges


def lu_pivot_outside(a):
    # the pivot read two loops out (hoisted_order: a read no iteration of the
    # write's inner loops reaches; refused before session 23)
    n = a.shape[0]
    for k in range(n):
        p = a[k, k]
        for i in range(k + 1, n):
            f = a[i, k] / p
            for j in range(k, n):
                a[i, j] -= f * a[k, j]
    return a


def add_first_of_row(a):
    # j* = 0: the first piece is empty
    for i in range(a.shape[0]):
        t = a[i, 0]
        for j in range(a.shape[1]):
            a[i, j] = a[i, j] - t
    return a


_COMPILED = {}


def _compiled(fn):
    if fn not in _COMPILED:
        _COMPILED[fn] = ph.pipeline(fn)
    return _COMPILED[fn]


def _check(fn, a):
    expect = fn(a.copy())
    got_arg = a.copy()
    got = _compiled(fn)(got_arg)
    np.testing.assert_array_equal(got, expect)
    np.testing.assert_array_equal(got_arg, expect)


def _matrix(shape, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.random(shape)
    k = min(shape)
    a[np.arange(k), np.arange(k)] += 3.0
    return a


@pytest.mark.parametrize("fn", [lu_row_from_k, normalize_rows, add_first_of_row,
                                lu_pivot_outside])
def test_split_pieces_equal_python(fn):
    for n in (0, 1, 2, 7, 33):
        _check(fn, _matrix((n, n), n))
    a = _matrix((19, 19), 3)
    _check(fn, np.asfortranarray(a))           # column-major
    _check(fn, _matrix((38, 19), 4)[::2])      # every other row
    _check(fn, _matrix((12, 21), 5))           # wider than tall


def add_diag_left_half(a):
    # j* = i lies outside the inner loop's range for i >= m // 2: the pieces'
    # guard fails there and the loop runs as it was
    for i in range(a.shape[0]):
        t = a[i, i]
        for j in range(a.shape[1] // 2):
            a[i, j] += t
    return a


def test_split_guard_false_equals_python():
    for n in (1, 6, 21):
        _check(add_diag_left_half, _matrix((n, n), n))


@np.errstate(divide="ignore", invalid="ignore")
def test_split_pieces_zero_pivot_and_nan_equal_python():
    a = _matrix((9, 9), 6)
    a[0, 0] = 0.0                               # f = inf / nan from the first row on
    _check(lu_row_from_k, a)
    b = _matrix((9, 9), 7)
    b[4, 4] = np.nan
    _check(normalize_rows, b)
    _check(lu_row_from_k, b)


@pytest.mark.parametrize("fn,shape", [(lu_row_from_k, (9, 5)), (normalize_rows, (9, 5))])
def test_split_pieces_index_error_as_python(fn, shape):
    a = _matrix(shape, 8)
    with pytest.raises(IndexError):
        fn(a.copy())
    with pytest.raises(IndexError):
        _compiled(fn)(a.copy())


def _same_outcome(fn, a):
    """fn compiled raises what Python raises (or returns what it returns)
    and leaves the argument as Python leaves it."""
    expect_arg, got_arg = a.copy(), a.copy()
    try:
        expect = ("ok", fn(expect_arg).copy())
    except IndexError:
        expect = ("IndexError", None)
    try:
        got = ("ok", _compiled(fn)(got_arg).copy())
    except IndexError:
        got = ("IndexError", None)
    assert got[0] == expect[0]
    if expect[1] is not None:
        np.testing.assert_array_equal(got[1], expect[1])
    np.testing.assert_array_equal(got_arg, expect_arg)


def test_width_one_raises_index_error_as_python():
    # an axis of extent 1: the written index's clamp is 0, the read a[i, 0]
    # is still ordered (hoisted_order.plan compares unchecked indices), and
    # the write past the width raises IndexError after a[0, 0] changed (was a
    # compile-time refusal)
    for shape in ((3, 1), (2, 1), (1, 1), (3, 2)):
        _same_outcome(read_outside_some_ranges, _matrix(shape, 9))
        _same_outcome(normalize_rows, _matrix(shape, 10))


def test_lu_inner_loop_is_split():
    # the pieces bind the row's pivot column before the middle piece
    # (`<inner loop>.middle...` lets): its loads and stores are affine
    p = _compiled(lu_row_from_k)
    p(_matrix((6, 6), 9))
    text = p.lower("final")
    assert ".middle" in text
    q = _compiled(normalize_rows)
    q(_matrix((6, 6), 9))
    assert ".middle" in q.lower("final") and ".first" in q.lower("final")
