"""Vector expressions: dense and reversed ramps, broadcasts, gathers and
scatters, VectorReduce, and vector code surviving with LLVM's vectorizers off."""
import re

import numpy as np
import pytest

from pyhalide import ir
from pyhalide.lowering.jit import JitOptions, generate_text
from pyhalide.lowering.runtime import BufferArg
from tests.backend.backend_util import c, geom, i32, run, var

F32 = ir.Float(32)
I32 = ir.Int(32)


def loop(n, body, name="x"):
    return ir.For(name, i32(0), n if isinstance(n, ir.Expr) else i32(n), "serial", body)


def ramp(base, lanes, stride=1):
    return ir.Ramp(base, i32(stride), lanes)


def test_dense_ramp_load_store():
    a = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    x = var("x")
    idx = ramp(ir.Mul(x, i32(8)), 8)
    body = ir.Store("out", ir.Mul(ir.Load(F32.with_lanes(8), "a", idx), c(F32.with_lanes(8), 2.0)),
                    idx)
    run(loop(8, body), [("a", a, False), ("out", out, True)])
    np.testing.assert_array_equal(out, a * 2)


def test_reversed_ramp_load_and_store():
    a = np.arange(32, dtype=np.int16)
    out = np.zeros(32, np.int16)
    out2 = np.zeros(32, np.int16)
    x = var("x")
    fwd = ramp(ir.Mul(x, i32(8)), 8)
    # out[8x .. 8x+7] = a[31-8x, 30-8x, ...] (a stride -1 ramp load)
    rev = ramp(ir.Sub(i32(31), ir.Mul(x, i32(8))), 8, -1)
    body = ir.block(ir.Store("out", ir.Load(ir.Int(16, 8), "a", rev), fwd),
                    ir.Store("out2", ir.Load(ir.Int(16, 8), "a", fwd), rev))
    run(loop(4, body), [("a", a, False), ("out", out, True), ("out2", out2, True)])
    np.testing.assert_array_equal(out, a[::-1])
    np.testing.assert_array_equal(out2, a[::-1])


def test_gather_and_scatter():
    rng = np.random.default_rng(1)
    table = rng.standard_normal(100).astype(np.float64)
    idx = rng.integers(0, 100, 64).astype(np.int32)
    perm = rng.permutation(64).astype(np.int32)
    out = np.zeros(64, np.float64)
    scat = np.zeros(64, np.float64)
    x = var("x")
    d = ramp(ir.Mul(x, i32(8)), 8)
    gathered = ir.Load(ir.Float(64, 8), "table", ir.Load(ir.Int(32, 8), "idx", d))
    body = ir.block(ir.Store("out", gathered, d),
                    ir.Store("scat", ir.Load(ir.Float(64, 8), "table", d),
                             ir.Load(ir.Int(32, 8), "perm", d)))
    run(loop(8, body), [("table", table, False), ("idx", idx, False), ("perm", perm, False),
                        ("out", out, True), ("scat", scat, True)])
    np.testing.assert_array_equal(out, table[idx])
    want = np.zeros(64)
    want[perm] = table[:64]
    np.testing.assert_array_equal(scat, want)


def test_strided_ramp_is_a_gather_and_scatter_order_is_serial():
    a = np.arange(48, dtype=np.int32)
    out = np.zeros(16, np.int32)
    last = np.zeros(1, np.int32)
    x = var("x")
    d = ramp(ir.Mul(x, i32(8)), 8)
    body = ir.block(
        ir.Store("out", ir.Load(ir.Int(32, 8), "a", ramp(ir.Mul(x, i32(24)), 8, 3)), d),
        # every lane stores to last[0]: the highest lane wins, as in a serial loop
        ir.Store("last", ir.Load(ir.Int(32, 8), "a", d), ir.Broadcast(i32(0), 8)),
        # a scatter with repeated addresses (lanes 0..7 -> 0,0,1,1,..)
        ir.Store("rep", ir.Load(ir.Int(32, 8), "a", d),
                 ir.Div(ramp(i32(0), 8), ir.Broadcast(i32(2), 8))))
    rep = np.zeros(4, np.int32)
    run(loop(2, body), [("a", a, False), ("out", out, True), ("last", last, True),
                        ("rep", rep, True)])
    np.testing.assert_array_equal(out, a[::3][:16])
    assert last[0] == 15
    np.testing.assert_array_equal(rep, [9, 11, 13, 15])


