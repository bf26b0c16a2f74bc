"""Halide's hl.print / hl.print_when, printed by the compiled code each time it
evaluates them (serial, vectorized and inside a traced run), in Halide 21's
format (checked against Halide 21: float32 %f, float64 %e, bool true/false);
the values are compared with NumPy."""
import numpy as np
import pytest

import pyhalide as ph


def test_print_formats_and_value(capsys):
    x = ph.Var("x")
    f = ph.Func("f_print")
    f[x] = ph.print(x, ph.f32(x) / 3, "hi", ph.u8(x + 250), ph.f64(x) * 1e10, x > 1)
    np.testing.assert_array_equal(np.asarray(f.realize([3])), [0, 1, 2])
    assert capsys.readouterr().out.splitlines() == [
        "0 0.000000 hi 250 0.000000e+00 false",
        "1 0.333333 hi 251 1.000000e+10 false",
        "2 0.666667 hi 252 2.000000e+10 true"]


@pytest.mark.parametrize("vector", [False, True])
def test_print_when(capsys, vector):
    x = ph.Var("x")
    g = ph.Func("g_pw")
    g[x] = ph.print_when(x % 3 == 1, ph.cast(ph.UInt(8), x * x), "is result at", x)
    if vector:
        g.vectorize(x, 4)
    np.testing.assert_array_equal(np.asarray(g.realize([8])), np.arange(8) ** 2)
    assert capsys.readouterr().out.splitlines() == [
        "1 is result at 1", "16 is result at 4", "49 is result at 7"]


def test_print_joins_a_traced_run_in_order(capsys):
    x = ph.Var("x")
    f = ph.Func("f_pt")
    f[x] = ph.print(x * 2, "<- x*2")
    f.trace_stores()
    f.realize([2])
    assert capsys.readouterr().out.splitlines() == [
        "Begin pipeline f_pt.0()", 'Tag f_pt.0() tag = "func_type_and_dim: 1 0 32 1 1 0 2"',
        "0 <- x*2", "Store f_pt.0(0) = 0", "2 <- x*2", "Store f_pt.0(1) = 2",
        "End pipeline f_pt.0()"]


def test_print_argument_errors():
    x, y = ph.vars("x y")
    with pytest.raises(TypeError, match="first argument"):
        ph.print("x =", x)
    with pytest.raises(ValueError, match="cannot be converted to a bool"):
        ph.print_when(x == 0 and y == 0, 0, "x=", x)
