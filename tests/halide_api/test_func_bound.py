"""Func.bound(x, min, extent) gives the region a Func computes in x (as in
Halide): a constant extent its consumers can unroll or vectorize over (the
interpolate app's `bound(c, 0, 3)`), a ValueError with Halide's message where
more is needed. Results are compared with the reference evaluator and NumPy."""
import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check


def test_bound_gives_a_constant_region_a_computed_func_unrolls():
    # f is computed per row of g over the channels g needs: without the bound
    # on g their count is the output's (not a constant) and unroll(c) fails
    x, y, c = ph.vars("x y c")
    f, g = ph.Func("f_unroll_c"), ph.Func("g_unroll_c")
    f[x, y, c] = x + 10 * y + 100 * c
    g[x, y, c] = f[x, y, c] * 2 + f[x, y, 3]
    g.bound(c, 0, 3).reorder(c, x, y)
    f.compute_at(g, y).reorder(c, x, y).unroll(c)
    got = check(g, [5, 4, 3])[0]
    c_, y_, x_ = np.mgrid[0:3, 0:4, 0:5]
    np.testing.assert_array_equal(got, 2 * (x_ + 10 * y_ + 100 * c_) + x_ + 10 * y_ + 300)


def test_bound_on_an_output_smaller_request_and_symbolic_bound():
    x, y = ph.vars("x y")
    img = ph.ImageParam(ph.Int(16), 2, "img_bound")
    f = ph.Func("f_sym_bound")
    f[x, y] = ph.i32(img[x, y]) * 3
    f.bound(x, 0, img.width()).bound(y, 0, img.height())
    a = np.arange(35, dtype=np.int16).reshape(5, 7)
    img.set(ph.Buffer(a))
    np.testing.assert_array_equal(np.asarray(f.realize([7, 5])), a * 3)
    np.testing.assert_array_equal(np.asarray(f.realize([4, 2])), a[:2, :4] * 3)
    with pytest.raises(ValueError, match=r"Bounds given for f_sym_bound in x \(from 0 to 6\) "
                                         r"do not cover required region \(from 0 to 7\)"):
        f.realize([8, 5])


def test_bound_set_after_a_realize_recompiles():
    x = ph.Var("x")
    f, g = ph.Func("f_late_bound"), ph.Func("g_late_bound")
    f[x] = x * 2
    f.compute_root()
    g[x] = f[x] + f[x + 2]
    np.testing.assert_array_equal(np.asarray(g.realize([6])), 4 * np.arange(6) + 4)
    f.bound(x, 0, 7)
    with pytest.raises(ValueError, match="Bounds given for f_late_bound"):
        g.realize([6])
    np.testing.assert_array_equal(np.asarray(g.realize([5])), 4 * np.arange(5) + 4)
