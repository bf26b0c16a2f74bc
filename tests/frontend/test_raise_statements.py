"""`raise E` / `raise E(message)` with a builtin exception class raise where
Python raises (call time for conditions known then, run time otherwise, in
loops and in called helpers), with the arguments Python gives; the arrays an
argument holds are as Python leaves them. Other raise forms are located
refusals."""
import copy

import numpy as np
import pytest

import pyhalide as ph


def shape_check(w, d):
    if w.shape[0] != d.shape[0]:
        raise ValueError("weights should have the same shape as data.")
    return (w * d).sum()


def first_negative(a):
    s = 0.0
    for i in range(a.shape[0]):
        if a[i] < 0:
            raise ValueError("negative value")
        s += a[i]
    return s


def doubles_until_negative(a):
    for i in range(a.shape[0]):
        if a[i] < 0:
            raise RuntimeError
        a[i] *= 2
    return a


def scalar_argument(n):
    if n < 0:
        raise TypeError("n must be >= 0")
    return n * 2


def checked(x):
    if x < 0:
        raise ZeroDivisionError(-3)
    return x * 2.0


def through_helper(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = checked(a[i])
    return out


CASES = [
    (shape_check, (np.arange(3.0), np.arange(3.0))),
    (shape_check, (np.arange(3.0), np.arange(4.0))),
    (first_negative, (np.array([1.0, 2.0, -1.0]),)),
    (first_negative, (np.array([1.0, 2.0]),)),
    (doubles_until_negative, (np.array([1.0, 2.0, -1.0, 3.0]),)),
    (doubles_until_negative, (np.array([1.0, 2.0]),)),
    (scalar_argument, (3,)),
    (scalar_argument, (-1,)),
    (through_helper, (np.array([1.0, -2.0]),)),
    (through_helper, (np.array([1.0, 2.0]),)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{c[0].__name__}{k}" for k, c in
                                                  enumerate(CASES)])
def test_raise_equals_python(fn, args):
    expected_args = copy.deepcopy(args)
    got_args = copy.deepcopy(args)
    p = ph.pipeline(fn)
    try:
        expected = fn(*expected_args)
    except Exception as e:
        with pytest.raises(type(e)) as info:
            p(*got_args)
        assert info.value.args == e.args
    else:
        got = p(*got_args)
        np.testing.assert_array_equal(got, expected)
    for g, e in zip(got_args, expected_args):
        if isinstance(e, np.ndarray):
            np.testing.assert_array_equal(g, e)


class OwnError(Exception):
    pass


def raises_own(n):
    if n > 0:
        raise OwnError("x")
    return n


def reraises(n):
    if n > 0:
        raise ValueError("x") from None
    return n


@pytest.mark.parametrize("fn,words", [(raises_own, "not a builtin exception class"),
                                      (reraises, "no `from`")])
def test_other_raise_forms_are_located_refusals(fn, words):
    with pytest.raises(ph.CompileError, match=words):
        ph.pipeline(fn)(1)


def shapes_differ(w, d):
    if w.shape != d.shape:
        raise ValueError("weights should have the same shape as data.")
    return (w * d).sum()


def shape_tests(a, b):
    return a.shape == b.shape, a.shape != b.shape, a.shape == (2, 3), (a.shape[0], 1) == (2, 1)


@pytest.mark.parametrize("args", [(np.zeros((2, 3)), np.zeros((2, 3))),
                                  (np.zeros((2, 3)), np.zeros((3, 2))),
                                  (np.zeros((2, 3)), np.zeros(3))])
def test_tuple_equality_of_shapes(args):
    assert ph.pipeline(shape_tests)(*args) == shape_tests(*args)
    try:
        expected = shapes_differ(*args)
    except ValueError:
        with pytest.raises(ValueError, match="same shape"):
            ph.pipeline(shapes_differ)(*args)
    else:
        assert ph.pipeline(shapes_differ)(*args) == expected
