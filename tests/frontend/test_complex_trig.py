"""np.sin / np.cos of complex values (glibc's csin / ccos, what NumPy calls)
and cmath.sin / cmath.cos (CPython's): within 2 ulp for complex128 and Python
complex (the real sin and cos are lowering/codegen_trig.py's, within 0.55 ulp
where glibc's are nearly correctly rounded) on random values, values past the
overflow scaling (|im| > 709), and every combination of zeros, infinities and
NaN exactly (signs included); complex64 within 2 ulp (computed in float64,
glibc's csinf/ccosf in float); CPython's ValueError and OverflowError where it
raises them."""
import cmath

import numpy as np
import pytest

import pyhalide as ph

from .test_complex_log import ulps

RNG = np.random.default_rng(23)
PARTS = [0.0, -0.0, 1.5, -2.5, 1e-310, 3.0, 700.0, -710.0, 720.0, 1500.0, -2200.0,
         np.inf, -np.inf, np.nan]


def values():
    grid = [complex(a, b) for a in PARTS for b in PARTS]
    wide = RNG.normal(size=300) * 3 + 1j * RNG.normal(size=300) * 3
    return np.array(grid + list(wide))


@ph.pipeline
def np_sin(a):
    return np.sin(a)


@ph.pipeline
def np_cos(a):
    return np.cos(a)


@pytest.mark.parametrize("p, f", [(np_sin, np.sin), (np_cos, np.cos)])
@pytest.mark.parametrize("dtype, bound", [(np.complex128, 2), (np.complex64, 2)])
def test_numpy(p, f, dtype, bound):
    with np.errstate(all="ignore"):
        a = values().astype(dtype)
        exp = f(a)
    got = p(a)
    assert got.dtype == exp.dtype
    assert ulps(got, exp) <= bound


@ph.pipeline
def cm_sin(z):
    return cmath.sin(z)


@ph.pipeline
def cm_cos(z):
    return cmath.cos(z)


@pytest.mark.parametrize("p, f", [(cm_sin, cmath.sin), (cm_cos, cmath.cos)])
def test_cmath(p, f):
    raised = 0
    for z in values():
        z = complex(z)
        try:
            exp = f(z)
        except (ValueError, OverflowError) as e:
            with pytest.raises(type(e)):
                p(z)
            raised += 1
            continue
        got = p(z)
        assert type(got) is complex
        assert ulps(got, exp) <= 2, (z, got, exp)
    assert raised > 0           # the grid reaches both exceptions


@ph.pipeline
def wave(a, k):
    out = np.zeros(a.shape[0], dtype=np.complex128)
    for i in range(a.shape[0]):
        out[i] = cmath.sin(a[i] * k) + np.cos(a[i])
    return out


def test_in_a_loop():
    a = values()[200:240]
    exp = wave.py_func(a, 0.5 + 0.25j)
    got = wave(a, 0.5 + 0.25j)
    assert got.dtype == exp.dtype and ulps(got, exp) <= 2
