"""`assert cond, msg` in @pipeline functions (frontend_ast/asserts.py):
AssertionError with Python's arguments exactly where plain Python raises it
(call-time conditions, data, loop variables and loop state), nothing where
it does not.

PYTEST_DONT_REWRITE: the plain functions' asserts must stay Python's own."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check, run_plain
from tests.frontend.test_frontend_errors import where


def same_raise(p, *args):
    """p raises what plain Python raises (type and arguments), or returns
    what it returns."""
    try:
        run_plain(p, *args)
    except AssertionError as e:
        with pytest.raises(AssertionError) as info:
            p(*args)
        assert info.value.args == e.args, (info.value.args, e.args)
        return info.value
    check(p, *args)
    return None


@ph.pipeline
def on_arguments(a, n):
    assert n > 0, "n must be positive"
    assert len(a) == 5
    return a[0] * n


@ph.pipeline
def under_if(a, n):
    if n > 2:
        assert len(a) > 10, "too short"
    return n


@ph.pipeline
def on_data(a):
    assert a[0] > 0, "first"
    return a[1]


@ph.pipeline
def on_reduction(a):
    assert np.all(a >= 0), "negative entries"
    return a.sum()


@ph.pipeline
def in_loop(a):
    s = 0.0
    for i in range(len(a)):
        assert a[i] >= 0, "negative value"
        s += a[i]
    return s


@ph.pipeline
def on_state(a):
    s = 0.0
    prev = -1.0
    for x in a:
        assert x >= prev, "not sorted"
        prev = x
        s += x
    return s


@ph.pipeline
def on_state_only(a):
    prev = -1.0
    for i in range(len(a)):
        assert a[i] >= prev, "not sorted"
        prev = a[i]
    return 0


@ph.pipeline
def guarded_in_loop(a):
    for i in range(len(a)):
        if a[i] > 2:
            assert i < 3, 7
    return 1


@ph.pipeline
def after_continue(a):
    s = 0
    for i in range(len(a)):
        if a[i] < 0:
            continue
        assert a[i] < 100, "too big"
        s += a[i]
    return s


@ph.pipeline
def nested(a):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            assert a[i, j] != i + j, "diagonal value"
            s += a[i, j]
    return s


@ph.pipeline
def lazy_operand(a, k):
    assert k < len(a) and a[k] > 0, "bad"
    return 1


@ph.pipeline
def always_false(a):
    for i in range(len(a)):
        assert False, "reached"
    return 0


@pytest.mark.parametrize("args", [(np.arange(5.0), 3), (np.arange(5.0), 0),
                                  (np.arange(4.0), 2)])
def test_call_time(args):
    same_raise(on_arguments, *args)


def test_call_time_under_if():
    same_raise(under_if, np.arange(5.0), 1)
    e = same_raise(under_if, np.arange(5.0), 3)
    assert e is not None and str(e) == "too short"


@pytest.mark.parametrize("a", [np.arange(1.0, 5.0), np.arange(5.0), np.array([3.0, -1.0])])
def test_data(a):
    same_raise(on_data, a)
    same_raise(on_reduction, a)


@pytest.mark.parametrize("a", [np.arange(5.0), np.array([1.0, -1.0, 2.0]), np.zeros(0),
                               np.array([1.0, 3.0, 2.0]), np.array([-5.0])])
def test_in_loops(a):
    same_raise(in_loop, a)
    same_raise(on_state, a)
    same_raise(on_state_only, a)
    same_raise(guarded_in_loop, a)
    same_raise(always_false, a)


@pytest.mark.parametrize("a", [np.array([1, -200, 5]), np.array([1, 200, 5]),
                               np.array([-1, -200])])
def test_after_continue(a):
    same_raise(after_continue, a)


@pytest.mark.parametrize("a", [np.arange(6.0).reshape(2, 3) * 2 + 1,
                               np.array([[1.0, 1.0], [5.0, 6.0]])])
def test_nested(a):
    same_raise(nested, a)


@pytest.mark.parametrize("k", [0, 2, 9])
def test_lazy_operand(k):
    same_raise(lazy_operand, np.array([1.0, 2.0, 0.0]), k)


def test_message_arguments():
    e = same_raise(guarded_in_loop, np.array([1.0, 0.0, 0.0, 5.0]))
    assert e.args == (7,)
    e = same_raise(on_arguments, np.arange(4.0), 2)
    assert e.args == ()


def computed_message(a):
    assert a[0] > 0, "bad " + str(a[0])
    return a[0]


def test_message_must_be_constant():
    p = ph.pipeline(computed_message)
    with pytest.raises(ph.CompileError) as info:
        p(np.arange(3.0))
    msg = str(info.value)
    assert msg.startswith(where(computed_message, '"bad "') + ":"), msg
    assert "message of an assert" in msg and "hint:" in msg


@ph.pipeline
def split_and(a):
    assert len(a) > 0 and a[-1] > 0, "last"      # len(a) > 0: checked at call time, first
    assert a.shape[0] < 10
    return a[0]


@ph.pipeline
def lazy_in_loop(a, k):
    for i in range(len(a)):
        assert i < k and a[i] > 0, "lazy in loop"
    return k


@ph.pipeline
def lazy_under_data_if(a, k):
    if a[0] > 0:
        assert k < len(a) and a[k] > 0, "lazy under data if"
    return k


@pytest.mark.parametrize("a", [np.zeros(0), np.ones(3), np.ones(12), -np.ones(2)])
def test_split_conjunction(a):
    same_raise(split_and, a)


@pytest.mark.parametrize("a,k", [(np.ones(3), 2), (np.ones(3), 5), (np.ones(3), 1),
                                 (-np.ones(3), 7)])
def test_lazy_conjunctions(a, k):
    same_raise(lazy_in_loop, a, k)
    same_raise(lazy_under_data_if, a, k)
