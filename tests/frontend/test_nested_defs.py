"""Helper functions defined inside the decorated function are inlined where
they are called (frontend_ast/nested_defs.py), with Python's late binding of
their free names; the forms that are not supported are located errors."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check


@ph.pipeline
def sum_of_squares(a):
    def sq(x):
        return x * x
    s = 0.0
    for v in a:
        s += sq(v)
    return s


@ph.pipeline
def late_binding(a, k):
    def scaled(x, c=2.0):
        t = x * c + k          # k is read when scaled is called
        return t
    k = k + 1
    return scaled(a) + scaled(a, 0.5)


@ph.pipeline
def writes_enclosing(a):
    out = np.zeros_like(a)

    def put(i, v):
        out[i] = v
    for i in range(a.size):
        put(i, a[i] * 3)
    return out


@ph.pipeline(schedule="auto")
def nested_in_loop_body(a, b):
    def dist2(i, j):
        d = a[i] - b[j]
        return d * d
    best = np.inf
    for i in range(a.size):
        for j in range(b.size):
            best = min(best, dist2(i, j))
    return best


def test_nested_helpers_equal_python():
    rng = np.random.default_rng(2)
    check(sum_of_squares, rng.random(9))
    check(late_binding, rng.random(4), 2)
    check(writes_enclosing, rng.random(5))
    check(nested_in_loop_body, rng.random(6), rng.random(7))


def _compile_error(fn, *args):
    with pytest.raises(ph.CompileError) as e:
        ph.pipeline(fn)(*args)
    return str(e.value)


def test_refused_forms_are_located():
    def recursive(a):
        def r(x):
            return r(x)
        return r(a[0])

    def called_before(a):
        y = g(a[0])  # noqa: F821  (Python: UnboundLocalError)

        def g(x):
            return x
        return y

    def passed_on(a):
        def g(x):
            return x
        h = g
        return h(a[0])
    assert "recursion" in _compile_error(recursive, np.ones(2))
    assert "before its `def`" in _compile_error(called_before, np.ones(2))
    assert "other than by calling it" in _compile_error(passed_on, np.ones(2))
