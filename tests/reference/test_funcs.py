"""Pure definitions: stencils with reversed axes, calls between Funcs, tuples,
params, buffer geometry, lookups by data, regions and errors."""
import numpy as np
import pytest

from pyhalide import ir
from pyhalide.reference import evaluate


def test_stencil_with_reversed_axes(hb):
    x, y = hb.var("x"), hb.var("y")
    img = np.arange(7 * 6, dtype=np.int32).reshape(6, 7) ** 2      # 6 rows (y), 7 columns (x)
    inp = lambda a, b: hb.image("in", hb.I32, [a, b])
    one = hb.const(1)
    # f(x, y) = in(x + 1, y) * 10 - in(x, y + 1): x indexes columns.
    f = hb.func("f", ["x", "y"], ir.Sub(ir.Mul(inp(ir.Add(x, one), y), hb.const(10)),
                                        inp(x, ir.Add(y, one))))
    out = hb.run(f, f, [(1, 4), (2, 3)], {"in": img})[0]
    assert out.shape == (3, 4) and out.dtype == np.int32
    xs, ys = np.arange(1, 5), np.arange(2, 5)
    want = img[ys[:, None], xs[None, :] + 1] * 10 - img[ys[:, None] + 1, xs[None, :]]
    np.testing.assert_array_equal(out, want)


def test_chain_of_blurs(hb):
    """Eight 3-tap blurs, each calling the previous Func three times."""
    x = hb.var("x")
    img = np.random.default_rng(0).integers(0, 1000, 300).astype(np.int64)
    t = ir.Int(64)
    prev = hb.func("b0", ["x"], hb.image("in", t, [x]))
    funcs = [prev]
    for i in range(1, 9):
        taps = [hb.call(prev, [ir.Add(x, hb.const(d))]) for d in (-1, 0, 1)]
        prev = hb.func(f"b{i}", ["x"], ir.Add(ir.Add(taps[0], ir.Mul(taps[1], ir.Const(t, 2))), taps[2]))
        funcs.append(prev)
    out = hb.run(funcs, prev, [(8, 284)], {"in": img})[0]
    want = img.copy()
    for _ in range(8):
        want = want[:-2] + 2 * want[1:-1] + want[2:]
    np.testing.assert_array_equal(out, want)


def test_tuple_funcs_and_value_index(hb):
    x = hb.var("x")
    f = hb.func("f", ["x"], (ir.Mul(x, x), ir.Cast(ir.Float(32), x)))
    g = hb.func("g", ["x"], ir.Add(ir.Cast(ir.Float(32), hb.call(f, [x], 0)), hb.call(f, [x], 1)))
    out = hb.run([f, g], [f, g], [(-2, 5)])
    assert [o.dtype for o in out] == [np.int32, np.float32, np.float32]
    assert out[0].tolist() == [4, 1, 0, 1, 4]
    assert out[1].tolist() == [-2, -1, 0, 1, 2]
    assert out[2].tolist() == [2, 0, 0, 2, 6]


def test_zero_dimensional_funcs(hb):
    s = hb.func("s", [], ir.Mul(hb.const(6), hb.const(7)))
    x = hb.var("x")
    g = hb.func("g", ["x"], ir.Add(x, hb.call(s, [])))
    s_out = hb.run([s, g], s, [])
    assert s_out[0].shape == () and s_out[0].dtype == np.int32 and int(s_out[0]) == 42
    assert hb.run([s, g], g, [(0, 3)])[0].tolist() == [42, 43, 44]


def test_params_are_converted_to_their_type(hb):
    x = hb.var("x")
    p = ir.Variable(ir.UInt(8), "p", "param")
    q = ir.Variable(ir.Float(32), "q", "param")
    f = hb.func("f", ["x"], (ir.Add(ir.Cast(ir.UInt(8), x), p), ir.Mul(ir.Cast(ir.Float(32), x), q)))
    out = hb.run(f, f, [(0, 3)], params={"p": 255, "q": 0.1})
    assert out[0].dtype == np.uint8 and out[0].tolist() == [255, 0, 1]
    assert out[1].tolist() == [np.float32(0) * np.float32(0.1), np.float32(0.1),
                               np.float32(2) * np.float32(0.1)]


def test_buffer_geometry_params(hb):
    _x, _y = hb.var("x"), hb.var("y")
    base = np.zeros((6, 10), np.int16)
    view = base[::2, 1:8]                               # shape (3, 7), strides (40, 2) bytes
    geo = [ir.Variable(hb.I32, f"in.{k}.{d}", "param")
           for k in ("min", "extent", "stride") for d in (0, 1)]
    f = hb.func("f", ["x"], tuple(geo))
    out = hb.run(f, f, [(0, 1)], {"in": view})
    assert [int(o[0]) for o in out] == [0, 0, 7, 3, 1, 20]
    # RDom bounds from the geometry: sum of every element.
    img = np.arange(12, dtype=np.int32).reshape(3, 4)
    s = hb.func("s", [], hb.const(0))
    r0, r1 = hb.rvar("r.x"), hb.rvar("r.y")
    ext = lambda d: ir.Variable(hb.I32, f"img.extent.{d}", "param")
    hb.update(s, [], ir.Add(hb.call(s, []), hb.image("img", hb.I32, [r0, r1])),
              rdom=[("r.x", 0, ext(0)), ("r.y", 0, ext(1))])
    assert int(hb.run(s, s, [], {"img": img})[0]) == img.sum()


