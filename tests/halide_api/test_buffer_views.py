"""Halide's Buffer geometry: Buffer(ndarray, name, reverse_axes),
Buffer(type, sizes, storage_order), crop/cropped/translated(d, dx),
reverse_axes, transpose, Halide's out-of-bounds message, np.array(copy=).
Pipelines reading the views are compared with NumPy (the reference
evaluator reads arrays from 0), through Func.realize and Pipeline.realize."""
import numpy as np
import pytest

import pyhalide as ph


def check(f, sizes, expected):
    for out in (f.realize(sizes), ph.Pipeline([f]).realize(sizes)):
        np.testing.assert_array_equal(np.asarray(out), expected[0])


def test_ndarray_with_and_without_reversed_axes():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    b = ph.Buffer(a, "named_buf", True)
    assert b.name() == "named_buf" and b.dim(0).extent() == 3 and b[2, 1] == 5
    c = ph.Buffer(a, "named_buf2", False)
    assert c.dim(0).extent() == 2 and c.dim(0).stride() == 3 and c[1, 2] == 5
    c[0, 1] = 42
    assert a[0, 1] == 42
    r = c.reverse_axes()
    assert r[1, 0] == 42 and r.dim(0).extent() == 3
    assert np.array(b, copy=True) is not a and not np.shares_memory(np.array(b, copy=True), a)
    assert np.shares_memory(np.array(b, copy=False), a)


def test_storage_order_and_transpose():
    a = ph.Buffer(type=ph.UInt(8), sizes=[7, 5, 3], storage_order=[2, 0, 1])
    assert [a.dim(i).stride() for i in range(3)] == [3, 21, 1]
    b = ph.Buffer(ph.UInt(8), [7, 5, 3, 2], [2, 3, 0, 1])
    assert [b.dim(i).stride() for i in range(4)] == [6, 42, 1, 3]
    b2 = ph.Buffer(ph.UInt(8), [3, 2, 7, 5])
    b2.transpose([2, 3, 0, 1])
    assert [b2.dim(i).extent() for i in range(4)] == [7, 5, 3, 2]
    assert [b2.dim(i).stride() for i in range(4)] == [6, 42, 1, 3]


def test_out_of_bounds_message():
    buf = ph.Buffer(ph.Int(16), [4, 6])
    with pytest.raises(IndexError, match="index -1 is out of bounds for axis 0 with min=0, "
                                         "extent=4"):
        buf[-1, 2]
    with pytest.raises(IndexError, match="index 6 is out of bounds for axis 1 with min=0, "
                                         "extent=6"):
        buf[1, 6] = 3


def test_cropped_and_translated_buffers_read_by_a_pipeline():
    data = np.arange(100, dtype=np.int32).reshape(10, 10)
    buf = ph.Buffer(data, "crop_src")
    bc = buf.cropped([(5, 5), (5, 5)])
    assert bc.dim(0).min() == 5 and bc.dim(1).extent() == 5 and buf.dim(0).min() == 0
    bc[6, 7] = -1
    assert data[7, 6] == -1
    x, y = ph.vars("x y")
    f = ph.Func("f_cropped")
    f[x, y] = bc[x + 5, y + 5] * 2
    check(f, [5, 5], [data[5:, 5:] * 2])
    b1 = buf.cropped(0, 0, 5).cropped(1, 0, 4)
    assert b1.dim(0).extent() == 5 and b1.dim(1).extent() == 4
    g = ph.Func("g_cropped")
    g[x, y] = b1[x, y] + 1
    check(g, [5, 4], [data[:4, :5] + 1])
    bt = buf.translated(0, -3).translated(1, 3)
    assert bt.dim(0).min() == -3 and bt.dim(1).min() == 3 and bt[-3, 3] == data[0, 0]
    h = ph.Func("h_translated")
    h[x, y] = bt[x - 3, y + 3] * 3
    check(h, [10, 10], [data * 3])
    with pytest.raises(IndexError, match="outside"):
        buf.cropped(0, 8, 5)
