"""Halide's ImageParam dimension constraints (set_min/set_extent/set_bounds/
set_stride: checked against the Buffer set, before or after), estimates on
Params, Funcs, ImageParam and output-buffer dimensions (no effect on
results), and fold_storage as a checked hint. Results compared with NumPy."""
import numpy as np
import pytest

import pyhalide as ph


def test_image_param_constraints():
    x, y, c = ph.vars("x y c")
    img = ph.ImageParam(ph.UInt(8), 3, "img_c")
    img.dim(2).set_bounds(0, 4).dim(0).set_min(0)
    data = np.arange(4 * 3 * 5, dtype=np.uint8).reshape(4, 3, 5)
    img.set(data)                                    # extent 4 in dimension 2: accepted
    f = ph.Func("f_c")
    f[x, y, c] = img[x, y, c] // 2
    f.fold_storage(y, 2)
    np.testing.assert_array_equal(np.asarray(f.realize([5, 3, 4])), data // 2)
    with pytest.raises(ValueError, match=r"(?s)requires extent 4 in dimension 2.*has extent 3"):
        img.set(data[:3])
    img.dim(1).set_extent(img.dim(0).extent())     # an expression: checked at realize
    with pytest.raises(ValueError, match=r"Constraint violated: img_c.extent.1 \(3\) == "
                                         r"img_c.extent.0 \(5\)"):
        f.realize([5, 3, 4])
    with pytest.raises(ValueError, match="requires stride 7"):
        img.dim(0).set_stride(7)                      # the Buffer bound now has stride 1
    with pytest.raises(ph.CompileError, match="fold_storage"):
        f.fold_storage(ph.Var("zz"), 2)


def test_estimates_change_nothing():
    x, y = ph.vars("x y")
    img = ph.ImageParam(ph.Int(32), 2, "img_e")
    k = ph.Param(ph.Int(32), "k_e", 3)
    f = ph.Func("f_e")
    f[x, y] = img[x, y] * k
    img.dim(0).set_estimate(0, 64).dim(1).set_estimate(0, 32)
    k.set_estimate(2)
    f.set_estimate(x, 0, 64).set_estimate(y, 0, 32)
    f.output_buffer().dim(0).set_estimate(0, 64).dim(1).set_estimate(0, 32)
    data = np.arange(12, dtype=np.int32).reshape(3, 4)
    img.set(data)
    np.testing.assert_array_equal(np.asarray(f.realize([4, 3])), data * 3)
    f.output_buffer().dim(0).set_bounds(0, 4)      # checked at realize (Halide's text)
    np.testing.assert_array_equal(np.asarray(f.realize([4, 3])), data * 3)
    with pytest.raises(ValueError, match=r"Constraint violated: f_e.extent.0 \(5\) == 4 \(4\)"):
        f.realize([5, 3])
    with pytest.raises(NotImplementedError, match="set_stride"):
        f.output_buffer().dim(0).set_stride(1)
