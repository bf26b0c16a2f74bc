"""np.log of complex arrays and scalars (glibc's clog, what NumPy calls) and
cmath.log (CPython's): within 2 ulp of NumPy / plain Python on random,
near-unit-circle, huge, subnormal and special values; special values
(signed zeros, infinities, NaN) and exceptions exactly."""
import cmath

import numpy as np
import pytest

import pyhalide as ph

RNG = np.random.default_rng(17)

SPECIAL = [0j, complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0), 1 + 0j, -1 + 0j,
           0.6 + 0.8j, 0.8 - 0.6j, 1 + 1e-20j, 0.99999999 + 1e-4j, 3 - 4j, -2.5 + 1e-5j,
           1e-300 + 1e-300j, 1e-320 + 0j, 5e-324 + 5e-324j, 1e308 + 1e308j, 1.5e308 - 1.7e308j,
           complex(np.inf, 1), complex(-np.inf, 1), complex(np.inf, np.inf),
           complex(-np.inf, -np.inf), complex(np.nan, 1), complex(1, np.nan),
           complex(np.inf, np.nan), complex(np.nan, -np.inf), complex(np.nan, np.nan)]


def values():
    wide = RNG.normal(size=300) * np.exp(RNG.normal(size=300) * 5) + \
        1j * RNG.normal(size=300) * np.exp(RNG.normal(size=300) * 5)
    unit = np.exp(1j * RNG.uniform(-4, 4, 300)) * (1 + RNG.normal(size=300) * 1e-8)
    return np.array(SPECIAL + list(wide) + list(unit))


def ulps(got, exp) -> float:
    """The largest difference of the parts in units of the last place;
    equal parts must have the same sign (zeros, infinities), NaNs match NaNs."""
    got, exp = np.atleast_1d(got), np.atleast_1d(exp)
    assert got.dtype == exp.dtype
    worst = 0.0
    for part in ("real", "imag"):
        g, e = getattr(got, part), getattr(exp, part)
        if not np.array_equal(np.isnan(g), np.isnan(e)):
            return float("inf")
        ok = ~np.isnan(e)
        g, e = g[ok], e[ok]
        exact = (g == e) & (np.signbit(g) == np.signbit(e))
        if not np.all(exact | np.isfinite(e)):
            return float("inf")          # an infinity not matched exactly
        with np.errstate(all="ignore"):
            d = np.where(exact, 0.0, np.abs(g.astype(np.float64) - e) / np.spacing(np.abs(e)))
        worst = max(worst, float(np.max(d, initial=0.0)))
    return worst


@ph.pipeline
def np_log(a):
    return np.log(a)


@ph.pipeline
def np_log_scalar(a, k):
    return np.log(a[k]) * 2


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_np_log_within_two_ulp(dtype):
    a = values()
    with np.errstate(all="ignore"):
        a = a.astype(dtype)
        exp = np.log(a)
    got = np_log(a)
    assert got.dtype == exp.dtype and got.shape == exp.shape
    assert ulps(got, exp) <= 2


def test_np_log_of_an_element():
    a = values()
    for k in (0, 1, 6, 20, 40):
        with np.errstate(all="ignore"):
            exp = np.log(a[k]) * 2
        got = np_log_scalar(a, k)
        assert type(got) is type(exp)
        assert ulps(got, exp) <= 2


@ph.pipeline
def cm_log(z):
    return cmath.log(z)


@ph.pipeline
def cm_log_base(z, b):
    return cmath.log(z, b)


def test_cmath_log_within_two_ulp():
    for z in values():
        z = complex(z)
        if z == 0:
            with pytest.raises(ValueError):
                cm_log(z)
            continue
        got, exp = cm_log(z), cmath.log(z)
        assert type(got) is complex
        assert ulps(got, exp) <= 2, (z, got, exp)


def test_cmath_log_with_base():
    for z, b in ((8 + 0j, 2.0), (1 - 2j, 3 + 1j), (0.5j, 10)):
        assert ulps(cm_log_base(z, b), cmath.log(z, b)) <= 4
    with pytest.raises(ZeroDivisionError):
        cm_log_base(8 + 0j, 1)


@ph.pipeline
def log_in_loop(a):
    s = 0j
    for i in range(a.shape[0]):
        s += cmath.log(a[i] + 1)
    return s


def test_log_in_a_loop():
    a = values()[30:60]
    exp = log_in_loop.py_func(a)
    got = log_in_loop(a)
    assert type(got) is type(exp)
    assert abs(got - exp) <= 1e-12 * abs(exp)
