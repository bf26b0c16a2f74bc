"""An update keeps the type and the Tuple arity of its Func's pure definition,
as in Halide: operands coerce as the operators do (a Python int takes the
Func's type when it fits, a Python float meeting an integer is Float(32)), and
a value of another type is a located CompileError, never a silent cast."""

import numpy as np
import pytest

import pyhalide as ph
from tests.schedules.schedule_check import check

x = ph.Var("x")
U8, I32, F32 = ph.UInt(8), ph.Int(32), ph.Float(32)


def _func(t, name="acc"):
    f = ph.Func(name)
    f[x] = ph.cast(t, x * 60)
    return f


# (case, pure type, update, the type the update's value has)
REFUSED = [
    ("u8_plus_f32", U8, "plus_f32", "float32"),
    ("u8_aug_f32", U8, "aug_f32", "float32"),
    ("u8_aug_float_literal", U8, "aug_1.5", "float32"),
    ("u8_aug_integral_float_literal", U8, "aug_div_2.0", "float32"),
    ("u8_aug_int32_var", U8, "aug_x", "int32"),
    ("u8_aug_u16", U8, "aug_u16", "uint16"),
    ("i32_aug_i64", I32, "aug_i64", "int64"),
    ("f32_aug_f64", F32, "aug_f64", "float64"),
    ("u8_assign_float_literal", U8, "assign_1.5", "float32"),
]


def _update(f, how):
    if how == "plus_f32":
        f[x] = f[x] + ph.cast(F32, 1.5)
    elif how == "aug_f32":
        f[x] += ph.cast(F32, 1.5)
    elif how == "aug_1.5":
        f[x] += 1.5
    elif how == "aug_div_2.0":
        f[x] /= 2.0
    elif how == "aug_x":
        f[x] += x
    elif how == "aug_u16":
        f[x] += ph.cast(ph.UInt(16), 1)
    elif how == "aug_i64":
        f[x] += ph.cast(ph.Int(64), 1)
    elif how == "aug_f64":
        f[x] += ph.cast(ph.Float(64), 1)
    else:
        assert how == "assign_1.5"
        f[x] = 1.5


@pytest.mark.parametrize("case,t,how,got", REFUSED, ids=[c[0] for c in REFUSED])
def test_update_of_another_type_is_refused_with_func_types_and_line(case, t, how, got):
    f = _func(t, "acc_" + case)
    with pytest.raises(ph.CompileError) as info:
        _update(f, how)
    msg = str(info.value)
    assert f.name() in msg
    assert got in msg and str(t) in msg
    assert "test_update_types.py:" in msg          # the user's line
    assert "ph.cast(" in msg                       # how to fix
    assert f.num_update_definitions() == 0


@pytest.mark.parametrize("pure,update", [((x, x), x), (x, (x, x))])
def test_update_of_another_tuple_arity_is_refused(pure, update):
    f = ph.Func("arity")
    f[x] = pure
    msg = r"(?s)arity\S* holds \d values? but the update gives \d.*test_update_types\.py:"
    with pytest.raises(ph.CompileError, match=msg):
        f[x] = update


def test_accepted_updates_match_halide_coercion_and_reference():
    # u8 += 1 stays uint8 and wraps (Halide: the literal takes the Func's type)
    def u8_plus_one():
        f = _func(U8, "u8p1")
        f[x] += 1
        f[x] = f[x] + 1
        f[x] *= 2
        return f
    got = check(u8_plus_one(), [6])[0]
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, ((np.arange(6) * 60 + 2) * 2).astype(np.uint8))

    # a float Func takes an int32 Expr and an int literal
    def f32_plus_int():
        f = _func(F32, "f32pi")
        f[x] += x
        f[x] -= 1
        return f
    got = check(f32_plus_int(), [5])[0]
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.arange(5) * 61 - 1)

    # a narrower operand widens to the Func's type
    def i16_plus_u8():
        f = _func(ph.Int(16), "i16pu8")
        f[x] += ph.cast(U8, 200)
        return f
    got = check(i16_plus_u8(), [4])[0]
    assert got.dtype == np.int16
    np.testing.assert_array_equal(got, np.arange(4) * 60 + 200)


def test_int_literal_that_does_not_fit_is_refused():
    f = _func(U8, "u8big")
    with pytest.raises(TypeError, match="300 does not fit in type uint8"):
        f[x] += 300


def test_float_literal_meets_integer_expr_as_float32_as_in_halide():
    f = ph.Func("halves")
    f[x] = x / 2.0
    assert f.type() == F32
    got = check(f, [4])[0]
    np.testing.assert_array_equal(got, np.array([0, 0.5, 1, 1.5], np.float32))
    g = ph.Func("floordiv")
    g[x] = (x - 3) // 2.0
    assert g.type() == F32
    np.testing.assert_array_equal(check(g, [4])[0], np.floor((np.arange(4) - 3) / 2.0))
    u = ph.cast(U8, x)
    assert ph.min(u, 2.0).type() == F32
    assert ph.clamp(u, 0.0, 2.0).type() == U8        # a lossless bound keeps the type
    with pytest.raises(TypeError, match="clamp of a uint8 value with the bound 1.5"):
        ph.clamp(u, 0, 1.5)
    with pytest.raises(TypeError, match="shift operands must be integers"):
        u << 1.0


def test_pipeline_augmented_assignment_keeps_python_meaning():
    def prog(a):
        h = np.zeros(4, np.uint8)
        for i in range(4):
            h[i] = a[i]
            h[i] += 1.5
            h[i] -= 0.25
            h[i] *= 2.0
            h[i] += np.int64(300)
        return h
    a = np.array([1, 2, 250, 255], np.uint8)
    np.testing.assert_array_equal(ph.pipeline(prog)(a), prog(a))
