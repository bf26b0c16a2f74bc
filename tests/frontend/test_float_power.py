"""np.float_power: pow of the operands in float64 (NumPy's dtype for every
real input), bit for bit with NumPy, special values included; unlike
np.power its loop has no square-root path for an exponent of 0.5."""
from __future__ import annotations

import numpy as np

import pyhalide as ph
from tests.frontend.test_reduction_speed_paths import same_bits


@ph.pipeline
def powers(a, b):
    return np.float_power(a, b), np.float_power(a, 0.5), np.float_power(a, 2), \
        np.float_power(3, b)


@ph.pipeline
def narrow(i, x):
    return np.float_power(i, 3), np.float_power(x, -1.5), np.float_power(x, i)


def test_float_power_float64_and_special_values():
    rng = np.random.default_rng(0)
    a = rng.standard_normal(60) * 3
    b = rng.standard_normal(60) * 2
    a[:6] = [-0.0, -np.inf, np.inf, np.nan, 0.0, -1.0]
    b[:6] = [0.5, 0.5, -0.5, 2.0, -1.0, np.inf]
    with np.errstate(all="ignore"):
        want = (np.float_power(a, b), np.float_power(a, 0.5), np.float_power(a, 2),
                np.float_power(3, b))
    for got, w in zip(powers(a, b), want):
        assert same_bits(got, w)


def test_float_power_of_integers_and_float32_is_float64():
    rng = np.random.default_rng(1)
    i = np.arange(-5, 5, dtype=np.int32)
    x = (rng.random(10) * 4).astype(np.float32)
    with np.errstate(all="ignore"):
        want = (np.float_power(i, 3), np.float_power(x, -1.5), np.float_power(x, i))
    for got, w in zip(narrow(i, x), want):
        assert got.dtype == np.float64 and same_bits(got, w)
