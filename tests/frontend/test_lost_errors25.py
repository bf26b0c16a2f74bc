"""IndexErrors that compiled loops lost (session 25): plain Python raises at
the read in every iteration that runs it, used or not. Every outcome (the
exception type, the value, and the arrays as written before the exception)
equals plain Python.

- A running value of an inner loop under an `if` of the loop body (`if flag:
  for jj in range(j, j + 2): c += x[jj]`), read only inside a later loop
  that does not run (`for t in range(k): y[j] = c` with k = 0): the inner
  loop's Func was never computed. Its value is now stored at each iteration
  under the `if`'s condition (LoopSinks._store_results; the inner loop's
  Func carries the condition itself, so its checks fire only where Python
  runs the loop)."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.test_lost_errors24 import _outcome


def whole_body_under_if(x, k, flag):
    n = len(x)
    y = np.zeros(n)
    for j in range(n):
        if flag > 0:
            c = 0.0
            for jj in range(j, j + 2):      # x[n] at j = n - 1
                c += x[jj]
            for t in range(k):
                y[j] = c + t
    return y


def loop_under_if(x, k, flag):
    n = len(x)
    y = np.zeros(n)
    for j in range(n):
        c = 0.0
        if flag > 0:
            for jj in range(j, j + 2):
                c += x[jj]
        for t in range(k):
            y[j] = c + t
    return y


def loop_under_data_if(x, k, flag):
    n = len(x)
    y = np.zeros(n)
    for j in range(n):
        c = 0.0
        if x[j] > flag:                     # true at j = n - 1 only for flag < 1
            for jj in range(j, j + 2):
                c += x[jj]
        else:
            for jj in range(j, j + 3):
                c -= x[jj]
        for t in range(k):
            y[j] = c + t
    return y


def data_index_under_if(a, x, k):
    # found by the session 25 fuzz (seed 2069): x[8] at i = 0, jj = 1
    n = a.shape[0]
    z = np.zeros(n)
    for i in range(n):
        c = 0.0
        if a[i, 0] > 0.5:
            for jj in range(k, 2):
                c += x[int(a[jj, 0]) + 1]
        for j in range(k):
            z[i] = c + j
    return z


@pytest.mark.parametrize("fn", [whole_body_under_if, loop_under_if, loop_under_data_if])
def test_running_value_under_if_read_in_unrun_loop(fn):
    compiled = ph.pipeline(fn)
    for n in (1, 3):
        for k in (0, 2):
            for flag in (0.0, 1.0, 2.0):
                args = (np.linspace(0.0, 1.0, n), k, flag)
                assert _outcome(compiled, args) == _outcome(fn, args), (n, k, flag)


def test_data_index_under_if():
    compiled = ph.pipeline(data_index_under_if)
    for a0 in ([0.6, 7.0, 0.0], [0.0, 7.0, 0.6], [0.6, 1.0, 0.0]):
        a = np.full((3, 2), 0.25)
        a[:, 0] = a0
        for k in (0, 1, 3):
            args = (a, np.linspace(0.1, 0.9, 3), k)
            assert _outcome(compiled, args) == _outcome(data_index_under_if, args), (a0, k)


# Wrong results (aef6de4): an array written by three statements of a loop
# body, an inner loop between them, became one serial update
# (imperative_writes.merge_writes) whose RDom had the shared loop twice (the
# first and last writes logged it each): every iteration ran n times.

def three_writes_next_element(x, k):
    z = np.zeros(4)
    for i in range(3):
        z[i] += 1.0
        for jj in range(1, k):
            z[i] += x[jj]
        z[i + 1] *= 2.0
    return z


def three_writes_same_element(x, k):
    z = np.ones(4)
    for i in range(3):
        z[i + 1] += 1.0
        for jj in range(1, k):
            z[i] += x[jj]
        z[i] *= 2.0
    return z


@pytest.mark.parametrize("fn", [three_writes_next_element, three_writes_same_element])
def test_writes_around_an_inner_loop(fn):
    compiled = ph.pipeline(fn)
    for k in (0, 1, 3):
        args = (np.arange(5.0), k)
        assert _outcome(compiled, args) == _outcome(fn, args), k


def two_sums_into_one_element(x, k):
    # refused on aef6de4 ("'z' is read here but written later"): the first
    # write's update reads z before the second write's definition runs
    z = np.zeros(3)
    for i in range(3):
        c = 0.0
        for jj in range(1, k):
            c += x[jj]
        z[i] += c
        c = 0.0
        for jj in range(1, k):
            c += x[jj + 1]
        z[i] += c * 2.0
    return z


def test_update_reading_its_array_before_a_later_write():
    compiled = ph.pipeline(two_sums_into_one_element)
    for n in (5, 3):
        for k in (0, 2, 3):
            args = (np.arange(float(n)), k)
            assert _outcome(compiled, args) == _outcome(two_sums_into_one_element, args), (n, k)


def bound_divides_under_if(x, k):
    # the stored loop's bound 4 // j is computed only where j > 0 (no
    # ZeroDivisionError at j = 0); x[jj] past x's end raises at j = 1
    n = len(x)
    y = np.zeros(n)
    for j in range(n):
        c = 0.0
        if j > 0:
            for jj in range(4 // j):
                c += x[jj]
        for t in range(k):
            y[j] = c + t
    return y


def test_stored_loop_bound_under_if():
    compiled = ph.pipeline(bound_divides_under_if)
    for n in (2, 3, 6):
        for k in (0, 2):
            args = (np.linspace(0.0, 1.0, n), k)
            assert _outcome(compiled, args) == _outcome(bound_divides_under_if, args), (n, k)


def start_read_under_if(x, k, flag):
    # the loop's start value x[j + 1] is read only where x[j] > flag: the
    # loop's Func computes its start there only (no IndexError where Python
    # runs fine)
    n = len(x)
    y = np.zeros(n)
    for j in range(n):
        c = 0.0
        if x[j] > flag:
            c = x[j + 1]
            for jj in range(2):
                c += x[jj]
        for t in range(k):
            y[j] = c + t
    return y


def test_start_value_under_if_raises_only_where_python_does():
    compiled = ph.pipeline(start_read_under_if)
    for n in (2, 3):
        args = (np.linspace(0.0, 1.0, n), 0, 2.0)
        assert _outcome(compiled, args) == _outcome(start_read_under_if, args), n


# The start value of a loop under an `if` (`c = x[j + 1]` before `for jj`)
# is computed where the `if` holds (defs.Definitions._start_under_ifs):
# aef6de4 raised IndexError where Python returns [0, 0, 0] (start value
# computed everywhere) and, because the value was then not stored, lost the
# IndexError of an inner loop read only in a loop that does not run.

def start_read_reading_itself(x, k, flag):
    n = len(x)
    y = np.zeros(n)
    for j in range(n):
        if x[j] > flag:
            c = x[j + 1]
            for jj in range(2):
                c += x[jj] * c
            for t in range(k):
                y[j] = c + t
    return y


def start_divides_under_if(x, k):
    n = len(x)
    y = np.zeros(n)
    for j in range(n):
        c = 0
        if j > 0:
            c = 6 // j
            for jj in range(2):
                c += x[jj + j]              # x[n] at j = n - 1
        for t in range(k):
            y[j] = c + t
    return y


def test_start_value_under_data_if_no_false_error():
    compiled = ph.pipeline(start_read_reading_itself)
    for n in (2, 3):
        for k in (0, 2):
            for flag in (2.0, 0.25, -1.0):
                args = (np.linspace(0.0, 1.0, n), k, flag)
                assert _outcome(compiled, args) == \
                    _outcome(start_read_reading_itself, args), (n, k, flag)


def test_start_value_under_if_keeps_inner_loop_error():
    compiled = ph.pipeline(start_divides_under_if)
    for n in (1, 3):
        for k in (0, 2):
            args = (np.linspace(0.0, 1.0, n), k)
            assert _outcome(compiled, args) == _outcome(start_divides_under_if, args), (n, k)


def start_under_nested_ifs(x, k, flag):
    n = len(x)
    y = np.zeros(n)
    for j in range(n):
        c = 0.0
        if j > 0:
            if x[j] > flag:
                c = x[j + 1]
                for jj in range(2):
                    c += x[jj + j]
        for t in range(k):
            y[j] = c + t
    return y


def start_in_else(x, k, flag):
    n = len(x)
    y = np.zeros(n)
    for j in range(n):
        c = 0.0
        if x[j] <= flag:
            c = 1.0
        else:
            c = x[j + 1]
            for jj in range(2):
                c += x[jj] * c
        for t in range(k):
            y[j] = c + t
    return y


def start_after_continue(x, k, flag):
    n = len(x)
    y = np.zeros(n)
    for j in range(n):
        if x[j] < flag - 1.5:
            continue
        c = 0.0
        if x[j] > flag:
            c = x[j + 1]
            for jj in range(2):
                c += x[jj + j]
        for t in range(k):
            y[j] = c + t
    return y


def start_under_and(x, k, flag):
    n = len(x)
    y = np.zeros(n)
    for j in range(n):
        c = 0.0
        if j < n - 1 and x[j + 1] > flag:
            c = x[j + 2]
            for jj in range(2):
                c += x[jj + j]
        for t in range(k):
            y[j] = c + t
    return y


@pytest.mark.parametrize("fn", [start_under_nested_ifs, start_in_else, start_after_continue,
                                start_under_and])
def test_start_value_under_if_forms(fn):
    # each raised a false IndexError or lost one on 45fc4ff
    compiled = ph.pipeline(fn)
    for n in (1, 3):
        for k in (0, 2):
            for flag in (0.25, 2.0, -1.0):
                args = (np.linspace(0.0, 1.0, n), k, flag)
                assert _outcome(compiled, args) == _outcome(fn, args), (n, k, flag)
