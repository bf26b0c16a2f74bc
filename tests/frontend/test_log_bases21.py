"""np.log2 / np.log10 as the intrinsics "log2" / "log10" (lowering/
codegen_logbase.py: the table log's unrounded pair times 1/ln b in two parts),
float64 and float32 (in float32 arithmetic): the correctly rounded result in
nearly every element (the oracle: NumPy's long double log2/log10 for float64,
its float64 ones for float32, rounded once), within 1 ulp of it everywhere,
exact at powers of the base, NumPy's special values, and the same bits for a
scalar (a call of the scalar function) as for vector lanes."""
import numpy as np
import pytest

import pyhalide as ph

from .test_log_bases20 import log2, log10

FUNCS = {log2: np.log2, log10: np.log10}


def correctly_rounded(f, x):
    wide = np.longdouble if x.dtype == np.float64 else np.float64
    return FUNCS[f](x.astype(wide)).astype(x.dtype)


def ulps(got, want):
    it = np.int64 if got.dtype == np.float64 else np.int32
    return np.abs(got.view(it).astype(np.int64) - want.view(it).astype(np.int64))


def samples(dtype):
    rng = np.random.default_rng(21)
    lo, hi = (-700, 700) if dtype == np.float64 else (-85, 85)
    parts = [np.exp(rng.uniform(lo, hi, 100000)), rng.uniform(0, 10, 100000),
             rng.uniform(0.5, 2, 100000), 1 + rng.uniform(-1e-3, 1e-3, 20000)]
    return np.concatenate(parts).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kernel", [log2, log10])
def test_correctly_rounded_nearly_everywhere(kernel, dtype):
    x = samples(dtype)
    got = ph.pipeline(kernel)(x)
    assert got.dtype == dtype
    want = correctly_rounded(kernel, x)
    assert ulps(got, want).max() <= 1
    # float64: 0.04% differ, partly the oracle's own double rounding (long
    # double to double); float32: 0.01%
    assert np.mean(got != want) < 1e-3
    # NumPy's own (SVML on AVX-512) differs from the correctly rounded result
    # in more elements; within 4 ulp of ours
    assert ulps(got, kernel(x)).max() <= 4


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_powers_of_the_base_are_exact(dtype):
    fi = np.finfo(dtype)
    ks = np.arange(fi.minexp - fi.nmant, fi.maxexp)
    x = np.ldexp(np.ones(len(ks), dtype), ks.astype(np.int32)).astype(dtype)
    assert np.array_equal(ph.pipeline(log2)(x), ks.astype(dtype))
    tens = np.arange(0, 23 if dtype == np.float64 else 11)
    x = (10.0 ** tens).astype(dtype)
    assert np.array_equal(ph.pipeline(log10)(x), tens.astype(dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kernel", [log2, log10])
def test_special_values_and_subnormals(kernel, dtype):
    fi = np.finfo(dtype)
    sp = np.array([0.0, -0.0, -1.0, np.inf, -np.inf, np.nan, 1.0, 0.5, -fi.smallest_subnormal],
                  dtype)
    with np.errstate(all="ignore"):
        got, want = ph.pipeline(kernel)(sp), kernel(sp)
    assert np.array_equal(got, want, equal_nan=True), (got, want)
    ends = np.array([fi.max, fi.tiny, fi.smallest_subnormal], dtype)
    assert ulps(ph.pipeline(kernel)(ends), correctly_rounded(kernel, ends)).max() == 0
    sub = np.random.default_rng(4).uniform(0, float(fi.tiny), 20000).astype(dtype)
    got = ph.pipeline(kernel)(sub)
    want = correctly_rounded(kernel, sub)
    assert ulps(got, want).max() <= 1 and np.mean(got != want) < 1e-3


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kernel", [log2, log10])
def test_scalar_equals_vector_lanes(kernel, dtype):
    x = samples(dtype)[::997]
    vec = ph.pipeline(kernel)(x)
    p = ph.pipeline(kernel)
    one = np.array([p(v) for v in x], dtype)
    assert np.array_equal(one, vec)


def test_math_log2_log10_scalars():
    import math

    def f(x):
        return math.log2(x) + math.log10(x)
    p = ph.pipeline(f)
    for v in (3.0, 1000.0, 2.0 ** -1070, 0.1, 7.5e300):
        assert p(v) == f(v)
