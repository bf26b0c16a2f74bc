"""Scans (np.cumsum, np.cumprod and the methods, np.maximum/minimum/add/
multiply.accumulate) against plain Python: values bit for bit (NumPy's
scans are sequential), dtypes, shapes."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check


@ph.pipeline
def cums(a):
    return np.cumsum(a), a.cumsum(axis=0), np.cumprod(a, axis=-1), a.cumprod()


@ph.pipeline
def cum_dtypes(a):
    return np.cumsum(a, dtype=np.int8), a.cumsum(axis=0, dtype=np.float32), \
        np.cumprod(a, dtype=np.uint16)


@ph.pipeline
def accumulates(a):
    return (np.maximum.accumulate(a), np.minimum.accumulate(a, axis=-1),
            np.add.accumulate(a, axis=0), np.multiply.accumulate(a))


@ph.pipeline
def running_peak(a):
    peak = np.maximum.accumulate(a)
    drawdown = (peak - a) / peak
    return drawdown.max()


def _sample(shape, dt, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dt).kind == "f":
        return rng.standard_normal(shape).astype(dt)
    if np.dtype(dt).kind == "b":
        return rng.integers(0, 2, shape).astype(dt)
    return rng.integers(0, 5, shape).astype(dt)


# every dtype compiles its kernels (~1.5 s CPU); int8 (a signed integer summed
# in int64, as int32 here and int16 in test_scans_of_shapes) and uint64 (an
# unsigned integer summed in uint64, as uint8) are in the slow run (session 27:
# the default run's budget)
@pytest.mark.parametrize("dt", [np.bool_, np.uint8, np.int32, np.float32, np.float64] + [
    pytest.param(t, marks=pytest.mark.slow) for t in (np.int8, np.uint64)])
def test_scans_of_dtypes(dt):
    check(cums, _sample((3, 5), dt))
    check(accumulates, _sample((3, 5), dt))
    check(cum_dtypes, _sample((3, 5), dt))


@pytest.mark.parametrize("shape", [(7,), (2, 3, 4), (0, 3), (3, 0), (1, 1)])
def test_scans_of_shapes(shape):
    check(cums, _sample(shape, np.int16))
    check(accumulates, _sample(shape, np.float64))


def test_scan_nan_and_wrap():
    a = np.array([[1.0, np.nan, 3.0], [-0.0, 0.0, -1.0]])
    check(accumulates, a)
    check(cums, a)
    check(cum_dtypes, np.full((2, 100), 100, np.int16))


def test_scan_feeds_array_code():
    check(running_peak, np.array([1.0, 3.0, 2.0, 5.0, 1.0, 4.0]))


@ph.pipeline
def scan_of_scalar(x):
    return np.cumsum(x), np.cumprod(x, axis=None)


def test_scan_of_scalar():
    check(scan_of_scalar, 3)
    check(scan_of_scalar, 2.5)


def test_scan_is_a_serial_update_a_schedule_names():
    @ph.pipeline
    def cs(a):
        c = np.cumsum(a, axis=1)
        return c

    @cs.schedule
    def _(p):
        f = p.funcs["c"]
        y = p.vars["c", "axis1"]
        assert y.name().startswith("r_")
        rows = f.args()[1]                      # the pure Var of axis 0
        f.compute_root().parallel(rows)
        f.update(0).parallel(rows)

    check(cs, _sample((4, 6), np.int32))
