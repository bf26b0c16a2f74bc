"""codegen_ops makes each LLVM type and constant once (llvm_type,
const_scalar, const, vector_const, index_vector) and hands out the same
object again: llvmlite keeps the text of a type or constant in the object,
so a new object per use was printed anew. Constants are told apart by their
exact value (floats by their bits: 0.0 and -0.0, NaN), their pyhalide type
(int8 -1 and uint8 255 print alike but stay apart) and their lanes; results
with such constants in vector code equal NumPy's."""
import math

import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir
from pyhalide.lowering import codegen_ops as ops


def test_the_same_constant_is_the_same_object():
    t = ir.Float(32, 16)
    assert ops.const(t, 1.5) is ops.const(t, 1.5)
    assert ops.const(ir.Int(32), 7) is ops.const(ir.Int(32), 7)
    assert ops.vector_const(ir.Int(32, 8), range(8)) is ops.vector_const(ir.Int(32, 8), range(8))
    assert ops.index_vector([3, 1, 2]) is ops.index_vector((3, 1, 2))
    assert ops.llvm_type(ir.Float(64, 4)) is ops.llvm_type(ir.Float(64, 4))


def test_exact_values_stay_apart():
    for t in (ir.Float(32), ir.Float(64), ir.Float(32, 8), ir.Float(64, 4)):
        pos, neg = ops.const(t, 0.0), ops.const(t, -0.0)
        assert pos is not neg and str(pos) != str(neg)
        assert ops.const(t, math.nan) is ops.const(t, float("nan"))
        assert str(ops.const(t, math.inf)) != str(ops.const(t, -math.inf))
    assert ops.const(ir.Int(8), -1) is not ops.const(ir.UInt(8), 255)
    assert str(ops.const(ir.Int(8), -1)) == str(ops.const(ir.UInt(8), 255)) == "i8 -1"
    assert ops.const(ir.Int(32, 4), 1) is not ops.const(ir.Int(32, 8), 1)
    assert ops.const(ir.Bool(), True) is ops.const(ir.Bool(), 5)
    lanes = str(ops.vector_const(ir.Float(32, 4), [0.0, -0.0, 1.0, -0.0])).split(",")
    assert ["0x8000000000000000" in lane for lane in lanes] == [False, True, False, True]
    assert ops.vector_const(ir.Int(16, 4), range(4)) is not \
        ops.vector_const(ir.UInt(16, 4), range(4))


@pytest.mark.parametrize("lanes", [4, 8, 16])
def test_signed_zero_constants_in_vector_code(lanes):
    n = 64
    data = np.linspace(-3, 3, n).astype(np.float32)
    a = ph.Buffer(data, "cc_a")
    x = ph.Var("x")
    f = ph.Func("cc_f")
    f[x] = ph.select(x % 2 == 0, a[x] / ph.f32(-0.0), a[x] / ph.f32(0.0)) + \
        ph.cast(ph.Float(32), x) * ph.f32(-0.0)
    f.vectorize(x, lanes)
    got = np.asarray(f.realize([n]))
    xs = np.arange(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        want = np.where(xs % 2 == 0, data / np.float32(-0.0), data / np.float32(0.0)) + \
            xs.astype(np.float32) * np.float32(-0.0)
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))


def test_ramps_of_every_lane_type():
    n = 40
    x = ph.Var("x")
    for t, dt in ((ph.Int(16), np.int16), (ph.UInt(8), np.uint8), (ph.Float(64), np.float64)):
        f = ph.Func(f"cc_ramp_{dt.__name__}")
        f[x] = ph.cast(t, x * 3 + 1)
        f.vectorize(x, 8)
        got = np.asarray(f.realize([n]))
        np.testing.assert_array_equal(got, (np.arange(n) * 3 + 1).astype(dt))
