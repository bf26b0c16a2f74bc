"""`if a[k, k] == 0.0: break` before LU's row loops (frontend_ast/outer_exit.py,
lowering/loop_exit.outer_exit): the test is the update's exit, tested at the
top of the loop over k. Against plain Python on copies: values, exception
type and the partial writes made before it."""
import numpy as np
import pytest

from pyhalide import pipeline
from pyhalide.frontend_ast.errors import FrontendError


def lu_break(a):
    n = a.shape[0]
    for k in range(n):
        if a[k, k] == 0.0:
            break
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                a[i, j] -= a[i, k] / a[k, k] * a[k, j]


def lu_break_from_k(a):
    # j from k: a[i, k] is written first and then read by the later j
    n = a.shape[0]
    for k in range(n):
        if a[k, k] == 0.0:
            break
        for i in range(k + 1, n):
            for j in range(k, n):
                a[i, j] -= a[i, k] / a[k, k] * a[k, j]


def lu_f(a):
    # the multiplier in a name (its checks stored where Python computes it)
    n = a.shape[0]
    for k in range(n):
        if a[k, k] == 0.0:
            break
        for i in range(k + 1, n):
            f = a[i, k] / a[k, k]
            for j in range(k, n):
                a[i, j] -= f * a[k, j]


def lu_rect(a):
    # j to the column count: on (m + 1, m) the last k runs no point and its
    # test raises IndexError (a[m, m])
    n = a.shape[0]
    for k in range(n):
        if a[k, k] == 0.0:
            break
        for i in range(k + 1, n):
            for j in range(k + 1, a.shape[1]):
                a[i, j] -= a[i, k] / a[k, k] * a[k, j]


def break_after_rows(a):
    # the test after the row loops: iteration k updates, then breaks (not
    # this case: the exit at the top of the loop would skip k's updates)
    n = a.shape[0]
    for k in range(n):
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                a[i, j] -= a[i, k] / a[k, k] * a[k, j]
        if a[k, k] == 0.0:
            break


def next_pivot(a):
    # the test reads a row that iteration k writes: not this case
    n = a.shape[0]
    for k in range(n - 1):
        if a[k + 1, k + 1] == 0.0:
            break
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                a[i, j] -= a[i, k] / a[k, k] * a[k, j]


LU = pipeline(lu_break)
LU_K = pipeline(lu_break_from_k)
LU_RECT = pipeline(lu_rect)
LU_F = pipeline(lu_f)


def _outcome(fn, a):
    try:
        fn(a)
    except Exception as e:      # noqa: BLE001 (the type is compared)
        return type(e)
    return None


def _check(jit, py, a):
    got, want = a.copy(), a.copy()
    assert _outcome(jit, got) is _outcome(py, want)
    np.testing.assert_array_equal(got, want)


def _matrix(shape, zero=None, seed=0):
    a = np.random.default_rng(seed).random(shape) + 2.0
    if zero is not None:
        a[zero, zero] = 0.0
    return a


@pytest.mark.parametrize("zero", [0, 3, 5, None])
def test_square_break_at_k(zero):
    # a zero pivot at k = 0, in the middle, at the last k, none
    a = _matrix((6, 6), zero)
    _check(LU, lu_break, a)
    _check(LU_K, lu_break_from_k, a)
    _check(LU_F, lu_f, a)


def test_break_stops_updates():
    # the break is taken: rows below the zero pivot keep their values
    a = _matrix((5, 5), 2)
    got = a.copy()
    LU(got)
    want = a.copy()
    lu_break(want)
    np.testing.assert_array_equal(got, want)
    assert not np.array_equal(got[3:, 3:], a[3:, 3:])     # k = 0, 1 ran
    b = _matrix((5, 5), 0)
    got = b.copy()
    LU(got)
    np.testing.assert_array_equal(got, b)                 # nothing ran


@pytest.mark.parametrize("shape,zero", [((4, 7), None), ((4, 7), 1), ((6, 4), 0),
                                        ((6, 4), 3), ((6, 4), None), ((3, 0), None),
                                        ((0, 0), None), ((1, 1), 0)])
def test_non_square(shape, zero):
    # tall: IndexError at j = 4 (k = 0 or 1) unless the break comes first;
    # the writes made before it are Python's
    a = _matrix(shape, zero)
    _check(LU, lu_break, a)
    _check(LU_F, lu_f, a)


@pytest.mark.parametrize("shape,zero", [((5, 4), None), ((5, 4), 1), ((4, 5), 3),
                                        ((5, 5), 4)])
def test_rect_last_k_runs_no_point(shape, zero):
    _check(LU_RECT, lu_rect, _matrix(shape, zero))


def test_in_place_size():
    # 100 x 100 float64 (80 KB): the in-place variant; breaks at 40 and never
    for zero in (40, None):
        _check(LU, lu_break, _matrix((100, 100), zero, seed=3))
        _check(LU_F, lu_f, _matrix((100, 100), zero, seed=3))


def test_break_after_the_rows_is_refused():
    with pytest.raises(FrontendError, match="read each other"):
        pipeline(break_after_rows)(_matrix((4, 4)))


def test_test_reading_written_row_is_refused():
    with pytest.raises(FrontendError, match="element that loop writes"):
        pipeline(next_pivot)(_matrix((4, 4)))


def test_f_form_built_again_in_process():
    # a second build of the f form: its sink's Func is named f_unused$1 (Func
    # names are unique in a process); the sink is known by its Arr, not its name
    LU_F(_matrix((4, 4), 2))
    again = pipeline(lu_f)
    for shape, zero in (((6, 6), 3), ((4, 7), None), ((6, 4), 0)):
        _check(again, lu_f, _matrix(shape, zero))
