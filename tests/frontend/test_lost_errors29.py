"""A scalar assigned in a loop body whose computation may raise and whose
uses are all inside nested loops (or `if` branches) that may not run in
that iteration (session 29, h7c: check_order._unread_in keeps the
assignment's checks at the assignment for divisions, not only for
subscripts, and for calls). Python raises ZeroDivisionError (ValueError)
at i = 0; the compiled kernel returned a value. Compared with plain Python."""
import math

import numpy as np

from pyhalide import pipeline
from tests.frontend.test_false_errors23 import _outcome


def _same(kernel, f, x):
    want = _outcome(f, x, np.ones(5))
    got = _outcome(kernel, x, np.ones(5))
    if isinstance(want, type):
        assert got is want
    else:
        assert not isinstance(got, type), got
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


_XS = (np.arange(5.0), np.arange(1.0, 6.0), np.arange(-1.0, 4.0))


def used_in_a_zero_trip_loop(x, y):
    s = float(x[0])
    for i in range(x.shape[0]):
        t = 1.0 / s             # Python: ZeroDivisionError at i = 0 for x[0] = 0
        for k in range(i):
            y[k] += t           # no trips at i = 0
        s = s + 1.0
    return y, s


def moving_slice(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        y[:i] += 1.0 / s        # Python float 0.0: ZeroDivisionError at i = 0
        s = s + x[i]            # then a float64
    return y, s


def augmented(x, y):
    s = float(x[0])
    for i in range(x.shape[0]):
        t = 2.0
        t /= s
        for k in range(i):
            y[k] += t
        s = s + 1.0
    return y, s


def math_call(x, y):
    s = float(x[0])
    for i in range(x.shape[0]):
        t = math.sqrt(s)        # Python: ValueError at i = 0 for x[0] < 0
        for k in range(i):
            y[k] += t
        s = s + 1.0
    return y, s


def shift(x, y, d):
    for i in range(x.shape[0]):
        t = 1 << (i - d)        # Python: ValueError at i < d
        for k in range(i):
            y[k] += t
    return y


_ZERO_TRIP = pipeline(used_in_a_zero_trip_loop)
_MOVING = pipeline(moving_slice)
_AUG = pipeline(augmented)
_CALL = pipeline(math_call)
_SHIFT = pipeline(shift)


def test_division_used_only_in_a_zero_trip_loop():
    for x in _XS:
        _same(_ZERO_TRIP, used_in_a_zero_trip_loop, x)


def test_division_in_a_moving_slice_update():
    for x in _XS:
        _same(_MOVING, moving_slice, x)


def test_augmented_division_used_only_in_a_zero_trip_loop():
    for x in _XS:
        _same(_AUG, augmented, x)


def test_math_call_used_only_in_a_zero_trip_loop():
    for x in _XS:
        _same(_CALL, math_call, x)


def test_negative_shift_used_only_in_a_zero_trip_loop():
    for d in (0, 1, 3):
        want = _outcome(shift, np.arange(5.0), np.ones(5), d)
        got = _outcome(_SHIFT, np.arange(5.0), np.ones(5), d)
        if isinstance(want, type):
            assert got is want
        else:
            np.testing.assert_array_equal(got, want)
