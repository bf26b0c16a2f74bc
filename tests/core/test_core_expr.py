"""Expression semantics and Halide's coercion rules, JIT vs reference vs
Python."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir
from tests.core.jitcheck import check

TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def _euclid(a, b):
    if b == 0:
        return 0, 0
    q = a // b if b > 0 else -(a // -b)
    r = a - q * b
    if r < 0:
        q, r = (q + 1, r - b) if b < 0 else (q - 1, r + b)
    return q, r


@pytest.mark.parametrize("dtype", TYPES)
def test_integer_ops_wrap_and_euclid(dtype):
    info = np.iinfo(dtype)
    np.random.default_rng(7)
    vals = np.array([info.min, info.max, 0, 1, -1 if info.min < 0 else 2, 7, info.min // 3 or 3,
                     info.max // 5], dtype=dtype)
    a = np.repeat(vals, vals.size)
    b = np.tile(vals, vals.size)
    A, B = ph.Buffer(a, "ea"), ph.Buffer(b, "eb")
    x = ph.Var("x")
    ops = {"add": lambda p, q: p + q, "sub": lambda p, q: p - q, "mul": lambda p, q: p * q,
           "div": lambda p, q: p / q, "mod": lambda p, q: p % q,
           "min": ph.min, "max": ph.max, "and": lambda p, q: p & q, "xor": lambda p, q: p ^ q}
    funcs = []
    for name, op in ops.items():               # one pipeline of every op: one compile
        funcs.append(ph.Func(f"op_{name}"))
        funcs[-1][x] = op(A[x], B[x])
    for name, got in zip(ops, check(funcs, [a.size]), strict=True):
        for i in range(a.size):
            p, q = int(a[i]), int(b[i])
            exp = {"add": p + q, "sub": p - q, "mul": p * q, "div": _euclid(p, q)[0],
                   "mod": _euclid(p, q)[1], "min": min(p, q), "max": max(p, q),
                   "and": p & q, "xor": p ^ q}[name]
            exp = ir.Type.from_numpy(dtype).wrap(exp)
            assert int(got[i]) == exp, (name, p, q, int(got[i]), exp)


def test_saturating_float_to_int_casts():
    vals = np.array([np.nan, np.inf, -np.inf, 1e10, -1e10, 3.7, -3.7, 127.9, 128.0, -129.0],
                    dtype=np.float32)
    A = ph.Buffer(vals, "fv")
    x = ph.Var("x")
    for t in (ph.Int(8), ph.UInt(8), ph.Int(32), ph.UInt(64), ph.Int(64)):
        f = ph.Func("sat")
        f[x] = ph.cast(t, A[x])
        (got,) = check(f, [vals.size])
        info = np.iinfo(t.to_numpy())
        for v, g in zip(vals, got):
            exp = 0 if np.isnan(v) else int(max(info.min, min(info.max, float(v)
                                                             if abs(v) < 1e30 else v)))
            if np.isinf(v):
                exp = info.max if v > 0 else info.min
            assert int(g) == exp, (t, v, g, exp)


def test_shifts_by_bit_width_or_more():
    a = np.array([-8, 8, -1, 1], dtype=np.int32)
    s = np.array([32, 40, 31, 0], dtype=np.int32)
    A, S = ph.Buffer(a, "sa"), ph.Buffer(s, "ss")
    x = ph.Var("x")
    left, right = ph.Func("shl"), ph.Func("shr")
    left[x] = A[x] << S[x]
    right[x] = A[x] >> S[x]
    check(left, [4], [[0, 0, -2147483648, 1]])
    check(right, [4], [[-1, 0, -1, 1]])


def test_coercion_rules():
    x = ph.Var("x")
    u16 = ph.cast(ph.UInt(16), x)
    assert (u16 + 3).type() == ph.UInt(16)
    assert ph.min(u16, 255).type() == ph.UInt(16)
    assert (u16 + ph.cast(ph.Int(8), x)).type() == ph.Int(16)
    assert (u16 + ph.cast(ph.UInt(32), x)).type() == ph.UInt(32)
    assert (x + 1.5).type() == ph.Float(32)
    assert (ph.cast(ph.Float(64), x) + 1.5).type() == ph.Float(64)
    assert ph.Expr(5).type() == ph.Int(32)
    assert ph.Expr(2**40).type() == ph.Int(64)
    assert ph.Expr(1.5).type() == ph.Float(32)
    assert ph.abs(x).type() == ph.UInt(32)
    assert ph.sqrt(x).type() == ph.Float(32)
    assert (x ** 2).type() == ph.Float(32)
    with pytest.raises(TypeError):
        ph.cast(ph.UInt(8), x) + 300
    with pytest.raises(TypeError):
        ph.cast(ph.Int(8), x) * -129
    assert ph.Int(8).max().node.value == 127
    assert ph.UInt(16).min().node.value == 0


def test_math_functions_match_numpy():
    v = np.linspace(0.1, 3.0, 37).astype(np.float32)
    A = ph.Buffer(v, "mv")
    x = ph.Var("x")
    for name, npf in (("sqrt", np.sqrt), ("exp", np.exp), ("log", np.log), ("sin", np.sin),
                      ("cos", np.cos), ("floor", np.floor), ("ceil", np.ceil),
                      ("round", np.round)):
        f = ph.Func(name)
        f[x] = getattr(ph, name)(A[x])
        check(f, [v.size], [npf(v)], exact=name in ("sqrt", "floor", "ceil", "round"), rtol=1e-6)


def test_select_clamp_bool_logic():
    a = np.arange(-5, 5, dtype=np.int32)
    A = ph.Buffer(a, "sl")
    x = ph.Var("x")
    f = ph.Func("sel")
    f[x] = ph.select(A[x] < 0, -A[x], A[x] > 3, 100, ph.clamp(A[x], 1, 2))
    exp = np.where(a < 0, -a, np.where(a > 3, 100, np.clip(a, 1, 2)))
    check(f, [a.size], [exp])
    g = ph.Func("logic")
    g[x] = (A[x] > -2) & ph.logical_not(A[x] == 1) | (A[x] == -5)
    check(g, [a.size], [((a > -2) & ~(a == 1)) | (a == -5)])


def test_float32_division_and_mod():
    a = np.array([7.5, -7.5, 1.0, 0.0], dtype=np.float32)
    b = np.array([2.0, 2.0, 0.0, 0.0], dtype=np.float32)
    A, B = ph.Buffer(a, "fa"), ph.Buffer(b, "fb")
    x = ph.Var("x")
    f = ph.Func("fdiv")
    f[x] = A[x] / B[x]
    with np.errstate(all="ignore"):
        check(f, [4], [a / b])
    g = ph.Func("fmod")
    g[x] = A[x] % 2.0
    check(g, [4], [a - 2 * np.floor(a / 2)])
