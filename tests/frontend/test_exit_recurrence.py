"""A loop that stops early (break, return) while a recurrence runs through
an array it writes (`out[i] = out[i-1]*r; if out[i] > t: break`): the array
and the loop's carried values are one tuple Func (frontend_ast/loop_cycles.py).
Plain Python is the oracle: values, dtypes, the arrays written in place,
and the exception type."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast.errors import FrontendError

from .frontend_check import same


def run_both(p, *args):
    """p and p.py_func on copies of args: the results and the arrays after
    the call are the same, or both raise the same exception type."""
    mine = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    theirs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        with np.errstate(all="ignore"):
            exp = p.py_func(*theirs)
    except Exception as e:              # the compiled call raises the same type
        with pytest.raises(type(e)):
            p(*mine)
        return None
    got = p(*mine)
    assert same(got, exp), (got, exp)
    for a, b in zip(mine, theirs):
        if isinstance(a, np.ndarray):
            assert same(a, b), (a, b)
    return got


@ph.pipeline
def grow_in_place(out, r, t):
    for i in range(1, out.shape[0]):
        out[i] = out[i - 1] * r
        if out[i] > t:
            break
    return out


@ph.pipeline
def grow_copy(a, r, t):
    out = a.copy()
    for i in range(1, a.shape[0]):
        out[i] = out[i - 1] * r + a[i]
        if out[i] > t:
            break
    return out


@ph.pipeline
def grow_bound(a, n, t):
    out = np.zeros_like(a)
    out[0] = 1.0
    for i in range(1, n):
        out[i] = out[i - 1] * 2 + a[i]
        if out[i] > t:
            break
    return out


@ph.pipeline
def grow_sum(a, t):
    out = np.zeros_like(a)
    s = 0.0
    for i in range(1, a.shape[0]):
        out[i] = out[i - 1] + s + a[i]
        s = s + out[i]
        if s > t:
            break
    return out, s


@ph.pipeline
def grow_return(a, t):
    out = np.zeros_like(a)
    out[0] = 1.0
    for i in range(1, a.shape[0]):
        out[i] = out[i - 1] * 2 + a[i]
        if out[i] > t:
            return out, i
    return out, -1


@ph.pipeline
def grow_back(a, t):
    out = np.ones_like(a)
    for i in range(a.shape[0] - 2, -1, -1):
        out[i] = out[i + 1] * 2 + a[i]
        if out[i] > t:
            break
    return out


@ph.pipeline
def grow_column(a, t):
    out = np.zeros_like(a)
    for i in range(1, a.shape[0]):
        out[i, 0] = out[i - 1, 0] * 2 + a[i, 1]
        if out[i, 0] > t:
            break
    return out


@ph.pipeline
def grow_skip(a, t):
    out = np.zeros_like(a)
    for i in range(1, a.shape[0]):
        if a[i] < 2:
            continue
        out[i] = out[i - 1] + a[i]
        if out[i] > t:
            break
    return out


@ph.pipeline
def grow_int(a, t):
    out = np.zeros(a.shape[0], dtype=np.int64)
    for i in range(1, a.shape[0]):
        out[i] = out[i - 1] * 3 + 7 // (5 - i)      # ZeroDivisionError at i == 5
        if out[i] > t:
            break
    return out


LIMITS = (0.5, 50.0, 1e9)


@pytest.mark.parametrize("t", LIMITS)
def test_in_place_argument(t):
    run_both(grow_in_place, np.ones(10), 2.0, t)


def test_in_place_short_arrays():
    run_both(grow_in_place, np.ones(1), 2.0, 1.0)
    run_both(grow_in_place, np.ones(0), 2.0, 1.0)


@pytest.mark.parametrize("t", LIMITS)
def test_copy_and_input(t):
    run_both(grow_copy, np.arange(10.0), 1.5, t)


@pytest.mark.parametrize("t", LIMITS)
@pytest.mark.parametrize("n", [3, 10, 12])
def test_bound_argument(n, t):
    """range(1, n) past the array's end: IndexError only if the loop gets
    there before the break (no index check runs after the exit)."""
    run_both(grow_bound, np.arange(10.0), n, t)


@pytest.mark.parametrize("t", LIMITS)
def test_scalar_and_array_carried(t):
    run_both(grow_sum, np.arange(10.0), t)


@pytest.mark.parametrize("t", LIMITS)
def test_return_inside(t):
    run_both(grow_return, np.arange(10.0), t)


@pytest.mark.parametrize("t", LIMITS)
def test_negative_step(t):
    run_both(grow_back, np.arange(10.0), t)


@pytest.mark.parametrize("t", LIMITS)
def test_column_of_2d(t):
    run_both(grow_column, np.arange(20.0).reshape(10, 2), t)


@pytest.mark.parametrize("t", LIMITS)
def test_continue_and_break(t):
    run_both(grow_skip, np.arange(10.0), t)


@pytest.mark.parametrize("t", [0, 50, 10**9])
def test_no_body_after_the_exit(t):
    """The division by zero at i == 5 raises only when the loop gets there."""
    run_both(grow_int, np.arange(10), t)


@ph.pipeline
def two_steps(a, t):
    out = np.zeros_like(a)
    out[0] = 1.0
    for i in range(2, a.shape[0]):
        out[i] = out[i - 2] * 2 + a[i]
        if out[i] > t:
            break
    return out


@pytest.mark.parametrize("t", LIMITS)
def test_read_two_iterations_back(t):
    run_both(two_steps, np.arange(10.0), t)


@ph.pipeline
def flag_elsewhere(a, t):
    out = np.zeros_like(a)
    for i in range(1, a.shape[0]):
        out[i + 1] = out[i] + a[i]
        if out[i + 1] > t:
            break
    return out


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10])
def test_at_an_offset_from_the_loop_position(n):
    # out[i + 1] written and tested: one element per iteration, at a constant
    # offset from the loop's position (loop_cycles.py, session 20); the last
    # iteration writes past the end: IndexError as in Python
    for t in (-1.0, 0.5, 5.0, 50.0, 1e9):
        run_both(flag_elsewhere, np.arange(float(n)), t)
        run_both(flag_elsewhere, -np.arange(float(n)), t)


@ph.pipeline
def rows_then_stop(a, t):
    out = np.zeros_like(a)
    for i in range(1, a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = out[i - 1, j] * 2 + a[i, j]
        if out[i, 0] > t:
            break
    return out


def test_several_elements_per_iteration_is_refused():
    """A row per iteration (the inner loop a pure dimension) with the stop
    test reading one element of it: refused, not merged (merged, the test
    read the element before this iteration wrote it)."""
    with pytest.raises(FrontendError, match=r"one element per iteration"):
        rows_then_stop(np.arange(20.0).reshape(4, 5), 0.5)


@ph.pipeline
def clipped_read_first(a):
    out = np.zeros_like(a)
    s = 0.0
    for i in range(a.shape[0]):
        s = s + out[max(min(i - 1, a.shape[0] - 1), 0)]
        out[i] = a[i] + s
    return out, s


def test_a_clamp_the_user_wrote_is_not_taken_apart():
    """max(min(i - 1, n - 1), 0) reads out[0] at i == 0 before this
    iteration writes it: compiled as Python reads it, or refused, never
    read as position i - 1."""
    a = np.arange(1.0, 7.0)
    try:
        got = clipped_read_first(a)
    except FrontendError:
        return
    exp = clipped_read_first.py_func(a)
    assert same(got, exp), (got, exp)


@ph.pipeline
def rows_stop_early(a, m, t):
    out = np.zeros_like(a)
    for i in range(a.shape[0]):
        s = a[i, 0]
        for j in range(1, m):
            out[i, j] = out[i, j - 1] * 2 + s
            s = s + out[i, j]
            if s > t:
                break
    return out


@pytest.mark.parametrize("t", [0.5, 30.0, 100.0, 1e9])
@pytest.mark.parametrize("m", [5, 7])
def test_inner_loop_of_a_nest(m, t):
    """The recurrence and its stop test in the inner loop of a nest: one
    merged Func over (row, column), a stop flag per row; m = 7 runs past
    the rows' end (IndexError where a row gets there)."""
    run_both(rows_stop_early, np.arange(20.0).reshape(4, 5), m, t)


@ph.pipeline
def written_twice(a, t):
    out = np.zeros_like(a)
    for i in range(a.shape[0]):
        out[i, 0] = a[i, 0]
        for j in range(1, a.shape[1]):
            out[i, j] = out[i, j - 1] * 2 + a[i, j]
            if out[i, j] > t:
                break
    return out


def test_array_written_twice_in_the_nest_is_refused_at_the_inner_loop():
    with pytest.raises(FrontendError, match=r"several places") as e:
        written_twice(np.arange(20.0).reshape(4, 5), 30.0)
    assert ":6:" in str(e.value) or "for j in range" in str(e.value)
