"""Python's exception order between sibling operands of one operation and in
the int64-limit zone of shifts, outside loops (session 23; Context.guard's
_after_inner / _ordered, Context.limits_before, Context.huge_shift_count).
Each call compared with plain Python: the exception type, or the result."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.test_exception_order import outcome, plain

NAN, INF = float("nan"), float("inf")


@ph.pipeline
def sibling_checks(a, b, x):
    return int(a[int(b[0])]) % int(a[0] * x)


@ph.pipeline
def huge_count_then_division(a, x):
    return (2 << int(a[0] * x)) // 0


@ph.pipeline
def huge_count(a, x, k):
    return (k << int(a[0] * x)) + 1


@ph.pipeline
def big_shifted_value(a, k):
    return int(a[0]) << k


def _same(p, *args):
    e1, r1, _ = outcome(plain(p), args)
    e2, r2, _ = outcome(p, args)
    assert e2 is e1, f"{p.__name__}{args}: compiled raised {e2}, plain Python {e1}"
    if e1 is None:
        assert r1 == r2


@pytest.mark.parametrize("b0", [7, 1, -3])
@pytest.mark.parametrize("x", [NAN, INF, 1.0, 0.0])
def test_left_operand_checks_first(b0, x):
    # b0 = 7: Python's IndexError of the left operand, whatever the right one raises
    _same(sibling_checks, np.array([1.0, 2.0]), np.array([b0]), x)


@pytest.mark.parametrize("v", [5e299, -5e299, 3.0, NAN])
def test_huge_shift_count_is_pythons_overflow_error(v):
    # 2 << int(5e299): Python's OverflowError ("too many digits in integer"),
    # not the ZeroDivisionError of the later // 0; a negative count: ValueError
    _same(huge_count_then_division, np.array([v]), 1.0)


@pytest.mark.parametrize("v, k", [(5e299, 3), (-5e299, 3), (5e299, 0), (2.0, 3)])
def test_huge_shift_count(v, k):
    if v > 0 and k == 0:
        # 0 << int(5e299) is 0 in Python; a used count past int64: the documented limit
        with pytest.raises(OverflowError, match="int64"):
            huge_count(np.array([v]), 1.0, k)
        return
    _same(huge_count, np.array([v]), 1.0, k)


@pytest.mark.parametrize("v", [1e300, 2.0, NAN])
@pytest.mark.parametrize("k", [-1, 2])
def test_negative_count_of_a_big_shifted_value(v, k):
    if v == 1e300 and k == 2:
        with pytest.raises(OverflowError, match="int64"):   # the documented limit
            big_shifted_value(np.array([v]), k)
        return
    _same(big_shifted_value, np.array([v]), k)


@ph.pipeline
def right_shift_by_big_count(a, x, k):
    return (k >> int(a[0] * x)) - 1


@pytest.mark.parametrize("v, k", [(-5e299, 3), (-2.0, 3), (4.0, -8)])
def test_negative_big_right_shift_count(v, k):
    # k >> int(-5e299): Python's ValueError "negative shift count"
    _same(right_shift_by_big_count, np.array([v]), 1.0, k)


@ph.pipeline
def shift_by_a_sum_of_big_counts(a, b):
    return int(b[1]) >> (int(a[int(b[0])]) + int(a[int(b[0])]))


def test_a_sum_of_saturated_counts_is_no_negative_count():
    # Python: 1 >> 2e300 is 0; compiled: the documented OverflowError (a used value
    # past int64), never ValueError (the wrapped int64 sum is negative)
    with pytest.raises(OverflowError, match="int64"):
        shift_by_a_sum_of_big_counts(np.array([0.0, 1e300, -3.0]), np.array([1, 1]))
    _same(shift_by_a_sum_of_big_counts, np.array([0.0, 1.0, -3.0]), np.array([1, 1]))
    _same(shift_by_a_sum_of_big_counts, np.array([0.0, -1.0, -3.0]), np.array([1, 1]))


@ph.pipeline
def big_left_operand_then_division_by_zero(a, x):
    return int(a[1]) * (int(a[0] * x) // int(a[0] * x))


@pytest.mark.parametrize("v, x", [(1e300, 0.0), (1e300, 1.0), (2.0, 0.0), (2.0, NAN)])
def test_a_limit_of_the_left_operand_passes_where_the_right_one_raises(v, x):
    # Python: int(1e300) is a big int, then 0 // 0 raises ZeroDivisionError
    if v == 1e300 and x == 1.0:
        with pytest.raises(OverflowError, match="int64"):   # the documented limit
            big_left_operand_then_division_by_zero(np.array([-3.0, v]), x)
        return
    _same(big_left_operand_then_division_by_zero, np.array([-3.0, v]), x)
