"""Scalar operands of array code computed where Python computes them
(session 28, h4: frontend_ast/array_scalar_sinks.py): a checked read such
as `b[k]` multiplied into an empty array raises Python's IndexError (it
returned 0.0 or [] before). Compared with plain Python, including the
inputs where Python raises."""
import numpy as np

from pyhalide import pipeline
from tests.frontend.test_false_errors23 import _same


def under_if(x, a, b, k):
    s = 0.0
    if x[0] > 5.0:
        s = (a * b[k]).sum()
    return s


def data_index(x, a, b):
    return a * b[int(x[0])]


def full_under_if(x, a, b, k):
    s = 0.0
    if x[0] > 5.0:
        s = np.full(a.shape, b[k]).sum()
    return s


def in_loop(x, a, b, k):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 5.0:
            s += (a * b[k + i]).sum()
    return s


def before_broadcast(x, a, c, b, k):
    s = 0.0
    if x[0] > 5.0:
        s = (c + a * b[k]).sum()
    return s


_UNDER_IF = pipeline(under_if)
_DATA_INDEX = pipeline(data_index)
_FULL = pipeline(full_under_if)
_LOOP = pipeline(in_loop)
_BEFORE = pipeline(before_broadcast)

_TAKEN, _NOT, _E, _B = np.full(3, 9.0), np.zeros(3), np.ones(0), np.ones(2)


def test_checked_read_times_an_empty_array_under_if():
    for x in (_TAKEN, _NOT):
        for a in (_E, np.ones(3)):
            for k in (0, 5, -3):
                _same(_UNDER_IF, under_if, x, a, _B, k)


def test_checked_read_at_a_data_index_times_an_empty_array():
    for x in (np.array([9.0]), np.array([1.0])):
        for a in (_E, np.ones(2)):
            _same(_DATA_INDEX, data_index, x, a, _B)


def test_checked_read_in_np_full_of_no_elements():
    for x in (_TAKEN, _NOT):
        for k in (1, 5):
            _same(_FULL, full_under_if, x, _E, _B, k)


def test_checked_read_in_a_loop():
    for x in (_TAKEN, _NOT, np.array([0.0, 6.0, 0.0])):
        for a in (_E, np.ones(2)):
            for k in (0, 1, 5):
                _same(_LOOP, in_loop, x, a, _B, k)


def test_checked_read_before_the_broadcast_error():
    # Python reads b[k] before `c + ...` fails to broadcast: IndexError
    _same(_BEFORE, before_broadcast, _TAKEN, _E, np.ones(3), _B, 5)
    _same(_BEFORE, before_broadcast, _TAKEN, _E, np.ones(3), _B, 0)
    _same(_BEFORE, before_broadcast, _TAKEN, _E, np.ones(1), _B, 5)


def lazy_operand(x, a, b, k):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 5.0:
            s += (a * (b[k + i] if x[1] < 0 else 1.0)).sum()
    return s


_LAZY = pipeline(lazy_operand)


def test_checked_read_in_a_lazy_operand():
    # b[k + i] is read only where x[1] < 0
    for x in (np.array([9.0, -1.0, 1.0]), np.array([9.0, 1.0, 1.0]), np.array([0.0, -1.0, 6.0])):
        for a in (_E, np.ones(2)):
            for k in (0, 5):
                _same(_LAZY, lazy_operand, x, a, _B, k)


def in_while_test(x, a, b, k):
    s = 0.0
    i = 0
    while i < len(x) and (a * b[k]).sum() >= 0:
        s += 1.0
        i += 1
    return s


_WHILE = pipeline(in_while_test)


def test_checked_read_in_a_while_test():
    # the while's test runs in a loop carrying i and s: the hidden store of
    # b[k]'s checks reads i at each iteration (typing runs log it too)
    for x in (np.ones(3), np.ones(0)):
        for a in (_E, np.ones(2)):
            for k in (1, 5):
                _same(_WHILE, in_while_test, x, a, _B, k)


def under_carried_if(x, a, b, k):
    s = 0.0
    i = 0.0
    for j in range(len(x)):
        if x[j] > i:
            s += (a * b[k]).sum()
        i += 1.0
    return s + i


_CARRIED_IF = pipeline(under_carried_if)


def test_checked_read_under_an_if_of_a_carried_scalar():
    # (a non-empty a with k = 5 where the if never holds raises a false
    # IndexError, also on main: the loop-invariant sum is computed outside
    # the loop; docs/false_errors28.md)
    for x in (np.ones(3), np.zeros(3), np.array([0.0, 0.0, 5.0])):
        for a in (_E,):
            for k in (1, 5):
                _same(_CARRIED_IF, under_carried_if, x, a, _B, k)


def while_final_test(x, a, b, k):
    s = 0.0
    i = 0
    while (a * b[k + i]).sum() >= 0 and i < len(x):
        s += 1.0
        i += 1
    return s


_WHILE_FINAL = pipeline(while_final_test)


def test_checked_read_in_the_failing_test_of_a_while():
    # Python evaluates the test once more where it fails (b[k + len(x)]),
    # also where the loop runs no trip
    for x in (np.ones(3), np.ones(0)):
        for b in (np.ones(4), np.ones(5)):
            for k in (0, 1, 5):
                _same(_WHILE_FINAL, while_final_test, x, _E, b, k)


def break_on_read(x, a, b, k):
    s = 0.0
    for j in range(len(x)):
        if (a * b[k + j]).sum() >= 0.0:
            break
        s += 1.0
    return s


_BREAK = pipeline(break_on_read)


def test_checked_read_in_the_test_of_a_break():
    # the store of b[k + j]'s checks is made before the branch leaves the loop
    for x in (np.ones(3), np.ones(0)):
        for a in (_E, -np.ones(2)):
            for k in (0, 1, 5):
                _same(_BREAK, break_on_read, x, a, _B, k)


def while_scalar_final_test(x, b, k):
    s = 0.0
    i = 0
    while b[k + i] >= 0 and i < len(x):
        s += 1.0
        i += 1
    return s


_WHILE_SCALAR = pipeline(while_scalar_final_test)


def test_checked_scalar_read_in_the_failing_test_of_a_while():
    # (also lost on main: the trip range ended before the failing test)
    for x in (np.ones(3), np.ones(0)):
        for b in (np.ones(3), np.ones(4), np.array([1.0, -1.0, 1.0, 1.0])):
            for k in (0, 1, 5):
                _same(_WHILE_SCALAR, while_scalar_final_test, x, b, k)
