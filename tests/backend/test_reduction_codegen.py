"""Code generation of reduction loops: software prefetch of the streams a
loop only reads (codegen_ops.streaming_loop / prefetch)."""
import numpy as np

from pyhalide import ir
from pyhalide.lowering import codegen_ops as ops
from pyhalide.lowering.jit import generate_text
from pyhalide.lowering.runtime import BufferArg
from tests.backend.backend_util import compile_kernel, geom, i32, var

I32 = ir.Int(32)
V8 = ir.Int(32, 8)
# A CPU that prefetches every stream (on AMD Zen only loops with enough work per
# streamed vector are prefetched: codegen_ops.min_work_per_stream)
INTEL = "x86-64-avx2"


def vector_max(store_moves=False):
    """acc[0..8) = max over x of inp[8x .. 8x+8) (a streamed vector load),
    then out[0..8) = acc; with store_moves, each step also writes
    out[8x .. 8x+8) (a loop that stores a stream)."""
    x = var("x")
    at = ir.Ramp(i32(0), i32(1), 8)
    load = ir.Load(V8, "inp", ir.Ramp(ir.Mul(x, i32(8)), i32(1), 8))
    step = [ir.Store("acc", ir.Max(ir.Load(V8, "acc", at), load), at)]
    if store_moves:
        step.append(ir.Store("out", load, ir.Ramp(ir.Mul(x, i32(8)), i32(1), 8)))
    n = ir.Div(geom("inp", "extent"), i32(8))
    return ir.Allocate("acc", I32, (i32(8),), ir.block(
        ir.Store("acc", ir.Broadcast(ir.Const(I32, -2**31), 8), at),
        ir.For("x", i32(0), n, "serial", ir.block(*step)),
        ir.Store("out", ir.Load(V8, "acc", at), at)))


def test_streaming_loop():
    x, y, t = var("x"), var("y"), var("t")
    acc = ir.Store("acc", ir.Add(ir.Load(I32, "acc", i32(0)), ir.Load(I32, "a", x)), i32(0))
    assert ops.streaming_loop("x", acc)
    assert not ops.streaming_loop("x", ir.Store("out", i32(1), x))
    # through a let, and through an inner loop's variable
    assert not ops.streaming_loop("x", ir.LetStmt("t", ir.Add(x, i32(1)),
                                                  ir.Store("out", i32(1), t)))
    assert ops.streaming_loop("x", ir.LetStmt("t", i32(3), ir.Store("out", i32(1), t)))
    assert not ops.streaming_loop("x", ir.For("y", i32(0), i32(4), "serial",
                                              ir.Store("out", i32(1), y)))


def test_streamed_loads_are_prefetched_and_results_unchanged():
    bufs = [BufferArg("inp", I32, 1, False), BufferArg("out", I32, 1, True)]
    text = generate_text(vector_max(), "k", bufs, [], stage="llvm", target=INTEL)
    assert "llvm.prefetch" in text
    step = ops.PREFETCH_BYTES // 4
    assert f"i64 {step}" in text
    # a loop that also stores a stream is left alone
    assert "llvm.prefetch" not in generate_text(vector_max(True), "k", bufs, [], stage="llvm",
                                                  target=INTEL)
    for n in (8, 64, 8 * 1000):
        inp = np.random.default_rng(n).integers(-2**31, 2**31 - 1, n, dtype=np.int32)
        out = np.zeros(8, np.int32)
        k = compile_kernel(vector_max(), [("inp", inp, False), ("out", out, True)])
        k([inp, out], [])
        np.testing.assert_array_equal(out, inp.reshape(-1, 8).max(axis=0))


def test_reversed_stream_is_prefetched_behind():
    x = var("x")
    at = ir.Ramp(i32(0), i32(1), 8)
    top = ir.Sub(geom("inp", "extent"), i32(1))
    load = ir.Load(V8, "inp", ir.Ramp(ir.Sub(top, ir.Mul(x, i32(8))), i32(-1), 8))
    s = ir.Allocate("acc", I32, (i32(8),), ir.block(
        ir.Store("acc", ir.Broadcast(ir.Const(I32, 0), 8), at),
        ir.For("x", i32(0), ir.Div(geom("inp", "extent"), i32(8)), "serial",
               ir.Store("acc", ir.Add(ir.Load(V8, "acc", at), load), at)),
        ir.Store("out", ir.Load(V8, "acc", at), at)))
    bufs = [BufferArg("inp", I32, 1, False), BufferArg("out", I32, 1, True)]
    text = generate_text(s, "k", bufs, [], stage="llvm", target=INTEL)
    assert f"i64 -{ops.PREFETCH_BYTES // 4}" in text
    inp = np.arange(64, dtype=np.int32)
    out = np.zeros(8, np.int32)
    compile_kernel(s, [("inp", inp, False), ("out", out, True)])([inp, out], [])
    np.testing.assert_array_equal(out, inp[::-1].reshape(-1, 8).sum(axis=0))
