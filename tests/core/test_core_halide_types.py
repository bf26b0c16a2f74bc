"""Result types that follow Halide 21 exactly (checked against its Python
bindings): shifts keep the left operand's signedness and take the wider
width; binary math functions take the first argument's (float) type."""
import numpy as np
import pytest

import pyhalide as ph

x = ph.Var("x")


@pytest.mark.parametrize("a,b,want", [
    (ph.i8, ph.i32, ph.Int(32)), (ph.u8, ph.i16, ph.UInt(16)), (ph.i64, ph.u8, ph.Int(64)),
    (ph.u32, ph.i8, ph.UInt(32)), (ph.i16, ph.u64, ph.Int(64))])
def test_shift_types(a, b, want):
    assert (a(x) << b(x)).type() == want
    assert (a(x) >> b(x)).type() == want


def test_shift_with_python_numbers():
    assert (ph.u8(x) << 1).type() == ph.UInt(8)      # the number takes the Expr's type
    assert (1 << ph.u8(x)).type() == ph.Int(32)      # a left number is Int(32), as in Halide


def test_widened_shift_values():
    f = ph.Func("shl")
    f[x] = ph.i8(x + 100) << ph.i32(x + 2)
    np.testing.assert_array_equal(np.asarray(f.realize([3])), [400, 808, 1632])
    g = ph.Func("shr")
    g[x] = ph.u8(x + 200) >> ph.i16(x)
    out = np.asarray(g.realize([3]))
    assert out.dtype == np.uint16
    np.testing.assert_array_equal(out, [200, 100, 50])


def test_binary_math_takes_the_first_arguments_type():
    assert ph.pow(ph.i32(x), ph.f64(x)).type() == ph.Float(32)
    assert ph.pow(ph.f32(x), ph.f64(x)).type() == ph.Float(32)
    assert ph.pow(2, ph.f64(x)).type() == ph.Float(32)
    assert ph.atan2(ph.f64(x), ph.f32(x)).type() == ph.Float(64)
    assert ph.atan2(ph.f32(x), ph.f64(x)).type() == ph.Float(32)
    assert (ph.i32(x) ** 2).type() == ph.Float(32)    # API.md: ** of integers is Float(32)
    f = ph.Func("powf")
    f[x] = ph.pow(ph.i32(x), ph.f64(x) * 0.5)
    want = np.power(np.arange(4, dtype=np.float32), (np.arange(4) * 0.5).astype(np.float32))
    np.testing.assert_allclose(np.asarray(f.realize([4])), want, rtol=2e-7)
