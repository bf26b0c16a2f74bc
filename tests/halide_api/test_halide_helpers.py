"""Halide's small helpers: lerp (Halide's Lerp.cpp formulas, checked against a
Python model and the reference evaluator; integer results were also compared
with Halide 21 itself on 4000 random values per type pair), mux, vars, funcs,
lambda_func, evaluate, select on Tuples, RDom indices, Var helpers, HalideError,
the Float(32) precision warning, Target."""
import warnings

import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check

N = 300
RNG = np.random.default_rng(7)


def _random(dtype):
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, N, endpoint=True, dtype=dtype)


def _lerp_model(z, o, w, zt, wt):
    """Halide's lower_lerp on x86 in Python integers."""
    bits = np.iinfo(zt).bits
    umax = 2 ** bits - 1
    bias = -np.iinfo(zt).min if np.iinfo(zt).min < 0 else 0
    z, o = int(z) + bias, int(o) + bias
    wbits = np.iinfo(wt).bits
    w = int(w)
    if wbits == bits:
        tw = w
    elif wbits < bits:
        tw = w * (umax // (2 ** wbits - 1))
    else:
        tw = w // ((2 ** wbits - 1) // umax)
    r = (z * (umax - tw) + o * tw + umax // 2) // umax
    return r - bias


@pytest.mark.parametrize("zt,wt", [(np.uint8, np.uint8), (np.int8, np.uint8),
                                   (np.uint16, np.uint8), (np.uint8, np.uint16),
                                   (np.int32, np.uint32)])
def test_integer_lerp(zt, wt):
    z, o, w = _random(zt), _random(zt), _random(wt)
    x = ph.Var("x")
    f = ph.Func("f")
    f[x] = ph.lerp(ph.Buffer(z)[x], ph.Buffer(o)[x], ph.Buffer(w)[x])
    expected = np.array([_lerp_model(a, b, c, zt, wt) for a, b, c in zip(z, o, w)], zt)
    check(f, [N], [expected])


def test_float_lerp_and_a_float_weight_on_integers():
    a, b = RNG.random(N).astype(np.float32), RNG.random(N).astype(np.float32)
    w = RNG.integers(0, 256, N, dtype=np.uint8)
    x = ph.Var("x")
    f = ph.Func("f")
    f[x] = ph.lerp(ph.Buffer(a)[x], ph.Buffer(b)[x], ph.Buffer(w)[x])
    wf = w.astype(np.float32) / np.float32(255)
    check(f, [N], [a * (np.float32(1) - wf) + b * wf])
    g = ph.Func("g")
    g[x] = ph.lerp(ph.u8(x), ph.u8(200), 0.25)       # weight 0.25 -> 63 of 255
    check(g, [200], [[(i * 192 + 200 * 63 + 127) // 255 for i in range(200)]])
    with pytest.raises(ph.CompileError, match="not in"):
        ph.lerp(ph.u8(x), ph.u8(1), 1.5)


def test_mux_selects_the_last_value_out_of_range():
    x = ph.Var("x")
    f = ph.Func("f")
    f[x] = ph.mux(x - 1, [10, 20, ph.i32(30)])
    check(f, [5], [[30, 10, 20, 30, 30]])
    g = ph.Func("g")
    g[x] = ph.mux(x, [(1, 2.0), (3, 4.0)])
    check(g, [3], [[1, 3, 3], [2.0, 4.0, 4.0]])


def test_vars_funcs_lambda_func_and_evaluate():
    x, y = ph.vars("x y")
    f, g = ph.funcs("f g")
    assert (x.name(), y.name(), f.defined()) == ("x", "y", False)
    h = ph.lambda_func(x, y, x * 10 + y)
    check(h, [3, 2], [[[0, 10, 20], [1, 11, 21]]])
    assert ph.evaluate(ph.i32(7) * 6) == 42
    assert ph.evaluate((ph.f32(1.5), ph.u8(3) + 1)) == (1.5, 4)


def test_select_on_tuples_with_tuple_conditions():
    x, y = ph.vars("x y")
    f = ph.Func("f")
    f[x, y] = ph.select((x < 3, y < 2), (x, y), (x < 5, y < 3), (x - 1, y - 2), (0, 9))
    a = [[xx if xx < 3 else xx - 1 if xx < 5 else 0 for xx in range(6)] for yy in range(4)]
    b = [[yy if yy < 2 else yy - 2 if yy < 3 else 9 for xx in range(6)] for yy in range(4)]
    check(f, [6, 4], [a, b])
    with pytest.raises(ph.HalideError, match="may not mix Expr and Tuple"):
        ph.select((x < 3, y < 2), (x, y), x < 5, (x, y), (0, 9))
    with pytest.raises(ph.HalideError, match="identical sizes"):
        ph.select((x < 3, y < 2), (x, y, 0), (1, 2, 3, 4))


def test_a_sequence_value_defines_a_tuple():
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

        def __len__(self):
            return 2

        def __getitem__(self, i):
            return (self.a, self.b)[i]

    x = ph.Var("x")
    f = ph.Func("f")
    f[x] = Pair(x, x * 2)
    assert isinstance(f[x][0], ph.FuncTupleElementRef)
    check(f, [3], [[0, 1, 2], [0, 2, 4]])


def test_rdom_var_and_error_helpers():
    r = ph.RDom([(0, 3), (0, 4)])
    assert r[1].name() == r.y.name()
    for bad in (-1, 2):
        with pytest.raises(KeyError):
            r[bad]
    assert [v.name() for v in r] == [r.x.name(), r.y.name()]
    assert ph.Var("_1").same_as(ph.Var.implicit(1)) and ph.Var("_1").implicit_index() == 1
    assert not ph.Var("a").same_as(ph.Var("b")) and ph.Var("a").implicit_index() == -1
    assert issubclass(ph.CompileError, ph.HalideError)
    assert not ph.Expr().defined()
    with pytest.raises(ph.CompileError, match="undefined Expr"):
        ph.Expr() + 1


def test_python_float_losing_precision_warns():
    x = ph.Var("x")
    with pytest.warns(RuntimeWarning, match=r"^The floating-point value 0\.12345678901234568 "
                                            r"will be interpreted as a float32 by Halide and "
                                            r"lose precision; add an explicit `f32\(\)` or "
                                            r"`f64\(\)`` cast to avoid this warning\.$"):
        x + 0.123456789012345678
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x + 0.75
        e = x + ph.f64(0.123456789012345678)
    f = ph.Func("f")
    f[x] = e
    check(f, [3], [[i + 0.123456789012345678 for i in range(3)]])


def test_target():
    t = ph.get_jit_target_from_environment()
    assert not t.has_gpu_feature() and not t.has_feature(ph.TargetFeature.CUDA)
    assert t.natural_vector_size(ph.UInt(8)) == 4 * t.natural_vector_size(ph.Float(32))
    assert ph.Target("x86-64-avx2").has_feature(ph.TargetFeature.AVX2)
    assert not ph.Target("x86-64").has_feature(ph.TargetFeature.AVX2)
    assert ph.Target("x86-64-avx2").natural_vector_size(ph.Float(32)) == 8
    with pytest.raises(NotImplementedError, match="Handle"):
        ph.Param(ph.Handle(), "h")


def test_compile_to_lowered_stmt(tmp_path):
    x = ph.Var("x")
    f = ph.Func("gradient")
    f[x] = x + 1
    f.compile_to_lowered_stmt(str(tmp_path / "g.stmt"), [], ph.StmtOutputFormat.Text)
    f.compile_to_lowered_stmt(str(tmp_path / "g.html"), [], ph.StmtOutputFormat.HTML)
    text = (tmp_path / "g.stmt").read_text()
    assert "gradient" in text
    assert (tmp_path / "g.html").read_text().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("method", ["compile_to_c", "compile_to_object", "compile_to_file",
                                    "gpu_tile", "gpu_threads", "hexagon"])
def test_features_that_do_not_apply_raise_not_implemented(method):
    x = ph.Var("x")
    f = ph.Func("f")
    f[x] = x
    with pytest.raises(NotImplementedError, match=method):
        getattr(f, method)("out", [])
        f.realize([4])           # (a GPU schedule is accepted; compiling it is refused)


def test_an_explicit_float32_cast_does_not_warn():
    x = ph.Var("x")
    f = ph.Func("f")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f[x] = ph.f32(x) * ph.f32(0.01) + ph.f32(1e-6)
    check(f, [4], [np.arange(4, dtype=np.float32) * np.float32(0.01) + np.float32(1e-6)])
    # ph.cast takes an Expr, which a Python float becomes as Float(32) with the
    # warning (Halide 21: hl.cast(hl.Float(32), 1e-6) warns the same)
    with pytest.warns(RuntimeWarning, match="interpreted as a float32"):
        ph.cast(ph.Float(32), 1e-6)
