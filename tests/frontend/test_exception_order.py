# ruff: noqa: F841  (unused names: their computation is what is tested)
"""Exceptions in program order: of the checks that fail (call-time checks,
kernel checks, call-time values), the compiled call raises the one Python
raises first, after the argument writes Python makes before it; a scalar
assigned outside loops raises where Python computes it even if nothing uses
it. Each call is compared with the plain function (exception type and the
arguments' state)."""
import warnings

import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import same


def outcome(fn, args):
    """(exception type or None, result or None, the arguments after the call)."""
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        r = fn(*args)
        e = None
    except Exception as exc:       # the type is compared
        r, e = None, type(exc)
    return e, r, args


def plain(p):
    def run(*args):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return p.py_func(*args)
    return run


def same_outcome(p, *args):
    e1, r1, a1 = outcome(plain(p), args)
    e2, r2, a2 = outcome(p, args)
    assert e2 is e1, f"{p.__name__}: compiled raised {e2}, plain Python {e1}"
    if e1 is None:
        assert same(r2, r1), f"{p.__name__}: compiled {r2!r} != plain {r1!r}"
    for x, y in zip(a1, a2):
        if isinstance(x, np.ndarray):
            assert np.array_equal(x, y), f"{p.__name__}: arguments differ after the call"


# array-fuzz seed 450 program 4: a kernel check of line 1, a call-time one of line 2
@ph.pipeline
def kernel_check_then_broadcast(a0, a1, s2):
    t0 = (s2 // 0)
    t1 = (a0[-2:] << a1)
    t2 = (-1 / a0)
    return t0, t1, t2


@pytest.mark.parametrize("s2", [3, np.int16(-9), np.uint8(4)])
def test_a_kernel_check_before_a_failing_broadcast(s2):
    a0, a1 = np.arange(1, 5, dtype=np.int64), np.arange(4, dtype=np.int64)
    same_outcome(kernel_check_then_broadcast, a0, a1, s2)
    same_outcome(kernel_check_then_broadcast, a0, a1[:2], s2)


@ph.pipeline
def two_kernel_checks(a, b, s):
    t0 = s // 0
    t1 = a[b[0] + 10]
    return t1, t0


@ph.pipeline
def check_then_argument_write_then_broadcast(a, b, c):
    a[0] = 7
    t = b[:2] + c
    return t


def test_kernel_checks_in_program_order_and_writes_before_a_failure():
    a, b = np.arange(3), np.arange(3)
    same_outcome(two_kernel_checks, a, b, 5)
    same_outcome(check_then_argument_write_then_broadcast, a, b, np.arange(4))
    same_outcome(check_then_argument_write_then_broadcast, a, b, np.arange(2))


# scalars that may raise, assigned outside loops and used nowhere (or only where
# nothing is computed)
@ph.pipeline
def unused_read(a, b):
    t0 = a[b[0]]
    return a


@ph.pipeline
def unused_division(a, b):
    t0 = int(b[0]) // 0
    return a


@ph.pipeline
def unused_python_int_division(a, s):
    t0 = s // 0


@ph.pipeline
def read_used_over_no_points(a, b, c):
    t0 = a[b[0]]
    return c + t0


@ph.pipeline
def read_after_a_conditional_return(a, b, c):
    if c > 0:
        return 1
    t0 = a[b[0]]
    return 2


@ph.pipeline
def read_after_a_loop_that_returns(a, b):
    for i in range(len(a)):
        if a[i] > 0:
            return i
    t0 = a[b[0]]
    return -1


@ph.pipeline
def conditional_read(a, b, c):
    t0 = a[b[0]] if c > 0 else 7
    return 2


def test_unused_scalars_raise_where_python_computes_them():
    a = np.arange(3)
    for b in (np.array([10, 0, 1]), np.array([1, 0, 1])):
        same_outcome(unused_read, a, b)
        same_outcome(unused_division, a, b)
        same_outcome(read_used_over_no_points, a, b, np.zeros(0, np.int64))
        for c in (1, 0):
            same_outcome(read_after_a_conditional_return, a, b, c)
            same_outcome(conditional_read, a, b, c)
        for x in (np.array([0, 1, 0]), np.array([0, 0, 0])):
            same_outcome(read_after_a_loop_that_returns, x, b)
    same_outcome(unused_python_int_division, a, 5)


def _helper_read(a, i):
    t = a[i]
    return t + 1


@ph.pipeline
def helper_in_a_lazy_branch(a, i, c):
    x = _helper_read(a, i) if c > 0 else 0
    y = c > 1 and _helper_read(a, i) > 0
    return x, y


def test_a_helper_read_only_where_python_calls_it():
    for i in (10, 1):
        for c in (0, 1, 2):
            same_outcome(helper_in_a_lazy_branch, np.arange(3), i, c)
