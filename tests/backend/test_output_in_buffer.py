"""An output computed over more than the region asked for (Func.bound, a
RoundUp split, an update reaching past it) is computed in the caller's buffer
when, at run time, that buffer holds the whole region computed (as Halide
requires of an output's buffer), and in scratch storage copied out
otherwise: one body, its storage chosen by the test. Results are compared
with the reference evaluator and NumPy on both sides of the test."""
import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check


def _bounded(tag: str):
    x, y = ph.vars("x y")
    img = ph.ImageParam(ph.Int(16), 2, f"img_{tag}")
    f = ph.Func(f"f_{tag}")
    f[x, y] = ph.i32(img[x, y]) * 3 + x
    f.bound(x, 0, img.width()).bound(y, 0, img.height())
    return x, y, img, f


def test_the_storage_is_the_output_buffer_where_it_holds_the_region():
    x, y, img, f = _bounded("stmt")
    img.set(ph.Buffer(np.zeros((5, 7), np.int16)))
    text = ph.Pipeline([f]).lower()
    assert "allocate f_stmt.internal[" in text and " in f_stmt if f_stmt.in_buffer" in text


@pytest.mark.parametrize("shape", [(5, 7), (2, 4), (5, 1), (1, 7)])
def test_bounded_output_equals_numpy_in_buffer_and_in_scratch(shape):
    x, y, img, f = _bounded(f"b{shape[0]}{shape[1]}")
    a = (np.arange(35, dtype=np.int16).reshape(5, 7) * 7) % 23
    img.set(ph.Buffer(a))
    h, w = shape
    got = np.asarray(f.realize([w, h]))
    np.testing.assert_array_equal(got, (a * 3 + np.arange(7))[:h, :w])


def test_parallel_vectorized_tuple_output_in_buffer_and_in_scratch():
    x, y, xo, xi = ph.vars("x y xo xi")
    img = ph.ImageParam(ph.Float(32), 2, "img_tuple_out")
    f = ph.Func("f_tuple_out")
    f[x, y] = (img[x, y] * 2, ph.i32(x + y))
    f.bound(x, 0, img.width()).bound(y, 0, img.height())
    f.split(x, xo, xi, 8).vectorize(xi).parallel(y)
    a = np.random.default_rng(3).random((9, 37), dtype=np.float32)
    img.set(ph.Buffer(a))
    for h, w in ((9, 37), (4, 30)):
        got = [np.asarray(b) for b in f.realize([w, h])]
        yy, xx = np.mgrid[0:h, 0:w]
        np.testing.assert_array_equal(got[0], a[:h, :w] * 2)
        np.testing.assert_array_equal(got[1], (xx + yy).astype(np.int32))


@pytest.mark.parametrize("width", [16, 13])
def test_roundup_split_output(width):
    # a RoundUp split computes whole splits: inside a buffer of a multiple of
    # the factor, in scratch otherwise
    x, y, xo, xi = ph.vars("x y xo xi")
    f = ph.Func(f"f_roundup_out{width}")
    f[x, y] = x * 10 + y
    f.split(x, xo, xi, 8, ph.TailStrategy.RoundUp).vectorize(xi)
    check(f, [width, 3])


@pytest.mark.parametrize("size", [6, 8])
def test_update_reaching_past_the_region(size):
    # the scan's update writes up to index 7: in an 8-element buffer it fits
    x = ph.Var("x")
    r = ph.RDom([(1, 7)])
    f = ph.Func(f"f_scan_past{size}")
    f[x] = x * 2
    f[r.x] = f[r.x - 1] + f[r.x]
    got = check(f, [size])[0]
    np.testing.assert_array_equal(got, np.cumsum(np.arange(8) * 2)[:size])


def test_strided_output_array_takes_the_scratch():
    x, y, img, f = _bounded("strided")
    a = np.arange(35, dtype=np.int16).reshape(5, 7)
    img.set(ph.Buffer(a))
    out = np.zeros((5, 14), np.int32)[:, ::2]
    f.realize(ph.Buffer(out))
    np.testing.assert_array_equal(out, a * 3 + np.arange(7))