def test_lookup_table_indexed_by_data(hb):
    """A gather at a few far-apart points evaluates just those points."""
    x = hb.var("x")
    lut = hb.func("lut", ["x"], ir.Sub(ir.Mul(x, hb.const(3)), hb.const(1)))
    idx = np.array([5, -2_000_000_000, 2_000_000_000, 5, 7], np.int32)
    g = hb.func("g", ["x"], hb.call(lut, [hb.image("idx", hb.I32, [x])]))
    out = hb.run([lut, g], g, [(0, 5)], {"idx": idx})[0]
    wrap32 = lambda v: (v + 2**31) % 2**32 - 2**31
    assert out.tolist() == [wrap32(int(v) * 3 - 1) for v in idx]


def test_several_outputs_and_empty_regions(hb):
    x, y = hb.var("x"), hb.var("y")
    f = hb.func("f", ["x", "y"], ir.Add(x, ir.Mul(y, hb.const(100))))
    g = hb.func("g", ["x", "y"], ir.Cast(ir.UInt(8), ir.Sub(x, y)))
    out = hb.run([f, g], [f, g], [(0, 2), (1, 2)])
    assert out[0].tolist() == [[100, 101], [200, 201]]
    assert out[1].dtype == np.uint8 and out[1].tolist() == [[255, 0], [254, 255]]
    empty = hb.run([f], [f], [(0, 0), (0, 3)])[0]
    assert empty.shape == (3, 0) and empty.dtype == np.int32
    with pytest.raises(ValueError, match="dimensions"):
        hb.run(f, f, [(0, 2)])


def test_image_errors(hb):
    x = hb.var("x")
    f = hb.func("f", ["x"], hb.image("in", hb.I32, [ir.Mul(x, hb.const(2))]))
    arr = np.arange(10, dtype=np.int32)
    assert hb.run(f, f, [(0, 5)], {"in": arr})[0].tolist() == [0, 2, 4, 6, 8]
    with pytest.raises(IndexError, match=r"in.*\(10\)"):
        hb.run(f, f, [(0, 6)], {"in": arr})
    with pytest.raises(IndexError, match=r"in.*\(-2\)"):
        hb.run(f, f, [(-1, 3)], {"in": arr})
    with pytest.raises(IndexError, match="in"):
        hb.run(f, f, [(0, 1)], {})
    with pytest.raises(TypeError, match="int16"):
        hb.run(f, f, [(0, 1)], {"in": arr.astype(np.int16)})


def test_select_evaluates_both_sides(hb):
    x = hb.var("x")
    arr = np.arange(4, dtype=np.int32)
    inside = ir.LT(x, hb.const(4))
    f = hb.func("f", ["x"], ir.Select(inside, hb.image("in", hb.I32, [x]), hb.const(-1)))
    assert hb.run(f, f, [(0, 4)], {"in": arr})[0].tolist() == [0, 1, 2, 3]
    with pytest.raises(IndexError):
        hb.run(f, f, [(0, 5)], {"in": arr})


def test_unknown_names(hb):
    x = hb.var("x")
    g = hb.func("g", ["x"], hb.const(1))
    f = hb.func("f", ["x"], ir.Add(hb.call(g, [x]), ir.Variable(hb.I32, "p", "param")))
    with pytest.raises(KeyError, match="'g'"):
        hb.run([f], f, [(0, 1)], params={"p": 1})
    with pytest.raises(KeyError, match="'p'"):
        hb.run([f, g], f, [(0, 1)])
    assert hb.run([f, g], f, [(0, 1)], params={"p": 2})[0].tolist() == [3]


def test_inputs_are_not_modified_and_outputs_are_fresh(hb):
    x = hb.var("x")
    arr = np.arange(5, dtype=np.int32)
    f = hb.func("f", ["x"], hb.image("in", hb.I32, [x]))
    out = evaluate({"f": f}, ["f", "f"], [(0, 5)], {"in": arr}, {})
    out[0][:] = 99
    assert out[1].tolist() == [0, 1, 2, 3, 4] and arr.tolist() == [0, 1, 2, 3, 4]


def test_definition_errors(hb):
    x = hb.var("x")
    f = ir.Function("f", ("x",), (hb.I32,), None)
    with pytest.raises(ValueError, match="no pure definition"):
        hb.run(f, f, [(0, 1)])
    g = hb.func("g", ["x"], hb.const(0))
    g.pure = ir.Definition((x,), (ir.Add(hb.call(g, [x]), hb.const(1)),))
    with pytest.raises(ValueError, match="calls g"):
        hb.run(g, g, [(0, 1)])
