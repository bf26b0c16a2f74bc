# ruff: noqa: F841  (unused names: their computation is what is tested)
"""Values known only at call time (computed from shapes and scalar
arguments, with no IR node until something needs one) raise where Python
computes them, used or not: outside loops a call-time check computes them
where the enclosing `if`s hold (frontend_ast/static_sinks.py); under a test
of array data or inside a loop body, their node raises where the kernel
computes it (context.deferred_static). Also a shift by a negative count whose
result fits in int64 (ops.py_int_arith keeps the check's risk), and NumPy's
probe of a static scalar operand only where its statement runs. Each call is
compared with the plain function (exception type, result, arguments)."""
import math

import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.test_exception_order import same_outcome


@ph.pipeline
def unused_mod_plus_one(a, k):
    x = a.shape[0] % k + 1
    return a * 2


@ph.pipeline
def unused_through_unused(a, k):
    x = a.shape[0] % k + 1
    y = x * 3 - 2
    return a * 2


@ph.pipeline
def unused_divmod(a, k):
    q, r = divmod(a.shape[0], k)
    return a * 2


@ph.pipeline
def unused_shift(a, k):
    x = a.shape[0] << k
    return a * 2


@ph.pipeline
def unused_small_shift(a, k):
    x = 1 << (k % 8 - 4)
    return a * 2


@ph.pipeline
def unused_power(a, k):
    x = (a.shape[0] - 4) ** k
    return a * 2


@ph.pipeline
def unused_log(a, k):
    x = math.log(k)
    return a * 2


@ph.pipeline
def unused_int_of(a, k):
    x = int(k * 1.0)
    return a * 2


@ph.pipeline
def aug_mod(a, k):
    x = 1
    x %= k
    return a * 2


@ph.pipeline
def in_static_branch(a, k):
    if k < 5:
        x = a.shape[0] % k + 1
    return a * 2


@ph.pipeline
def in_data_branch(a, k):
    if a[0] > 0:
        x = a.shape[0] % k + 1
    return a * 2


@ph.pipeline
def in_loop_body(a, k):
    for i in range(a.shape[0]):
        x = a.shape[0] % k + 1
    return a * 2


@ph.pipeline
def in_loop_with_sum(a, k):
    s = 0
    for i in range(a.shape[0]):
        x = a.shape[0] % k + 1
        s += i
    return s


@ph.pipeline
def in_loop_of_k(a, k):
    for i in range(k):
        x = a.shape[0] % k + 1
    return a * 2


@ph.pipeline
def shift_in_loop(a, k):
    for i in range(2):
        x = a.shape[0] << k
    return a * 2


def _helper(n, k):
    return n % k + 1


@ph.pipeline
def in_helper(a, k):
    x = _helper(a.shape[0], k)
    return a * 2


@ph.pipeline
def used_later(a, k):
    y = a.shape[0] % k + 1
    if k > 100:
        return a * y
    return a


@ph.pipeline
def guarded_use(a, k):
    y = 0
    if k != 0:
        y = a.shape[0] % k + 1
    return a * y


A = np.array([1.0, 2.0, 3.0, 4.0])


@pytest.mark.parametrize("p", [unused_mod_plus_one, unused_through_unused, unused_divmod,
                               aug_mod, in_static_branch, in_loop_body, in_loop_with_sum,
                               in_loop_of_k, in_helper, used_later, guarded_use])
@pytest.mark.parametrize("k", [0, 3, -2])
def test_division_by_a_call_time_zero(p, k):
    same_outcome(p, A, k)


@pytest.mark.parametrize("first", [1.0, -1.0])
@pytest.mark.parametrize("k", [0, 3])
def test_under_a_test_of_data(first, k):
    same_outcome(in_data_branch, np.array([first, 2.0, 3.0]), k)


@pytest.mark.parametrize("k", [-1, 0, 2])
def test_shifts(k):
    same_outcome(unused_shift, A, k)
    same_outcome(shift_in_loop, A, k)


@pytest.mark.parametrize("k", range(8))
def test_small_shift_count(k):
    same_outcome(unused_small_shift, A, k)      # k % 8 - 4 < 0: ValueError


@pytest.mark.parametrize("k", [-1, 0, 1, 2])
def test_power(k):
    same_outcome(unused_power, A, k)            # 0 ** -1: ZeroDivisionError
    same_outcome(unused_power, np.ones(5), k)


@pytest.mark.parametrize("k", [0.0, -1.0, 2.0])
def test_math_domain(k):
    same_outcome(unused_log, A, k)


@pytest.mark.parametrize("k", [float("inf"), float("nan"), 7.5])
def test_int_of_float(k):
    same_outcome(unused_int_of, A, k)


def test_error_names_the_line():
    with pytest.raises(ZeroDivisionError):
        unused_mod_plus_one(A, 0)
    assert unused_mod_plus_one(A, 3).tolist() == (A * 2).tolist()
