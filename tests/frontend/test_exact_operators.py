"""Operators that were not exact (found by the array fuzzer): float // and %
as NumPy's and Python's divmod, uint64 compared with signed integers, and the
OverflowError of a Python int out of an array dtype's range raised for the
operands, not per element. Scalars, loop code and arrays alike."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check

_A = [1.0, 7.0, 0.0, 2.0, np.inf, -7.5, -0.0, 5.0, 1e300, -3.0, np.nan, 0.3]
_B = [0.1, -2.0, np.inf, -np.inf, 3.0, 2.0, 3.0, -0.0, 1e-300, np.inf, 1.0, -0.1]


@ph.pipeline
def divmod_arrays(a, b):
    return a // b, a % b


@ph.pipeline
def divmod_scalars(x, y):
    return x // y, x % y


@ph.pipeline
def divmod_loop(a, b):
    q = np.zeros(len(a), a.dtype)
    r = np.zeros(len(a), a.dtype)
    for i in range(len(a)):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
    return q, r


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_float_floordiv_and_mod_arrays(dt):
    with np.errstate(over="ignore"):
        a, b = np.array(_A, dt), np.array(_B, dt)
    check(divmod_arrays, a, b)
    check(divmod_loop, a, b)
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(200) * 100).astype(dt)
    y = (rng.standard_normal(200)).astype(dt)
    check(divmod_arrays, x, y)
    check(divmod_arrays, x, dt(0.1))


def test_float_floordiv_and_mod_scalars():
    for x, y in zip(_A, _B):
        check(divmod_scalars, np.float64(x), np.float64(y))
        with np.errstate(over="ignore"):
            fx, fy = np.float32(x), np.float32(y)
        check(divmod_scalars, fx, fy)
        check(divmod_scalars, x, y)         # Python floats (y == 0: ZeroDivisionError)


@ph.pipeline
def unsigned_vs_signed(a, b):
    return a > b, a == b, a < b, a != b, a <= b, a >= b


@ph.pipeline
def unsigned_vs_python_int(a, s):
    return a <= -65, a > -1, a <= s, a == s, -1 < a, s >= a


@ph.pipeline
def unsigned_vs_signed_loop(a, b):
    n = 0
    for i in range(len(a)):
        if a[i] > b[i]:
            n += 1
    return n


def test_uint64_compared_with_signed_exactly():
    a = np.array([2**63 + 1, 2**64 - 1, 2**63, 5, 0], np.uint64)
    for t in (np.int8, np.int32, np.int64):
        b = np.array([2**63 - 1, -1, 2**63 - 1, -5, 0], np.int64).astype(t)
        check(unsigned_vs_signed, a, b)
        check(unsigned_vs_signed, b, a)
        check(unsigned_vs_signed_loop, a, b)
    check(unsigned_vs_python_int, a, -1)
    check(unsigned_vs_python_int, a, 5)


@ph.pipeline
def unused_sum(a, s):
    t = a + s  # noqa: F841  (NumPy raises here all the same)
    return a


def test_python_int_out_of_range_raises_for_the_operands():
    check(unused_sum, np.array([1, 2], np.int8), -200)
    check(unused_sum, np.zeros(0, np.int8), 300)
    check(unused_sum, np.array([1, 2], np.int8), 100)
    with pytest.raises(OverflowError):
        unused_sum(np.zeros(0, np.uint8), -1)


@ph.pipeline
def powers(a, e):
    return a ** 0.5, a ** e, a ** 2, a ** -1, np.float64(-np.inf) ** 0.5


def test_array_power_of_one_half_is_sqrt():
    # NumPy's power loop with one exponent computes x ** 0.5 as sqrt(x):
    # (-inf) ** 0.5 is nan and (-0.0) ** 0.5 is -0.0 for arrays (C pow for scalars)
    a = np.array([-np.inf, -0.0, 3.0, 1e-310, 2.0])
    with np.errstate(all="ignore"):
        for e in (0.5, 2.0, 3):
            check(powers, a, e)
        check(powers, a.astype(np.float32), 0.5)
