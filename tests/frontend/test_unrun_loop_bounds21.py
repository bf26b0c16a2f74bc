"""A loop bound that does not fit int32, in a loop nested in one that runs
no iteration, is never computed by Python: the call returns (`for i in
range(m): for j in range(-i, -n, -1)` with m = 0 and n >= 2**31 raised
OverflowError). Where the outer loop runs, the bound is checked as before.
Compared with plain Python (values, exception types, argument writes)."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.test_exception_order import same_outcome


@ph.pipeline
def counting_down(a, m, n):
    for i in range(m):
        for j in range(-i, -n, -1):
            a[0] += 1.0
    return a


@ph.pipeline
def carried_sum(a, m, n):
    s = a[0]
    for i in range(m):
        for j in range(-i, -n, -1):
            s += 1.0
    return s


@ph.pipeline
def counting_up(a, m, n):
    for i in range(m):
        for j in range(i, n):
            a[1] += 2.0
    return a


@ph.pipeline
def under_a_test(a, k, n):
    if k > 0:
        for j in range(n):
            a[0] += 1.0
    return a


@ph.pipeline
def two_levels(a, m, n):
    for i in range(m):
        for j in range(2, m):
            for t in range(j, n):
                a[0] += 1.0
    return a


BIG = [2**31, 2**31 + 5, 2**40, -2**31 - 1]


@pytest.mark.parametrize("p", [counting_down, carried_sum, counting_up])
@pytest.mark.parametrize("n", BIG + [3, 0])
def test_bounds_of_loops_in_a_loop_that_does_not_run(p, n):
    same_outcome(p, np.zeros(2), 0, n)
    same_outcome(p, np.zeros(2), -3, n)


@pytest.mark.parametrize("p", [counting_down, carried_sum, counting_up])
@pytest.mark.parametrize("m, n", [(2, 3), (3, 1), (4, 6), (1, -2)])
def test_small_bounds_still_run(p, m, n):
    same_outcome(p, np.zeros(2), m, n)


@pytest.mark.parametrize("k", [0, -1])
@pytest.mark.parametrize("n", BIG)
def test_bound_under_a_false_test(k, n):
    same_outcome(under_a_test, np.zeros(2), k, n)


@pytest.mark.parametrize("m", [0, 1, 2])
@pytest.mark.parametrize("n", BIG)
def test_two_levels(m, n):
    same_outcome(two_levels, np.zeros(2), m, n)


@ph.pipeline
def near_the_limit(a, m, n, s):
    for i in range(m):
        for j in range(i + s, n):
            a[1] += 2.0
    return a


@pytest.mark.parametrize("m", [0, 1, 2])
def test_a_loop_that_runs_still_raises(m):
    # range(2**31 - 3 + i, 2**31 + 2): Python runs it, the compiled loop
    # refuses (int32 indices) where it runs, and returns where it does not
    args = (np.zeros(2), m, 2**31 + 2, 2**31 - 3)
    if m == 0:
        same_outcome(near_the_limit, *args)
    else:
        with pytest.raises(OverflowError, match="does not fit in 32 bits"):
            near_the_limit(*args)
