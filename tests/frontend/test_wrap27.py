"""Loops near the ends of int32 (session 27): plain Python is the oracle.

- A loop relative to its start (emit.relative_rdom) whose start can be 2**31
  or more past its stop: trim_no_ops took `start + r < stop` as `r < stop -
  start`, an int32 difference that wrapped, so the empty range ran
  iterations. With bounds over array sizes only, an array made with
  np.broadcast_to (no memory) reaches it: `range(max(i, len(z)), min(i +
  len(x), i - len(z)))` with len(z) = 2**30 + 5 gave 489.0 (Python 0.0).
  With int arguments and step -2 (h3's fuzz qf2, seed 5): `range(max(hi, hi +
  i), max(hi, lo - 3), -2)` at lo = 3, hi = -2**31 gave 5.0 (Python 0.0).
- A max (min) of an int argument far outside int32 and an int32 value
  (loop_bounds.affine_bounds): `range(max(lo, i), 1, -1)` at lo = -2**40
  raised OverflowError (Python runs it).
"""
from __future__ import annotations

import numpy as np
import pytest

import pyhalide as ph

BIG = 2**30 + 5


def _big(n):
    """A read-only uint8 array of n elements that takes no memory."""
    return np.broadcast_to(np.zeros(1, np.uint8), (n,))


def shape_up(x, y, z):
    s = 0.0
    for i in range(len(y)):
        for j in range(max(i, len(z)), min(i + len(x), i - len(z))):
            s += x[j % len(x)] * (j % 7) + 1.0
    return s


def shape_down(x, y, z):
    s = 0.0
    for i in range(len(y)):
        for j in range(min(-i, -len(z)), max(-i - len(x), len(z) - i), -1):
            s += x[j % len(x)] * (j % 7) + 1.0
    return s


def step2_down(a, lo, hi):
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(max(hi, hi + i), max(hi, lo - 3), -2):
            s += a[j % n] * (j % 7) + 1.0
    return s


def step2_apart(a, lo, hi):
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(i + lo, lo - i, -2):
            s += a[j % n] * (j % 7) + 1.0
    return s


def max_of_far(a, lo):
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(max(lo, i), 1, -1):
            s += a[j % n] * (j % 7) + 1.0
    return s


def min_of_far(a, lo):
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(min(lo - i, i + 3), i + 1, -1):
            s += a[j % n] * (j % 7) + 1.0
    return s


@pytest.mark.parametrize("f", [shape_up, shape_down])
def test_empty_range_far_past_its_stop_over_array_sizes(f):
    p = ph.pipeline(f)
    for n, m, q in [(10, 3, BIG), (3, 2, BIG), (4, 1, BIG), (10, 3, 2), (5, 4, 0)]:
        x, y, z = np.arange(n * 1.0), np.zeros(m), _big(q)
        assert p(x, y, z) == f(x, y, z), (n, m, q)


LIMITS = [3, -2, 0, 2**31 - 1, -2**31, 2**31, -2**31 + 3, 2**31 - 4]


def test_step2_empty_range_near_int32_ends():
    p = ph.pipeline(step2_down)
    a = np.arange(4.0)
    for lo in LIMITS:
        for hi in LIMITS:
            if hi + a.shape[0] - 1 > 2**31 - 1:
                # (hi + i leaves int32: a located OverflowError, as on main)
                with pytest.raises(OverflowError, match="line"):
                    p(a, lo, hi)
                continue
            assert p(a, lo, hi) == step2_down(a, lo, hi), (lo, hi)


def test_step2_never_a_different_value():
    # (lo = -2**31 + 3: a located OverflowError where Python returns 20.0; on
    # session 26's main 24.0)
    p = ph.pipeline(step2_apart)
    a = np.arange(4.0)
    for lo in LIMITS:
        want = step2_apart(a, lo, 0)
        try:
            got = p(a, lo, 0)
        except OverflowError:
            assert abs(lo) > 2**30, lo
            continue
        assert got == want, lo


@pytest.mark.parametrize("f, los", [(max_of_far, [-2**40, -2**31, -3, 0, 3]),
                                    (min_of_far, [2**40, 2**31 - 1, 3, 0])])
def test_max_of_an_argument_far_outside_int32(f, los):
    p = ph.pipeline(f)
    for n in (6, 1):
        a = np.arange(n * 1.0)
        for lo in los:
            assert p(a, lo) == f(a, lo), (n, lo)


def hull_down(a, lo, hi):
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(min(lo + 3, hi), i + 1, -1):
            for k in range(lo - j, n, 1):
                s += a[k % n] * (k % 7) + 1.0
    return s


def test_descending_hull_start_far_below_its_top():
    # (h3's 3-level fuzz qf3, seed 2: main gave 154.0, 568.0, 792.0 where
    # Python runs nothing: trim_no_ops' r >= top - start wrapped)
    p = ph.pipeline(hull_down)
    a = np.arange(4.0)
    for lo in (0, 3, 2**31 - 4, -2):
        for hi in (-2**31, -2**31 + 1, -2**31 + 3, -2, 5):
            assert p(a, lo, hi) == hull_down(a, lo, hi), (lo, hi)
