"""A loop's checked start value under an `if` whose condition reads an
inner loop's result computed earlier in the same iteration (`for jj ...: d
+= ...; if d > flag: c = x[j + 1]; for jj ...`), session 26. On cdd1587 the
start was computed wherever c's Func is (a false IndexError where Python
runs fine) and, its value read only in a loop that does not run, not
stored (a lost IndexError of the inner loop). The condition may now read
the nest's own Funcs at the running iteration when their start values
cannot raise where Python does not compute them
(start_conditions.reads_allowed, state.unconditional_starts). Every outcome
(the exception type, the value, the arrays as written before the
exception) equals plain Python."""
import itertools

import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.test_lost_errors24 import _outcome


def start_under_inner_sum(x, k, flag):
    n = len(x)
    y = np.zeros(n)
    for j in range(n):
        d = 0.0
        for jj in range(2):
            d += x[jj] * x[j]               # x[1] with n = 1
        c = 0.0
        if d > flag:
            c = x[j + 1]                    # x[n] at j = n - 1
            for jj in range(2):
                c += x[jj + j]
        for t in range(k):
            y[j] = c + t
    return y


def inner_error_under_inner_sum(x, k, flag):
    # the start x[k + j] is in range for k = 0; the inner loop reads x[n]
    # at j = n - 1, and c is read only in a loop that does not run (k = 0):
    # the IndexError was lost on cdd1587
    n = len(x)
    y = np.zeros(n)
    for j in range(n):
        d = 0.0
        for jj in range(2):
            d += x[jj] * x[j]
        c = 0.0
        if x[j] * d > flag:
            c = x[k + j]
            for jj in range(j, j + 2):
                c += x[jj]
        for t in range(k):
            y[j] = c + t
    return y


def checked_start_of_the_condition(x, k, flag):
    # d's own start reads with a check (x[j // 2]), computed by Python in
    # every iteration: the IndexError at x[n] was lost on cdd1587
    n = len(x)
    y = np.zeros(n)
    for j in range(n):
        d = x[j // 2]
        for jj in range(2):
            d = max(d, x[jj])
        c = 0.0
        if d > flag:
            c = 2.0 * d + x[j]
            for jj in range(2):
                c += x[jj + j]
        for t in range(k):
            y[j] = c + t
    return y


def prefix_sum_condition(x, k, flag):
    n = len(x)
    y = np.zeros(n)
    for j in range(n):
        d = 0.0
        for jj in range(j + 1):
            d += x[jj]
        c = 0.0
        if d > flag:
            c = x[j + 1]
            for jj in range(2):
                c += x[jj] * c
        y[j] = c
    return y


@pytest.mark.parametrize("fn", [start_under_inner_sum, inner_error_under_inner_sum,
                                checked_start_of_the_condition, prefix_sum_condition])
def test_start_under_a_condition_of_the_same_iteration(fn):
    compiled = ph.pipeline(fn)
    for n, k, flag in itertools.product((1, 3, 4), (0, 2), (0.25, 2.0, -1.0, 100.0)):
        args = (np.linspace(0.0, 1.0, n), k, flag)
        assert _outcome(compiled, args) == _outcome(fn, args), (n, k, flag)


# Ranges of 2**31 iterations or more reached only under a condition known at
# run time: on cdd1587 no check was made there and the int32 extent wrapped
# (no iteration: s returned where Python raises ZeroDivisionError at its 4th
# iteration). The fit is now a call-time flag checked where Python reaches
# the loop (loop_trips.check_trips); an unreached loop raises nothing.

def big_range_under_data_if(x, lo, hi):
    s = 0.0
    if x.sum() > 0.0:
        for k in range(lo, hi):
            s += 1.0 / (k - lo - 3)
    return s


def big_descending_range_under_element_if(x, lo, hi):
    y = np.zeros(2)
    for i in range(len(x)):
        if x[i] > 0.0:
            for k in range(hi, lo, -3):
                y[1] += 1.0 / (hi - k - 9)
    return y


def _plain(fn, args):
    try:
        return "ok", np.asarray(fn(*args)).tolist()
    except ZeroDivisionError:
        return "ZeroDivisionError", None


@pytest.mark.parametrize("fn", [big_range_under_data_if, big_descending_range_under_element_if])
def test_big_range_under_a_run_time_condition(fn):
    compiled = ph.pipeline(fn)
    for n, sign in itertools.product((2, 5), (1.0, -1.0)):
        for lo, hi in ((-2**31, 2**31 - 1), (-2**31 + 5, 2**31 - 7), (2, 9),
                       (2**31 - 1, -2**31), (-2**31, -2**31 + 20)):
            args = (np.full(n, sign), lo, hi)
            assert _plain(compiled, args) == _plain(fn, args), (n, sign, lo, hi)


# An assignment under an `if` in a loop, assigned again later in the same
# iteration before any read: its value is read nowhere, so on cdd1587 its
# check was dropped (x = linspace(0, 1, 3): [0, 1, 2] where Python raises
# IndexError at x[3]). check_order._unread_in now looks for the later
# assignment also after the `if` (_killed), and LoopSinks stores the value
# where the `if` holds.

def overwritten_under_if(x, lim):
    n = len(x)
    y = np.zeros(n)
    for j in range(n):
        d = 0.0
        if x[j] > lim:
            d = x[j + 1]                    # x[n] at j = n - 1
        d = x[j] * 2.0
        y[j] = d
    return y


def test_overwritten_under_if():
    compiled = ph.pipeline(overwritten_under_if)
    for x in (np.linspace(0.0, 1.0, 3), np.linspace(1.0, 0.0, 4), np.zeros(0), np.ones(1)):
        for lim in (0.4, 2.0, -1.0):
            args = (x, lim)
            assert _outcome(compiled, args) == _outcome(overwritten_under_if, args), (x, lim)
