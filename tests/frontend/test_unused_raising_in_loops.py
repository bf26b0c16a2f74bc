# ruff: noqa: F841  (unused names: their computation is what is tested)
"""Values computed inside loops and never used still raise where Python
computes them: a scalar assigned to a name read nowhere (`t = s // 0` in a
loop body; check_order.LoopSinks), and the elements of a local array written
in a loop that nothing reads afterwards (check_order.unrealized_checked).
Only the iterations Python runs count (a loop that runs zero times, a
`break`, an `if`). Each call is compared with the plain function."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.test_exception_order import same_outcome


@ph.pipeline
def python_int_division(a, s):
    acc = 0
    for i in range(len(a)):
        t = s // 0
        acc += 1
    return acc


@ph.pipeline
def element_division(a, b):
    for i in range(len(a)):
        t = 10 // int(b[i])
    return a


@ph.pipeline
def nested_read(a, b):
    for i in range(len(a)):
        for j in range(i):
            t = a[b[j]]
    return 0


@ph.pipeline
def guarded_division(a, b, c):
    for i in range(len(a)):
        if c[i] > 0:
            t = 10 // int(b[i])
    return 1


@ph.pipeline
def division_before_break(a, b):
    for i in range(len(a)):
        if i == 2:
            break
        t: int = 10 // int(b[i])
    return 2


@ph.pipeline
def unused_local_array(a, b):
    out = np.zeros(len(a), np.int64)
    for i in range(len(a)):
        out[i] = 10 // int(b[i])
    return a


@ph.pipeline
def overwritten_local_array(a, b):
    out = np.zeros(len(a), np.int64)
    for i in range(len(a)):
        out[i] = a[b[i]]
    out = np.ones(3)
    return out


@ph.pipeline
def unused_zero_d_array(a, b):
    sink = np.zeros((), np.int64)
    for i in range(len(a)):
        sink[()] = 10 // int(b[i])
    return a


FUNCS = [element_division, nested_read, division_before_break, unused_local_array,
         overwritten_local_array, unused_zero_d_array]


@pytest.mark.parametrize("b", [[1, 2, 3, 0], [1, 0, 3, 1], [1, 2, 3, 1], [9, 1, 1, 1],
                               [1, 1, 1, 9]])
def test_unused_values_in_loops_raise_as_python(b):
    a, b = np.arange(4), np.array(b)
    for f in FUNCS:
        same_outcome(f, a, b)
    for c in ([1, 1, 1, 1], [1, 0, 1, 0], [0, 0, 0, 0]):
        same_outcome(guarded_division, a, b, np.array(c))


def test_python_int_division_in_a_loop():
    same_outcome(python_int_division, np.arange(3), 5)
    same_outcome(python_int_division, np.arange(0), 5)


def test_loops_that_run_zero_times_raise_nothing():
    a, b = np.arange(0), np.zeros(0, np.int64)
    for f in FUNCS:
        same_outcome(f, a, b)
