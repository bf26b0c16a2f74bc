"""np.clip where an element ties a bound: NumPy's loop with both bounds at
stride 0 keeps x (the sign of a zero), its general loop takes the bound,
and with one bound NumPy calls np.maximum / np.minimum
(frontend_ast/clip_ties.py). Each result is compared with NumPy bit for bit,
signs of zeros included."""
import numpy as np
import pytest

import pyhalide as ph


def clip_arrays(x, lo, hi):
    return np.clip(x, lo, hi)


def clip_low(x, lo):
    return np.clip(x, lo, 255.0)


def clip_max_only(x):
    return x.clip(None, -0.0)


def clip_min_only(x):
    return np.clip(x, 0.0, None)


ARRAYS = ph.pipeline(clip_arrays)
LOW = ph.pipeline(clip_low)


def _same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert np.array_equal(np.signbit(got), np.signbit(want)) and np.array_equal(got, want)


def _zeros(shape, sign):
    return np.full(shape, sign * 0.0)


@pytest.mark.parametrize("xs, ls, hs", [
    ((4, 1, 4), (3, 4), None),      # array fuzz seed 72809: a bound of fewer axes
    ((4, 5), (5,), None),
    ((4, 5), (4, 1), None),         # constant along the last axis, a short line
    ((4, 5), (1, 1), None),         # one element: stride 0
    ((1,), (1,), None),             # NumPy's trivial loop: the bound's own stride
    ((1, 1), (1, 1), (1,)),
    ((3, 4097), (3, 1), None),      # a line NumPy does not buffer
    ((3, 2731), (3, 1), (3, 1)),    # two bounds buffered: lines over 8192 // 3
    ((3, 2730), (3, 1), (3, 1)),
])
def test_ties_take_numpys_loop(xs, ls, hs):
    x = _zeros(xs, -1)
    lo = _zeros(ls, 1)
    hi = 255.0 if hs is None else np.full(hs, 255.0)
    _same_bits(ARRAYS(x, lo, hi), np.clip(x, lo, hi))
    x2 = _zeros(xs, 1)
    lo2 = _zeros(ls, -1)
    _same_bits(ARRAYS(x2, lo2, hi), np.clip(x2, lo2, hi))


def test_python_bound_keeps_x():
    x = np.array([-0.0, 0.0, 3.0, -0.0])
    _same_bits(LOW(x, 0.0), np.clip(x, 0.0, 255.0))
    _same_bits(LOW(x, -0.0), np.clip(x, -0.0, 255.0))


@pytest.mark.parametrize("fn, sign", [(clip_max_only, 1), (clip_min_only, -1)])
def test_one_bound_is_maximum_or_minimum(fn, sign):
    x = _zeros(6, sign)
    _same_bits(ph.pipeline(fn)(x), fn(x))
