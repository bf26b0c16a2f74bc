"""np.median, np.percentile and np.quantile (frontend_ast/array_quantile.py)
compared with NumPy: values, dtypes and scalar types (float32 stays
float32, integers give float64), NaN along an axis, empty axes (NaN for
the median, NumPy's IndexError for percentile), q out of range (ValueError)
and NumPy's integer quirks (the difference of int8 neighbours wraps)."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check
from tests.frontend.located_errors import expect_error

RNG = np.random.default_rng(1617)


def medians(a):
    return np.median(a), np.median(a, axis=0), np.median(a, axis=-1, keepdims=True)


def quantiles(a):
    return (np.percentile(a, 50), np.percentile(a, 95, axis=0), np.quantile(a, 0.3, axis=1),
            np.quantile(a, 1), np.percentile(a, 0, keepdims=True), np.percentile(a, 100),
            np.percentile(a, 12.5, axis=1))


MEDIANS, QUANTILES = ph.pipeline(medians), ph.pipeline(quantiles)


def nan_inf():
    x = RNG.standard_normal((4, 5))
    x[1, 2] = np.nan
    x[2, 0] = np.inf
    x[3, 1] = -np.inf
    return x


# one pipeline of each for every case (the float64 cases run one kernel); the
# int64 case (an integer array interpolated in float64, as the int8 one at its
# limits) is in the slow run (session 27: the default run's budget)
@pytest.mark.parametrize("a", [
    nan_inf(), RNG.standard_normal((5, 4)).astype(np.float32),
    np.array([[-100, 100, 7], [120, -128, 127]], np.int8),
    pytest.param(RNG.integers(0, 9, (4, 4)), marks=pytest.mark.slow),
    np.zeros((0, 3)),
], ids=lambda a: f"{a.dtype}{a.shape}")
def test_equal_numpy(a):
    check(MEDIANS, a)
    check(QUANTILES, a)


def median_of_bools(a):
    return np.median(a > 0), np.median(a[:, :3] > 0, axis=1)


def percentile_out_of_range(a):
    return np.percentile(a, 101)


def test_bools_and_range():
    check(ph.pipeline(median_of_bools), RNG.standard_normal((3, 4)))
    check(ph.pipeline(percentile_out_of_range), RNG.standard_normal(4))


def percentile_runtime_q(a, q):
    return np.percentile(a, q)


def median_of_tuple_axes(a):
    return np.median(a, axis=(0, 1))


def test_refusals_are_located():
    x = RNG.standard_normal((3, 4))
    expect_error(percentile_runtime_q, (x, 5.0), "q)", "constant")
    expect_error(median_of_tuple_axes, (x,), "(0, 1)", "integer")
