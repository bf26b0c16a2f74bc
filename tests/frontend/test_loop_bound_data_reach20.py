"""Run-time checks in a loop's bounds under an `if` whose condition reads
array data or a running value (frontend_ast/loop_bound_reach.py: the
checks are computed where the `for` statement runs, not with the bound;
loop_merge.py: a slot loop's length divides by no zero, a slot checks):
a division by zero in a bound Python never evaluates does not raise, one
it evaluates does. Plain Python is the oracle, exception types included."""
import numpy as np
import pytest

from pyhalide import pipeline
from tests.frontend.outcomes import outcome


def data_cond(a, k):
    t = 0
    if a[0] != 0:
        for j in range(a.shape[0] // k):
            t += a[j]
    return t


def running_cond(a, k):
    s = 0
    for i in range(a.shape[0]):
        s += a[i]
    t = 0
    if s > 0:
        for j in range(a.shape[0] // k):
            t += a[j]
    return t


def nested_cond(a, k):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        if a[i] > 0:
            for j in range(a.shape[0] % k):
                out[i] += a[j]
    return out


def merged_cond(a, k):
    # t is carried by both loops: one loop over slots (loop_merge.py), whose
    # length is computed in every iteration, the bound's check in a slot
    t = 0
    for i in range(a.shape[0]):
        t = t * 2 + i
        if a[i] > 0:
            for j in range(a.shape[0] // k):
                t += a[j]
    return t


def merged_mod(a, k):
    t = 0
    for i in range(a.shape[0]):
        if a[i] > 0:
            for j in range(1, a.shape[0] % k + 1):
                t += a[j - 1] * j
    return t


def mixed_cond(a, k, m):
    out = np.zeros(a.shape[0])
    if m > 0 and a[-1] < 5:
        for j in range(m // k):
            out[j % a.shape[0]] += 1.0
    return out


def _same(got, exp):
    return got[0] == exp[0] and (np.array_equal(got[1], exp[1]) if got[0] == "ok"
                                 else got[1] is exp[1])


ARGS = [(np.array([0, 0, 0]), 0), (np.array([1, 2, 3]), 0), (np.array([1, 2, 3]), 2),
        (np.array([-1, 2, 3]), 0), (np.array([0, -4, 3]), 0), (np.array([2, 2, 3]), -1)]


@pytest.mark.parametrize("fn", [data_cond, running_cond, nested_cond, merged_cond,
                                merged_mod])
def test_bound_checked_where_python_evaluates_it(fn):
    compiled = pipeline(fn)
    for args in ARGS:
        assert _same(outcome(compiled, *args), outcome(fn, *args)), args


def test_condition_partly_on_arguments():
    compiled = pipeline(mixed_cond)
    for a, k, m in [(np.array([1, 9]), 0, 3), (np.array([1, 2]), 0, 3), (np.array([1, 2]), 0, 0),
                    (np.array([1, 2]), 2, 7), (np.array([3, 1, 2]), -2, 7)]:
        assert _same(outcome(compiled, a, k, m), outcome(mixed_cond, a, k, m)), (a, k, m)
