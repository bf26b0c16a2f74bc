"""A reduction of an empty array that NumPy refuses (max, min, argmin, ...:
"zero-size array to reduction operation ...") raises at call time only where
the code reaching it runs: in a branch Python does not take (`m.max(axis=0)
if m.shape[0] else ...`, an early return for empty input, the right side of
an `or`) it raised a false ValueError (session 15's open list). Conditions
known only at run time keep the check wherever the reduction is evaluated."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import same


@ph.pipeline
def column_maxima(m):
    return m.max(axis=0) if m.shape[0] else np.zeros(m.shape[1])


@ph.pipeline
def minimum_or_zero(a):
    return 0.0 if a.size == 0 else a.min()


@ph.pipeline
def early_return(a):
    if len(a) == 0:
        return -1
    return int(np.argmin(a))


@ph.pipeline
def nested(m, k):
    if m.shape[0] > 0:
        if k > 1:
            return np.nanmax(m)
        return -2.0
    return -1.0


@ph.pipeline
def any_positive(a):
    return a.size == 0 or a.max() > 0


@ph.pipeline
def always_reached(a):
    return a.max() if a.shape[0] >= 0 else 0.0


@ph.pipeline
def data_dependent(a, x):
    return a.max() if x[0] > 0 else 0.0


def _both(fn, *args):
    got = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    want = fn.py_func(*args)
    assert same(got, want), (got, want)


@pytest.mark.parametrize("shape", [(0, 3), (2, 3), (2, 0)])
def test_reduction_in_the_branch_not_taken(shape):
    _both(column_maxima, np.arange(np.prod(shape), dtype=np.float64).reshape(shape))


@pytest.mark.parametrize("n", [0, 5])
def test_else_branch_early_return_and_or(n):
    a = np.linspace(-1.0, 2.0, n)
    _both(minimum_or_zero, a)
    _both(early_return, a)
    _both(any_positive, a)


@pytest.mark.parametrize("rows, k", [(0, 2), (3, 2), (3, 1), (0, 1)])
def test_nested_conditions(rows, k):
    _both(nested, np.ones((rows, 2)), k)


def test_empty_reduction_that_runs_still_raises():
    with pytest.raises(ValueError, match="zero-size array"):
        always_reached.py_func(np.zeros(0))
    with pytest.raises(ValueError, match="zero-size array"):
        always_reached(np.zeros(0))
    with pytest.raises(ValueError, match="zero-size array"):
        nested(np.zeros((3, 0)), 2)
    _both(always_reached, np.arange(4.0))


def test_run_time_condition_keeps_the_check():
    with pytest.raises(ValueError, match="zero-size array"):
        data_dependent(np.zeros(0), np.ones(1))
    _both(data_dependent, np.arange(3.0), np.ones(1))
    _both(data_dependent, np.arange(3.0), -np.ones(1))
