"""Lost errors of a scalar operand of array code under an `if` whose own
test may raise (session 30, h1b; docs/false_errors30.md): `if x[0] * 2.0 >
2.5 and x[0] < 100.0: s += (a * b[k:k + 1][0]).sum()` with a empty and k
out of range returned 0.0 where Python raises IndexError (the operand's
check sat in the elements of the sum only, and check_order.risky_operands
stored no operand under such a test). Compared with plain Python, on
inputs where the test raises first, where it is false, and where the
operand raises."""
import numpy as np
import pytest

from pyhalide import pipeline
from tests.frontend.test_false_errors23 import _same

_XS = (np.full(4, 10.0), np.zeros(4), np.ones(0), np.array([10.0]),
       np.array([0.0, 10.0, 1.0, 1.0]))


def view_element(x, a, b, k):
    s = 0.0
    if x[0] * 2.0 > 2.5 and x[0] < 100.0:
        t = b[k:k + 1]
        s += (a * t[0]).sum()
    return s


def test_view_element_under_a_raising_test():
    p = pipeline(view_element)
    for x in _XS:
        for a in (np.ones(0), np.ones(3)):
            for b, k in ((np.ones(0), 5), (np.ones(2), 5), (np.ones(2), -1),
                         (np.ones(2), 1), (np.ones(2), -3)):
                _same(p, view_element, x, a, b, k)


def nested_where(x, a, B, k):
    s = 0.0
    if x[-1] > 0.5:
        if 1.0 / float(x[0]) > 0.01 and x[1] < 100.0:
            t = B[k:k + 1]
            s += np.where(a > 0.5, t[0, -1], a).sum()
    return s


@pytest.mark.slow   # (3-5 s each; the default run keeps the view and complex forms)
def test_nested_raising_tests():
    # the inner test raises first (ZeroDivisionError, x of 1: IndexError)
    # where the operand raises too
    p = pipeline(nested_where)
    for x in _XS:
        for a in (np.ones(0), np.ones(3)):
            for B, k in ((np.ones((0, 2)), 0), (np.ones((2, 2)), 5),
                         (np.ones((2, 0)), 1), (np.ones((2, 2)), -2)):
                _same(p, nested_where, x, a, B, k)


def elif_operands(x, a, b, k):
    s = 0.0
    if x[0] * 2.0 > 2.5 and x[0] < 100.0:
        s = 1.0
    elif x[-1] < 5.0 or x[1] > 1.0:
        s += (a * b[k]).sum()
    else:
        s -= np.maximum(a, b[k - 1]).sum()
    return s


def returned_array(x, a, b, k):
    y = a
    if x[0] * 2.0 > 2.5 and x[0] < 100.0:
        y = a * b[k] + 1.0
    return y


@pytest.mark.slow   # (3-5 s each; the default run keeps the view and complex forms)
def test_elif_and_returned_array():
    # the elif's test reads x[-1] and x[1] where the if's does not hold
    for f in (elif_operands, returned_array):
        p = pipeline(f)
        for x in _XS:
            for a in (np.ones(0), np.ones(3)):
                for b, k in ((np.ones(0), 5), (np.ones(2), 5), (np.ones(2), -3),
                             (np.ones(2), 1)):
                    _same(p, f, x, a, b, k)


def union_operand_in_loop(x, a, b, k):
    s = 0.0
    for i in range(len(x)):
        d = 0.0
        if x[i] > 5.0 and x[-1] < 100.0:
            d = b[k]
        s += (a * d).sum()
    return s


def union_operand(x, a, b, k):
    s = 0.0
    if x[0] > 5.0 and x[-1] < 100.0:
        d = b[k] if x[1] > 1.0 else 0.0
        s += (a * d).sum()
    return s


@pytest.mark.slow   # (3-5 s each; the default run keeps the view and complex forms)
def test_operand_of_several_types():
    # d is a float or a float64 as the if goes: b[k]'s check was in the
    # lazy alternative inside the sum's elements only
    for f in (union_operand_in_loop, union_operand):
        p = pipeline(f)
        for x in _XS:
            for a in (np.ones(0), np.ones(3)):
                for b, k in ((np.ones(0), 5), (np.ones(2), -3), (np.ones(2), 1)):
                    _same(p, f, x, a, b, k)


def unused_union(x, b, k):
    s = 0.0
    for i in range(len(x)):
        d = 0.0
        if x[i] > 5.0 and x[-1] < 100.0:
            d = b[k]
        e = d * 2.0  # noqa: F841 - unused: its value is still computed
        s += 1.0
    return s


def test_unused_value_of_several_types():
    # an alternative whose condition may raise was not stored
    p = pipeline(unused_union)
    for x in _XS:
        for b, k in ((np.ones(0), 5), (np.ones(2), -3), (np.ones(2), 1)):
            _same(p, unused_union, x, b, k)


def complex_operand(x, a, b, k):
    s = 0.0
    if x[0] > 5.0:
        s += (a * (b[k] + 1j)).sum().real
    return s


def test_complex_operand():
    # a complex operand's parts are stored (were left out: a lost
    # IndexError with a empty, under any `if` of data)
    p = pipeline(complex_operand)
    for x in _XS:
        for a in (np.ones(0), np.ones(3)):
            for b, k in ((np.ones(0), 5), (np.ones(2), -3), (np.ones(2), 1)):
                _same(p, complex_operand, x, a, b, k)
