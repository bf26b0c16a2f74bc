"""Halide's placeholder `_` and implicit variables _0 .. _9 (Func.cpp
add_implicit_vars / args_with_implicit_vars): on the right of a definition `_`
stands for the dimensions a call does not name, on the left of a pure
definition for as many implicit variables as the right side uses. Results are
compared with the reference evaluator and NumPy; the shapes with Halide 21."""
import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check


def test_implicit_variable_names():
    assert ph._.name() == "_" and ph._.is_placeholder()
    assert ph._1.same_as(ph.Var.implicit(1)) and ph._1.implicit_index() == 1
    assert ph._9.name() == "_9" and not ph._0.is_placeholder()


def test_placeholder_on_both_sides_keeps_the_remaining_dimensions():
    x, y, c = ph.vars("x y c")
    src = ph.Func("src")
    src[x, y, c] = x * 100 + y * 10 + c
    down = ph.Func("down")                  # the local Laplacian's downsample
    down[x, ph._] = src[2 * x, ph._] + src[2 * x + 1, ph._]
    assert down.dimensions() == 3
    assert [v.name() for v in down.args()] == ["x", "_0", "_1"]
    got = check(down, [4, 3, 2])[0]
    X, Y, C = np.meshgrid(np.arange(4), np.arange(3), np.arange(2), indexing="ij")
    np.testing.assert_array_equal(got, ((2 * X * 100 + Y * 10 + C) * 2 + 100).T)  # axes reversed


def test_placeholder_in_the_middle_and_on_inputs():
    x, y = ph.vars("x y")
    data = np.arange(5 * 4 * 3, dtype=np.int16).reshape(3, 4, 5)   # (x, y, c) = (5, 4, 3)
    img = ph.ImageParam(ph.Int(16), 3, "img")
    img.set(ph.Buffer(data))
    f = ph.Func("f")
    f[x, ph._, y] = img[x, ph._, y] * 2         # _ is one dimension: _0 in the middle
    assert [v.name() for v in f.args()] == ["x", "_0", "y"]
    got = check(f, [5, 4, 3])[0]
    np.testing.assert_array_equal(got, data * 2)
    g = ph.Func("g")
    g[ph._] = f[ph._] + ph.Buffer(data)[ph._]  # all three dimensions implicit
    assert g.dimensions() == 3
    np.testing.assert_array_equal(check(g, [5, 4, 3])[0], data * 3)


def test_placeholder_in_an_update():
    x = ph.Var("x")
    r = ph.RDom([(0, 3)], "r")
    src = ph.Func("src")
    src[x, ph._0] = x + ph._0                 # implicit variables written out
    f = ph.Func("f")
    f[x, ph._] = src[x, ph._]
    f[x, ph._] += src[r.x, ph._]
    got = check(f, [4, 2])[0]
    X, Y = np.meshgrid(np.arange(4), np.arange(2), indexing="ij")
    np.testing.assert_array_equal(got, (X + Y + (0 + 1 + 2 + 3 * Y)).T)


def test_right_side_with_implicit_variables_needs_the_placeholder():
    x = ph.Var("x")
    src = ph.Func("src")
    src[x, ph._] = ph._0 + x * 0              # Halide: src(x, _0)
    f = ph.Func("f")
    with pytest.raises(ph.CompileError, match=r"(?s)no `_`.*test_implicit_vars.py:\d+"):
        f[x] = src[x, ph._]
    g = ph.Func("g")
    g[x] = x
    with pytest.raises(ph.CompileError, match="implicit"):
        g[x, ph._] = src[ph._]                 # _ on the left of the update stands for nothing
