"""Loop bounds from Python ints beyond int32 (session 17 red team, a wrong
result): compiled loops have int32 indices, and a bound that does not fit
is an OverflowError at call time (loop_params.index_param). The loop's
typing runs narrowed the argument's own range to int32 without adding that
check, so the compiling run saw a range that needed none: the bound was
clamped to int32 and the loop ran no iteration (`for j in range(2**40,
2**40 + 7, 3)` counted 0, `while i < n: i += 3` returned i unchanged).
Bounds within int32 compare with plain Python; wider ones raise."""
import pytest

import pyhalide as ph

from .frontend_check import check


@ph.pipeline
def count_range(i, n):
    c = 0
    for j in range(i, n, 3):
        c += 1
    return c


@ph.pipeline
def step_while(i, n):
    c = 0
    while i < n:
        i += 3
        c += 1
        if c == 5:
            break
    return i, c


@pytest.mark.parametrize("i, n", [(0, 10), (-7, 5), (2**31 - 8, 2**31 - 1), (5, 0)])
def test_bounds_within_int32(i, n):
    check(count_range, i, n)
    check(step_while, i, n)


@pytest.mark.parametrize("i, n", [(2**40, 2**40 + 7), (2**31 - 1, 2**31 + 1),
                                  (-2**31 - 5, -2**31), (2**63 - 4, 2**63 - 1)])
def test_bounds_beyond_int32_raise(i, n):
    assert count_range.py_func(i, n) > 0
    with pytest.raises(OverflowError, match="does not fit in 32 bits"):
        count_range(i, n)
    with pytest.raises(OverflowError, match="does not fit in 32 bits"):
        step_while(i, n)


@ph.pipeline
def guarded_range(n):
    if n > 2**31:
        return -1
    s = 0
    for i in range(n):
        s += i
    return s


@ph.pipeline
def range_under_branch(n, m):
    s = 0
    if m > 0:
        for i in range(n, n + 3):
            s += i
    return s


def test_wide_bound_under_a_branch_not_taken():
    # the check of a bound follows the call-time conditions reaching its loop
    check(guarded_range, 2**40)
    check(guarded_range, 7)
    check(range_under_branch, 2**40, 0)
    check(range_under_branch, 5, 1)
    with pytest.raises(OverflowError, match="does not fit in 32 bits"):
        range_under_branch(2**40, 1)
