"""Halide's Type API: Type(code, bits, lanes), t.code()/bits()/lanes() as
methods (the same values as the attributes pyhalide reads), with_bits/
with_code, can_represent of a Type, is_max/is_min, Handle as a Type only
(answers as Halide 21's bindings give them), and code written against it
compiled (lesson 14's average, compared with NumPy and the reference)."""
import pickle

import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check


def test_type_constructor_and_methods():
    t = ph.Type(ph.TypeCode.Int, 32, 1)
    assert t == ph.Int(32) and hash(t) == hash(ph.Int(32))
    assert t.code() == ph.TypeCode.Int and t.bits() == 32 and t.lanes() == 1 and t.bytes() == 4
    assert t.bits == 32 and t.code == "int"                     # the attribute spelling
    assert t.with_code(ph.TypeCode.UInt) == ph.UInt(32) and t.with_bits(16) == ph.Int(16)
    assert t.with_lanes(8) == ph.Int(32, 8) and ph.Int(32, 8).element_of() == t
    assert str(ph.Int(32, 8)) == "int32x8"
    assert ph.Type(ph.TypeCode.UInt, 1, 1) == ph.Bool() and ph.Bool().code() == ph.TypeCode.UInt
    assert pickle.loads(pickle.dumps(ph.UInt(16))).bits() == 16


def test_default_type_and_handle():
    d = ph.Type()
    assert d.code() == ph.TypeCode.Handle and d.bits() == 0 and d.lanes() == 0
    h = ph.Handle()
    assert h.is_handle() and h.bits() == 64 and h.same_handle_type(ph.Handle())
    for make in (lambda: ph.Param(h, "p"), lambda: ph.Buffer(h, [4]),
                 lambda: ph.ImageParam(h, 1, "im"), lambda: ph.cast(h, 1)):
        with pytest.raises(NotImplementedError, match="Handle"):
            make()


def test_can_represent_and_extremes():
    b, f32, i32, u32, u8 = ph.Bool(), ph.Float(32), ph.Int(32), ph.UInt(32), ph.UInt(8)
    assert f32.can_represent(b) and not b.can_represent(f32)
    assert i32.can_represent(u8) and not i32.can_represent(u32) and not u32.can_represent(i32)
    assert ph.Float(64).can_represent(i32) and not f32.can_represent(i32)
    assert b.is_max(1) and not b.is_max(2) and b.is_min(0) and not b.is_min(-1)
    assert i32.is_max(2**31 - 1) and i32.is_min(-2**31) and not u32.is_max(2**32)
    assert u32.is_max(2**32 - 1) and u32.is_min(0) and not u32.is_min(1)
    assert not f32.is_max(1)
    assert u8.can_represent(255) and not u8.can_represent(256)     # values as before


def _average(a, b):
    """Lesson 14: the average of two Exprs of any equal numeric type."""
    if a.type().is_float():
        return (a + b) / 2
    narrow = a.type()
    wider = narrow.with_bits(narrow.bits() * 2)
    return ph.cast(narrow, (ph.cast(wider, a) + ph.cast(wider, b)) / 2)


@pytest.mark.parametrize("t", [ph.UInt(8), ph.Int(16), ph.Float(32)])
def test_code_generic_over_types_compiles(t):
    x = ph.Var("x")
    data = (np.arange(200) * 37 % 256).astype(t.to_numpy())
    buf = ph.Buffer(data)
    f = ph.Func("avg")
    f[x] = _average(buf[x], ph.cast(t, 250))
    got = check(f, [200])[0]
    wide = np.float64 if t.is_float() else np.int64
    want = (data.astype(wide) + 250) / 2 if t.is_float() else (data.astype(wide) + 250) // 2
    np.testing.assert_array_equal(got, want.astype(t.to_numpy()))
