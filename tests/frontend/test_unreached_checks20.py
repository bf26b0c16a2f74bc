"""A check of code under a condition known when the call starts (on scalar
arguments and sizes) passes where that condition is false: Python does not
run the code there, so nothing raises (`if k > 0: y = a * (n % k)` with k = 0
raised ZeroDivisionError: the branch's array is computed whole and selected).
Compared with plain Python (found by the lead, session 20)."""
import numpy as np
import pytest

import pyhalide as ph


def _returned_in_branch(a, k):
    if k != 0:
        return a * (a.shape[0] // k)
    return a


def _assigned_in_branches(a, k):
    if k != 0:
        y = a * (a.shape[0] // k)
    else:
        y = a
    return y


def _assigned_in_one_branch(a, k):
    y = a
    if k > 0:
        y = a * (a.shape[0] % k)
    return y + 1


def _nested(a, k, m):
    y = a
    if m > 1:
        if k != 0:
            y = a + (m // k) + a[k % a.shape[0]]
    return y


def _index_in_branch(a, i):
    y = a
    if i >= 0:
        y = a * a[i]
    return y


def _same_as_python(f, *args):
    """f compiled returns what f returns, or raises the same exception type."""
    p = ph.pipeline(f)
    try:
        want = f(*args)
    except (ZeroDivisionError, IndexError) as e:
        with pytest.raises(type(e)):
            p(*args)
        return
    got = p(*args)
    assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.parametrize("f", [_returned_in_branch, _assigned_in_branches,
                               _assigned_in_one_branch])
@pytest.mark.parametrize("k", [0, 2, -3, 7])
def test_division_under_a_call_time_condition(f, k):
    _same_as_python(f, np.arange(5.0), k)


@pytest.mark.parametrize("k, m", [(0, 5), (0, 1), (2, 5), (3, 0), (-2, 9)])
def test_nested_call_time_conditions(k, m):
    _same_as_python(_nested, np.arange(6.0), k, m)


@pytest.mark.parametrize("i", [-1, 0, 4, 5, 9])
def test_index_check_under_a_call_time_condition(i):
    _same_as_python(_index_in_branch, np.arange(5.0), i)
