"""A Func read at an integer cast of a float expression (the bilateral
grid's `i32(clamp(v, 0, 1) / r_sigma + 0.5)`): bounds inference bounds the
cast by its values at the clamp's ends, for any sign of the parameter.
Results compared with the reference evaluator and NumPy."""
import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check


def _image(name):
    img = ph.ImageParam(ph.Float(32), 1, name)
    a = np.array([-0.5, 0.0, 0.13, 0.5, 0.77, 1.0, 1.7, np.nan, 0.31], dtype=np.float32)
    img.set(ph.Buffer(a))
    return img, a


@pytest.mark.parametrize("r", [0.1, -0.25, 3.0, 1e-3])
def test_read_at_the_cast_of_a_clamped_value_over_a_parameter(r):
    x, z = ph.Var("x"), ph.Var("z")
    img, a = _image("img_fib_%d" % abs(hash(r)))
    rs = ph.Param(ph.Float(32), "rs_fib")
    rs.set(r)
    table, out = ph.Func("table_fib"), ph.Func("out_fib")
    table[z] = z * 3 + 1
    table.compute_root()
    val = ph.clamp(img[x], 0.0, 1.0)
    out[x] = table[ph.i32(val / rs + 0.5)] + table[ph.i32(val * -2.0 / rs)]
    got = check(out, [len(a)])[0]
    v = np.clip(np.nan_to_num(a, nan=1.0), 0, 1).astype(np.float32)
    i1 = (v / np.float32(r) + np.float32(0.5)).astype(np.int32)
    i2 = (v * np.float32(-2.0) / np.float32(r)).astype(np.int32)
    np.testing.assert_array_equal(got, i1 * 3 + 1 + i2 * 3 + 1)


def test_cast_of_a_float_of_the_loop_variable():
    # the bilateral grid's xf = f32(x % s) / s, used as an index after a scale
    x = ph.Var("x")
    s = 8
    f, g = ph.Func("f_fib_mod"), ph.Func("g_fib_mod")
    f[x] = x * x
    f.compute_root()
    g[x] = f[ph.i32(ph.f32(x % s) / ph.f32(s) * 10.0) - 3]
    got = check(g, [20])[0]
    idx = ((np.arange(20) % 8).astype(np.float32) / np.float32(8) * np.float32(10)).astype(np.int32) - 3
    np.testing.assert_array_equal(got, idx * idx)


def test_an_unclamped_float_index_is_still_refused():
    x = ph.Var("x")
    img = ph.ImageParam(ph.Float(32), 1, "img_fib_raw")
    img.set(ph.Buffer(np.zeros(4, np.float32)))
    f, g = ph.Func("f_fib_raw"), ph.Func("g_fib_raw")
    f[x] = x
    f.compute_root()
    g[x] = f[ph.i32(img[x] * 2.0)]
    with pytest.raises(ph.CompileError, match="cannot bound the region of Func f_fib_raw"):
        g.realize([4])
