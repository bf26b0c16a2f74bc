"""False errors (session 18): Python returns a value where the compiled
function raised, each compared with plain Python; an unguarded read of an
empty array still raises as Python does."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check


# a member left unassigned by one loop, assigned by a later one -------------------------------
@ph.pipeline
def read_before_second_assigns(n, m):
    for k in range(n):
        x = k * 2.0
    s = 0.0
    for k in range(m):
        s += x
        x = 1.0
    return s


@ph.pipeline
def assigned_under_if_later(n, m, a):
    for k in range(n):
        x = a[k]
    for k in range(m):
        if a[k] > 0.5:
            x = a[k] * 3.0
    return x


@ph.pipeline
def three_loops(n, m, p):
    for i in range(n):
        pass
    for i in range(m):
        pass
    for i in range(p):
        pass
    return i


@ph.pipeline
def later_while(n, m):
    for k in range(n):
        x = 1.0
    j = 0
    while j < m:
        x = 2.0 + j
        j += 1
    return x


@ph.pipeline
def loop_var_indexes(a, n, m):
    for i in range(n):
        pass
    for i in range(m):
        pass
    return a[i]


@pytest.mark.parametrize("n, m", [(0, 0), (0, 2), (2, 0), (2, 2)])
def test_member_read_before_a_later_loop_assigns_it(n, m):
    check(read_before_second_assigns, n, m)       # (0, 2): UnboundLocalError as Python


@pytest.mark.parametrize("n, m", [(0, 0), (0, 1), (0, 2), (0, 3), (2, 3)])
def test_member_assigned_under_if_by_a_later_loop(n, m):
    check(assigned_under_if_later, n, m, np.array([0.1, 0.9, 0.7, 0.2]))


@pytest.mark.parametrize("n, m, p", [(0, 0, 4), (0, 3, 0), (0, 0, 0), (2, 0, 0)])
def test_loop_variable_of_three_loops(n, m, p):
    check(three_loops, n, m, p)


@pytest.mark.parametrize("n, m", [(0, 0), (0, 2), (2, 0)])
def test_member_assigned_by_a_later_while(n, m):
    check(later_while, n, m)


@pytest.mark.parametrize("n, m", [(0, 3), (2, 0), (0, 0)])
def test_loop_variable_of_a_later_loop_indexes(n, m):
    check(loop_var_indexes, np.arange(4.0), n, m)


# carried arrays whose written region is empty -------------------------------------------------
@ph.pipeline
def swapped2d(u0, t):
    u = u0.copy()
    v = u0.copy()
    for _ in range(t):
        v[1:-1, 1:-1] = u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] - u[1:-1, :-2]
        u, v = v, u
    return u


@ph.pipeline
def stepped_swaps(u0, t):
    u = u0.copy()
    v = u0.copy()
    for _ in range(t):
        v[1:-1:2] = u[2::2] * 2.0
        u, v = v, u
    return u


@pytest.mark.parametrize("shape", [(1, 1), (1, 4), (4, 1), (2, 5), (0, 3), (4, 4)])
def test_swapped_2d_steps_over_an_empty_region(shape):
    check(swapped2d, np.arange(np.prod(shape), dtype=float).reshape(shape) * 1.5, 2)


@pytest.mark.parametrize("n", [0, 1, 2, 4])
def test_stepped_swaps_over_an_empty_region(n):
    check(stepped_swaps, np.arange(n) * 1.5 + 1, 3)
