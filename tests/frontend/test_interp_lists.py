"""np.interp with xp and fp written as list or tuple literals (the arrays
np.asarray makes of them: floats, ints, scalar arguments among them), as
NumPy computes it, bit for bit."""
from __future__ import annotations

import numpy as np

import pyhalide as ph
from tests.frontend.test_reduction_speed_paths import same_bits


@ph.pipeline
def piecewise(x, s):
    return np.interp(x, [0.0, 1.0, 2.0], [10.0, 20.0, 0.0]), \
        np.interp(x, (0, 2, 3), fp=[1, s, -1]), \
        np.interp(x, xp=[-1.0, s], fp=(0.5, 4.0), left=-7.0)


def _numpy(x, s):
    return np.interp(x, [0.0, 1.0, 2.0], [10.0, 20.0, 0.0]), \
        np.interp(x, (0, 2, 3), fp=[1, s, -1]), \
        np.interp(x, xp=[-1.0, s], fp=(0.5, 4.0), left=-7.0)


def test_interp_of_list_literals():
    x = np.concatenate([np.linspace(-2.0, 4.0, 41), [np.nan, np.inf, -np.inf, 1.0, 2.0]])
    for s in (2.5, 0.25):
        for got, want in zip(piecewise(x, s), _numpy(x, s)):
            assert same_bits(got, want)
