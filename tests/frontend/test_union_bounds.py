"""Affine bounds of a value chosen between two branches are proven, never
guessed: a branch bound that nothing proves the looser is compared over the
enclosing loops' ranges, and min/max of integers of two types are bounded by
both operands whichever is chosen. Each compiled result is compared with the
plain function."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check
from tests.frontend.test_frontend_loop_bounds import clipped_window


@ph.pipeline
def branch_stop_writes(x, c):
    n = len(x)
    out = np.zeros(n + 2)
    for j in range(n):
        hi = j + 1 if c > 0 else n + 1
        for jj in range(0, hi):
            out[jj] += x[j]
    return out


@ph.pipeline
def branch_stop_reads(x, c):
    n = len(x)
    s = np.float64(0.0)
    for j in range(n):
        hi = j + 1 if c > 0 else n + 1
        for jj in range(0, hi):
            s += x[jj]
    return s


@pytest.mark.parametrize("c", [1, 0])
def test_a_stop_chosen_by_a_branch_keeps_both_bounds(c):
    # `hi` was bounded by j + 1 (the bound with the larger constant) also
    # where it is n + 1: the write out[n] was dropped, and the read x[n]
    # returned a sum instead of raising IndexError
    for n in (1, 4, 7):
        x = np.arange(1.0, n + 1)
        check(branch_stop_writes, x, c)
        check(branch_stop_reads, x, c)


@pytest.mark.parametrize("k", [-128, -100, -5, 100, 126, 127])
def test_clipped_window_with_int8_bounds_that_wrap(k):
    # j - k and j + k + 1 wrap in int8 as in NumPy; min/max then choose
    # between a Python int and the wrapped int8 value
    x = np.arange(9, dtype=np.float64) ** 2
    check(clipped_window, x, np.int8(k))


@pytest.mark.parametrize("k", [-30000, -5, 3, 32766, 32767])
def test_clipped_window_with_int16_bounds(k):
    x = np.arange(5, dtype=np.float64) + 0.5
    check(clipped_window, x, np.int16(k))
