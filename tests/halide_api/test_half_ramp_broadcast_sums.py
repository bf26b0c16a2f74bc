"""Upsampling loads whose index is a tree of Adds with several broadcast terms
around the half ramp (`x8(row) + ramp(b, 1, 8) / 2 + x8(plane) + x8(1)`, as
local Laplacian's and interpolate's `lerp(f[(x + 1) / 2, (y + 1) / 2, k], ...)`
lower) are two dense loads interleaved, not a gather
(half_ramp_loads._broadcast_sum): values against NumPy, in 3-D with a
boundary condition, negative numerators and a tail; and the index forms
half_ramp_index / clamped_ramp_index take."""
import numpy as np
import pytest

import pyhalide as hl
from pyhalide import ir
from pyhalide.lowering.half_ramp_loads import clamped_ramp_index, half_ramp_index


@pytest.mark.parametrize("lanes", [8, 16])
def test_upsample_lerp_3d(lanes):
    rng = np.random.default_rng(lanes)
    k_, h, w = 3, 9, 23
    a = rng.random((k_, h, w), dtype=np.float32)
    x, y, k = hl.Var("x"), hl.Var("y"), hl.Var("k")
    src = hl.Func("src")
    src[x, y, k] = hl.BoundaryConditions.repeat_edge(hl.Buffer(a))[x, y, k]
    src.compute_root()
    upx, out = hl.Func("upx"), hl.Func("out")
    upx[x, y, k] = hl.lerp(src[(x + 1) // 2, y, k], src[(x - 1) // 2, y, k],
                           ((x % 2) * 2 + 1) / 4.0)
    out[x, y, k] = hl.lerp(upx[x, (y + 1) // 2, k], upx[x, (y - 1) // 2, k],
                           ((y % 2) * 2 + 1) / 4.0) + src[x, y, k]
    out.vectorize(x, lanes)
    W, H = 2 * w + 3, 2 * h - 1
    got = np.asarray(out.realize([W, H, k_]))

    def s(xx, yy):
        return a[:, np.clip(yy, 0, h - 1)][:, :, np.clip(xx, 0, w - 1)]
    xs, ys = np.arange(W), np.arange(H)
    wx = ((xs % 2) * 2 + 1).astype(np.float32) / np.float32(4)
    wy = (((ys % 2) * 2 + 1).astype(np.float32) / np.float32(4))[:, None]

    def up_x(yy):
        lo, hi = s((xs + 1) // 2, yy), s((xs - 1) // 2, yy)
        return lo * (np.float32(1) - wx) + hi * wx        # Halide's float lerp
    ux0, ux1 = up_x((ys + 1) // 2), up_x((ys - 1) // 2)
    want = (ux0 * (np.float32(1) - wy) + ux1 * wy) + s(xs, ys)
    np.testing.assert_array_equal(got, want)


def _v(name, lanes=1):
    return ir.Variable(ir.Int(32).with_lanes(lanes), name)


def test_index_forms():
    one, two = ir.Const(ir.Int(32), 1), ir.Const(ir.Int(32), 2)
    half = ir.Div(ir.Ramp(_v("b"), one, 8), ir.Broadcast(two, 8))
    nested = ir.Add(ir.Add(ir.Add(ir.Broadcast(_v("row"), 8), half),
                           ir.Broadcast(_v("plane"), 8)), ir.Broadcast(one, 8))
    found = half_ramp_index(nested, lambda n: None)
    assert found is not None and found[2] == 4
    even, odd, _ = found
    assert set(ir.free_vars(even)) == {"row", "plane", "b"}
    # two non-broadcast terms: no half ramp
    assert half_ramp_index(ir.Add(half, _v("z", 8)), lambda n: None) is None
    clamp = ir.Max(ir.Min(ir.Ramp(_v("b"), one, 8), ir.Broadcast(_v("hi"), 8)),
                   ir.Broadcast(_v("lo"), 8))
    found = clamped_ramp_index(ir.Add(ir.Broadcast(_v("s"), 8),
                                      ir.Add(clamp, ir.Broadcast(_v("t"), 8))), lambda n: None)
    assert found is not None and set(ir.free_vars(found[0])) == {"s", "t"}
