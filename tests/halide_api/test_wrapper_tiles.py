"""Wrappers computed per tile of a ShiftInwards consumer (Halide's lessons 19
and 22): the wrapper's region at the tile loop is the tile itself, a constant
extent its vectorized and unrolled loops need; where the output is smaller
than one tile the region is clamped to it and those loops run serially.
Every result is compared with the reference evaluator and with NumPy."""
import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check

SIZES = [(16, 16), (13, 6), (3, 3), (4, 2)]


def _transpose_in_tiles(name):
    x, y, xo, yo, xi, yi = ph.vars("x y xo yo xi yi")
    f, g = ph.Func(f"f_{name}"), ph.Func(f"g_{name}")
    f[x, y] = x * 100 + y
    f.compute_root()
    g[x, y] = f[y, x]
    return f, g, (x, y, xo, yo, xi, yi)


@pytest.mark.parametrize("w,h", SIZES)
def test_lesson19_transpose_in_registers(w, h):
    f, g, (x, y, xo, yo, xi, yi) = _transpose_in_tiles("l19")
    f_tile = f.in_(g)
    g.tile(x, y, xo, yo, xi, yi, 4, 4).vectorize(xi).unroll(yi)
    f_tile.compute_at(g, xo).reorder_storage(y, x).vectorize(x).unroll(y)
    got = check(g, [w, h])[0]
    ys, xs = np.mgrid[0:h, 0:w]
    np.testing.assert_array_equal(got, xs + 100 * ys)


@pytest.mark.parametrize("w,h", SIZES)
def test_lesson22_block_transpose_wrapper_of_wrapper(w, h):
    x, y, xi, yi = ph.vars("x y xi yi")
    inp, out = ph.Func("input_l22"), ph.Func("output_l22")
    inp[x, y] = ph.u16(x + 3 * y)
    inp.compute_root()
    out[x, y] = inp[y, x]
    out.tile(x, y, xi, yi, 8, 8).vectorize(xi).unroll(yi)
    block = inp.in_(out).compute_at(out, x).vectorize(x).unroll(y)
    block.in_(out).reorder_storage(y, x).compute_at(out, x).vectorize(x).unroll(y)
    got = check(out, [w, h])[0]
    ys, xs = np.mgrid[0:h, 0:w]
    np.testing.assert_array_equal(got, (ys + 3 * xs).astype(np.uint16))


@pytest.mark.parametrize("w,h", [(16, 8), (5, 3)])
def test_input_wrapper_per_tile_reads_only_the_input(w, h):
    # the small-extent copy reads no more of the input than the output needs:
    # a (w, h) input is enough for a (h, w) transpose of any size
    x, y, xo, yo, xi, yi = ph.vars("x y xo yo xi yi")
    a = (np.arange(w * h, dtype=np.int32).reshape(w, h) * 7) % 50
    img = ph.Buffer(a, "img_tiles")
    g = ph.Func("g_img_tiles")
    g[x, y] = img[y, x] + 1
    g.tile(x, y, xo, yo, xi, yi, 4, 4).vectorize(xi).unroll(yi)
    img.in_(g).compute_at(g, xo).vectorize(ph._0).unroll(ph._1)
    got = check(g, [w, h])[0]
    np.testing.assert_array_equal(got, a.T + 1)


@pytest.mark.parametrize("w,h", [(12, 9), (7, 3), (2, 5), (9, 16)])
def test_stencil_chain_per_tile_with_an_input(w, h):
    # a two-Func chain computed per 4x4 tile of a ShiftInwards consumer, both
    # vectorized and unrolled, reading an input exactly as large as needed
    x, y, xo, yo, xi, yi = ph.vars("x y xo yo xi yi")
    a = ((np.arange((h + 2) * (w + 2), dtype=np.int32).reshape(h + 2, w + 2) * 37) % 101)
    img = ph.Buffer(a, "img_chain")
    p, q, out = ph.Func("p_chain"), ph.Func("q_chain"), ph.Func("out_chain")
    p[x, y] = img[x, y] * 2 + img[x + 1, y]
    q[x, y] = p[x, y] + p[x, y + 1] * 3
    out[x, y] = q[x, y] - q[x + 1, y + 1]
    out.tile(x, y, xo, yo, xi, yi, 4, 4).vectorize(xi).unroll(yi)
    q.compute_at(out, xo).vectorize(x).unroll(y)
    p.compute_at(out, xo).vectorize(x)
    pp = a[:, :-1] * 2 + a[:, 1:]
    qq = pp[:-1] + pp[1:] * 3
    check(out, [w, h], [qq[:h, :w] - qq[1:h + 1, 1:w + 1]])