def test_broadcast_load_and_vector_let():
    a = np.arange(4, dtype=np.float32)
    out = np.zeros((4, 8), np.float32)       # out[y, x] = a[y] + x
    _x, y = var("x"), var("y")
    v8 = F32.with_lanes(8)
    val = ir.Let("lx", ir.Cast(v8, ramp(i32(0), 8)),
                 ir.Add(ir.Load(v8, "a", ir.Broadcast(y, 8)), ir.Variable(v8, "lx")))
    body = ir.Store("out", val, ramp(ir.Mul(y, geom("out", "stride", 1)), 8))
    run(loop(4, body, "y"), [("a", a, False), ("out", out, True)])
    np.testing.assert_array_equal(out, a[:, None] + np.arange(8, dtype=np.float32)[None, :])


def reduce_ref(op, vals):
    acc = vals[0]
    for v in vals[1:]:
        if op == "add":
            acc = acc + v
        elif op == "mul":
            acc = acc * v
        elif op == "min":
            acc = acc if acc < v else v
        elif op == "max":
            acc = acc if acc > v else v
        elif op == "and":
            acc = acc & v
        elif op == "or":
            acc = acc | v
    return acc


@pytest.mark.parametrize("out_lanes", [1, 2, 4])
@pytest.mark.parametrize("op,dtype", [
    (op, dtype) for op in ("add", "mul", "min", "max", "and", "or")
    for dtype in ("int8", "uint16", "int32", "int64", "float32", "float64")
    if not (dtype.startswith("float") and op in ("and", "or"))])   # no bitwise float reduce
