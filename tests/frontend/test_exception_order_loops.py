"""Exceptions in program order inside one loop nest: the statements of a
loop body are computed one after another over all iterations (and call-time
checks run before the kernel), so the compiled call first meets a failure
Python meets later. The call raises Python's first exception, with the
argument writes Python makes before it (check_order.order_unknown). Each call
is compared with the plain function: exception type, result, arguments."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.test_exception_order import same_outcome


# an index error at the last iteration (a call-time check) after a division
# by zero at iteration 1 in the statement below it
@ph.pipeline
def index_then_division(a, b):
    out = np.zeros(len(a), np.int64)
    for i in range(len(a)):
        out[i] = a[i + 1]
        out[i] += 10 // int(b[i])
    return out


@ph.pipeline
def division_then_index(a, b):
    out = np.zeros(len(a), np.int64)
    for i in range(len(a)):
        out[i] = 10 // int(b[i])
        out[i] += a[i + 1]
    return out


@ph.pipeline
def running_sum_index_then_division(a, b):
    s = 0
    for i in range(len(a)):
        s += a[i + 1]
        s += 10 // int(b[i])
    return s


# two run-time index checks of different statements in a nest
@ph.pipeline
def nested_reads(a, b, c):
    out = np.zeros((len(a), len(a)), np.int64)
    for i in range(len(a)):
        for j in range(len(a)):
            out[i, j] = a[b[j]]
            out[i, j] += 100 // int(c[i])
    return out


# argument writes of the iterations before the failing one stay made
@ph.pipeline
def writes_then_failure(a, b):
    for i in range(len(a)):
        a[i] = 5 + i
        a[i] += 10 // int(b[i])
    return a


@ph.pipeline
def writes_then_late_index(a, b, c):
    for i in range(len(a)):
        c[i] = 7
        c[i] += a[b[i]]
    return c


@pytest.mark.parametrize("b", [[1, 0, 1, 1], [1, 1, 1, 0], [1, 1, 1, 1], [0, 1, 1, 1]])
def test_first_failure_of_a_loop_body_as_python(b):
    a, b = np.arange(4), np.array(b)
    for f in (index_then_division, division_then_index, running_sum_index_then_division,
              writes_then_failure):
        same_outcome(f, a, b)
    same_outcome(nested_reads, a, np.array([0, 1, 2, 3]), b)
    same_outcome(nested_reads, a, np.array([0, 1, 2, 9]), b)
    same_outcome(index_then_division, np.arange(4), b)


@pytest.mark.parametrize("b", [[1, 0, 9, 1], [1, 0, 2, 3], [3, 2, 1, 0]])
def test_argument_writes_before_a_late_failure(b):
    same_outcome(writes_then_late_index, np.arange(4), np.array(b), np.zeros(4, np.int64))
