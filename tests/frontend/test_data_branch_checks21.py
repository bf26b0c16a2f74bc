# ruff: noqa: F841  (unused names: their computation is what is tested)
"""A check of code under an `if` on array data passes where the test is
false (Python does not run the branch, so nothing raises): `if a[0] > 0:
y = a * (n % k)` with k = 0 and a[0] <= 0 raised ZeroDivisionError (the
branch's array is computed whole and selected; session 20 handled tests
known at call start only). Also the `return` and index forms, `elif`,
nested tests, lazy operands (`x if c else y`, `and`). `2 ** k` of Python
ints with k < 0 is a float in Python (it was truncated to 0). An unused
call-time value that cannot raise (`x = k * 2 + 1`) is not computed, so the
call fast path is not keyed on k. Each call compared with plain Python."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.test_exception_order import same_outcome


@ph.pipeline
def assigned_in_branch(a, k):
    y = a
    if a[0] > 0:
        y = a * (a.shape[0] % k)
    return y


@ph.pipeline
def returned_in_branch(a, k):
    if a[0] > 0:
        return a * (a.shape[0] // k)
    return a + 1


@ph.pipeline
def index_in_branch(a, i):
    y = a
    if a.sum() > 0:
        y = a * a[i]
    return y


@ph.pipeline
def returned_index(a, i):
    if a[0] > 0:
        return a[i]
    return a[0]


@ph.pipeline
def in_elif(a, k):
    if a[0] > 0:
        y = a * (a.shape[0] % k)
    elif a[1] > 0:
        y = a + (k // (k - 1))
    else:
        y = a - 1
    return y


@ph.pipeline
def nested(a, k, m):
    y = a
    if m > 1:
        if a[-1] < 3:
            y = a + (m // k)
    return y


@ph.pipeline
def lazy_operand(a, k):
    y = a[0] if a[0] > 0 else a.shape[0] // k
    return a * y


@ph.pipeline
def and_operand(a, k):
    t = 1
    if a[0] > 0 and a.shape[0] % k == 1:
        t = 2
    return a * t


@ph.pipeline
def data_modulo(a, k):
    s = 0
    if a[0] > 0:
        s = int(a[-1]) % k
    return a + s


@ph.pipeline
def unused_in_branch(a, k):
    x = 0
    if a[0] > 0:
        x = a.shape[0] % k
    return a + 1


@ph.pipeline
def power_in_branch(a, k):
    y = a
    if a[0] > 0:
        y = a * (2 ** k)
    return y


@ph.pipeline
def power(a, k):
    return a * (2 ** k)


@ph.pipeline
def power_assigned(a, k):
    y = (a.shape[0] - 3) ** k
    return a * y


ARRAYS = [np.array([-1.0, 2.0, 3.0]), np.array([1.0, -2.0, 3.0]),
          np.array([-1.0, -2.0, 5.0]), np.array([2.0]), np.array([])]


@pytest.mark.parametrize("p", [assigned_in_branch, returned_in_branch, index_in_branch,
                               returned_index, in_elif, lazy_operand, and_operand,
                               data_modulo, unused_in_branch, power_in_branch])
@pytest.mark.parametrize("a", range(len(ARRAYS)))
def test_checks_under_a_test_of_data(p, a):
    for k in (0, 1, 2, -1, 5, -4, 9):
        same_outcome(p, ARRAYS[a], k)


@pytest.mark.parametrize("k, m", [(0, 0), (0, 3), (2, 3), (2, 0)])
@pytest.mark.parametrize("a", range(len(ARRAYS)))
def test_nested_tests(a, k, m):
    same_outcome(nested, ARRAYS[a], k, m)


@pytest.mark.parametrize("k", [-3, -1, 0, 1, 2, 62])
def test_int_power_of_a_negative_exponent(k):
    same_outcome(power, np.arange(3.0), k)
    for n in (2, 3, 4, 5):      # bases -1, 0 (0 ** -1: ZeroDivisionError), 1, 2
        same_outcome(power_assigned, np.ones(n), k)


def unused_sum(a, k):
    x = k * 2 + 1
    y = a.shape[0] * k - 3 < k
    return a + 1


def test_unused_values_that_cannot_raise_do_not_key_the_fast_path():
    p = ph.pipeline(unused_sum)
    a = np.arange(4.0)
    for k in (3, 3, 3, 4, 4, 2**62):
        assert np.array_equal(p(a, k), unused_sum(a, k))
    direct = p.last_specialization.direct
    assert direct is not None and not direct.read      # k is read by no call-time function


@ph.pipeline
def power_minus_loop_variable(a, n, k):
    for i in range(-n, 0):
        for j in range(-i, -n, -1):
            a[i % a.shape[0]] = float(2 ** k - i)
    return a


@ph.pipeline
def power_in_a_loop_test(a, n, k):
    s = 0.0
    for i in range(n):
        for j in range(i, n):
            if i > k:
                s += float(2 ** k - i)
    return s


@pytest.mark.parametrize("k", [-3, -1, 0, 2])
@pytest.mark.parametrize("n", [0, 1, 3])
def test_power_of_a_call_time_exponent_in_loops(n, k):
    # (found by the loop fuzz: the float alternative of `2 ** k` had no node)
    same_outcome(power_minus_loop_variable, np.array([5.0, 1.0, 1.0, 1.0]), n, k)
    same_outcome(power_in_a_loop_test, np.array([1.0]), n, k)


@ph.pipeline
def power_of_loop_variable_under_test(a, n, k):
    for i in range(n - 3):
        if k != 0:
            a[i % a.shape[0]] = float(2 ** i)
    return a


@ph.pipeline
def power_in_nested_loops(a, n, k):
    for i in range(n):
        for j in range(k - i):
            if k != 0:
                a[i % a.shape[0]] = float(k ** j)
    return a


@pytest.mark.parametrize("n, k", [(5, -3), (5, 2), (6, 0), (2, 3), (9, 4)])
def test_integer_powers_of_loop_variables_under_tests(n, k):
    # (found by the loop fuzz: the int64 check of `x ** i` named the power's let
    # variables outside their scope once moved out of the value: AssertionError)
    same_outcome(power_of_loop_variable_under_test, np.array([2.0, -3.0]), n, k)
    same_outcome(power_in_nested_loops, np.array([1.0, 2.0, 3.0]), n, k)


def test_integer_power_past_int64_in_a_loop_raises():
    with pytest.raises(OverflowError, match="int64"):
        power_in_nested_loops(np.zeros(3), 1, 40)     # 40 ** 39: compiled ints are int64


@ph.pipeline
def power_of_data_exponent(a, x):
    a[0] = float(x ** (int(a[1]) & 0x7FFFFFFFFFFFFFFF))     # (an exponent known >= 0)
    return a


def test_integer_power_of_exponents_past_63():
    # an exponent of 64 or more computes 64 + e % 2 (x in -1, 0, 1 gives x ** e;
    # |x| >= 2 overflows int64 in both): same results and OverflowErrors
    for x, e in [(-1, 64), (-1, 2**52 + 1), (0, 65), (0, 0), (1, 2**53 - 1), (-2, 63),
                 (2, 62), (-1, 1000001), (3, 39)]:
        same_outcome(power_of_data_exponent, np.array([0.0, e]), x)
    for x, e in [(2, 63), (-2, 64), (2, 65), (-3, 2**40), (3, 41)]:
        with pytest.raises(OverflowError, match="int64"):
            power_of_data_exponent(np.array([0.0, e]), x)


# An operation on a value that holds checks fails only where those pass
# (Context.guard, _after_inner): Python computes the operands first, so
# `int(a[1]) % k` with a of size 1 and k = 0 raises IndexError (the compiled
# call raised ZeroDivisionError under an `if`, where both checks were placed
# side by side).
@ph.pipeline
def mod_of_read_under_call_time_test(a, k):
    s = 0
    if k >= 0:
        s = int(a[1]) % k
    return a + s


@ph.pipeline
def floordiv_of_read_under_data_test(a, k):
    s = 0
    if a[0] > 0:
        s = int(a[1]) // k
    return a + s


@ph.pipeline
def shift_of_read_under_call_time_test(a, k):
    s = 0
    if k < 5:
        s = int(a[1]) << k
    return a + s


@ph.pipeline
def int_of_scaled_read_under_test(a, x):
    s = 0
    if x > 0:
        s = int(a[1] * x)
    return a + s


@ph.pipeline
def mod_of_read_in_loop(a, n, k):
    s = 0
    for i in range(n):
        if k >= 0:
            s += int(a[i + 1]) % k
    return a + s


@pytest.mark.parametrize("size", [1, 2])
@pytest.mark.parametrize("k", [0, 3, -2])
def test_operand_checks_come_before_the_operation(size, k):
    a = np.array([2.0, 7.0][:size])
    same_outcome(mod_of_read_under_call_time_test, a, k)
    same_outcome(floordiv_of_read_under_data_test, a, k)
    same_outcome(floordiv_of_read_under_data_test, -a, k)
    same_outcome(shift_of_read_under_call_time_test, a, k)
    same_outcome(mod_of_read_in_loop, a, 2, k)
    same_outcome(mod_of_read_in_loop, a, 1, k)


@pytest.mark.parametrize("size", [1, 2])
@pytest.mark.parametrize("x", [float("inf"), 0.5, float("nan")])
def test_int_of_an_out_of_range_read_raises_index_error_first(size, x):
    same_outcome(int_of_scaled_read_under_test, np.array([2.0, 7.0][:size]), x)


@ph.pipeline
def mod_of_a_big_int_unused(a, k, x):
    s = 0
    if k >= 0:
        s = int(a[0] * x) % k      # past int64: a limit of compiled ints, not a Python error
    return a + 1


@ph.pipeline
def two_operations_on_a_read(a, k, m):
    s = 0
    if k >= 0:
        s = int(a[1]) // k % m
    return a + s


def test_a_limit_check_does_not_hide_the_operation_check():
    # (the operand's int64 limit check is not one the operation waits for: Python
    # makes the big int, then raises ZeroDivisionError)
    for k in (0, 3):
        same_outcome(mod_of_a_big_int_unused, np.array([2.0]), k, 1e300)
        same_outcome(mod_of_a_big_int_unused, np.array([2.0]), k, 2.0)


@pytest.mark.parametrize("k, m", [(0, 0), (2, 0), (0, 3), (2, 3)])
def test_checks_of_checks_keep_python_order(k, m):
    for a in (np.array([2.0]), np.array([2.0, 9.0])):
        same_outcome(two_operations_on_a_read, a, k, m)
