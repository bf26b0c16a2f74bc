"""math.* on scalars in @pipeline functions (frontend_ast/math_scalars.py):
Python's result types (math.floor gives an int), values (exact for the
correctly rounded functions, within 2 ulp for log2/log10/hypot) and the
errors CPython raises instead of returning NaN or inf (ValueError,
OverflowError, ZeroDivisionError)."""
import math

import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import run_plain


def _defs(source):
    """@pipeline functions f0, f1, ... of one line each, defined in this file
    (their source is read from it)."""
    return [globals()[f"{source}{k}"] for k in range(100) if f"{source}{k}" in globals()]


# one function per math function (each compiled on its own)
@ph.pipeline
def u0(x): return math.sqrt(x)        # noqa: E704
@ph.pipeline
def u1(x): return math.exp(x)         # noqa: E704
@ph.pipeline
def u2(x): return math.log(x)         # noqa: E704
@ph.pipeline
def u3(x): return math.sin(x)         # noqa: E704
@ph.pipeline
def u4(x): return math.cos(x)         # noqa: E704
@ph.pipeline
def u5(x): return math.tan(x)         # noqa: E704
@ph.pipeline
def u6(x): return math.fabs(x)        # noqa: E704
@ph.pipeline
def u7(x): return math.asin(x)        # noqa: E704
@ph.pipeline
def u8(x): return math.sinh(x)        # noqa: E704
@ph.pipeline
def u9(x): return math.degrees(x)     # noqa: E704
@ph.pipeline
def u10(x): return math.radians(x)    # noqa: E704
@ph.pipeline
def i0(x): return math.floor(x)       # noqa: E704
@ph.pipeline
def i1(x): return math.ceil(x)        # noqa: E704
@ph.pipeline
def i2(x): return math.trunc(x)       # noqa: E704
@ph.pipeline
def b0(x, y): return math.pow(x, y)       # noqa: E704
@ph.pipeline
def b1(x, y): return math.atan2(x, y)     # noqa: E704
@ph.pipeline
def b2(x, y): return math.copysign(x, y)  # noqa: E704
@ph.pipeline
def b3(x, y): return math.fmod(x, y)      # noqa: E704
@ph.pipeline
def b4(x, y): return math.log(x, y)       # noqa: E704
@ph.pipeline
def n0(x): return math.log2(x)            # noqa: E704
@ph.pipeline
def n1(x): return math.log10(x)           # noqa: E704
@ph.pipeline
def n2(x, y): return math.hypot(x, y)     # noqa: E704


@ph.pipeline
def predicates(x):
    return math.isnan(x), math.isinf(x), math.isfinite(x)


@ph.pipeline
def constants(x):
    return math.pi * x, math.e, math.tau, math.inf, -math.inf < x


@ph.pipeline
def nan_constant(x):
    return math.nan


@ph.pipeline
def in_loop(a):
    s = 0.0
    for x in a:
        s += math.sqrt(x) + math.floor(x)
    return s


_X = [0.0, -0.0, 0.5, 1.0, -1.0, 2.5, -2.5, 8.0, 1000.0, -1000.0, 1e300, 1e-310,
      math.inf, -math.inf, math.nan]


def _same(p, *args, ulps=0):
    try:
        exp = run_plain(p, *args)
    except (ValueError, OverflowError, ZeroDivisionError) as e:
        with pytest.raises(type(e)):
            p(*args)
        return
    got = p(*args)
    assert type(got) is type(exp), (args, got, exp)
    if isinstance(exp, float) and not (math.isnan(exp) and math.isnan(got)):
        if ulps == 0 or math.isinf(exp):
            assert got == exp and math.copysign(1, got) == math.copysign(1, exp), (args, got, exp)
        else:
            assert abs(got - exp) <= ulps * math.ulp(exp), (args, got, exp)
    else:
        assert got == exp or (got != got and exp != exp), (args, got, exp)


@pytest.mark.parametrize("p", _defs("u"), ids=lambda p: p.__name__)
def test_unary(p):
    for x in _X:
        _same(p, x)


@pytest.mark.parametrize("p", _defs("i"), ids=lambda p: p.__name__)
def test_to_int(p):
    # (a result beyond int64 is an OverflowError: Python ints are kept in int64)
    for x in [v for v in _X if v != 1e300] + [7, -3, 2.0 ** 62]:
        _same(p, x)


def test_predicates():
    for x in _X + [3]:
        _same(predicates, x)


@pytest.mark.parametrize("p", _defs("b"), ids=lambda p: p.__name__)
def test_binary(p):
    vals = [0.0, -0.0, 0.5, 2.0, -1.0, -8.0, 3.0, 10.0, 400.0, -400.0, 1.0, math.inf,
            -math.inf, math.nan]
    for x in vals:
        for y in vals:
            _same(p, x, y)


def test_logs_and_hypot():
    xs = [0.0, -1.0, 1.0, 2.0, 3.0, 8.0, 1024.0, 1000.0, 1e23, 1e-300, 0.1, 1e308, 1e-320,
          math.inf, math.nan]
    for x in xs:
        _same(n0, x, ulps=2)
        _same(n1, x, ulps=2)
        for y in (1e308, 4.0, math.nan, math.inf, -0.0):
            _same(n2, x, y, ulps=2)
    for x in (1.0, 2.0, 8.0, 2.0 ** 40, 2.0 ** -1000):    # exact at powers of two
        assert n0(x) == math.log2(x)
    for x in (1.0, 10.0, 1000.0, 1e22):
        assert n1(x) == math.log10(x)


def test_constants():
    _same(constants, 2.0)
    assert math.isnan(nan_constant(1.0))


def test_in_loop():
    _same(in_loop, np.array([0.0, 2.25, 9.0]))
    _same(in_loop, np.array([4.0, -1.0]))             # ValueError inside the loop
