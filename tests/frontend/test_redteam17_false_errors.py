"""False errors found by the session 17 red team (fixed in session 18), each
against plain Python."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check


@ph.pipeline
def loop_var_of_second_loop(n, m):
    for i in range(n):
        pass
    for i in range(m):
        pass
    return i


@ph.pipeline
def assigned_in_second_loop(n, m):
    for k in range(n):
        x = k * 2.0
    for k in range(m):
        x = 1.0
    return x


@ph.pipeline
def swapped_steps(u0, t):
    u = u0.copy()
    v = u0.copy()
    for _ in range(t):
        v[1:-1] = u[2:] + u[:-2]
        u, v = v, u
    return u


@ph.pipeline
def row_sums_of_product(x, b):
    return (x @ b.T).sum(axis=1)


@ph.pipeline
def scaled_and_sum(x):
    a = x * 2.0
    return a, a.sum()


def test_loop_var_bound_by_a_later_loop_runs():
    check(loop_var_of_second_loop, 2, 0)
    check(loop_var_of_second_loop, 0, 0)


def test_loop_var_bound_by_a_later_loop():      # (fixed by unbound_reads.carry_flags, h5)
    check(loop_var_of_second_loop, 0, 2)          # Python: 1


def test_variable_bound_by_a_later_loop():
    check(assigned_in_second_loop, 0, 2)          # Python: 1.0


def test_swapped_steps_runs():
    for n in (3, 5):
        check(swapped_steps, np.arange(n) * 1.5, 2)
    check(swapped_steps, np.arange(1) * 1.5, 0)


@pytest.mark.parametrize("n", [1, 2])      # (fixed: carried_body.write, h5)
def test_swapped_steps_empty_region(n):
    check(swapped_steps, np.arange(n) * 1.5, 1)   # Python: u0 unchanged


def test_row_sums_of_empty_product():      # (fixed by the empty-input regions, h1)
    check(row_sums_of_product, np.ones((3, 8)), np.ones((0, 8)))   # Python: zeros(3)


def test_empty_array_returned_with_its_sum():      # (fixed by h1)
    check(scaled_and_sum, np.zeros(0))            # Python: (array([]), 0.0)
