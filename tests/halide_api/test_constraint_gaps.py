"""Constraints on buffer geometry where session 20's first pass left gaps
(pyhalide/bounds_query.py): a repeated realize re-checks constraints naming
a Param whose value changed; infer_input_bounds gives each output of a
multi-output Pipeline its own region (its own constraints); an input read
only at data-dependent positions has no bound (Halide's ValueError). Each
expected outcome is what the Halide 21 wheel gives for the same program
(run by hand: the geometry, or the error); results are compared with NumPy."""
import numpy as np
import pytest

import pyhalide as hl


def _geometry(b):
    return [(b.dim(d).min(), b.dim(d).extent()) for d in range(b.dimensions())]


def _param_constrained(tag):
    x = hl.Var("x")
    p = hl.Param(hl.Int(32), f"cg_p{tag}", 0)
    inp = hl.ImageParam(hl.Int(32), 1, f"cg_in{tag}")
    g = hl.Func(f"cg_g{tag}")
    g[x] = inp[x] * 3
    inp.dim(0).set_extent(p)
    data = np.arange(10, dtype=np.int32)
    inp.set(hl.Buffer(data))
    p.set(10)
    return p, g, data


def test_repeated_func_realize_checks_a_changed_param():
    # Halide: Error: Constraint violated: inp.extent.0 (10) == p (11)
    p, g, data = _param_constrained("a")
    for _ in range(3):          # the third call takes the repeated-call path
        np.testing.assert_array_equal(g.realize([5]).numpy(), data[:5] * 3)
    p.set(11)
    with pytest.raises(hl.HalideError, match=r"Constraint violated: cg_ina.extent.0 \(10\) "
                                             r"== cg_pa \(11\)"):
        g.realize([5])
    p.set(10)
    np.testing.assert_array_equal(g.realize([5]).numpy(), data[:5] * 3)


def test_repeated_pipeline_realize_checks_a_changed_param():
    p, g, data = _param_constrained("b")
    pipe = hl.Pipeline([g])
    for _ in range(3):
        np.testing.assert_array_equal(pipe.realize([4]).numpy(), data[:4] * 3)
    p.set(9)
    with pytest.raises(ValueError, match="Constraint violated: cg_inb.extent.0"):
        pipe.realize([4])


def test_constraint_added_after_repeated_calls():
    x = hl.Var("x")
    p = hl.Param(hl.Int(32), "cg_pc", 7)
    inp = hl.ImageParam(hl.Int(32), 1, "cg_inc")
    g = hl.Func("cg_gc")
    g[x] = inp[x] + 1
    data = np.arange(10, dtype=np.int32)
    inp.set(hl.Buffer(data))
    for _ in range(3):
        np.testing.assert_array_equal(g.realize([5]).numpy(), data[:5] + 1)
    inp.dim(0).set_extent(p)
    with pytest.raises(ValueError, match=r"cg_inc.extent.0 \(10\) == cg_pc \(7\)"):
        g.realize([5])


def _two_outputs(tag):
    x = hl.Var("x")
    im = hl.ImageParam(hl.Int(32), 1, f"cg_im{tag}")
    f, g = hl.Func(f"cg_f{tag}"), hl.Func(f"cg_g{tag}")
    f[x] = im[x] + 1
    g[x] = im[x + 2] * 2
    return im, f, g


def _queries():
    return [hl.Buffer.make_bounds_query(type=hl.Int(32), sizes=[5]) for _ in range(2)]


@pytest.mark.parametrize("case, want_im, want_f, want_g", [
    ("none", [(0, 7)], [(0, 5)], [(0, 5)]),
    ("g8", [(0, 10)], [(0, 5)], [(0, 8)]),
    ("both8", [(0, 10)], [(0, 8)], [(0, 8)]),
    ("im_of_g", [(0, 8)], [(0, 5)], [(0, 5)]),
])
def test_each_output_has_its_own_region(case, want_im, want_f, want_g):
    im, f, g = _two_outputs(case)
    if case in ("g8", "both8"):
        g.output_buffer().dim(0).set_extent(8)
    if case == "both8":
        f.output_buffer().dim(0).set_extent(8)
    if case == "im_of_g":
        im.dim(0).set_extent(g.output_buffer().dim(0).extent() + 3)
    a, b = _queries()
    hl.Pipeline([f, g]).infer_input_bounds([a, b])
    assert _geometry(im.get()) == want_im
    assert _geometry(a) == want_f
    assert _geometry(b) == want_g
    if want_f == want_g:        # the inferred input serves the realization
        n = want_f[0][1]
        data = np.arange(want_im[0][1], dtype=np.int32) * 5
        im.get().numpy()[...] = data
        rf, rg = hl.Pipeline([f, g]).realize([n])
        np.testing.assert_array_equal(rf.numpy(), data[:n] + 1)
        np.testing.assert_array_equal(rg.numpy(), data[2:n + 2] * 2)


def test_a_data_dependent_read_is_unbounded():
    x = hl.Var("x")
    idx = hl.ImageParam(hl.Int(32), 1, "cg_idx")
    im = hl.ImageParam(hl.Float(32), 1, "cg_gim")
    f = hl.Func("cg_gather")
    f[x] = im[idx[x]] + im[x]
    with pytest.raises(ValueError, match="cg_gim is read in dimension 0 at positions that "
                                         "depend on data"):
        f.infer_input_bounds([5])


def test_a_clamped_or_narrow_gather_is_bounded():
    x = hl.Var("x")
    idx = hl.ImageParam(hl.Int(32), 1, "cg_idx2")
    im = hl.ImageParam(hl.Float(32), 1, "cg_im2")
    f = hl.Func("cg_clamped")
    f[x] = im[hl.clamp(idx[x], 0, 9)]
    f.infer_input_bounds([5])
    assert _geometry(im.get()) == [(0, 10)]
    u8 = hl.ImageParam(hl.UInt(8), 1, "cg_u8")
    im3 = hl.ImageParam(hl.Float(32), 1, "cg_im3")
    g = hl.Func("cg_narrow")
    g[x] = im3[hl.cast(hl.Int(32), u8[x])]
    g.infer_input_bounds([5])
    assert _geometry(u8.get()) == [(0, 5)]
    assert _geometry(im3.get()) == [(0, 256)]
    # the inferred buffers serve a realization
    table = np.linspace(0, 1, 256, dtype=np.float32)
    im3.get().numpy()[...] = table
    u8.get().numpy()[...] = np.array([255, 0, 7, 100, 3], dtype=np.uint8)
    np.testing.assert_array_equal(g.realize([5]).numpy(), table[[255, 0, 7, 100, 3]])
