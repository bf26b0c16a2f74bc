"""A Python float in a Func-API expression is a Float(32) constant first, then
takes the type of the Expr it meets, as in Halide 21's Python bindings
(double_to_expr_check): `f64_expr * 1.1` multiplies by float32(1.1) widened.
ph.f64(1.1) is the exact double (Halide's f64(double) overload). A Python int
that the float type cannot hold exactly is an error, as Halide's
check_representable. Expected values computed with NumPy; found by the lead's
differential fuzz of Func-API pipelines against Halide 21 (session 20)."""
import warnings

import numpy as np
import pytest

import pyhalide as ph

F32 = float(np.float32(1.1))


def _realize(make):
    x = ph.Var("x")
    f = ph.Func("f")
    e64 = ph.f64(x) * ph.f64(0.25) + ph.f64(0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f[x] = ph.f64(make(x, e64))
    return np.asarray(f.realize([5]))


E64 = np.arange(5) * 0.25 + 0.1


@pytest.mark.parametrize("make, want", [
    (lambda x, e: e * 1.1, E64 * F32),
    (lambda x, e: 1.1 * e, F32 * E64),
    (lambda x, e: e / 0.3, E64 / float(np.float32(0.3))),
    (lambda x, e: 0.1 - e, float(np.float32(0.1)) - E64),
    (lambda x, e: ph.max(e, 0.3), np.maximum(E64, float(np.float32(0.3)))),
    (lambda x, e: ph.clamp(e, 0.1, 0.7), np.clip(E64, float(np.float32(0.1)),
                                                 float(np.float32(0.7)))),
    (lambda x, e: ph.select(e == 0.1, 1.0, 0.0), np.zeros(5)),
    (lambda x, e: ph.cast(ph.Float(64), 0.1) + e * 0, np.full(5, float(np.float32(0.1)))),
    (lambda x, e: ph.f64(0.1) + e * 0, np.full(5, 0.1)),
    (lambda x, e: ph.f64(x) % 0.3, np.mod(np.arange(5.0), float(np.float32(0.3)))),
])
def test_python_float_meets_float64(make, want):
    got = _realize(make)
    assert got.dtype == np.float64
    assert got.tobytes() == np.asarray(want, np.float64).tobytes(), (got, want)


def test_python_float_meeting_float64_warns_when_float32_loses_it():
    e = ph.f64(ph.Var("x"))
    with pytest.warns(RuntimeWarning, match="1.10000000000000009 will be interpreted as a float32"):
        e * 1.1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e * 0.5
        ph.f64(1.1)


@pytest.mark.parametrize("make", [
    lambda x: ph.f32(x) + 16777217,
    lambda x: 16777217 * ph.f32(x),
    lambda x: ph.f64(x) + (2**53 + 1),
])
def test_int_constant_the_float_type_cannot_hold_is_an_error(make):
    with pytest.raises(TypeError, match="Integer constant .* will be implicitly coerced to type "
                                        "float.., which changes its value"):
        make(ph.Var("x"))


def test_int_constant_the_float_type_holds():
    x = ph.Var("x")
    f = ph.Func("f")
    f[x] = ph.f32(x) + 16777216 + (ph.f64(x) + 2**53)
    assert np.array_equal(np.asarray(f.realize([3])), np.arange(3) + 16777216.0 + (np.arange(3) + 2.0**53))
