"""A running scalar that an array write in the same loop reads, when the loop
runs zero times: the value after the loop is the initial one. On main before
session 10 (loop-fuzz seed 172) the final read was at index -1 of the scan
Func and raised an internal IndexError ("read at index -1 ... outside its
computed region [0, -1]") where Python returns."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check


def for_loop_accumulator_read_by_a_write(a, n):
    u = -1.25
    out = np.zeros(len(a))
    for i in range(n):
        u *= 2.0
        out[0] += u
    return u, out


def for_loop_accumulator_written_at_the_index(a, n):
    u = -1.25
    out = np.zeros(3)
    for i in range(n):
        u *= 2.0
        out[i % 3] = u
    return u, out


def while_loop_accumulator_with_a_data_test(a, n):
    u = -1.25
    out = np.zeros(len(a))
    i = 0
    while i < n and a[0] % 5 >= 1:
        i += 1
        u *= float(i) - a[0]
        out[len(a) - 1 - i % len(a)] += u
    return u, out


@pytest.mark.parametrize("fn", [for_loop_accumulator_read_by_a_write,
                                for_loop_accumulator_written_at_the_index,
                                while_loop_accumulator_with_a_data_test])
@pytest.mark.parametrize("n", [0, 1, 3])
def test_running_value_after_a_loop_that_may_not_run(fn, n):
    check(ph.pipeline(fn), np.array([7.0, 2.0]), n)
