"""Inputs whose min is not 0 (Halide's lesson 19 blur, Buffer.set_min on an
input): reads use the Buffer's own coordinates, img.dim(d).min() and
RDom(img) see the mins, another min is taken at the next realize, and a
read outside the Buffer is the usual error naming the input and the Func. Results are compared with
NumPy over the same coordinates and with plain Python."""
import numpy as np
import pytest

import pyhalide as ph


def _input(w, h, mins):
    b = ph.Buffer(ph.Int(32), [w, h])
    b.set_min(mins)
    for yy in range(b.dim(1).min(), b.dim(1).max() + 1):
        for xx in range(b.dim(0).min(), b.dim(0).max() + 1):
            b[xx, yy] = xx * 17 + yy % 4
    return b


def test_blur_of_an_image_param_with_mins():
    x, y, xo, yo, xi, yi = ph.vars("x y xo yo xi yi")
    img = ph.ImageParam(ph.Int(32), 2, "img_s")
    blur = ph.Func("blur_s")
    blur[x, y] = sum(img[x + dx, y + dy] for dx in (-1, 0, 1) for dy in (-1, 0, 1))
    blur.tile(x, y, xo, yo, xi, yi, 4, 4).vectorize(xi)
    for mins in ([-1, -1], [-1, -1], [-2, -1]):
        inp = _input(12, 10, mins)
        img.set(inp)
        out = np.asarray(blur.realize([8, 7]))
        a = np.asarray(inp)                      # a[yy - min1, xx - min0]
        ox, oy = -mins[0], -mins[1]
        want = sum(a[oy + dy:oy + dy + 7, ox + dx:ox + dx + 8]
                   for dx in (-1, 0, 1) for dy in (-1, 0, 1))
        np.testing.assert_array_equal(out, want)
    assert out[0, 0] == sum(inp[xx, yy] for xx in (-1, 0, 1) for yy in (-1, 0, 1))


def test_buffer_read_directly_min_and_rdom():
    x = ph.Var("x")
    b = ph.Buffer(np.array([5, 1, 4, 2, 8], dtype=np.int32))
    b.set_min([10])
    f = ph.Func("f_sd")
    f[x] = b[x + 10] * 2                          # coordinates 10..14
    np.testing.assert_array_equal(np.asarray(f.realize([5])), [10, 2, 8, 4, 16])
    img = ph.ImageParam(ph.Int(32), 1, "img_r")
    img.set(b)
    r = ph.RDom(img, "r")
    total, lo = ph.Func("total_sd"), ph.Func("lo_sd")
    total[()] = 0
    total[()] += img[r.x] * (r.x - img.dim(0).min() + 1)
    lo[x] = img.dim(0).min() + x
    assert int(np.asarray(total.realize([]))) == 5 * 1 + 1 * 2 + 4 * 3 + 2 * 4 + 8 * 5
    np.testing.assert_array_equal(np.asarray(lo.realize([2])), [10, 11])


def test_read_outside_a_shifted_input_is_an_error():
    x = ph.Var("x")
    img = ph.ImageParam(ph.Int(32), 1, "img_o")
    b = ph.Buffer(np.arange(4, dtype=np.int32))
    b.set_min([-2])
    img.set(b)
    f = ph.Func("f_o")
    f[x] = img[x]                                 # coordinates -2..1 exist
    np.testing.assert_array_equal(np.asarray(f.realize([2])), [2, 3])
    with pytest.raises(Exception, match="img_o"):
        f.realize([3])                            # coordinate 2 does not
