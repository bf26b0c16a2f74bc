"""A loop's checked start value under an `if` whose condition reads a Func
defined before the loop nest (session 25, second wave): the start value is
computed only where the `if` holds (defs.Definitions._start_under_ifs,
start_conditions.reads_allowed) and stored (check_order.LoopSinks). On
04cb4ca the start was computed everywhere: a false IndexError where Python
runs fine. Every outcome (the exception type, the value, and the arrays as
written before the exception) equals plain Python."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.test_lost_errors24 import _outcome


def start_under_sum_if(x, k, flag):
    n = len(x)
    y = np.zeros(n)
    s = 0.0
    for j in range(n):
        s += x[j]
    for j in range(n):
        c = 0.0
        if s * x[j] > flag:
            c = x[j + 1]                    # x[n] at j = n - 1
            for jj in range(2):
                c += x[jj + j]
        for t in range(k):
            y[j] = c + t
    return y


def inner_error_under_sum_if(x, k, flag):
    # the start x[k + j] is in range for k = 0; the inner loop reads x[n]
    # at j = n - 1, and c is read only in a loop that does not run (k = 0)
    n = len(x)
    y = np.zeros(n)
    s = 0.0
    for j in range(n):
        s += x[j]
    for j in range(n):
        c = 0.0
        if x[j] * s > flag:
            c = x[k + j]
            for jj in range(j, j + 2):
                c += x[jj]
        for t in range(k):
            y[j] = c + t
    return y


def start_under_array_if(x, k, flag):
    n = len(x)
    y = np.zeros(n)
    w = np.zeros(n)
    for j in range(n):
        w[j] = x[j] * 2.0
    for j in range(n):
        c = 0.0
        if w[j] > flag:
            c = x[j + 1]
            for jj in range(2):
                c += x[jj + j]
        for t in range(k):
            y[j] = c + t
    return y


@pytest.mark.parametrize("fn", [start_under_sum_if, inner_error_under_sum_if,
                                start_under_array_if])
def test_start_under_if_reading_a_func_before_the_nest(fn):
    compiled = ph.pipeline(fn)
    for n in (1, 3):
        for k in (0, 2):
            for flag in (0.25, 2.0, -1.0):
                args = (np.linspace(0.0, 1.0, n), k, flag)
                assert _outcome(compiled, args) == _outcome(fn, args), (n, k, flag)