def test_vector_reduce(op, dtype, out_lanes):
    dt = np.dtype(dtype)
    rng = np.random.default_rng(7)
    n, lanes = 64, 8
    if dt.kind == "f":
        a = rng.standard_normal(n).astype(dt) * 1000
    else:
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    t = ir.Type.from_numpy(dt)
    out = np.zeros(n // lanes * out_lanes, dt)
    x = var("x")
    red = ir.VectorReduce(op, ir.Load(t.with_lanes(lanes), "a", ramp(ir.Mul(x, i32(lanes)), lanes)),
                          out_lanes)
    st = ramp(ir.Mul(x, i32(out_lanes)), out_lanes) if out_lanes > 1 else ir.Mul(x, i32(1))
    run(loop(n // lanes, ir.Store("out", red, st)), [("a", a, False), ("out", out, True)])
    f = lanes // out_lanes
    want = []
    with np.errstate(all="ignore"):
        for g in range(n // lanes):
            chunk = a[g * lanes:(g + 1) * lanes]
            for j in range(out_lanes):
                want.append(reduce_ref(op, list(chunk[j * f:(j + 1) * f])))
    want = np.array(want, dt)
    np.testing.assert_array_equal(out.view(f"u{dt.itemsize}"), want.view(f"u{dt.itemsize}"))


def test_float_reduce_is_ordered_without_reassoc():
    # 1e8 + 1 + 1 ... in order stays 1e8; any other order differs.
    vals = np.array([1e8] + [1.0] * 15, np.float32)
    out = np.zeros(1, np.float32)
    red = ir.VectorReduce("add", ir.Load(ir.Float(32, 16), "a", ramp(i32(0), 16)))
    run(ir.Store("out", red, i32(0)), [("a", vals, False), ("out", out, True)])
    acc = np.float32(0)
    for v in vals:
        acc = np.float32(acc + v)
    assert out[0] == acc == np.float32(1e8)


def test_bool_vector_reduce_and_vector_bool_store():
    a = np.array([1, 1, 1, 1, 0, 1, 1, 1] * 2, np.int32)
    out_all = np.zeros(2, np.bool_)
    out_mask = np.zeros(16, np.bool_)
    x = var("x")
    d = ramp(ir.Mul(x, i32(8)), 8)
    nz = ir.NE(ir.Load(ir.Int(32, 8), "a", d), ir.Broadcast(i32(0), 8))
    body = ir.block(ir.Store("all", ir.VectorReduce("and", nz), x), ir.Store("mask", nz, d))
    a[8:] = 1
    run(loop(2, body), [("a", a, False), ("all", out_all, True), ("mask", out_mask, True)])
    assert out_all.tolist() == [False, True]
    np.testing.assert_array_equal(out_mask, a != 0)
    assert set(out_mask.view(np.uint8).tolist()) <= {0, 1}


def _vector_stmt():
    x = var("x")
    d = ramp(ir.Mul(x, i32(8)), 8)
    v8 = F32.with_lanes(8)
    body = ir.Store("out", ir.Add(ir.Mul(ir.Load(v8, "a", d), c(v8, 3.0)), ir.Load(v8, "b", d)), d)
    n = ir.Div(geom("out", "extent"), i32(8))
    bufs = [BufferArg("a", F32, 1, False), BufferArg("b", F32, 1, False),
            BufferArg("out", F32, 1, True)]
    return loop(n, body), bufs


def test_vector_types_survive_with_llvm_vectorizers_off():
    stmt, bufs = _vector_stmt()
    opts = JitOptions(loop_vectorization=False, slp_vectorization=False)
    text = generate_text(stmt, "vec", bufs, [], stage="llvm_opt", options=opts)
    assert re.search(r"load <8 x float>", text)
    assert re.search(r"fmul <8 x float>", text)
    assert re.search(r"store <8 x float>", text)
    asm = generate_text(stmt, "vec", bufs, [], stage="asm", options=opts)
    assert "ymm" in asm or "zmm" in asm


def test_scalar_loop_not_vectorized_with_vectorizers_off():
    x = var("x")
    body = ir.Store("out", ir.Add(ir.Load(F32, "a", x), ir.Load(F32, "b", x)), x)
    stmt = loop(geom("out", "extent"), body)
    bufs = [BufferArg("a", F32, 1, False), BufferArg("b", F32, 1, False),
            BufferArg("out", F32, 1, True)]
    off = generate_text(stmt, "s", bufs, [], stage="llvm_opt",
                        options=JitOptions(loop_vectorization=False, slp_vectorization=False))
    on = generate_text(stmt, "s", bufs, [], stage="llvm_opt")
    assert "x float>" not in off
    assert "x float>" in on      # LLVM's loop vectorizer is on by default


def test_broadcast_of_a_vector_repeats_it():
    a = np.arange(4, dtype=np.int32)
    out = np.zeros(12, np.int32)
    v = ir.Load(ir.Int(32, 4), "a", ramp(i32(0), 4))
    run(ir.Store("out", ir.Broadcast(v, 12), ramp(i32(0), 12)), [("a", a, False), ("out", out, True)])
    np.testing.assert_array_equal(out, np.tile(a, 3))


def test_reassociated_float_reductions():
    # Sums of small integers are exact in any order: the reassociating
    # reduction must give the same answer, and the IR must carry `reassoc`.
    vals = np.arange(64, dtype=np.float32)
    out = np.zeros(4, np.float32)
    x = var("x")
    red = ir.VectorReduce("add", ir.Load(ir.Float(32, 16), "a", ramp(ir.Mul(x, i32(16)), 16)))
    stmt = loop(4, ir.Store("out", red, x))
    run(stmt, [("a", vals, False), ("out", out, True)], reassociate=True)
    np.testing.assert_array_equal(out, vals.reshape(4, 16).sum(axis=1))
    bufs = [BufferArg("a", F32, 1, False), BufferArg("out", F32, 1, True)]
    text = generate_text(stmt, "r", bufs, [], options=JitOptions(reassociate=True))
    assert "reassoc" in text
    assert "reassoc" not in generate_text(stmt, "r", bufs, [])
    mins = np.zeros(4, np.float32)
    red = ir.VectorReduce("min", ir.Load(ir.Float(32, 16), "a", ramp(ir.Mul(x, i32(16)), 16)))
    run(loop(4, ir.Store("out", red, x)), [("a", vals[::-1].copy(), False), ("out", mins, True)],
        reassociate=True)
    np.testing.assert_array_equal(mins, vals[::-1].reshape(4, 16).min(axis=1))


@pytest.mark.parametrize("stride", [2, 3, 4, -2, -3, -4, 5, -7])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "float64"])
def test_strided_loads(stride, dtype):
    lanes, n = 8, 4
    span = abs(stride) * (lanes - 1) + 1
    size = span + lanes * n
    a = (np.arange(size) % 7 == 3) if dtype == "bool" else np.arange(size).astype(dtype)
    out = np.zeros(lanes * n, a.dtype)
    t = ir.Type.from_numpy(a.dtype)
    x = var("x")
    base = ir.Add(x, i32(0 if stride > 0 else span - 1))
    body = ir.Store("out", ir.Load(t.with_lanes(lanes), "a", ir.Ramp(base, i32(stride), lanes)),
                    ramp(ir.Mul(x, i32(lanes)), lanes))
    run(loop(n, body), [("a", a, False), ("out", out, True)])
    want = [a[(0 if stride > 0 else span - 1) + xx + stride * i] for xx in range(n)
            for i in range(lanes)]
    np.testing.assert_array_equal(out, want)
