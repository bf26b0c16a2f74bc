"""Vectorized element-wise code equals the serial loop bit for bit, for every
type: arithmetic, comparisons, selects, casts that change widths, intrinsic
calls, lets, and scalars (loop-invariant values, the loop variable) mixed
with vectors."""
import numpy as np
import pytest

from pyhalide import ir
from tests.vectorize.vectorize_util import check_vectorizes, i32, load, split_vectorized, var

N = 96
rng = np.random.default_rng(7)


def values(t: ir.Type, n=N):
    dt = t.to_numpy()
    if t.is_bool():
        return rng.integers(0, 2, n).astype(bool)
    if t.is_float():
        special = [0.0, -0.0, 1.0, -1.0, 0.5, np.inf, -np.inf, np.nan, 1e30, -3.25, 1e-40]
        v = rng.standard_normal(n) * 100
        v[:len(special)] = special
        return rng.permutation(v).astype(dt)
    info = np.iinfo(dt)
    special = [info.min, info.max, 0, 1, 2, info.max // 2]
    if t.is_int():
        special += [-1, -2, -7]
    v = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    v[:len(special)] = np.array(special, dtype=dt)
    return v


def ops_for(t: ir.Type):
    """(name, fn(a, b, x) -> Expr) of the operations to test on type t."""
    c = lambda v: ir.const(t, v)          # noqa: E731
    xt = lambda x: ir.Cast(t, x)            # noqa: E731 (the loop variable, as t)
    if t.is_bool():
        return [("and", lambda a, b, x: ir.And(a, b)),
                ("or", lambda a, b, x: ir.Or(a, ir.Not(b))),
                ("eq", lambda a, b, x: ir.EQ(a, b)),
                ("sel", lambda a, b, x: ir.Select(a, b, ir.LT(x, i32(40)))),
                ("cast", lambda a, b, x: ir.Cast(ir.Bool(), ir.Add(ir.Cast(ir.UInt(8), a),
                                                                   ir.Cast(ir.UInt(8), b))))]
    ops = [("add", lambda a, b, x: ir.Add(a, b)),
           ("sub", lambda a, b, x: ir.Sub(a, b)),
           ("mul", lambda a, b, x: ir.Mul(a, b)),
           ("div", lambda a, b, x: ir.Div(a, b)),
           ("mod", lambda a, b, x: ir.Mod(a, b)),
           ("divc", lambda a, b, x: ir.Div(a, c(3))),
           ("min", lambda a, b, x: ir.Min(a, b)),
           ("max", lambda a, b, x: ir.Max(a, xt(x))),
           ("sel", lambda a, b, x: ir.Select(ir.LT(a, b), ir.Add(a, c(1)), b)),
           ("sel_scalar_cond", lambda a, b, x: ir.Select(ir.GT(var("p"), i32(0)), a, b)),
           ("lane_var", lambda a, b, x: ir.Sub(ir.Mul(xt(x), c(3)), a)),
           ("let", lambda a, b, x: ir.Let("t", ir.Add(a, b), ir.Mul(var("t", a.type),
                                                                 var("t", a.type))))]
    if t.is_float():
        ops += [("sqrt", lambda a, b, x: ir.Call(t, "sqrt", (a,), ir.INTRINSIC)),
                ("floor", lambda a, b, x: ir.Call(t, "floor", (b,), ir.INTRINSIC)),
                ("isnan", lambda a, b, x: ir.Select(ir.Call(ir.Bool(), "is_nan", (a,),
                                                            ir.INTRINSIC), b, a))]
    else:
        ops += [("and", lambda a, b, x: ir.BitAnd(a, b)),
                ("xor", lambda a, b, x: ir.BitXor(a, ir.BitNot(b))),
                ("shl", lambda a, b, x: ir.Shl(a, ir.BitAnd(b, c(t.bits * 2 - 1)))),
                ("shr", lambda a, b, x: ir.Shr(a, ir.BitAnd(b, c(t.bits * 2 - 1)))),
                ("abs", lambda a, b, x: ir.Call(t, "abs", (a,), ir.INTRINSIC))]
    return ops


def compare_ops():
    return [("lt", ir.LT), ("le", ir.LE), ("eq", ir.EQ), ("ne", ir.NE), ("gt", ir.GT),
            ("ge", ir.GE)]


@pytest.mark.parametrize("t", ir.ALL_SCALAR_TYPES, ids=str)
def test_elementwise_ops_every_type(t):
    width = 16 if t.bits <= 8 else 8 if t.bits <= 32 else 4
    a, b = values(t), values(t)
    ops = ops_for(t)
    cmps = [] if t.is_bool() else compare_ops()
    out = np.zeros(len(ops) * N, t.to_numpy())
    flags = np.zeros(max(len(cmps), 1) * N, bool)

    def body(x):
        la, lb = load(a, "a", x), load(b, "b", x)
        stores = [ir.Store("out", fn(la, lb, x), ir.Add(x, i32(k * N)))
                  for k, (_, fn) in enumerate(ops)]
        stores += [ir.Store("flags", cls(la, lb), ir.Add(x, i32(k * N)))
                   for k, (_, cls) in enumerate(cmps)]
        return ir.block(*stores)

    stmt = split_vectorized(N // width, width, body)
    bufs = [("a", a, False), ("b", b, False), ("out", out, True), ("flags", flags, True)]
    check_vectorizes(stmt, bufs, [("p", ir.Int(32), 1)], lanes=width)


CASTS = [(ir.UInt(8), ir.Int(32)), (ir.Int(32), ir.UInt(8)), (ir.Int(16), ir.Float(64)),
         (ir.Float(64), ir.Int(16)), (ir.Float(32), ir.UInt(64)), (ir.UInt(64), ir.Float(32)),
         (ir.Int(8), ir.UInt(16)), (ir.Float(64), ir.Float(32)), (ir.Float(32), ir.Bool()),
         (ir.Bool(), ir.Float(64)), (ir.Int(64), ir.Int(8)), (ir.UInt(16), ir.Int(64))]


@pytest.mark.parametrize("src,dst", CASTS, ids=lambda t: str(t))
def test_casts_changing_widths(src, dst):
    a = values(src)
    out = np.zeros(2 * N, dst.to_numpy())

    def body(x):
        la = load(a, "a", x)
        via = ir.Cast(dst, ir.Cast(ir.Float(64), la))
        return ir.block(ir.Store("out", ir.Cast(dst, la), x),
                        ir.Store("out", via, ir.Add(x, i32(N))))

    lowered, _ = check_vectorizes(split_vectorized(N // 8, 8, body),
                                  [("a", a, False), ("out", out, True)], lanes=8)
    assert f"{dst.with_lanes(8)}(" in ir.to_str(lowered)


def test_lets_and_letstmts_that_become_vectors_are_renamed():
    a = values(ir.Float(32))
    out = np.zeros(N, np.float32)

    def body(x):
        t = var("t", ir.Float(32))
        scaled = ir.Mul(load(a, "a", x), ir.Cast(ir.Float(32), var("k")))
        inner = ir.Let("u", ir.Add(t, t), ir.Sub(var("u", ir.Float(32)), ir.Const(ir.Float(32), 1)))
        return ir.LetStmt("k", ir.Add(var("xo"), i32(2)),          # stays scalar
                          ir.LetStmt("t", scaled, ir.Store("out", inner, x)))

    lowered, _ = check_vectorizes(split_vectorized(N // 8, 8, body),
                                  [("a", a, False), ("out", out, True)], lanes=8)
    text = ir.to_str(lowered)
    assert "let t.widened = " in text and "u.widened" in text
    assert "let k = " in text                       # a loop-invariant let stays scalar


def test_ramp_lets_bind_their_base_and_indices_stay_dense():
    a = values(ir.Int(16))
    out = np.zeros(N, np.int16)

    def body(x):
        # let xx = x; out[xx] = a[xx + 0] * 2 (as loop synthesis binds split variables)
        xx = var("xx")
        doubled = ir.Mul(load(a, "a", xx), ir.const(ir.Int(16), 2))
        return ir.LetStmt("xx", x, ir.Store("out", doubled, xx))

    lowered, _ = check_vectorizes(split_vectorized(N // 16, 16, body),
                                  [("a", a, False), ("out", out, True)], lanes=16)
    text = ir.to_str(lowered)
    assert "let xx.base = (xo * 16)" in text
    assert "out[ramp(xx.base, 1, 16)] = (a[ramp(xx.base, 1, 16)] * x16((int16)2))" in text


def test_comparing_a_lane_dependent_value_with_itself_is_uniform():
    a = values(ir.Int(32)).astype(np.int32)
    out = np.zeros(N, bool)
    stmt = split_vectorized(N // 8, 8, lambda x: ir.Store(
        "out", ir.LE(load(a, "a", x), load(a, "a", x)), x))
    lowered, (got,) = check_vectorizes(stmt, [("a", a, False), ("out", out, True)], lanes=8)
    assert "out[ramp((xo * 8), 1, 8)] = x8(true)" in ir.to_str(lowered)
    assert got.all()
