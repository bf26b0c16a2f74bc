"""Run-time checks in a loop's bounds raise only where Python evaluates the
bounds (frontend_ast/loop_bound_reach.py): a division by zero in a bound
under `if s != 0:` is not raised when s == 0. Plain Python is the oracle."""
import numpy as np
import pytest

from pyhalide import pipeline


def g_div(a, s):
    t = 0
    if s != 0:
        for j in range(a.shape[0] // s):
            t += a[j]
    return t


def g_mod(a, k):
    t = 0
    if k < a.shape[0]:
        for j in range(a.shape[0] % (a.shape[0] - k)):
            t += a[j]
    return t


def g_and(a, s):
    t = 0
    if s > 0 and a.shape[0] // s > 1:
        for j in range(a.shape[0] // s):
            t += a[j]
    return t


def _outcome(f, *args):
    try:
        return ("ok", f(*args))
    except Exception as e:       # the exception's type is part of Python's result
        return ("raise", type(e))


CASES = [(g_div, [(np.arange(4), 0), (np.arange(4), 2), (np.arange(4), -1),
                  (np.arange(0), 0), (np.arange(1), 0), (np.arange(1), 1)]),
         (g_mod, [(np.arange(4), 4), (np.arange(4), 1), (np.arange(4), 9), (np.arange(1), 0)]),
         (g_and, [(np.arange(4), 0), (np.arange(4), 1), (np.arange(4), 3), (np.arange(0), 0)])]


@pytest.mark.parametrize("fn, argss", CASES, ids=[c[0].__name__ for c in CASES])
def test_bound_check_only_where_reached(fn, argss):
    compiled = pipeline(fn)
    for args in argss:
        assert _outcome(compiled, *args) == _outcome(fn, *args), args


def test_reached_bound_still_raises():
    # the check stays where Python reaches the loop
    def g(a, s):
        t = 0
        if a.shape[0] > 2:
            for j in range(a.shape[0] // s):
                t += a[j]
        return t
    with pytest.raises(ZeroDivisionError):
        g(np.arange(4), 0)
    with pytest.raises(ZeroDivisionError):
        pipeline(g)(np.arange(4), 0)
    assert pipeline(g)(np.arange(2), 0) == g(np.arange(2), 0)
    assert pipeline(g)(np.arange(6), 2) == g(np.arange(6), 2)
