"""Vector loads whose index holds `ramp / c` (c >= 4) with a data-dependent
part are scalar loads, not a gather (lowering/shared_lane_gathers.py):
results against NumPy, and which indices qualify."""
import numpy as np
import pytest

import pyhalide as hl
from pyhalide import ir
from pyhalide.lowering.shared_lane_gathers import lanes_share_coordinate


@pytest.mark.parametrize("step", [2, 4, 8, 16])
def test_grid_lookup_by_data(step):
    """out[x, y] = grid[x / step, z(x, y)] with z from the image's values, as
    bilateral grid's slicing reads its grid."""
    rng = np.random.default_rng(step)
    h, w, levels = 5, 67, 9
    img = rng.random((h, w), dtype=np.float32)
    img[0, :4] = [0.0, 1.0, np.nan, 0.999]
    gw = (w + step - 1) // step
    grid = rng.random((levels, gw), dtype=np.float32)
    x, y = hl.Var("x"), hl.Var("y")
    im, gr = hl.Buffer(img), hl.Buffer(grid)
    out = hl.Func("out")
    z = hl.clamp(hl.i32(im[x, y] * (levels - 1)), 0, levels - 1)
    out[x, y] = gr[x / step, z] + gr[hl.min(x / step + 1, gw - 1), z]
    out.vectorize(x, 8)
    got = np.asarray(out.realize([w, h]))
    xs = np.arange(w)
    with np.errstate(invalid="ignore"):
        zz = np.clip(np.where(np.isnan(img), 0, img * np.float32(levels - 1)).astype(np.int64),
                     0, levels - 1)
    want = grid[zz, xs // step] + grid[zz, np.minimum(xs // step + 1, gw - 1)]
    assert np.array_equal(got, want.astype(np.float32))


def test_which_indices_qualify():
    x = ir.Variable(ir.Int(32), "x")
    r = ir.Ramp(x, ir.Const(ir.Int(32), 1), 8)
    data = ir.Variable(ir.Int(32).with_lanes(8), "z")
    eight, two = ir.Broadcast(ir.Const(ir.Int(32), 8), 8), ir.Broadcast(ir.Const(ir.Int(32), 2), 8)
    lets = {"q": ir.Div(r, eight)}
    none = lets.get
    assert lanes_share_coordinate(ir.Add(ir.Div(r, eight), data), none)
    assert lanes_share_coordinate(ir.Add(ir.Variable(ir.Int(32).with_lanes(8), "q"), data), none)
    assert not lanes_share_coordinate(ir.Add(ir.Div(r, two), data), none)   # pairs only
    assert not lanes_share_coordinate(data, none)                           # a LUT lookup
    assert not lanes_share_coordinate(ir.Div(ir.Ramp(x, ir.Const(ir.Int(32), 2), 8), eight), none)
