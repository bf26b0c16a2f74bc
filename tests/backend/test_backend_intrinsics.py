"""Intrinsic calls (math functions, abs, NaN tests), scalar and vector."""
import numpy as np
import pytest

from pyhalide import ir
from pyhalide.lowering.codegen_llvm import CodegenError
from tests.backend.backend_util import elementwise, i32, run, var

UNARY = {
    "sqrt": np.sqrt, "exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "floor": np.floor, "ceil": np.ceil,
    "round": np.round, "trunc": np.trunc,
}
EXACT = {"floor", "ceil", "round", "trunc", "sqrt"}


def call(name, t, *args):
    return ir.Call(t, name, tuple(args), ir.INTRINSIC)


@pytest.mark.parametrize("lanes", [1, 4])
@pytest.mark.parametrize("bits", [32, 64])
def test_unary_math(bits, lanes):
    dt = np.dtype(f"f{bits // 8}")
    vals = [0.0, 0.25, -0.25, 0.5, -0.5, 1.5, 2.5, -2.5, 3.7, -3.7, 0.999, 10.0, 100.5, -7.5, 1e-3,
            np.nan, np.inf, -np.inf, 0.75, -0.9]
    vals += [1.0] * (-len(vals) % 4)
    a = np.array(vals, dt)
    outs = {nm: ((lambda x, nm=nm: call(nm, x.type, x)), dt) for nm in UNARY}
    res = elementwise(outs, {"a": a}, lanes=lanes)
    with np.errstate(all="ignore"):
        for nm, f in UNARY.items():
            want = f(a)
            got = res[nm]
            if nm in EXACT:
                np.testing.assert_array_equal(got, want, err_msg=nm)
            else:
                np.testing.assert_allclose(got, want, rtol=4e-7 if bits == 32 else 1e-14,
                                           atol=1e-30, err_msg=nm)


def test_round_is_half_to_even():
    a = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 4.5], np.float32)
    res = elementwise({"o": (lambda x: call("round", x.type, x), np.float32)}, {"a": a})
    assert res["o"].tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 4.0, 4.0]


@pytest.mark.parametrize("lanes", [1, 8])
def test_binary_math(lanes):
    a = np.array([1.0, 2.0, -1.0, 0.5, 3.0, 0.0, -2.0, 10.0] * 2, np.float32)
    b = np.array([2.0, 0.5, 3.0, -1.0, 2.0, 0.0, -0.5, 1.0] * 2, np.float32)
    res = elementwise({"pow": (lambda x, y: call("pow", x.type, x, y), np.float32),
                       "atan2": (lambda x, y: call("atan2", x.type, x, y), np.float32)},
                      {"a": a, "b": b}, lanes=lanes)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(res["pow"], np.power(a, b), rtol=1e-6)
        np.testing.assert_allclose(res["atan2"], np.arctan2(a, b), rtol=1e-6)


def test_math_of_integer_argument_converts_to_result_type():
    a = np.arange(8, dtype=np.int32)
    res = elementwise({"o": (lambda x: call("sqrt", ir.Float(32, x.type.lanes), x), np.float32)},
                      {"a": a}, lanes=8)
    np.testing.assert_array_equal(res["o"], np.sqrt(a.astype(np.float32)))


@pytest.mark.parametrize("lanes", [1, 8])
@pytest.mark.parametrize("t", [ir.Int(8), ir.Int(16), ir.Int(32), ir.Int(64)], ids=str)
def test_abs_signed_gives_unsigned(t, lanes):
    vals = [t.min_value(), t.min_value() + 1, -1, 0, 1, t.max_value(), -5, 7]
    a = np.array(vals, t.to_numpy())
    ut = t.with_code("uint")
    res = elementwise({"o": (lambda x: call("abs", ut.with_lanes(x.type.lanes), x),
                             ut.to_numpy())}, {"a": a}, lanes=lanes)
    assert res["o"].tolist() == [abs(v) for v in vals]


def test_abs_float_and_unsigned():
    f = np.array([-0.0, -1.5, 2.0, -np.inf, np.nan, 3.0, -7.0, 0.0], np.float64)
    u = np.arange(8, dtype=np.uint8) * 30
    res = elementwise({"f": (lambda x, y: call("abs", x.type, x), np.float64),
                       "u": (lambda x, y: call("abs", y.type, y), np.uint8)},
                      {"fi": f, "ui": u}, lanes=4)
    np.testing.assert_array_equal(res["f"], np.abs(f))
    assert not np.signbit(res["f"][0])
    np.testing.assert_array_equal(res["u"], u)


@pytest.mark.parametrize("lanes", [1, 4])
def test_nan_inf_finite(lanes):
    a = np.array([0.0, np.nan, np.inf, -np.inf, 1e308, -5.0, np.float64(np.nan) * -1, 3.0])
    i = np.arange(8, dtype=np.int32)
    outs = {nm: ((lambda x, y, nm=nm: call(nm, ir.Bool(x.type.lanes), x)), np.bool_)
            for nm in ("is_nan", "is_inf", "is_finite")}
    outs["int_finite"] = (lambda x, y: call("is_finite", ir.Bool(y.type.lanes), y), np.bool_)
    outs["int_nan"] = (lambda x, y: call("is_nan", ir.Bool(y.type.lanes), y), np.bool_)
    res = elementwise(outs, {"a": a, "i": i}, lanes=lanes)
    np.testing.assert_array_equal(res["is_nan"], np.isnan(a))
    np.testing.assert_array_equal(res["is_inf"], np.isinf(a))
    np.testing.assert_array_equal(res["is_finite"], np.isfinite(a))
    assert res["int_finite"].all() and not res["int_nan"].any()


def test_unknown_intrinsic_is_a_codegen_error():
    out = np.zeros(4, np.float32)
    s = ir.For("x", i32(0), i32(4), "serial",
               ir.Store("o", call("no_such_fn", ir.Float(32), ir.Const(ir.Float(32), 1.0)),
                        var("x")))
    with pytest.raises(CodegenError, match="no_such_fn"):
        run(s, [("o", out, True)])
