"""np.interp (frontend_ast/array_interp.py) compared with NumPy bit for bit:
x of any shape or a scalar, left/right, repeated sample points, NaN and
infinite values (NumPy's retries where a slope gives NaN), one sample
point, and NumPy's ValueErrors (empty xp, lengths that differ)."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check

RNG = np.random.default_rng(1621)


def interps(x, xp, fp):
    return (np.interp(x, xp, fp), np.interp(x[0], xp, fp), np.interp(x * 2, xp, fp, left=-1.5),
            np.interp(x, xp, fp, right=7), np.interp(0.25, xp, fp, 0, 1))


# one pipeline for every case: the cases of equal types (the float64 ones of
# 2-D x, those of 1-D x) run one kernel
INTERPS = ph.pipeline(interps)
XP = np.array([-2.0, -1.0, -1.0, 0.0, 0.5, 2.0, 3.0])
FP = np.array([1.0, 3.0, -2.0, 0.5, np.inf, 4.0, -1.0])


@pytest.mark.parametrize("x,xp,fp", [
    (RNG.uniform(-3, 4, (5, 6)), XP, FP),
    (np.array([[np.nan, -1.0, 0.0, 3.0, 3.5, -2.0, 0.7]]), XP, np.arange(7.0)),
    (RNG.uniform(-3, 4, 9).astype(np.float32), np.sort(RNG.uniform(-2, 3, 40)),
     RNG.standard_normal(40)),
    (RNG.integers(-3, 4, (2, 3)), np.array([1]), np.array([5.0])),
    (np.array([0.5, 0.25, 2.0]), np.array([0.0, 1.0]), np.array([np.inf, -np.inf])),
    (np.array([0.5, 0.25, 1e308]), np.array([0.0, np.inf]), np.array([0, 1]).astype(np.int32)),
    (np.array([0.5]), np.zeros(0), np.zeros(0)),
    (np.array([0.5]), np.arange(3.0), np.arange(2.0)),
], ids=range(8))
def test_interp_equals_numpy(x, xp, fp):
    check(INTERPS, x, xp, fp)


def searches(a, v):
    return (np.searchsorted(a, v), np.searchsorted(a, v, side="right"), np.searchsorted(a, v[0]),
            np.searchsorted(a, 0.5, "right"), np.searchsorted(a[::2], v * 2))


@pytest.mark.parametrize("a,v", [
    (np.array([-1.0, 0.0, 0.0, 0.5, 2.0, np.inf, np.nan, np.nan]),
     np.array([[0.0, np.nan, -3.0], [2.0, 9.0, np.inf]])),
    (np.sort(RNG.integers(-5, 5, 30)).astype(np.int16), RNG.integers(-6, 6, 7)),
    (np.sort(RNG.standard_normal(100)).astype(np.float32), RNG.standard_normal(12)),
], ids=range(3))
def test_searchsorted_equals_numpy(a, v):
    check(ph.pipeline(searches), a, v)


def test_searchsorted_of_an_empty_array_is_refused_at_call_time():
    with pytest.raises(ValueError, match="empty array is not supported"):
        ph.pipeline(searches)(np.zeros(0), np.array([1.0]))
