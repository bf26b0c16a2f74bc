"""serialize_pipeline / deserialize_pipeline / deserialize_parameters
(pyhalide/halide_serialize.py): a pipeline written to bytes or a file and
read back computes what NumPy computes, with the caller's parameters
substituted by name; a realized pipeline (caches, compiled kernels) is
written by its definitions alone."""
import numpy as np
import pytest

import pyhalide as hl


def _pipeline():
    x, y = hl.Var("x"), hl.Var("y")
    k = hl.Param(hl.Int(32), "ser_k", 3)
    im = hl.ImageParam(hl.Int(32), 1, "ser_im")
    f, g = hl.Func("ser_f"), hl.Func("ser_g")
    f[x, y] = x * k + y + im[x]
    g[x, y] = f[x, y] + f[x + 1, y]
    f.compute_root()
    g.vectorize(x, 4)
    return g, k, im


def _expected(k, src, w, h):
    ys, xs = np.mgrid[0:h, 0:w]
    f = lambda xx: xx * k + ys + src[xx]          # noqa: E731
    return f(xs) + f(xs + 1)


def test_bytes_round_trip_after_realizing():
    g, k, im = _pipeline()
    src = np.arange(20, dtype=np.int32) ** 2
    im.set(src)
    pipe = hl.Pipeline(g)
    pipe.realize([6, 3])
    pipe.realize([6, 3])                    # a recorded fast call, kernels compiled
    g.realize([6, 3])
    data = hl.serialize_pipeline(pipe)
    assert isinstance(data, bytes)
    # the caller's ImageParam; the Param read back with its value
    q = hl.deserialize_pipeline(data, {"ser_im": im.parameter()})
    np.testing.assert_array_equal(np.asarray(q.realize([6, 3])), _expected(3, src, 6, 3))
    k2 = hl.Param(hl.Int(32), "ser_k", -7)
    q2 = hl.deserialize_pipeline(data, {"ser_im": im, "ser_k": k2.parameter()})
    np.testing.assert_array_equal(np.asarray(q2.realize([5, 2])), _expected(-7, src, 5, 2))
    k2.set(11)
    np.testing.assert_array_equal(np.asarray(q2.realize([5, 2])), _expected(11, src, 5, 2))
    # without the ImageParam: a new, unbound one of the same name
    q3 = hl.deserialize_pipeline(data)
    with pytest.raises(ValueError, match="ser_im is not set"):
        q3.realize([5, 2])


def test_file_params_and_multiple_outputs(tmp_path):
    x = hl.Var("x")
    a = hl.Param(hl.UInt(16), "ser_a", 64)
    b = hl.Param(hl.Float(32), "ser_b", 2.5)
    f1, f2 = hl.Func("ser_f1"), hl.Func("ser_f2")
    f1[x] = hl.select(x < a, hl.cast(hl.Int(32), x * b), 0)
    f2[x] = x - 1
    path = tmp_path / "p.bin"
    params = hl.serialize_pipeline(hl.Pipeline([f1, f2]), path, get_params=True)
    assert sorted(params) == ["ser_a", "ser_b"] and params["ser_a"] is a
    read = hl.deserialize_parameters(path)
    assert read["ser_a"].type() == hl.UInt(16) and read["ser_b"].type() == hl.Float(32)
    a2 = hl.Param(hl.UInt(16), "ser_a", 3)
    r1, r2 = hl.deserialize_pipeline(path, {"ser_a": a2}).realize([6])
    xs = np.arange(6)
    np.testing.assert_array_equal(np.asarray(r1),
                                  np.where(xs < 3, (xs * np.float32(2.5)).astype(np.int32), 0))
    np.testing.assert_array_equal(np.asarray(r2), xs - 1)


def test_not_a_pyhalide_pipeline():
    with pytest.raises(ValueError, match="not a pipeline written by pyhalide"):
        hl.deserialize_pipeline(b"HLPIPE\x00\x01")
