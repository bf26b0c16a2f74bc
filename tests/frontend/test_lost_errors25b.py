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


# The start value of an inner loop reading the running value of an enclosing
# loop (`s += x[j]; c = s; for jj ...`) read s's final value on 04cb4ca (wrong
# results): a start value's reads of a running value now make it a scan
# (defs.Definitions.mark_start_reads).

def start_reads_running_sum(x):
    n = len(x)
    y = np.zeros(n)
    s = 0.0
    for j in range(n):
        s += x[j]
        c = s
        for jj in range(2):
            c += x[jj]
        y[j] = c                            # [0.5, 1, 2], not [2, 2.5, 3]
    return y


def start_reads_sum_under_if(x):
    n = len(x)
    y = np.zeros(n)
    s = 0.0
    for j in range(n):
        s += x[j]
        c = 0.0
        if j > 0:
            c = s
            for jj in range(2):
                c += x[jj]
        y[j] = c
    return y


def start_reads_row_sum(a):
    n, m = a.shape
    y = np.zeros((n, m))
    for i in range(n):
        s = 0.0
        for j in range(m):
            s += a[i, j]
            c = s
            for jj in range(2):
                c += a[i, jj]
            y[i, j] = c
    return y


def start_reads_nest_sum(a):
    n, m = a.shape
    y = np.zeros((n, m))
    s = 0.0
    for i in range(n):
        for j in range(m):
            s += a[i, j]
            c = s
            for jj in range(2):
                c += a[i, jj]
            y[i, j] = c
    return y


def start_reads_sum_before_update(x):
    n = len(x)
    y = np.zeros(n)
    s = 1.0
    for j in range(n):
        c = 2.0 * s
        for jj in range(2):
            c += x[jj] * c
        y[j] = c
        s += x[j]
    return y


@pytest.mark.parametrize("fn, arg", [
    (start_reads_running_sum, np.linspace(0.0, 1.0, 3)),
    (start_reads_sum_under_if, np.linspace(0.0, 1.0, 4)),
    (start_reads_row_sum, np.arange(12.0).reshape(3, 4) / 10),
    (start_reads_nest_sum, np.arange(12.0).reshape(3, 4) / 10),
    (start_reads_sum_before_update, np.linspace(0.0, 1.0, 4))])
def test_start_value_reads_running_value(fn, arg):
    np.testing.assert_allclose(ph.pipeline(fn)(arg.copy()), fn(arg.copy()), rtol=1e-12)


# A checked start value under an `if` reading the running value of the
# enclosing loop (`s += x[j]; if s > flag: c = x[j + 1]; for jj ...`): the
# running value becomes a scan and the start is computed where the `if`
# holds (04cb4ca: a false IndexError where Python runs fine).

def start_under_running_if(x, k, flag):
    n = len(x)
    y = np.zeros(n)
    s = 0.0
    for j in range(n):
        s += x[j]
        c = 0.0
        if s > flag:
            c = x[j + 1]
            for jj in range(2):
                c += x[jj + j]
        for t in range(k):
            y[j] = c + t
    return y


def inner_error_under_running_if(x, k, flag):
    n = len(x)
    y = np.zeros(n)
    m = 0
    for j in range(n):
        m += 1
        c = 0.0
        if m > flag:
            c = x[k + j]
            for jj in range(j, j + 2):      # x[n] at j = n - 1
                c += x[jj]
        for t in range(k):
            y[j] = c + t
    return y


def unread_value_under_running_if(x, k, flag):
    # found by a start-value fuzz (seed 118): c is read only in a loop that
    # does not run (k = 0); the inner loop reads x[1] for n = 1 under a
    # condition reading s (not stored on 04cb4ca: a lost IndexError)
    n = len(x)
    y = np.zeros(n)
    s = 0.0
    for j in range(n):
        c = 0.0
        if s * x[j] > flag:
            c = s
            for jj in range(2):
                c += x[jj] * c
        for t in range(k):
            y[j] = c + t
        s += x[j]
    return y


@pytest.mark.parametrize("fn", [start_under_sum_if, inner_error_under_sum_if,
                                start_under_array_if, start_under_running_if,
                                inner_error_under_running_if, unread_value_under_running_if])
def test_start_under_if_reading_a_func(fn):
    compiled = ph.pipeline(fn)
    for n in (1, 3):
        for k in (0, 2):
            for flag in (0.25, 2.0, -1.0):
                args = (np.linspace(0.0, 1.0, n), k, flag)
                assert _outcome(compiled, args) == _outcome(fn, args), (n, k, flag)
