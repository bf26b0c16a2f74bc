"""Halide 21's remaining public names (pyhalide/halide_math.py and friends):
each JIT result equals the reference evaluator, and Halide 21 itself where
the wheel is installed (importorskip: CI has no Halide)."""
import math

import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check


def _domain(name, dt):
    a = np.linspace(-6, 6, 257).astype(dt)
    a = np.concatenate([a, np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, 1.0, -1.0],
                                    dtype=dt)])
    if name == "acosh":
        a = np.abs(a) + dt(0.5)
    if name == "atanh":
        a = a / dt(6.5)
    return a


def c_math(name, v):
    """C's float64 function (Python's math calls it); its pole/NaN where math raises."""
    try:
        return getattr(math, name)(v)
    except ValueError:
        return math.copysign(math.inf, v) if name == "atanh" and abs(v) == 1 else math.nan


def _one(lib, name, a, vector):
    x = lib.Var("x")
    f = lib.Func("f")
    f[x] = getattr(lib, name)(lib.Buffer(a)[x])
    if vector:
        f.vectorize(x, 8)
    return f


@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh"])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_inverse_hyperbolic_within_half_ulp_of_float64(name, dt):
    a = _domain(name, dt)
    want = np.array([c_math(name, float(v)) for v in a])
    outs = [check(_one(ph, name, a, v), [a.size])[0] for v in (False, True)]
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[0], want.astype(dt))
    assert outs[0].dtype == dt


def test_inverse_hyperbolic_of_an_integer_is_float32():
    x = ph.Var("x")
    f = ph.Func("f")
    f[x] = ph.asinh(x)
    out = check(f, [10])[0]
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.float32([math.asinh(v) for v in range(10)]))


def test_erf_is_halides_approximation():
    a = _domain("erf", np.float32)
    outs = [check(_one(ph, "erf", a, v), [a.size])[0] for v in (False, True)]
    np.testing.assert_array_equal(outs[0], outs[1])
    finite = np.isfinite(a)
    want = np.array([math.erf(float(v)) for v in a[finite]])
    assert np.max(np.abs(outs[0][finite] - want)) < 4e-7
    # Halide's formula: inf - inf in the polynomial for |x| >= ~2^64 (Halide 21 too)
    assert np.isnan(outs[0][np.isinf(a)]).all()


def test_erf_refuses_other_types():
    with pytest.raises(TypeError, match="Float\\(32\\)"):
        ph.erf(ph.cast(ph.Float(64), ph.Var("x")))


@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh", "erf"])
def test_math_equals_halide(name):
    hl = pytest.importorskip("halide")
    a = _domain(name, np.float32)
    ours = check(_one(ph, name, a, True), [a.size])[0]
    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = hl.strict_float(getattr(hl, name)(hl.Buffer(a)[x]))
    theirs = np.asarray(f.realize([a.size]))
    if name == "erf":                     # the same formula in the same order
        np.testing.assert_array_equal(ours, theirs)
    else:                                 # C's asinhf etc.: within 1 ulp
        diff = np.abs(ours.view(np.int32).astype(np.int64) - theirs.view(np.int32))
        assert np.max(diff[np.isfinite(ours)]) <= 1
        np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
