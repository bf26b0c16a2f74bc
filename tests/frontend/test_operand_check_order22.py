"""Outside an `if` (session 21 made it so under one), an operation's check
fails only where its operands' checks pass: Python computes the operands
first, so `int(a[0]) % k` with a[0] NaN and k = 0 raises ValueError (the
compiled call raised ZeroDivisionError: the kernel asserted the operation's
check first). A check of the compiled code's int64 limit on an operand
(Python makes a big int there) passes where the operation's own check
fails, unless that check reads the big value: `int(a[0]) % k` with a[0] =
1e300 and k = 0 raises ZeroDivisionError as in Python; with k = -1 it
raises OverflowError (the documented limit: Python returns a big int).
Context.guard, _after_inner, _limits_after. Each call compared with plain
Python (exception type, result, argument state)."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.test_exception_order import outcome, plain, same_outcome

NAN, INF = float("nan"), float("inf")


@ph.pipeline
def returned_mod(a, k):
    return int(a[0]) % k


@ph.pipeline
def array_plus_floordiv(a, k):
    return a + int(a[0]) // k


@ph.pipeline
def chained_division(a, k):
    return (k // int(a[0])) % int(a[1])


@ph.pipeline
def shifted_read(a, k):
    return int(a[0]) << k


def _same(p, a, k):
    if not np.isnan(a).any():
        same_outcome(p, a, k)
        return
    # (a NaN argument: same_outcome's array_equal finds it changed; every NaN case raises)
    e1, _, _ = outcome(plain(p), (a, k))
    e2, _, _ = outcome(p, (a, k))
    assert e1 is not None and e2 is e1, f"{p.__name__}: compiled raised {e2}, plain Python {e1}"


@pytest.mark.parametrize("x, k", [(x, k) for x in (NAN, INF, -INF, 2.0) for k in (0, 3)] +
                         [(1e300, 0)])
def test_operand_checks_before_the_operation(x, k):
    a = np.array([x, 0.0])
    _same(returned_mod, a, k)
    _same(array_plus_floordiv, a, k)


@pytest.mark.parametrize("x, y", [(1e300, 0.0), (NAN, 0.0), (2.0, 0.0), (INF, 0.0), (5.0, 2.0)])
@pytest.mark.parametrize("k", [0, 7])
def test_a_limit_of_an_operand_does_not_hide_a_later_python_error(x, y, k):
    # k // int(1e300) is 0 in Python, then % 0 raises ZeroDivisionError
    _same(chained_division, np.array([x, y]), k)


@pytest.mark.parametrize("x", [INF, NAN, 2.0])
@pytest.mark.parametrize("k", [-1, 2])
def test_shifted_operand_checks_before_the_shift_count(x, k):
    _same(shifted_read, np.array([x]), k)


def test_a_used_big_int_raises_overflow_error():
    # Python returns int(1e300) % -1 (a big int); compiled ints are int64
    with pytest.raises(OverflowError, match="int64"):
        returned_mod(np.array([1e300]), -1)


# A call-time check (a[i]: i and a's size are known when the call starts) to the
# right of a kernel check of the same statement (int(nan)): Python raises the
# kernel check's ValueError first (check_order._kernel_check_before).
@ph.pipeline
def kernel_check_left_of_call_time_check(a, b, i, x):
    s = (int(b[1]) // int(a[0] * x)) % int(a[i] * x)
    return s + 1


@pytest.mark.parametrize("i", [5, 0])
@pytest.mark.parametrize("x", [NAN, 1.0])
def test_a_kernel_check_left_of_a_failing_call_time_check(i, x):
    _same_x(kernel_check_left_of_call_time_check, np.array([0.0]), np.array([1, 3]), i, x)


def _same_x(p, *args):
    # (NaN in a scalar argument: compared by exception type and result)
    e1, r1, _ = outcome(plain(p), args)
    e2, r2, _ = outcome(p, args)
    assert e2 is e1, f"{p.__name__}: compiled raised {e2}, plain Python {e1}"
    if e1 is None:
        assert np.array_equal(np.asarray(r1), np.asarray(r2), equal_nan=True)
