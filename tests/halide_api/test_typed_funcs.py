"""Func(types, dimensions, name) (Halide's typed Funcs), the errors for an
undefined Func's type and dimensions, float coordinates, Python integers
beyond int32 (Int(64) as in Halide), tile() with lists, specialize(True),
and Pipeline.add_requirement. Values compared with the reference evaluator."""
import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check


def test_undefined_func_has_no_type_or_dimensions():
    f = ph.Func("f_typed_none")
    for method in (f.type, f.outputs, f.dimensions, f.types):
        with pytest.raises(ph.HalideError, match="it is undefined"):
            method()


def test_typed_func_declares_and_checks_its_definition():
    x, y = ph.vars("x y")
    f = ph.Func(ph.Int(32), 2, "f_typed")
    assert not f.defined() and f.type() == ph.Int(32) and f.types() == [ph.Int(32)]
    assert f.outputs() == 1 and f.dimensions() == 2
    f[x, y] = x + y
    check(f, [3, 2], [np.add.outer(np.arange(2), np.arange(3))])
    t = ph.Func([ph.Int(32), ph.Float(64)], 3, "t_typed")
    with pytest.raises(ph.HalideError, match="because it returns a Tuple"):
        t.type()
    assert t.types() == [ph.Int(32), ph.Float(64)] and t.dimensions() == 3
    g = ph.Func(ph.Int(32), 1, "g_typed")
    with pytest.raises(ph.HalideError, match="constrained to have exactly 1 dimensions, but is "
                                             "defined with 2 dimensions"):
        g[x, y] = ph.i32(0)
    h = ph.Func((ph.Int(32), ph.Float(32)), 2, "h_typed")
    with pytest.raises(ph.HalideError, match=r"only hold values of type \(int32, float32\) but "
                                             r"is defined with values of type \(int16, float64\)"):
        h[x, y] = (ph.i16(0), ph.f64(0))


def test_float_coordinate_is_refused_where_written():
    x = ph.Var("x")
    f = ph.Func("f_float_arg")
    f[x] = x
    with pytest.raises(ph.HalideError, match=r"Implicit cast from float32 to int in argument 1 "
                                             r"in call to \"f_float_arg\""):
        f[x / 2.0]


def test_integers_beyond_int32_are_int64():
    x = ph.Var("x")
    assert (ph.i32(0) + 0x7FFFFFFF).type() == ph.Int(32)
    assert (ph.i32(0) + 2**31).type() == ph.Int(64)
    assert (ph.u32(0) + 2**32).type() == ph.Int(64)
    assert (ph.u64(0) + 2**40).type() == ph.UInt(64)     # (Halide: int64; pyhalide keeps u64)
    f = ph.Func("f_int64_const")
    f[x] = x + 2**33
    check(f, [3], [np.arange(3, dtype=np.int64) + 2**33])
    with pytest.raises(TypeError):
        ph.u8(0) + 300


def test_tile_with_lists_equals_the_reference():
    x, y, xo, yo, xi, yi = ph.vars("x y xo yo xi yi")
    f = ph.Func("f_tile_lists")
    f[x, y] = y * 3
    f[x, y] += x
    f.tile([x, y], [xo, yo], [x, y], [4, 4])
    f.update(0).tile([x, y], [xo, yo], [xi, yi], [4, 2], ph.TailStrategy.GuardWithIf)
    check(f, [9, 7])
    g = ph.Func("g_tile_lists")
    g[x, y] = x - y
    g.tile([x, y], [xi, yi], [2, 3], ph.TailStrategy.RoundUp)
    check(g, [8, 9])


def test_specialize_true_is_the_func_and_others_are_refused():
    x = ph.Var("x")
    f = ph.Func("f_specialize")
    f[x] = x
    assert f.compute_root().specialize(True) is f
    with pytest.raises(NotImplementedError, match="one schedule"):
        f.specialize(x > 3)


def test_pipeline_requirement():
    delta = ph.Param(ph.Int(32), "delta_req")
    x = ph.Var("x")
    f = ph.Func("f_requirement")
    f[x] = x + delta
    p = ph.Pipeline([f])
    p.add_requirement(delta != 0)
    p.add_requirement(delta > 0, "negative values are bad", delta)
    delta.set(1)
    np.testing.assert_array_equal(np.asarray(p.realize([4])), np.arange(4) + 1)
    delta.set(0)
    with pytest.raises(ph.HalideError, match=r"Requirement Failed: \(false\)"):
        p.realize([4])
    delta.set(-1)
    with pytest.raises(ph.HalideError, match=r"Requirement Failed: \(false\) negative values "
                                             r"are bad -1"):
        p.realize([4])


def test_pipeline_of_outputs_of_different_dimensions_compiles_but_does_not_realize():
    x, y, z = ph.vars("x y z")
    f, g = ph.Func("f_dims2"), ph.Func("g_dims3")
    f[x, y] = x + y
    g[x, y, z] = x + y + z
    p = ph.Pipeline([f, g])
    p.compile_jit()
    with pytest.raises(ph.CompileError, match="same dimensions"):
        p.realize([2, 2, 2])
