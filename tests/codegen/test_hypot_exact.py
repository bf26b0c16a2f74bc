"""np.hypot and builtin abs() of complex scalars give C's hypot bit for bit
(complex_values.hypot_node: glibc 2.35+'s algorithm, correctly rounded, as
vector code, no libm call): random, subnormal, huge, mixed-scale, infinite and
NaN operands, Pythagorean triples and results within 2**-20 ulp of a rounding
midpoint. np.abs of complex arrays is NumPy's own vector formula (larger *
sqrt(fma(r, r, 1))), not hypot: compared with np.abs."""
import math
import platform
from decimal import Decimal, getcontext

import numpy as np
import pytest

import pyhalide as ph

_libc, _ver = platform.libc_ver()
pytestmark = pytest.mark.skipif(
    _libc != "glibc" or tuple(int(p) for p in _ver.split(".")[:2]) < (2, 35),
    reason="C's hypot is glibc 2.35+'s correctly rounded one only there")


def _same(got, exp):
    """Bit-identical float arrays (NaNs anywhere NaN)."""
    got, exp = np.asarray(got), np.asarray(exp)
    assert got.dtype == exp.dtype and got.shape == exp.shape
    nan = np.isnan(exp)
    assert np.array_equal(np.isnan(got), nan)
    bad = np.nonzero(got[~nan].view(np.uint64 if got.dtype == np.float64 else np.uint32)
                     != exp[~nan].view(np.uint64 if exp.dtype == np.float64 else np.uint32))[0]
    assert bad.size == 0, (bad.size, got[~nan][bad[:5]], exp[~nan][bad[:5]])


def _near_midpoints(rng, n):
    """(x, y) whose hypot lies within about (y/x)**2 ulp of a midpoint
    between two doubles: x below a midpoint m, y the double nearest
    sqrt(m*m - x*x), y/x from 2**-26 to 2**-4."""
    getcontext().prec = 60
    xs, ys = [], []
    for k in range(n):
        d = float(np.ldexp(1.0 + rng.random(), int(rng.integers(-400, 400))))
        m = Decimal(d) + Decimal(np.spacing(d)) / 2
        ratio = 2.0 ** -float(rng.integers(4, 27))
        y = float(m) * ratio * (1 + rng.random())
        x = float((m * m - Decimal(y) ** 2).sqrt())
        yd = float((m * m - Decimal(x) ** 2).sqrt())
        xs.append(x)
        ys.append(yd)
    return np.array(xs), np.array(ys)


def _operands(seed=5, n=3000):
    rng = np.random.default_rng(seed)
    scales = [1.0, 1e-300, 1e300, 1e-310, 2.0 ** -459, 2.0 ** -510, 2.0 ** 511, 2.0 ** 600]
    xs, ys = [], []
    for s in scales:
        xs.append(rng.standard_normal(n) * s)
        ys.append(rng.standard_normal(n) * s)
    xs.append(np.ldexp(rng.random(n), rng.integers(-1074, 1024, n)))
    ys.append(np.ldexp(rng.random(n), rng.integers(-1074, 1024, n)))
    x = np.concatenate(xs)
    ratio = rng.choice([1.0, 0.5, 2.0 ** -26, 2.0 ** -27, 2.0 ** -53, 2.0 ** -54, 2.0 ** -55,
                        1 + 2.0 ** -52], x.size)
    mx, my = _near_midpoints(rng, 400)
    k = np.arange(-1074, 1020, 7, dtype=np.int64)
    tx, ty = np.ldexp(3.0, k - 2), np.ldexp(4.0, k - 2)       # (3, 4, 5) * 2**k
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, 5e-324, 1.7976931348623157e308])
    sx, sy = np.meshgrid(special, special)
    y = np.concatenate(ys)
    x, y = np.concatenate([x, x, mx, tx, sx.ravel()]), \
        np.concatenate([y, x * ratio, my, ty, sy.ravel()])
    return np.concatenate([x, y]), np.concatenate([y, x])        # both orders

@ph.pipeline
def _np_hypot(x, y):
    return np.hypot(x, y)


@ph.pipeline
def _abs_each(z):
    out = np.empty(z.shape[0])
    for i in range(z.shape[0]):
        out[i] = abs(z[i])
    return out


@ph.pipeline
def _np_abs(z):
    return np.abs(z)


def test_np_hypot_float64_is_c_hypot():
    x, y = _operands()
    with np.errstate(all="ignore"):
        _same(_np_hypot(x, y), np.hypot(x, y))
        _same(_np_hypot(x[:5], y[:5]), np.hypot(x[:5], y[:5]))      # scalar tail only


def test_np_hypot_float32_and_mixed():
    x, y = _operands(seed=6, n=500)
    with np.errstate(all="ignore"):
        x32, y32 = x.astype(np.float32), y.astype(np.float32)
        _same(_np_hypot(x32, y32), np.hypot(x32, y32))
        ints = np.arange(-50, 50, dtype=np.int32)
        _same(_np_hypot(ints, ints[::-1].copy()), np.hypot(ints, ints[::-1]))


def test_builtin_abs_of_complex_is_c_hypot():
    x, y = _operands(seed=7, n=1000)
    z = np.empty(x.size, np.complex128)
    z.real, z.imag = x, y
    with np.errstate(all="ignore"):
        _same(_abs_each(z), np.array([abs(v) for v in z]))


def test_np_abs_of_complex_is_numpys_formula():
    x, y = _operands(seed=8, n=500)
    z = np.empty(x.size, np.complex128)
    z.real, z.imag = x, y
    with np.errstate(all="ignore"):
        _same(_np_abs(z), np.abs(z))
        _same(_np_abs(z[::3]), np.abs(z[::3]))
        c64 = z.astype(np.complex64)
        _same(_np_abs(c64), np.abs(c64))


@ph.pipeline
def _math_hypot_each(x, y):
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = math.hypot(x[i], y[i])
    return out


def test_math_hypot_is_cpythons():
    """math.hypot is CPython's own algorithm (not C's hypot: they differ in
    about 0.6% of random pairs), also for subnormal magnitudes."""
    x, y = _operands(seed=9, n=1500)
    with np.errstate(all="ignore"):
        ok = np.isfinite(np.hypot(x, y)) | ~np.isfinite(x) | ~np.isfinite(y)
    x, y = x[ok], y[ok]
    rng = np.random.default_rng(10)
    sub = np.ldexp(rng.random((2, 3000)), rng.integers(-1074, -1020, (2, 3000)))
    x, y = np.concatenate([x, sub[0], rng.standard_normal(20000)]), \
        np.concatenate([y, sub[1], rng.standard_normal(20000)])
    exp = np.fromiter(map(math.hypot, x.tolist(), y.tolist()), float, x.size)
    assert (exp != np.hypot(x, y)).any()          # the case this test is about
    _same(_math_hypot_each(x, y), exp)


def test_math_hypot_overflow_gives_inf():
    """CPython's math.hypot raises nothing: finite arguments past the float
    range give inf (as an infinite argument does, also with a NaN)."""
    x, y = np.array([1.7e308, 3.0, np.inf, np.nan]), np.array([1.7e308, 4.0, np.nan, 1.0])
    exp = np.array([math.hypot(a, b) for a, b in zip(x.tolist(), y.tolist())])
    _same(_math_hypot_each(x, y), exp)
