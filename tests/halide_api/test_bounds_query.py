"""Halide's bounds-query protocol (pyhalide/bounds_query.py):
infer_input_bounds with constraints naming other buffers' geometry,
bounds-query Buffers, and expression constraints checked at realize. The
expected geometries are worked out by hand below (each equals what the
Halide 21 wheel gives for the same program); the pipelines are then realized
over the inferred inputs and compared with NumPy."""
import numpy as np
import pytest

import pyhalide as hl


def _geometry(b):
    return [(b.dim(d).min(), b.dim(d).extent()) for d in range(b.dimensions())]


def test_multipass_constraints():
    # Halide's python_bindings/test/correctness/multipass_constraints.py
    inp = hl.ImageParam(hl.Float(32), 2, "mp_input")
    f = hl.Func("mp_f")
    x, y = hl.Var("x"), hl.Var("y")
    f[x, y] = inp[x + 1, y + 1] + inp[x - 1, y - 1]
    f[x, y] += 3.0
    f.update().vectorize(x, 4)
    o = f.output_buffer()
    inp.dim(0).set_bounds(min=inp.dim(1).min() - 5,
                          extent=inp.dim(1).extent() + o.dim(0).extent())
    o.dim(0).set_bounds(min=0, extent=hl.select(o.dim(0).extent() < 22,
                                                o.dim(0).extent() + 1, o.dim(0).extent()))
    q = hl.Buffer.make_bounds_query(type=hl.Float(32), sizes=[7, 8])
    q.set_min([2, 2])
    assert q.is_bounds_query()
    f.infer_input_bounds(q)
    # the output's extent: touched = rounded up to the vector of 4, proposed
    # = select(e < 22, e + 1, e): 7 -> 9 -> 13 -> 17 -> 21 -> 24 (stable);
    # the input: y reads [1, 10]; x min = 1 - 5, extent = 10 + 24
    e = 7
    for _ in range(16):
        touched = -(-e // 4) * 4
        e = touched + 1 if touched < 22 else touched
    assert e == 24
    assert _geometry(q) == [(0, 24), (2, 8)]
    assert _geometry(inp.get()) == [(1 - 5, 10 + 24), (1, 10)]
    # the inferred input serves a realization of the output's geometry
    data = np.arange(34 * 10, dtype=np.float32).reshape(10, 34)
    inp.get().numpy()[...] = data
    out = hl.Buffer(hl.Float(32), [24, 8])
    out.set_min([0, 2])
    f.realize(out)
    ys, xs = np.mgrid[2:10, 0:24]
    want = data[ys + 1 - 1, xs + 1 + 4] + data[ys - 1 - 1, xs - 1 + 4] + np.float32(3)
    np.testing.assert_array_equal(out.numpy(), want)


def test_stencil_over_sizes_and_a_shifted_query():
    im = hl.ImageParam(hl.Int(16), 2, "bq_im2")
    f = hl.Func("bq_f2")
    x, y = hl.Var("x"), hl.Var("y")
    f[x, y] = im[x - 1, y] + im[x + 2, y + 1] + im[2 * x, y // 2]
    f.infer_input_bounds([10, 5])
    # x reads [-1, 9 + 2] and [0, 18]; y reads [0, 4 + 1] and [0, 2]
    assert _geometry(im.get()) == [(-1, 18 - -1 + 1), (0, 6)]
    g = hl.Func("bq_f3")
    im3 = hl.ImageParam(hl.UInt(8), 1, "bq_im3")
    g[x] = im3[x - 3] + im3[x + 4]
    q = hl.Buffer.make_bounds_query(type=hl.UInt(8), sizes=[6])
    q.set_min([10])
    g.infer_input_bounds(q)
    assert _geometry(q) == [(10, 6)]                        # no constraint: as asked
    assert _geometry(im3.get()) == [(10 - 3, (15 + 4) - (10 - 3) + 1)]


def test_pipeline_param_and_rounded_update():
    a = hl.ImageParam(hl.Float(32), 1, "bq_a5")
    k = hl.Param(hl.Int(32), "bq_k5", 3)
    f, g = hl.Func("bq_f5"), hl.Func("bq_g5")
    x = hl.Var("x")
    f[x] = a[x + k]
    g[x] = a[x - 2] * 2
    hl.Pipeline([f, g]).infer_input_bounds([hl.Buffer(hl.Float(32), [12]),
                                            hl.Buffer(hl.Float(32), [12])])
    assert _geometry(a.get()) == [(-2, (11 + 3) - -2 + 1)]
    im = hl.ImageParam(hl.Int(32), 1, "bq_im6")
    h = hl.Func("bq_f6")
    r = hl.RDom([(0, 5)])
    h[x] = 0
    h[x] += im[x + r.x]
    h.update().vectorize(x, 8)
    h.infer_input_bounds([10])
    # the update writes [0, 16) (10 rounded up to 8s): reads [0, 15 + 4]
    assert _geometry(im.get()) == [(0, 20)]
    src = np.arange(20, dtype=np.int32) ** 2
    im.get().numpy()[...] = src
    got = np.asarray(h.realize([10]))
    np.testing.assert_array_equal(got, [src[i:i + 5].sum() for i in range(10)])


def test_constraints_that_cannot_hold():
    im = hl.ImageParam(hl.Int(32), 1, "bq_im7")
    im.dim(0).set_bounds(0, 4)
    f = hl.Func("bq_f7")
    x = hl.Var("x")
    f[x] = im[x]
    with pytest.raises(ValueError, match=r"give \[0, 3\], which does not cover the region "
                                         r"\[0, 9\]"):
        f.infer_input_bounds([10])


def test_expression_constraints_checked_at_realize():
    im = hl.ImageParam(hl.Int(32), 1, "bq_im8")
    x = hl.Var("x")
    f = hl.Func("bq_f8")
    f[x] = im[x] * 3
    im.dim(0).set_extent(f.output_buffer().dim(0).extent() + 1)
    data = np.arange(10, dtype=np.int32)
    im.set(hl.Buffer(data))
    with pytest.raises(ValueError, match=r"Constraint violated: bq_im8.extent.0 \(10\) == "
                                         r"\(bq_f8.extent.0 \+ 1\) \(6\)"):
        f.realize([5])
    np.testing.assert_array_equal(np.asarray(f.realize([9])), data[:9] * 3)


def test_param_min_constraint_and_convergence():
    x = hl.Var("x")
    im = hl.ImageParam(hl.Int(32), 1, "bq_im9")
    k = hl.Param(hl.Int(32), "bq_k9", 4)
    f = hl.Func("bq_f9")
    f[x] = im[x * 2]
    o = f.output_buffer()
    o.dim(0).set_bounds(min=k, extent=hl.max(o.dim(0).extent(), 12))
    q = hl.Buffer.make_bounds_query(type=hl.Int(32), sizes=[10])
    q.set_min([6])
    f.infer_input_bounds(q)
    # the loops start at k (a Param min is written into them): touched [4, 14),
    # proposed [4, 4 + max(10, 12)); then [4, 16) -> reads [8, 30]
    assert _geometry(q) == [(4, 12)]
    assert _geometry(im.get()) == [(8, 30 - 8 + 1)]
    # a constraint that grows the output at each pass never settles
    g = hl.Func("bq_g9")
    im2 = hl.ImageParam(hl.Int(32), 1, "bq_im10")
    g[x] = im2[x]
    og = g.output_buffer()
    og.dim(0).set_bounds(min=0, extent=og.dim(0).extent() + k)
    with pytest.raises(ValueError, match="did not converge after 16 passes"):
        g.infer_input_bounds(hl.Buffer.make_bounds_query(type=hl.Int(32), sizes=[10]))
